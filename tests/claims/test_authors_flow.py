"""The gradient-flow and authors'-scale SGD checks of claim `authors-experiment`
(claims/authors_experiment/flow.py), on an isotropic model at one L (cheap: one angular node):
verified as
computed, red under a plausible slip in the emitted gradient, and the SGD check red for an endpoint
off the flow's end."""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import pytest

from softlin.claims.authors_experiment import flow as af
from softlin.numerics import finite_risk as fr, kernels
from softlin.numerics.validate import BeyondReach

I5 = np.eye(5)
S2, TAU, L = 0.1, 0.2, 10


@lru_cache(maxsize=1)
def _curves():
    return {
        "L": [L],
        "softmax": [af.softmax_flow(fr.Model(I5, I5, TAU, S2), L)],
        "linear": [af.linear_flow(I5, I5, S2, TAU, L)],
        "t_end": af.T_END,
    }


def test_flow_checks_pass_on_the_computed_flows():
    checks = af.flow_checks(_curves()).checks
    assert [c.passed for c in checks] == [True, True], [(c.id, c.value) for c in checks]


def test_a_gradient_slip_moves_the_flow_off_the_optimum(monkeypatch):
    lin = _curves()["linear"]  # cached before the slip: the cache must hold the true flows
    good = kernels.finite_risk_integrand_grad_omega
    monkeypatch.setattr(
        kernels,
        "finite_risk_integrand_grad_omega",
        lambda mu, om, tau, s2, tr_p, k1, k2, A, B, dA, dB: good(
            mu, om, tau, s2, tr_p, k1, k2, A, B, dA / 2, dB / 2
        ),
    )
    c = {"L": [L], "softmax": [af.softmax_flow(fr.Model(I5, I5, TAU, S2), L)], "linear": lin}
    assert [ch.passed for ch in af.flow_checks(c).checks] == [False, False]


def test_the_gradient_check_sees_a_slip_in_dR_dmu(monkeypatch):
    """dR/dmu vanishes at the optimum for a rescaled formula too; the comparison at INIT catches
    it."""
    lin = _curves()["linear"]
    good = kernels.finite_risk_integrand_grad_mu
    monkeypatch.setattr(kernels, "finite_risk_integrand_grad_mu", lambda *a: 1.02 * good(*a))
    r = af.softmax_flow(fr.Model(I5, I5, TAU, S2), L)
    assert r["gradient_agreement"]["init"]["ratio"] > 1
    check = af.flow_checks({"L": [L], "softmax": [r], "linear": lin}).checks[0]
    assert check.passed is False and "INIT" in check.detail


def test_the_gradient_check_is_not_the_flows_own_field():
    """The judged ratio compares the gradient with the risk's own derivatives (reference ~0 at
    R*_L's optimum), not with the field the flow followed: at the computed flows it is far below 1,
    and its reference at the optimum is the risk's, not the gradient's."""
    r = _curves()["softmax"][0]
    at = r["gradient_agreement"]["optimum"]
    assert at["theta"] == [r["mu"], r["omega"]]
    assert abs(at["reference"][0]) < 1e-12 and abs(at["reference"][1]) < 1e-6
    assert max(a["ratio"] for a in r["gradient_agreement"].values()) < 0.1


def _long(delta):
    c = _curves()
    runs = {
        str(L): {
            "params": {m: list(np.add(c[m][0]["flow_end"], delta)) for m in ("softmax", "linear")},
            "gradient_covariance": {m: [[2.0, 0.5], [0.5, 1.0]] for m in ("softmax", "linear")},
            "grad_prompts": 1000,
        }
    }
    # the law it was run on: Toeplitz(0) = I_5 with this tau and s2 (the files written by
    # benchmarks/authors_long_sgd.py say Toeplitz(0.5))
    return {
        "setting": {
            "d": 5,
            "sigma": "Toeplitz(0)",
            "tau": TAU,
            "s2": S2,
            "generator": "correct",
            "lr": 1e-3,
            "batch": 128,
            "steps": 300000,
        },
        "runs": runs,
    }


@pytest.fixture
def reproduced(monkeypatch):
    """The synthetic archives here cannot be re-run (no sampler, no trajectory): the replay that
    ties an archive to today's code (tested in test_authors_archive_replay.py) is taken as agreeing,
    so these tests judge the noise-floor rule alone."""
    monkeypatch.setattr(
        af,
        "replay_first_points",
        lambda long_sgd, runs: {L: {"step": 1, "largest_difference": 0.0} for L in runs},
    )


def test_sgd_runs_made_for_another_scenario_are_not_judged_against_this_one(reproduced):
    """The committed runs were made on the default law; a user scenario's flows are another
    target. Another Sigma, s2, tau or generator: the check is kept, not judged, and names the file
    and why."""
    c, run = _curves(), _long((1e-4, -1e-4))
    assert af.sgd_check(c, run, I5, I5, S2, TAU).checks[0].judged
    for setting in (
        {"sigma": "Toeplitz(0.5)"},
        {"s2": 0.2},
        {"tau": 0.1},
        {"generator": "authors"},
        {"d": 4},
    ):
        other = {**run, "setting": {**run["setting"], **setting}}
        found = af.sgd_check(c, other, I5, I5, S2, TAU, "authors_long_sgd_x")
        (check,), quantities = found.checks, found.quantities
        assert (check.judged, check.passed, quantities) == (False, None, {}), setting
        assert "authors_long_sgd_x.json" in check.reason and "another law" in check.reason


