"""Claims thm-5.2, thm-4.3 and finite-prompt-risk: derivations, flows, training and the scalar-model
risk, with Hypothesis properties, negative controls and sensitivity tests."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from softlin.claims.shared import icl as icl_common
from softlin.claims.thm_5_2 import claim as thm52
from softlin.claims.thm_5_2 import endpoint as thm52_endpoint, flows as thm52_flows
from softlin.claims.finite_prompt_risk import claim as fpr
from softlin.claims.thm_4_3 import claim as thm43
from softlin.core.claim import claim_rng
from softlin.derivations import icl_endpoint, icl_risk
from softlin.numerics import icl_flows, icl_training, kernels, scalar_risk as sr

from softlin.numerics.validate import BeyondReach

from ..strategies import seeds
from ..checks import check


def _spd(seed, d, cond, norm):
    return thm52_flows.random_spd(np.random.default_rng(seed), d, cond, norm)


@given(
    seed=seeds,
    d=st.integers(1, 3),
    log_cond=st.floats(0, 2),
    log_norm=st.floats(-1, 1),
    frac=st.floats(0.05, 3.0),
)
@settings(max_examples=6)
def test_balanced_flow_conserves_and_reaches_the_bayes_endpoint(seed, d, log_cond, log_norm, frac):
    S = _spd(seed, d, 10**log_cond if d > 1 else 1.0, 10**log_norm)
    r = thm52_flows.flow_run(S, frac * icl_flows.paper_alpha_bound(S))
    # Independent route for the endpoint: closed form A* = Sigma^-1 / b*, b*^4 = tr(Sigma^-2) via
    # eigenvalues.
    lam = np.linalg.eigvalsh(S)
    b_star = float(np.sum(lam**-2.0)) ** 0.25
    assert abs(r["b"] - b_star) <= thm52_flows.ODE_RELATIVE_TOLERANCE * r["scale"]
    assert r["A_err"] <= thm52_flows.ODE_RELATIVE_TOLERANCE * r["scale"]
    assert r["rel_drift"] <= thm52_flows.ODE_RELATIVE_TOLERANCE
    assert kernels.icl_risk(S, r["A"], r["b"]) <= 1e-10 * max(1.0, float(np.trace(S)))


@given(seed=seeds)
@settings(max_examples=4)
def test_endpoint_has_zero_risk_exactly_for_random_rational_sigma(seed):
    S = thm52_endpoint.random_rational_spd(np.random.default_rng(seed), 2)
    A, b = icl_endpoint.endpoint(S)
    assert sp.simplify(icl_risk.paper_risk(S, A, b)) == 0
    assert sp.simplify(sum(x**2 for x in A) - b**2) == 0


def test_endpoint_with_sigma_instead_of_its_inverse_has_positive_risk():
    """Sensitivity: A = tr(Sigma^2)^(-1/4) Sigma is a plausible slip; exact risk must be > 0."""
    S = sp.Matrix([[2, 1], [1, 3]]) / 3
    t = (S * S).trace()
    assert (
        sp.simplify(icl_risk.paper_risk(S, t ** sp.Rational(-1, 4) * S, t ** sp.Rational(1, 4))) > 0
    )


# ~30 s end to end; the same slip is caught exactly by the test above in the default run
@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_wrong_endpoint_formula_refutes_the_claim():
    def wrong(S):
        t = (S * S).trace()
        return t ** sp.Rational(-1, 4) * S, t ** sp.Rational(1, 4)

    s = icl_common.default_scenario()
    s["icl"]["L"] = [10, 20]
    cert = thm52.run(s, "quick", claim_rng(0, "thm-5.2"), endpoint_formula=wrong)
    assert cert["status"] == "refuted"
    assert check(cert, "endpoint/exact")["passed"] is False


def test_unbalanced_start_breaks_balance_and_misses_the_endpoint():
    """Negative control: ||A||^2 - b^2 is conserved at its (non-zero) initial value, so the limit is
    not (A*, b*)."""
    S = np.array([[1.0, 0.2], [0.2, 0.6]])
    A0, b0 = icl_flows.balanced_init(S, 0.5)
    r = icl_flows.integrate_ab(S, A0 + np.eye(2), b0, 40 / icl_flows.transverse_rate(S) + 50)
    As, bs = icl_flows.endpoint(S)
    assert abs(r["invariant"][0]) > 0.5 and r["invariant_drift"] < 1e-8
    assert np.abs(r["A"] - As).max() > 1e-3
    assert kernels.icl_risk(S, r["A"], r["b"]) < 1e-10  # still a minimiser, just another one


def test_full_flow_keeps_untrained_blocks_at_zero_and_matches_the_ab_flow():
    S = np.array([[1.6, 0.3], [0.3, 0.5]])
    A0, b0 = icl_flows.balanced_init(S, 0.5)
    z = np.zeros((2, 1))
    full = icl_flows.integrate_full(S, A0, z, z, b0, 30.0)
    ab = icl_flows.integrate_ab(S, A0, b0, 30.0)
    assert full["max_offblock"] == 0.0
    assert np.abs(full["A"] - ab["A"]).max() < 1e-8


def test_a_flow_beyond_its_budget_is_beyond_reach_not_a_hang():
    """Sigma = diag(1, 1e-4) needs about 3.3e5 field evaluations (numerics/icl_flows.py,
    MAX_EVALUATIONS); with a budget of 2000 both flows stop with BeyondReach naming the condition
    number, and within the budget the same flow reaches the endpoint."""
    S = np.diag([1.0, 1e-4])
    A0, b0 = icl_flows.balanced_init(S, 0.5)
    T = 40 / icl_flows.transverse_rate(S) + 50
    with pytest.raises(BeyondReach, match=r"2,000 field evaluations.*condition number 1e\+04"):
        icl_flows.integrate_ab(S, A0, b0, T, evaluations=2000)
    z = np.zeros((2, 1))
    with pytest.raises(BeyondReach, match="full .U, V. gradient flow spent its 2,000"):
        icl_flows.integrate_full(S, A0, z, z, b0, T, evaluations=2000)
    S = np.diag([1.0, 0.1])
    r = icl_flows.integrate_ab(S, A0, b0, 40 / icl_flows.transverse_rate(S) + 50)
    assert r["nfev"] < icl_flows.MAX_EVALUATIONS
    assert abs(r["b"] - icl_flows.endpoint(S)[1]) < 1e-8


STIFF_SCENARIO = """seed = 37

