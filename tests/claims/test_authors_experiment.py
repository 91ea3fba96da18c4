"""Claim authors-experiment (docs/paper.md section 6, erratum 5): the derived risks against
independent routes, the SGD gradients, the samplers, the checks' power (sensitivity) and the
negative controls."""

import math
import re

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings, strategies as st

from softlin.claims.authors_experiment import checks as authors_checks
from softlin.claims.authors_experiment import claim as ae
from softlin.core.claim import claim_rng
from softlin.derivations import authors_experiment as ae_d, authors_gradients as ag_d
from softlin.judge import kinds as judge
from softlin.numerics import authors_sgd as sgd, kernels
from softlin.render import figures

from ..strategies import seeds
from ..checks import checks

SIGMA = np.array(ae.toeplitz(5, 0.5))
# A small run for the default test suite: short prompts, few steps (about 10 s). The approach
# checks need L_max = 1000 and more steps: they are exercised by the slow test below.
SMALL = {"seed": 0, "icl": {"sigma": ae.toeplitz(5, 0.5), "noise": 0.1, "L": [10, 40, 160]}}
SMALL_PLAN = {"steps": 1500, "test": 20000, "fit": 2000}


def _checks(cert, prefix):
    return checks(cert, prefix)


# ---------------------------------------------------------------------------------------------
# Derivation against independent routes


def _direct_linear_risk(Bp, Bq, mu, omega, s2, tau, L):
    """Second route, exact in SymPy: the risk of yhat = mu omega mean_i (x_i^T x_q) y_i with
    x_i = Bp g_i, x_q = Bq h in the original (non-eigen) coordinates, expanded in the standard
    normal coordinates g, h, b, e; no rotation, no trace rewriting."""
    d = Bp.shape[0]
    g1, g2, h, b = (sp.symbols(f"{n}1:{d + 1}", real=True) for n in ("ga", "gb", "h", "b"))
    e1, e2, eq = sp.symbols("e1 e2 eq", real=True)
    x1, x2, q = Bp * sp.Matrix(g1), Bp * sp.Matrix(g2), Bq * sp.Matrix(h)
    beta = sp.sqrt(tau) * sp.Matrix(b)
    y1 = (beta.T * x1)[0] + sp.sqrt(s2) * e1
    y2 = (beta.T * x2)[0] + sp.sqrt(s2) * e2
    yq = (beta.T * q)[0] + sp.sqrt(s2) * eq
    a1, a2 = (x1.T * q)[0] * y1, (x2.T * q)[0] * y2
    p = mu * omega
    E = lambda expr: ae_d.gaussian_expectation(expr, g1 + g2 + h + b + (e1, e2, eq))
    return (
        E(yq**2) - 2 * p * E(yq * a1) + p**2 * (E(a1**2) / L + (1 - sp.Rational(1, L)) * E(a1 * a2))
    )


@st.composite
def rational_roots(draw):
    d = draw(st.integers(1, 2))
    entry = st.fractions(min_value=-2, max_value=2, max_denominator=4)
    B = sp.Matrix(d, d, lambda i, j: sp.Rational(draw(entry)) if i >= j else 0)
    B += sp.eye(d) * sp.Rational(1, 2) if B.det() == 0 else sp.zeros(d, d)
    authors = draw(st.booleans())
    return B, authors


@given(
    setup=rational_roots(),
    mu=st.fractions(-2, 2, max_denominator=5),
    omega=st.fractions(-2, 2, max_denominator=5),
    L=st.integers(1, 50),
)
@settings(max_examples=6)
def test_emitted_linear_risk_equals_a_direct_expectation_in_the_original_coordinates(
    setup, mu, omega, L
):
    B, authors = setup
    d = B.shape[0]
    # Correct generator: prompt and query both B g. Authors': prompt B B g, query g.
    Bp, Bq = (B * B, sp.eye(d)) if authors else (B, B)
    s2, tau = sp.Rational(1, 10), sp.Rational(1, d)
    direct = _direct_linear_risk(Bp, Bq, sp.Rational(mu), sp.Rational(omega), s2, tau, L)
    Sp, Sq = (np.array((M * M.T).tolist(), dtype=float) for M in (Bp, Bq))
    emitted = float(kernels.authors_linear_risk(Sp, Sq, float(mu), float(omega), 0.1, 1.0 / d, L))
    assert abs(emitted - float(direct)) <= 1e-12 * max(1.0, abs(float(direct)))