def test_sgd_check_accepts_an_end_within_the_floor_and_refutes_one_beyond(reproduced):
    c = _curves()
    near = af.sgd_check(c, _long((1e-4, -1e-4)), I5, I5, S2, TAU)
    far = af.sgd_check(c, _long((0.2, -0.2)), I5, I5, S2, TAU)
    assert near.checks[0].passed is True and far.checks[0].passed is False
    assert all(
        v["mean_excess_floor"] > 0 for k, v in near.quantities.items() if not k.startswith("replay")
    )
    no_L = {**_long((1e-4, -1e-4)), "runs": {"7": _long((0, 0))["runs"][str(c["L"][0])]}}
    assert af.sgd_check(c, no_L, I5, I5, S2, TAU, "f").checks[0].judged is False


@pytest.mark.slow  # default-run budget (180 s): ~13 s of flow integration before the refusal
def test_an_anisotropic_law_whose_tables_leave_the_quadratures_reach_is_refused():
    """d = 3, eigenvalues 0.04 to 2.5, L = 10: the exact risk's moment tables reach q = 371, where
    the quadrature of numerics/selfnormalised no longer converges (halved steps differ by ~2e-4
    at q = 370, L = 10). The route refuses it as beyond its reach instead of judging the flow on
    such tables."""
    S = np.array([[0.5625, -0.375, -0.5], [-0.375, 0.3125, 0.375], [-0.5, 0.375, 2.25]])
    with pytest.raises(BeyondReach, match="beyond the exact quadrature's reach"):
        af.softmax_flow(fr.Model(S, S, 1 / 3, 0.0), 10)


def test_the_committed_long_sgd_runs_are_found_from_a_checkout():
    """authors-experiment judges the committed long-SGD runs (data/sgd): from a checkout they must
    be found, or the certificate silently loses its long-SGD checks (a wrong folder after a move
    made every one of them 'not judged')."""
    from pathlib import Path
    from softlin.claims.authors_experiment import flow

    repo = Path(__file__).resolve().parents[2]
    assert flow.LONG_SGD == repo / "data" / "sgd"
    assert len(flow.load_long_sgd()) >= 4


def test_each_committed_long_sgd_run_names_the_code_that_produced_it():
    """data/sgd holds inputs, not generated output: each run says which commit and which bytes of
    the sampler made it (benchmarks/authors_long_sgd.py writes it; the committed runs had it
    added)."""
    import re
    from softlin.claims.authors_experiment import flow

    for stem, result in flow.load_long_sgd().items():
        prov = result["provenance"]
        assert re.fullmatch(r"[0-9a-f]{40}", prov["source_commit"]), stem
        assert set(prov["code_sha256"]) == {
            "benchmarks/authors_long_sgd.py",
            "numerics/authors_sgd.py",
            "numerics/authors_sgd_fast.py",
        }, stem
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in prov["code_sha256"].values()), stem


def test_an_optimum_on_the_surfaces_boundary_is_named_not_judged():
    """d = 1, Sigma = 0.5, noise 0: the softmax optimum sits at |omega| = OMEGA_MAX, so the flow
    leaves the exact surface and its end is NaN. Such an L is named, not judged: the gradient
    check is undecided and the end check judges the linear flow only (a NaN end would refute)."""
    S = np.array([[0.5]])
    soft = af.softmax_flow(fr.Model(S, S, 1.0, 0.0), 4)
    assert soft["beyond_reach"] and math.isnan(soft["excess"])
    c = {"L": [4], "softmax": [soft], "linear": [af.linear_flow(S, S, 0.0, 1.0, 4)]}
    gradient, ends = af.flow_checks(c).checks
    assert gradient.passed is None and "L = [4]" in gradient.detail
    assert ends.passed is True and "no softmax L judged" in ends.detail


def test_the_flow_ends_stated_error_includes_the_gap_between_the_two_gradient_rules():
    """The flow follows the cheaper rule (flow_value): its end is a zero of that field, not of the
    judged gradient, so the stated error at the end is the judged gradient's own error plus the
    rules' difference there (for a strongly anisotropic Sigma, d = 3, the judged gradient is several
    of its own stated errors from 0 at a converged end)."""
    from softlin.numerics import finite_risk_gradient as fg

    r = _curves()["softmax"][0]
    gs = fg.GradientSurface(r["surface"])
    g = gs.gradient(*r["flow_end"])
    gap = np.abs(g.value - np.asarray(gs.flow_value(*r["flow_end"])))
    assert np.all(gap > 0)
    assert r["gradient_error"] == pytest.approx((g.error + gap).tolist(), rel=1e-12)
