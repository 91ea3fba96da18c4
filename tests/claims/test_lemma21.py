"""Claim lemma-2.1: verified on its scenario and on random admissible ones; its controls bite;
plausible wrong formulas are refuted."""

import math

import numpy as np
import pytest
from hypothesis import given, settings

from softlin.claims.shared import rationals as exact
from softlin.core import scenario
from softlin.claims.shared import limit_battery as battery
from softlin.claims.lemma_2_1 import claim as lemma21
from softlin.claims.shared.gaussian_subject import gaussian_subject
from softlin.claims.shared.limit_battery import REQUIRED_POWER, control_check
from softlin import certio
from softlin.core.claim import claim_rng
from softlin.core.findings import Findings
from softlin.numerics import kernels
from softlin.numerics.laws import GaussianLaw

from ..strategies import gaussian_setups
from ..checks import check


def _run(overrides=None, **kwargs):
    s = scenario.merge(lemma21.default_scenario(), overrides or {}, lemma21.SCENARIO_KEYS)
    return lemma21.run(s, "quick", claim_rng(s["seed"], "lemma-2.1"), **kwargs)


def _checks(cert, kind=None):
    return [c for c in cert["checks"] if kind is None or c["kind"] == kind]


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
def test_default_scenario_is_verified_with_every_control_refuted_by_monte_carlo_alone():
    cert = _run()
    assert cert["status"] == "verified", [c for c in cert["checks"] if c["passed"] is not True]
    controls = _checks(cert, "control")
    assert len(controls) == 4 and all(c["passed"] is True for c in controls)
    summaries = cert["quantities"]["controls"]
    assert all(
        v["statistical"] and "montecarlo:numerator" in v["refuted_by"] for v in summaries.values()
    )
    assert all(v["power"] >= REQUIRED_POWER for v in summaries.values())
    assert cert["quantities"]["controls_miss_probability"] <= 4e-3
    assert cert["false_alarm"]["bound"] + cert["false_alarm"]["nominal"] <= 3e-6
    assert cert["quantities"]["rank_cov"] == 2


def test_transposed_interaction_matrix_is_refuted():
    """Sensitivity: V (m + Gamma U^T z) is a plausible slip; U is non-symmetric in the scenario."""

    def wrong(Z, s=scenario.common(lemma21.default_scenario())):
        return (s["V"] @ (s["mean"][:, None] + s["cov"] @ s["U"].T @ np.atleast_2d(Z).T)).T

    cert = _run(kernel=wrong)
    assert cert["status"] == "refuted"
    failed = [c["id"] for c in cert["checks"] if c["passed"] is False]
    assert {"lemma-2.1/battery/kernel-float64", "lemma-2.1/battery/numerator-zero-mean"} <= set(
        failed
    )


# default-run budget (180 s): ~11 s; the default scenario's controls are refuted by Monte Carlo
# alone in the default run
@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_dropped_covariance_factor_is_refuted_by_monte_carlo_alone():
    """Sensitivity: V (m + U z) (Gamma dropped). The Monte Carlo unbiased-numerator test must catch
    it by itself, not only the quadrature comparison."""

    def wrong(Z, s=scenario.common(lemma21.default_scenario())):
        return (s["V"] @ (s["mean"][:, None] + s["U"] @ np.atleast_2d(Z).T)).T

    cert = _run(kernel=wrong)
    assert check(cert, battery.NUMERATOR_ID)["passed"] is False
    assert cert["status"] == "refuted"


def test_a_doubled_tilt_in_the_kernel_is_refuted_by_monte_carlo(monkeypatch):
    """Sensitivity (monkeypatched emitted kernel): V (m + 2 Gamma U z), a normaliser without its
    1/2."""
    from softlin.numerics import limits

    real = limits.kernels.gaussian_limit
    monkeypatch.setattr(
        limits.kernels, "gaussian_limit", lambda m, G, U, V, z: real(m, 2 * G, U, V, z)
    )
    cert = _run()
    assert cert["status"] == "refuted"
    assert check(cert, battery.NUMERATOR_ID)["passed"] is False


def test_a_limit_off_by_a_constant_is_refuted_by_the_exact_mse_although_its_error_decreases(
    monkeypatch,
):
    """A wrong limit V (m + Gamma U z) + 0.1: the Monte Carlo error about it still decreases
    in L (the offset cancels in the differences), but its MSE sits 0.1^2 k above the exact finite-L
    MSE."""
    from softlin.numerics import limits

    real = limits.kernels.gaussian_limit
    monkeypatch.setattr(
        limits.kernels, "gaussian_limit", lambda m, G, U, V, z: real(m, G, U, V, z) + 0.1
    )
    cert = _run()
    assert check(cert, "battery/mse-decreases")["passed"] is True
    assert check(cert, "battery/mse-exact")["passed"] is False and cert["status"] == "refuted"