def test_infinite_optimum_is_the_minimum_of_the_emitted_infinite_risk():
    Sp, Sq = sgd.covariances(SIGMA, "correct")
    p_star, R_star = np.asarray(kernels.authors_infinite_optimum(Sp, Sq, 0.1, 0.2)).ravel()
    grid = np.linspace(0, 1.5, 30001)
    values = [kernels.authors_infinite_risk(Sp, Sq, p, 1.0, 0.1, 0.2) for p in grid]
    assert abs(min(values) - R_star) < 1e-8 and abs(grid[int(np.argmin(values))] - p_star) < 1e-4
    # The optimum of the exact finite-L linear risk tends to p* from below as L grows.
    ps = [
        float(np.asarray(kernels.authors_linear_optimum(Sp, Sq, 0.1, 0.2, L)).ravel()[0])
        for L in (10, 100, 1000, 10**6)
    ]
    assert ps == sorted(ps) and abs(ps[-1] - p_star) < 1e-5


def test_trace_rewriting_rejects_an_expression_that_is_not_a_trace_polynomial():
    c = ae_d.coordinates(3)
    with pytest.raises(ArithmeticError):
        ae_d.trace_form(c["lam"][0], 3)  # not symmetric in the coordinates


# ---------------------------------------------------------------------------------------------
# Numerics: samplers and gradients


def test_reduced_and_literal_token_samplers_give_the_exact_linear_risk_and_equal_softmax_risks():
    """Both samplers against the exact linear risk, and against each other for softmax (z-tests,
    two-sided, false alarm 1e-6 each; independent samples)."""
    z = 5.33
    for gen in sgd.GENERATORS:
        Sp, Sq = sgd.covariances(SIGMA, gen)
        params = {"soft": ("softmax", 1.1, 0.45), "lin": ("linear", 0.7, 0.7)}
        ev = {
            tok: sgd.evaluate(
                params,
                SIGMA,
                0.1,
                0.2,
                20,
                gen,
                60000,
                np.random.default_rng([3, len(tok)]),
                tokens=tok,
            )["risk"]
            for tok in ("literal", "reduced")
        }
        exact = float(kernels.authors_linear_risk(Sp, Sq, 0.7, 0.7, 0.1, 0.2, 20))
        for tok in ev:
            assert abs(ev[tok]["lin"][0] - exact) <= z * ev[tok]["lin"][1], (gen, tok)
        a, b = ev["literal"]["soft"], ev["reduced"]["soft"]
        assert abs(a[0] - b[0]) <= z * math.hypot(a[1], b[1]), gen


def test_batched_gradients_match_the_sympy_derivative_and_central_differences():
    L, n = 4, 6
    rng = np.random.default_rng(5)
    s, y, yq = rng.standard_normal((n, L)), rng.standard_normal((n, L)), rng.standard_normal(n)
    mu, om = 0.8, 0.6
    S_sym, y_sym, yq_sym, *_ = ag_d.explicit_models(L)
    for name, derived, _ in ag_d.gradient_formulas(L):
        model = name.split()[0]
        f = sp.lambdify((ag_d.mu_sym, ag_d.omega_sym, S_sym, y_sym, yq_sym), derived)
        _, gm, go = sgd.per_prompt_gradients(model, mu, om, s, y, yq)
        mine = gm if name.endswith("mu") else go
        for i in range(n):
            assert abs(f(mu, om, s[i], y[i], yq[i]) - mine[i]) <= 1e-12 * max(1.0, abs(mine[i]))
    h = 1e-6  # central differences: error O(h^2) ~ 1e-12 relative to O(1) third derivatives
    for model in sgd.MODELS:
        _, gm, go = sgd.loss_and_grad(model, mu, om, s, y, yq)
        fd_mu = (
            sgd.loss_and_grad(model, mu + h, om, s, y, yq)[0]
            - sgd.loss_and_grad(model, mu - h, om, s, y, yq)[0]
        ) / (2 * h)
        fd_om = (
            sgd.loss_and_grad(model, mu, om + h, s, y, yq)[0]
            - sgd.loss_and_grad(model, mu, om - h, s, y, yq)[0]
        ) / (2 * h)
        assert abs(fd_mu - gm) < 1e-7 and abs(fd_om - go) < 1e-7