[icl]
sigma = [
    [5.960464477539063e-08, -5.960464477539063e-08],
    [-5.960464477539063e-08, 0.2500000596046448],
]
alpha = 1.625
noise = 0.0
L = [4, 8, 32]
eps = [0.1, 0.03]
"""


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_a_stiff_hunt_scenario_ends_beyond_reach_through_the_cli(tmp_path, capsys):
    """`softlin hunt thm-5.2 --seed 37` drew this valid scenario (Sigma's condition number 4.2e6);
    its flow ran in Radau for hours. Through the TOML loader and the CLI it now ends in
    BeyondReach (exit 2, about 35 s), naming the condition number, and writes no certificate."""
    from softlin.cli import main

    path = tmp_path / "stiff.toml"
    path.write_text(STIFF_SCENARIO)
    out = tmp_path / "out"
    code = main(
        ["verify", "thm-5.2", "--profile", "quick", "--scenario", str(path), "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "spent its 500,000 field evaluations" in err and "condition number 4.19e+06" in err
    assert not (out / "certificates" / "thm-5.2.json").exists()


def test_prompt_sample_gradient_matches_central_differences():
    S = np.array([[1.0, 0.3], [0.3, 0.7]])
    smp = icl_training.PromptSample(S, 20, 50, np.random.default_rng(3))
    A, b = np.array([[0.3, 0.1], [-0.2, 0.5]]), 0.8
    _, gA, gb = smp.risk_and_grad(A, b)
    h = 1e-6  # central differences: error O(h^2 * third derivative) ~ 1e-12, far below 1e-7
    for i in range(2):
        for j in range(2):
            E = np.zeros((2, 2))
            E[i, j] = h
            fd = (smp.risk_and_grad(A + E, b)[0] - smp.risk_and_grad(A - E, b)[0]) / (2 * h)
            assert abs(fd - gA[i, j]) < 1e-7
    assert (
        abs((smp.risk_and_grad(A, b + h)[0] - smp.risk_and_grad(A, b - h)[0]) / (2 * h) - gb) < 1e-7
    )


def test_hessian_bound_dominates_sampled_hessians():
    S = np.array([[1.6, 0.3], [0.3, 0.5]])
    rng = np.random.default_rng(0)
    r = 2.0
    beta = icl_training.hessian_bound(S, r)

    def grad(x):
        A, b = x[:4].reshape(2, 2), x[4]
        return np.concatenate(
            [kernels.icl_grad_A(S, A, b).ravel(), [float(kernels.icl_grad_b(S, A, b))]]
        )

    for _ in range(20):
        x = rng.standard_normal(5)
        x *= r * rng.uniform() / np.linalg.norm(x)
        H = np.array([(grad(x + 1e-5 * e) - grad(x - 1e-5 * e)) / 2e-5 for e in np.eye(5)])
        assert np.linalg.norm((H + H.T) / 2, 2) <= beta


@pytest.mark.parametrize(
    "bad",
    [
        {"icl": {"sigma": [[1.0, 2.0], [2.0, 1.0]], "alpha": 0.5, "L": [10]}},
        {"icl": {"sigma": [[1.0]], "alpha": -1.0, "L": [10]}},
        {"icl": {"sigma": [[1.0]], "alpha": 0.5, "L": [10, 5]}},
        {"icl": {"sigma": [[1.0]], "alpha": 0.5, "L": [10], "noise": 0.1}},
    ],
)
def test_bad_icl_scenarios_raise_value_errors(bad):
    with pytest.raises(ValueError):
        icl_common.validate({"seed": 0, **bad})


def test_erratum_3_witness_is_inside_the_paper_range_but_violates_the_cited_condition():
    S = np.array([[0.25]])
    assert 4.0 < icl_flows.paper_alpha_bound(S)
    assert not 4.0 < icl_flows.zfb_alpha_bound(S)


# ---------------------------------------------------------------------------------------------
# finite-prompt-risk


@given(mu=st.floats(-3, 3), omega=st.floats(-0.45, 0.45), d=st.integers(1, 6), s2=st.floats(0, 1))
@settings(max_examples=8)
def test_exact_coefficient_matches_independent_quadrature(mu, omega, d, s2):
    C1 = sr.first_order([mu], [omega], d, s2)
    assert abs(
        C1 - fpr.quadrature_first_order(np.array([mu]), np.array([omega]), d, s2)
    ) <= 1e-9 * max(1.0, abs(C1))


def test_heuristic_is_the_small_omega_limit_without_the_cross_term():
    # At mu.omega = 1 (no cross term) and tiny omega both coefficients tend to (1 + s2) mu^2.
    C1 = sr.first_order([1e3], [1e-3], 5, 0.1)
    assert abs(C1 / sr.heuristic([1e3], [1e-3], 5, 0.1) - 1) < 1e-2


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
def test_default_scalar_scenario_verified_and_heuristic_refuted():
    cert = fpr.run(fpr.default_scenario(), "quick", claim_rng(0, "finite-prompt-risk"))
    assert cert["status"] == "verified"
    controls = [c for c in cert["checks"] if c["kind"] == "control"]
    # the heuristic 1/L coefficient and the first-order risk at finite L: both refuted by Monte
    # Carlo
    assert [c["passed"] for c in controls] == [True, True], controls
    assert all(c["value"] > c["bound"] for c in controls)
    q = cert["quantities"]
    assert set(q) >= {
        "infinite_risk",
        "first_order_coefficient",
        "heuristic_coefficient",
        "mc_risk",
    }
    # the exact finite-L section (claims/finite_prompt_risk/exact.py): one value per evaluation
    # point
    for key in ("exact_risk", "exact_risk_error", "mc_risk", "mc_risk_stderr"):
        assert len(q[key]) == len(q["points"])
    assert q["exact_risk"][0] == pytest.approx(
        2.2, rel=1e-8
    )  # L = 1: tr(I)/d + s2 + mu^2 (1 + s2), mu = -1
    assert len(q["optimum_curve"]["L"]) == 4


# default-run budget (180 s): ~25 s; the default run keeps the heuristic-refuted and endpoint
# sensitivity tests
@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_dropping_the_cross_term_is_caught_by_monte_carlo():
    """Sensitivity: C1 without 2 (1 - mu.omega) sum mu_h bias(omega_h) (here mu.omega = 0.5)."""

    def no_cross(mu, omega, d, s2):
        return float(mu @ kernels.scalar_pair_term(np.outer(omega, omega), d, s2) @ mu)

    cert = fpr.run(
        fpr.default_scenario(), "quick", claim_rng(0, "finite-prompt-risk"), coefficient=no_cross
    )
    mc = [c for c in cert["checks"] if c["kind"] == "montecarlo"]
    assert mc[0]["passed"] is False


def test_bad_scalar_scenarios_raise_value_errors():
    for bad in ({"d": 0}, {"omega": [0.8]}, {"L": [10]}, {"noise": -1.0}, {"mu": [1.0, 2.0]}):
        s = fpr.default_scenario()
        s["scalar"] = {**s["scalar"], **bad}
        with pytest.raises(ValueError):
            fpr.validate(s)


@pytest.mark.slow  # default-run budget (180 s): CI's verify --check re-runs both claims at standard
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_icl_claims_verified_on_quick_profile():
    s = icl_common.default_scenario()
    certs = {claim.ID: claim.run(s, "quick", claim_rng(0, claim.ID)) for claim in (thm52, thm43)}
    for cert in certs.values():
        assert cert["status"] == "verified", [c for c in cert["checks"] if c["passed"] is not True]
    assert set(certs["thm-5.2"]["quantities"]) >= {
        "endpoint_b",
        "endpoint_A_max_error",
        "invariant_drift",
        "max_offblock",
        "time_to_risk",
        "L_eps",
    }


def test_l_eps_inverts_an_exact_power_law():
    """risk = C L^-p exactly (C = 2, p = 0.7): L(eps) = (C / eps)^(1/p), whatever the weights."""
    Ls = [10.0, 30.0, 100.0, 300.0]
    result = {
        "L": Ls,
        "risk": [2.0 * L**-0.7 for L in Ls],
        "risk_stderr": [0.01 * 2.0 * L**-0.7 for L in Ls],
    }
    point, _ = icl_common.L_eps(result, [0.1, 0.03])
    for eps in (0.1, 0.03):
        assert point[eps] == pytest.approx((2.0 / eps) ** (1 / 0.7), rel=1e-9)