def test_a_sampler_residual_not_projected_is_refuted_by_the_exact_mse(monkeypatch):
    """The conditional sampler's residual drawn without I - W W^T: every mean is right (the residual
    has mean 0), so only the size of the error, against the exact finite-L MSE, shows it."""
    from softlin.numerics import conditional_sampler

    monkeypatch.setattr(conditional_sampler, "project_off", lambda W, xi: xi)
    cert = _run()
    assert check(cert, "battery/mse-exact")["passed"] is False and cert["status"] == "refuted"
    assert check(cert, battery.NUMERATOR_ID)["passed"] is True


def test_wrong_exact_formula_is_refuted_at_40_digits():
    """Sensitivity: a formula off by a relative 1e-20 survives float64 but not the 40-digit
    check."""

    def nearly(m, cov, U, V, z):
        return [x * (1 + 1e-20) for x in exact.gaussian_limit(m, cov, U, V, z)]

    cert = _run(exact_formula=nearly)
    assert cert["status"] == "refuted"
    assert check(cert, "battery/limit-40-digits")["passed"] is False


def _battery_result(numerator_passed, quadrature_passed, power):
    from softlin.judge import kinds, levels

    checks = [
        kinds.agreement(
            "c: derived formula at 40 digits",
            "quadrature",
            id="battery/limit-40-digits",
            error=0.0 if quadrature_passed else 1.0,
            tolerance=1e-25,
        ),
        # the numerator test: its largest Catoni ratio, refuting above 1
        kinds.verdict(
            "c: E[e^(s-c) (V z' - T(z))] = 0 at every L (Monte Carlo)",
            "montecarlo",
            id=battery.NUMERATOR_ID,
            unit="ratio",
            value=0.5 if numerator_passed else 2.0,
            bound=1.0,
            rule="value <= bound",
            false_alarm=levels.proven(1e-6, levels.CATONI),
        ),
    ]
    return battery.Battery(
        Findings(checks), np.zeros((1, 1)), np.zeros((1, 1)), {"power": power, "delta": 9.0}, 400
    )


def test_a_control_refuted_only_by_the_exact_comparisons_does_not_count():
    """The 40-digit check refutes every different closed form: it says nothing about the Monte
    Carlo test's power, so a control it alone refutes fails (power high); a control whose power is
    low is not judged, refuted or not: kept with its power as the reason, out of the verdict."""
    assert control_check(_battery_result(True, False, 0.9999), "dummy", "dummy").passed is False
    for low in (
        control_check(_battery_result(True, False, 0.5), "dummy", "dummy"),
        control_check(_battery_result(False, True, 0.5), "dummy", "dummy"),
    ):
        assert (low.judged, low.passed) == (
            False,
            None,
        ) and "planned power 0.500000 below 0.999" in low.reason
    assert control_check(_battery_result(False, True, 0.9999), "dummy", "dummy").passed is True
    assert control_check(_battery_result(True, True, 0.9999), "dummy", "dummy").passed is False


def test_given_query_reports_limit_and_quadrature_limit():
    cert = _run({"query": [0.5, -1.0, 0.25]})
    q = cert["quantities"]
    s = scenario.common(lemma21.default_scenario())
    expected = s["V"] @ (s["mean"] + s["cov"] @ s["U"] @ np.array([0.5, -1.0, 0.25]))
    np.testing.assert_allclose(q["limit"], expected, rtol=1e-14)
    np.testing.assert_allclose(q["quadrature_limit"], q["limit"], rtol=1e-12)


# CI's `softlin verify --check` re-runs every certificate; here seed sensitivity too
@pytest.mark.slow
def test_same_seed_gives_byte_identical_certificates():
    assert certio.dumps(_run()) == certio.dumps(_run())
    assert certio.dumps(_run({"seed": 1})) != certio.dumps(_run())


@pytest.mark.slow  # ~9 s; the default scenario and the doubled tilt stay in the default run
@settings(max_examples=3)
@given(gaussian_setups(tilt=0.8))
def test_random_admissible_gaussian_scenarios_are_verified(setup):
    m, cov, U, V, _, seed = setup
    d = len(m)
    cert = _run(
        {
            "d": d,
            "mean": m.tolist(),
            "cov": cov.tolist(),
            "U": U.tolist(),
            "V": V.tolist(),
            "query_cov": np.eye(d).tolist(),
            "seed": seed % 1000,
            "trials": 1200,
            "L": [32, 128, 512],
        }
    )
    assert cert["status"] == "verified", [
        (c["id"], c["value"]) for c in cert["checks"] if c["passed"] is not True
    ]


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        ({"colour": 3}, "unknown scenario key 'colour'"),
        ({"L": [0, 16]}, "L = [0, 16] must be a strictly increasing list of integers >= 1"),
        ({"cov": [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}, "not positive semidefinite"),
        ({"cov": [[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]}, "not symmetric"),
        ({"V": [[1.0, 0.0]]}, "V must have shape"),
        ({"mean": [0.0, float("nan"), 0.0]}, "NaN"),
        ({"mixture": {"weights": [1.0]}}, "unknown scenario table"),
        ({"delta": 1.5}, "delta"),
    ],
)
def test_bad_scenarios_raise_value_errors_naming_the_value(overrides, fragment):
    with pytest.raises(ValueError, match=fragment.replace("[", r"\[").replace("(", r"\(")):
        _run(overrides)