def test_generators_produce_the_stated_covariances():
    R = sgd.covariance_root(SIGMA)
    assert np.allclose(R @ R, SIGMA, atol=1e-13)
    Sp, Sq = sgd.covariances(SIGMA, "correct")
    assert np.allclose(Sp, SIGMA, atol=1e-13) and np.allclose(Sq, SIGMA, atol=1e-13)
    Sp, Sq = sgd.covariances(SIGMA, "authors")
    assert np.allclose(Sp, SIGMA @ SIGMA, atol=1e-12) and np.allclose(Sq, np.eye(5))
    # Empirical witness from the literal sampler: the query covariance really is I, not Sigma.
    Mp, Mq = sgd.generator_maps(SIGMA, "authors")
    xq = np.random.default_rng(0).standard_normal((40000, 5)) @ Mq.T
    assert np.abs(np.cov(xq.T) - np.eye(5)).max() < 0.05 < np.abs(SIGMA - np.eye(5)).max()


@given(seed=seeds)
@settings(max_examples=3)
def test_sgd_is_reproducible_from_its_seed(seed):
    run = lambda: sgd.train(
        SIGMA, 0.1, 0.2, [5, 12], "correct", 30, 1e-3, 16, (0.5, 0.5), np.random.default_rng(seed)
    )["params"]
    assert run() == run()


@pytest.mark.parametrize(
    "call",
    [
        lambda: sgd.generator_maps(SIGMA, "twice"),
        lambda: sgd.predict("relu", 1.0, 1.0, np.zeros((1, 2)), np.zeros((1, 2))),
        lambda: sgd.train(
            SIGMA, 0.1, 0.2, [10, 0], "correct", 10, 1e-3, 8, (0.5, 0.5), np.random.default_rng(0)
        ),
        lambda: sgd.train(
            SIGMA, 0.1, 0.2, [10], "correct", 10, -1e-3, 8, (0.5, 0.5), np.random.default_rng(0)
        ),
        lambda: sgd.evaluate({}, SIGMA, 0.1, 0.2, 10, "correct", 1, np.random.default_rng(0)),
        lambda: sgd.sample(
            np.random.default_rng(0),
            2,
            3,
            sgd.generator_maps(SIGMA, "correct"),
            0.1,
            0.2,
            tokens="x",
        ),
        lambda: sgd.covariance_root(-np.eye(2)),
    ],
)
def test_bad_numeric_inputs_raise_value_errors(call):
    with pytest.raises(ValueError):
        call()


@pytest.mark.parametrize(
    "bad",
    [
        {"sigma": [[1.0, 2.0], [2.0, 1.0]]},  # indefinite
        {"noise": -0.1},
        {"L": [10]},
        {"L": [20, 10]},
        {"L": [10, 10 * ae.L_CAP]},
        {"alpha": 0.5},  # an [icl] key this claim does not read
    ],
)
def test_bad_scenarios_raise_value_errors_naming_the_key(bad):
    s = ae.default_scenario()
    s["icl"] = {**s["icl"], **bad}
    with pytest.raises(ValueError, match="icl"):
        ae.validate(s)


def test_bad_plan_raises_value_error():
    with pytest.raises(ValueError, match="plan"):
        ae.run(SMALL, "quick", claim_rng(0, ae.ID), plan={"steps": 10})


# ---------------------------------------------------------------------------------------------
# The claim on a small run: checks that pass, checks that must fail, controls, sensitivity


@pytest.fixture(scope="module")
def small_cert():
    return ae.run(SMALL, "quick", claim_rng(0, ae.ID), plan=SMALL_PLAN)


@pytest.mark.slow  # default-run budget (180 s): a quick run (~30 s) shared by these tests
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
@pytest.mark.xdist_group("authors-small-certificate")  # one worker computes the fixture
def test_small_run_linear_checks_and_controls_pass(small_cert):
    for prefix in ("proofs", "linear/", "generator/", "control/", "softmax/risk-decreases"):
        found = _checks(small_cert, prefix)
        assert found and all(c["passed"] is True for c in found), prefix
    q = small_cert["quantities"]
    assert set(q) >= {
        "infinite_prompt_risk",
        "softmax_risk",
        "linear_risk",
        "linear_exact_risk",
        "authors_generator",
    }
    assert (
        abs(q["infinite_prompt_risk"] - 0.30276597612359) < 1e-12
    )  # see the next test for the route
    assert small_cert["errata"][0]["id"] == 5


def test_infinite_prompt_risk_of_the_default_scenario_by_eigenvalues():
    """Independent route for R*_inf: eigenvalues of Sigma, R*_inf = s2 + tau
    (sum lam - (sum lam^2)^2 / sum lam^3)."""
    lam = np.linalg.eigvalsh(SIGMA)
    expected = 0.1 + 0.2 * (lam.sum() - (lam**2).sum() ** 2 / (lam**3).sum())
    Sp, Sq = sgd.covariances(SIGMA, "correct")
    assert (
        abs(np.asarray(kernels.authors_infinite_optimum(Sp, Sq, 0.1, 0.2)).ravel()[1] - expected)
        < 1e-12
    )


@pytest.mark.slow  # default-run budget (180 s): a quick run (~30 s) shared by these tests
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
@pytest.mark.xdist_group("authors-small-certificate")  # one worker computes the fixture
def test_approach_check_is_undecided_when_the_largest_prompt_is_below_L_eps(small_cert):
    """At L_max = 160 even the best exact softmax parameters are more than 10% above R*_inf: L_max
    is below L(eps), where Theorem 4.3 promises nothing, so the check is undecided, not refuted,
    with the exact route's reason."""
    c = _checks(small_cert, "softmax/r-star-approach-best")
    # value (R - R*_inf - eps) / se against the one-sided z_c: the upper confidence bound of the
    # risk lies above the tolerance
    assert len(c) == 1 and c[0]["passed"] is None and c[0]["value"] > -c[0]["bound"]
    assert "below L(eps)" in c[0]["detail"]


# default-run budget (180 s): a full quick run; the mutant catalogue holds authors slips too
@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_approach_check_refutes_a_risk_above_eps_where_the_exact_route_reaches_it():
    """Where the exact best softmax risk at L_max is within eps of R*_inf, Monte Carlo risks clearly
    above eps refute the check (a training or evaluation slip); within eps they verify it."""
    from softlin.claims.authors_experiment import checks as authors_checks

    Sp = Sq = 0.5 ** np.abs(np.subtract.outer(np.arange(5), np.arange(5)))
    s2, tau, Ls = 0.1, 0.2, [500, 1000]
    R_star = float(np.asarray(kernels.authors_infinite_optimum(Sp, Sq, s2, tau)).ravel()[1])
    inf_risk = lambda Sp_, Sq_, mu, om, s2_, tau_: R_star  # parameters at the infinite optimum
    params = {m: {L: (1.0, 1.0) for L in Ls} for m in ("softmax", "softmax_best")}
    risk = {"softmax": {L: [R_star, 1e-4] for L in Ls}}

    def verdicts(excess):
        C = {
            "per_L": {
                L: {
                    "difference": {
                        "softmax - softmax_best": [0.0, 1e-4],
                        "softmax - linear": [0.0, 1e-4],
                    },
                    "excess_over_limit": {
                        "softmax": [excess, 1e-4],
                        "softmax_best": [excess, 1e-4],
                    },
                }
                for L in Ls
            }
        }
        checks = authors_checks.softmax_checks(
            C, Ls, params, risk, Sp, Sq, s2, tau, R_star, inf_risk
        ).checks
        return [c.passed for c in checks if c.id.startswith("softmax/r-star-approach")]

    assert verdicts(0.3 * R_star) == [False, False]
    assert verdicts(0.01 * R_star) == [True, True]


# default-run budget (180 s): a full quick run; the undecided verdict is also tested cheaply below
@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_linear_optimality_check_is_undecided_when_sgd_is_stopped_early():
    """200 steps from (0.5, 0.5) leave p = mu omega visibly short of the exact optimum: the budget
    was too small, so the check (and the claim) is inconclusive, not verified."""
    cert = ae.run(
        SMALL, "quick", claim_rng(0, ae.ID), plan={"steps": 200, "test": 4000, "fit": 500}
    )
    c = _checks(cert, "linear/sgd-optimum")
    assert c[0]["passed"] is None and c[0]["value"] > 1 and cert["status"] != "verified"