def test_kernel_is_what_the_claim_evaluates():
    s = scenario.common(lemma21.default_scenario())
    z = np.array([[0.3, 0.2, -0.1]]).T
    np.testing.assert_allclose(
        kernels.gaussian_limit(s["mean"][:, None], s["cov"], s["U"], s["V"], z)[:, 0],
        [float(x) for x in exact.gaussian_limit(s["mean"], s["cov"], s["U"], s["V"], z[:, 0])],
        rtol=1e-14,
    )


def test_planned_noncentrality_matches_the_simulated_numerator_statistic():
    """The control's power rests on delta = sqrt(n L) |E X| / sd(X) (battery.numerator_power, from
    the derived moments). Simulated: the numerator z-statistic of the battery, over 40 independent
    runs, averages delta within its Monte Carlo error (a delta off by sqrt(L), or by sqrt(n L), is
    caught)."""
    from softlin.claims.shared import limit_battery as battery

    m, cov, U, V = np.array([0.2]), np.array([[1.0]]), np.array([[0.5]]), np.array([[1.0]])
    subject = gaussian_subject("c", GaussianLaw(m, cov), m, cov, U, V, slip=(m, 1.2 * cov, U))
    queries, budget = np.array([[0.8]]), battery.Budget((8,), 400, 1e-3, 1)
    delta = battery.numerator_power(subject, queries, budget)["delta"]
    rng = np.random.default_rng(5)
    zs = np.array(
        [
            abs(
                battery.montecarlo_checks(subject, queries, U, V, budget, rng).series[
                    "numerator_z"
                ][0][0][0]
            )
            for _ in range(40)
        ]
    )
    # the mean of 40 studentised means: its standard error is sd(z) / sqrt(40); 5 of them is a
    # two-sided false alarm below 1e-6 (the seed is fixed: the test is deterministic)
    assert 3.0 < delta < 5.0
    assert abs(zs.mean() - delta) <= 5 * zs.std(ddof=1) / math.sqrt(len(zs)), (zs.mean(), delta)


def test_the_exact_mse_of_a_point_mass_is_judged_exactly_not_divided_by_zero():
    """No spread (standard error 0): an MSE of rounding size passes, a wrong limit's 1e-3
    refutes."""
    subject = gaussian_subject(
        "point mass",
        GaussianLaw([1.0], [[0.0]]),
        np.array([1.0]),
        np.zeros((1, 1)),
        np.eye(1),
        np.eye(1),
    )
    budget = battery.Budget((4, 8), 100, 0.01, 1)
    series = {"mse": [1e-33, 0.0], "mse_stderr": [0.0, 0.0], "exact_mse": [0.0, 0.0]}
    assert battery.exact_mse_check(subject, series, budget, 1.0).passed is True
    series["mse"] = [1e-3, 1e-3]
    assert battery.exact_mse_check(subject, series, budget, 1.0).passed is False


def test_a_scenario_with_one_prompt_length_is_verified_through_the_cli(tmp_path, capsys):
    """A user scenario with a single L: the decrease in L has nothing to compare, so it is kept
    not judged with that reason (its NaN statistic had left every such run undecided, the claim
    inconclusive: every lemma-2.1 run of softlin hunt --seed 11)."""
    import json

    from softlin.cli import main

    path = tmp_path / "one-l.toml"
    path.write_text("L = [64]\ntrials = 400\n")
    out = tmp_path / "out"
    code = main(
        ["verify", "lemma-2.1", "--profile", "quick", "--scenario", str(path), "--out", str(out)]
    )
    capsys.readouterr()
    cert = json.loads((out / "certificates" / "lemma-2.1.json").read_text())
    (decrease,) = [c for c in cert["checks"] if c["id"].endswith("battery/mse-decreases")]
    assert decrease["judged"] is False and "one prompt length" in decrease["reason"]
    assert code == 0 and cert["status"] == "verified", [
        (c["id"], c["passed"]) for c in cert["checks"] if c["passed"] is not True
    ]