# default-run budget (180 s): a full quick run; the default run keeps the optimum-formula
# sensitivity test
@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_dropping_the_isserlis_term_of_the_linear_risk_is_caught():
    """Sensitivity: E[u^2 v^2] = E u^2 E v^2 (forgetting 2 (E uv)^2) drops tau
    tr(Sigma_p^2 Sigma_q) / L."""

    def wrong(Sp, Sq, mu, omega, s2, tau, L):
        p2 = (mu * omega) ** 2
        return (
            kernels.authors_linear_risk(Sp, Sq, mu, omega, s2, tau, L)
            - p2 * tau * np.trace(Sp @ Sp @ Sq) / L
        )

    cert = ae.run(SMALL, "quick", claim_rng(0, ae.ID), plan=SMALL_PLAN, linear_risk=wrong)
    c = _checks(cert, "linear/test-risk-exact")
    assert cert["status"] == "refuted" and c[0]["passed"] is False


@pytest.mark.slow  # default-run budget (180 s): a full quick run
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_modelling_the_bug_as_a_twice_transformed_prompt_only_is_caught():
    """Sensitivity of the erratum check: the authors' data are not explained by the prompt bug alone
    (query covariance left at Sigma): the exact risk under (R Sigma R^T, Sigma) must be refuted."""

    def prompt_only(Sp, Sq, mu, omega, s2, tau, L):
        if np.allclose(Sq, np.eye(len(Sq))):
            Sq = SIGMA
        return kernels.authors_linear_risk(Sp, Sq, mu, omega, s2, tau, L)

    cert = ae.run(SMALL, "quick", claim_rng(0, ae.ID), plan=SMALL_PLAN, linear_risk=prompt_only)
    assert _checks(cert, "generator/linear-exact")[0]["passed"] is False


@pytest.mark.slow  # default-run budget (180 s): a quick run (~30 s) shared by these tests
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
@pytest.mark.xdist_group("authors-small-certificate")  # one worker computes the fixture
def test_figure_is_drawn_from_the_series_and_skipped_when_malformed(small_cert):
    png = figures.figure_png(small_cert)
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"
    broken = {**small_cert, "series": {"authors_experiment": {"L": [10, 20], "softmax": [1.0]}}}
    assert figures.figure_png(broken) is None


# ---------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_default_scenario_verified_on_the_quick_profile():
    cert = ae.run(ae.default_scenario(), "quick", claim_rng(0, ae.ID))
    assert cert["status"] == "verified", [
        c["id"] for c in cert["checks"] if c["passed"] is not True
    ]


@pytest.mark.slow
@pytest.mark.rotating  # an end-to-end demonstration: CI runs a third of these per commit
def test_infinite_prompt_risk_with_the_tilt_covariance_dropped_is_caught():
    """Sensitivity: taking the softmax limit as mu omega beta^T q (Sigma_p dropped from the tilted
    mean) gives R_inf(p) = s2 + tau (1 - p)^2 tr Sigma_q, minimal s2 at p = 1: the approach checks
    must fail."""
    wrong = lambda Sp, Sq, s2, tau: (1.0, s2)
    cert = ae.run(ae.default_scenario(), "quick", claim_rng(0, ae.ID), infinite_optimum=wrong)
    assert _checks(cert, "softmax/r-star-approach-best")[0]["passed"] is False
    assert cert["status"] == "refuted"
    # On the quick budget SGD may not be within its optimisation tolerance, and then its own check
    # is undecided rather than refuted; it must never pass against the wrong prediction.
    assert _checks(cert, "softmax/r-star-approach-sgd")[0]["passed"] is not True


def _optimality_verdict(p_end: float) -> tuple:
    """The SGD-optimality check of linear_checks on synthetic inputs: linear attention ended at
    p = mu omega = p_end (omega = 1) at L = 10 on Toeplitz(0.5), gradient covariance trace 1e-3."""
    Sp = Sq = SIGMA
    s2, tau, L = 0.1, 0.2, 10
    s = {"Ls": [L], "s2": s2, "tau": tau, "Sigma": SIGMA}
    exact = float(kernels.authors_linear_risk(Sp, Sq, p_end, 1.0, s2, tau, L))
    # the test-risk check reads per-prompt losses: a constant sample at the exact risk
    C = {
        "per_L": {L: {"grad_cov_trace": {"linear": 1e-3}, "losses": {"linear": np.full(64, exact)}}}
    }
    checks = authors_checks.linear_checks(
        s,
        C,
        {"linear": {L: (p_end, 1.0)}},
        {"linear": {L: (exact, 1e-3)}},
        Sp,
        Sq,
        kernels.authors_linear_risk,
        1,
        np.random.default_rng(0),
    ).checks
    c = next(c for c in checks if c.id == "linear/sgd-optimum")
    return c.passed, c.value


def _p_star(L=10):
    return float(np.asarray(kernels.authors_linear_optimum(SIGMA, SIGMA, 0.1, 0.2, L)).ravel()[0])


def test_linear_optimality_check_passes_at_the_optimum_and_is_undecided_off_it():
    assert _optimality_verdict(_p_star())[0] is True
    passed, ratio = _optimality_verdict(0.5 * _p_star())
    assert passed is None and ratio > 1


def test_an_optimum_formula_that_is_not_a_minimum_is_refuted(monkeypatch):
    """Sensitivity, deterministic: (a) the infinite-prompt optimum p* = tr(Sp Sq) / tr(Sp^2 Sq)
    reported as the finite-L one (the 1/L terms of the denominator forgotten), with its own exact
    risk: an SGD end at the true p*_L lies below it; (b) the right p*_L with the minimum risk
    missing its s2 term: the "minimum" is not the risk at its own p*."""
    true_opt, p_true = kernels.authors_linear_optimum, _p_star()

    def infinite_p(Sp, Sq, s2, tau, L):
        p = float(np.asarray(kernels.authors_infinite_optimum(Sp, Sq, s2, tau)).ravel()[0])
        return np.array([[p, kernels.authors_linear_risk(Sp, Sq, p, 1.0, s2, tau, L)]])

    def risk_without_noise(Sp, Sq, s2, tau, L):
        p, r = np.asarray(true_opt(Sp, Sq, s2, tau, L)).ravel()
        return np.array([[p, r - s2]])

    for wrong in (infinite_p, risk_without_noise):
        monkeypatch.setattr(authors_checks.kernels, "authors_linear_optimum", wrong)
        assert _optimality_verdict(p_true)[0] is False, wrong.__name__


@pytest.mark.parametrize("factor", [1.2, 1.02, 0.98])
def test_the_headline_r_star_inf_is_judged_on_both_sides(factor):
    """R*_inf against the exact finite-L optimum at L = 1e6: the derived value passes, an R*_inf a
    few percent off on either side (the one-sided approach checks would pass a larger one) is
    refuted. d = 2 keeps it at ~1 s per case (d = 5, the default scenario's, takes ~4 s)."""
    from softlin.numerics import finite_risk as fr

    sigma = np.array(ae.toeplitz(2, 0.5))
    s2, tau = 0.1, 0.5
    model = fr.Model(sigma, sigma, tau, s2)
    _, R_star = np.asarray(kernels.authors_infinite_optimum(sigma, sigma, s2, tau)).ravel()
    found, (gap, null) = authors_checks.limit_check(model, float(R_star))
    (right,) = found.checks
    assert right.passed is True and abs(gap) < 0.1 * authors_checks.LIMIT_RELATIVE * null
    (wrong,) = authors_checks.limit_check(model, factor * float(R_star))[0].checks
    assert wrong.passed is False and wrong.tier == "numerical"


def test_the_correct_data_control_is_judged_at_the_power_its_pilot_plans():
    """The plan reads only the pilot's standard errors and the two exact risks: a pilot too noisy
    for the gap leaves the control not judged whatever the run found; a precise pilot judges it, and
    a run that then does not refute the correct-data risk fails the control."""
    exact_a, wrong = {10: 0.50, 100: 0.40}, {10: 0.52, 100: 0.41}
    z_L = 5.3
    precise = {
        "se": {10: 1e-3 * math.sqrt(8), 100: 1e-3 * math.sqrt(8)},
        "prompts": 5000,
        "test": 40000,
    }
    noisy = {**precise, "se": {10: 0.01, 100: 0.01}}
    found = {10: 19.8, 100: 9.7}  # |MC - wrong| / se of a run that refutes

    def planned(c):  # the planned power the judge states (reason when not judged, else detail)
        return float(re.search(r"planned power ([0-9.e-]+)", c.reason or c.detail).group(1))

    c = authors_checks.correct_data_control(found, z_L, exact_a, wrong, noisy)
    assert c.judged is False and planned(c) < judge.POWER_TARGET
    c = authors_checks.correct_data_control(found, z_L, exact_a, wrong, precise)
    assert c.judged and c.passed is True and planned(c) >= judge.POWER_TARGET
    assert (c.value, c.bound, c.rule) == (19.8, z_L, "value >= bound")
    c = authors_checks.correct_data_control({10: 1.2, 100: 0.3}, z_L, exact_a, wrong, precise)
    assert c.judged and c.passed is False


def test_a_zero_infinite_prompt_risk_leaves_the_approach_undecided_not_refuted():
    """d = 1, Sigma = 0.5, noise 0: R*_inf = 0, so eps = 0, which the best exact softmax risk at a
    finite L_max never meets. Theorem 4.3 promises nothing below L(eps): a Monte Carlo excess
    clearly above 0 leaves both approach checks undecided (the R*_inf limit check verified), not
    refuted."""
    S, s2, tau, Ls = np.array([[0.5]]), 0.0, 1.0, [2, 4]
    Sp, Sq = sgd.covariances(S, "correct")
    R_star = float(np.asarray(kernels.authors_infinite_optimum(Sp, Sq, s2, tau)).ravel()[1])
    assert R_star == 0.0
    params = {name: {L: (1.0, 1.0) for L in Ls} for name in ("softmax", "softmax_best")}
    risk = {"softmax": {2: (0.06, 1e-3), 4: (0.05, 1e-3)}}
    differences = {"softmax - softmax_best": (0.0, 1e-3), "softmax - linear": (0.01, 1e-3)}
    excess = {"softmax": (0.05, 1e-3), "softmax_best": (0.05, 1e-3)}
    per_L = {L: {"difference": differences, "excess_over_limit": excess} for L in Ls}
    zero = lambda *args: 0.0  # noqa: E731
    out = authors_checks.softmax_checks(
        {"per_L": per_L}, Ls, params, risk, Sp, Sq, s2, tau, R_star, zero
    ).checks
    approach = [c for c in out if c.id.startswith("softmax/r-star-approach")]
    assert len(approach) == 2
    assert all(c.passed is None and "below L(eps)" in c.detail for c in approach)
    assert next(c for c in out if c.id == "softmax/r-star-limit").passed is True


def test_a_broken_gradient_route_leaves_the_precision_finite_for_its_checks_to_refute():
    """A slipped chain rule in the exact-risk gradient made its stated errors NaN; the certificate's
    precision list then raised (the run crashed instead of refuting). The precision takes the
    finite errors; the gradient checks refute the slip."""
    nan = float("nan")
    curves = {
        "softmax": [
            {
                "gradient_error": [nan, 1e-9],
                "excess_tolerance": nan,
                "gradient_agreement": {"optimum": {"gradient_error": [nan]}},
            }
        ]
    }
    entries = ae.stated_precision([], curves)
    assert all(math.isfinite(e["abs"]) and math.isfinite(e["rel"]) for e in entries)
    gradient = next(e for e in entries if e["path"].endswith("softmax[*].gradient"))
    assert gradient["abs"] == 1e-9


@pytest.mark.slow  # ~35 s to the divergence on the loaded 2 cores
def test_sgd_beyond_its_step_reach_is_one_line_exit_2_without_warnings(tmp_path, capsys):
    """Issue 41: a hunt draw at extreme scales (Sigma ~ 2^20, noise 2^20) crashed (exit 3,
    'FloatingPointError: SGD diverged', two numpy overflow warnings on stderr): constant-step SGD
    at the authors' lr = 1e-3 is beyond its stability reach there. Now one line naming it, exit 2,
    and no warning."""
    import warnings

    from softlin.cli import main

    path = tmp_path / "extreme.toml"
    path.write_text(
        "[icl]\nsigma = [[786432.0, -655360.0], [-655360.0, 1114112.0]]\n"
        "noise = 1048576.0\nL = [4, 16]\n"
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code = main(
            [
                "verify",
                "authors-experiment",
                "--profile",
                "quick",
                "--scenario",
                str(path),
                "--out",
                str(tmp_path / "out"),
            ]
        )
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "SGD with the authors' step lr = 0.001 diverged" in err
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
