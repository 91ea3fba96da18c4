"""Exact finite-L moments of Gaussian-prompt attention (numerics/selfnormalised.py): against brute
force Monte Carlo, against their closed-form limits, under grid refinement; query averages against
closed forms; importance-weighted query draws are unbiased."""

import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

from softlin.numerics import fits, montecarlo, query_average, selfnormalised as sn
from softlin.numerics.laws import GaussianLaw

from ..strategies import seeds

# Every Monte Carlo assertion here is a two-sided z-test with |z| <= Z_CRIT over at most 40 z-scores
# per test run: Z_CRIT puts the false-alarm probability of a test below 1e-6 (Bonferroni, CLT).
Z_CRIT = float(stats.norm.isf(1e-6 / 80))


def _brute_force(q, L, n, rng):
    g = rng.standard_normal((n, L))
    s = math.sqrt(q) * g
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    A = (p**2).sum(axis=1)
    y = (p * g).sum(axis=1) - math.sqrt(q)
    return A, y, y**2


@settings(max_examples=6)
@given(st.floats(0.0, 9.0), st.integers(1, 60), seeds)
def test_moments_equal_brute_force_monte_carlo(q, L, seed):
    rng = np.random.default_rng(seed)
    A, y, B = _brute_force(q, L, 40000, rng)
    log_a, log_b = sn.log_moments(q, L)
    # A is constant (1/L) at q = 0 and for L = 1: the sample standard error is then pure round-off,
    # so 1e-12 relative is added to the allowance (the quadrature is exact to ~1e-13).
    for est, exact in ((A, math.exp(log_a)), (B, math.exp(log_b))):
        se = est.std(ddof=1) / math.sqrt(est.size)
        assert abs(est.mean() - exact) <= Z_CRIT * se + 1e-12 * exact
    # Gaussian integration by parts: E sum p_i g_i - sqrt q = -sqrt(q) A exactly.
    se = y.std(ddof=1) / math.sqrt(y.size)
    assert abs(y.mean() + math.sqrt(q) * math.exp(log_a)) <= Z_CRIT * se + 1e-12


@pytest.mark.parametrize(
    "q, L", [(0.0, 7), (0.3, 1), (2.0, 3), (5.0, 200), (40.0, 5000), (150.0, 10**9)]
)
def test_moments_are_stable_under_grid_refinement(q, L):
    coarse = sn.log_moments(q, L)
    fine = sn.log_moments(q, L, step_v=0.1, step_g=0.12)
    assert np.max(np.abs(np.subtract(coarse, fine))) < 1e-11


def test_known_values_at_q0_and_L1():
    assert np.allclose(
        np.exp(sn.log_moments(0.0, 9)), [1 / 9, 1 / 9], rtol=1e-12
    )  # p_i = 1/L, B = Var(mean g)
    assert np.allclose(np.exp(sn.log_moments(2.5, 1)), [1.0, 3.5], rtol=1e-15)  # A = 1, B = 1 + q


@pytest.mark.parametrize("q", [0.1, 0.8, 2.0])
def test_first_order_limits_are_e_q_and_e_q_times_1_plus_q(q):
    """L A_L -> e^q and L B_L -> e^q (1 + q) (the trace of C1 split along and across Gamma a), with
    an O(1/L) remainder: the gap shrinks tenfold per decade (the next term is O(e^{2q}/L)
    smaller)."""
    gaps = []
    for L in (10**5, 10**6):
        la, lb = sn.log_moments(q, L)
        gaps.append(
            [L * math.exp(la) / math.exp(q) - 1, L * math.exp(lb) / (math.exp(q) * (1 + q)) - 1]
        )
    gaps = np.abs(np.array(gaps))
    assert np.all(gaps[-1] < 1e-4 * math.exp(2 * q))
    assert np.all(gaps[0] / gaps[1] == pytest.approx(10, rel=0.02))


@pytest.mark.parametrize(
    "L, q_max, points, tolerance", [(300, 60.0, 48, 1e-4), (4096, 130.0, 32, 5e-4)]
)
def test_table_interpolation_error_is_within_its_documented_bound(L, q_max, points, tolerance):
    tab = sn.table(L, q_max, points)
    qs = np.linspace(0.0, q_max, 25)[1:-1] + q_max / 97
    A, B = tab.moments(qs)
    exact = np.array([sn.log_moments(q, L) for q in qs])
    assert np.max(np.abs(np.log(A) - exact[:, 0])) < tolerance
    assert np.max(np.abs(np.log(B) - exact[:, 1])) < tolerance
    with pytest.raises(ValueError, match="outside the table range"):
        tab.moments([q_max * 1.01])


def test_exact_second_moment_matches_fixed_query_monte_carlo():
    rng = np.random.default_rng(11)
    B = np.array([[1.0, 0.0], [0.6, 0.5]])
    G, U, V, z = (
        B @ B.T,
        np.array([[0.5, 0.2], [-0.1, 0.4]]),
        np.array([[1.0, -0.5], [0.2, 1.0]]),
        np.array([1.2, -0.7]),
    )
    law = GaussianLaw([0.3, 0.1], G)
    limit = V @ (law.mean + G @ U @ z)
    for L in (2, 30):
        err, _ = montecarlo.fixed_query_errors(law, rng, 60000, L, U, V, z[None, :], limit[None, :])
        e = err[:, 0, :]
        bias, second = sn.exact_second_moment(G, U, V, z, L)
        z_bias = (e.mean(axis=0) - bias) / (e.std(axis=0, ddof=1) / math.sqrt(e.shape[0]))
        outer = np.einsum("pi,pj->pij", e, e).reshape(e.shape[0], -1)
        z_second = (outer.mean(axis=0) - second.ravel()) / (
            outer.std(axis=0, ddof=1) / math.sqrt(e.shape[0])
        )
        assert np.max(np.abs(np.concatenate([z_bias, z_second]))) <= Z_CRIT


def test_gauss_hermite_query_average_of_first_order_equals_the_closed_form():
    G, U, V = (
        np.array([[1.0, 0.3], [0.3, 0.5]]),
        np.array([[0.5, 0.1], [-0.2, 0.45]]),
        np.array([[1.0, 0.5]]),
    )
    Sq = np.array([[1.0, 0.4], [0.4, 0.8]])
    lam = query_average.whitened_spectrum(G, U, Sq)[0]
    assert 0.25 < lam < 0.5
    M, N = U.T @ G @ U, U.T @ G @ V.T @ V @ G @ U
    R = np.eye(2) - 2 * M @ Sq
    closed = np.linalg.det(R) ** -0.5 * (
        np.trace(V @ G @ V.T) + np.trace(N @ Sq @ np.linalg.inv(R))
    )
    gh = query_average.gauss_hermite_average(
        lambda Z: sn.query_terms(G, U, V, Z).first_order, Sq, 1 / (1 - 2 * lam), 40
    )
    assert gh == pytest.approx(closed, rel=1e-10)


@settings(max_examples=4)
@given(seeds, st.floats(1.0, 8.0))
@example(3, 2.5)  # always one proposal wider than nu (scale 1 makes every weight 1)
def test_importance_weighted_query_draws_are_unbiased(seed, scale):
    """E_nu' [W f] = E_nu f for f = |z|^2 and f = 1 (weights have mean 1)."""
    rng = np.random.default_rng(seed)
    Sq = np.array([[1.0, 0.5], [0.5, 2.0]])
    sample = query_average.draw_queries(rng, Sq, (200000,), scale)
    for values, exact in (
        (sample.weights, 1.0),
        (sample.weights * np.sum(sample.Z**2, axis=1), np.trace(Sq)),
    ):
        se = values.std(ddof=1) / math.sqrt(values.size)
        assert abs(values.mean() - exact) <= Z_CRIT * se


def test_scalar_average_reproduces_the_sharp_exponent_above_the_threshold():
    """lambda = 1: the exact query-averaged error between L = e^32 and e^64 decays with a local
    slope within 0.02 of kappa = 0.618 (and far from the naive 0.5)."""
    a32 = sn.scalar_average(1.0, int(math.exp(32)), 0.618)[1]
    a64 = sn.scalar_average(1.0, int(math.exp(64)), 0.618)[1]
    slope = -(a64 - a32) / 32
    assert slope == pytest.approx((math.sqrt(5) - 1) / 2, abs=0.02)


def test_loglog_fit_recovers_a_known_slope_and_rejects_bad_input():
    L = np.array([16, 64, 256, 1024])
    y = 3.0 * L**-0.7
    fit = fits.loglog_fit(L, y, 0.01 * y)
    assert fit.slope == pytest.approx(0.7, abs=1e-12) and fit.chi2 == pytest.approx(0, abs=1e-18)
    assert fit.stderr == pytest.approx(
        0.01 / math.sqrt(np.sum((np.log(L) - np.log(L).mean()) ** 2)), rel=1e-9
    )
    with pytest.raises(ValueError, match="positive"):
        fits.loglog_fit(L, -y)
    with pytest.raises(ValueError, match="standard errors"):
        fits.loglog_fit(L, y, np.zeros(4))


@pytest.mark.parametrize(
    "call, fragment",
    [
        (lambda: sn.log_moments(-1.0, 5), "q = -1.0"),
        (lambda: sn.log_moments(1.0, 0), "L = 0"),
        (lambda: sn.log_moments(float("nan"), 5), "q = nan"),
        (
            lambda: query_average.draw_queries(np.random.default_rng(0), np.eye(2), (3,), 0.5),
            "proposal scale = 0.5",
        ),
        (lambda: sn.table(10, float("inf")), "q_max = inf"),
    ],
)
def test_bad_inputs_raise_value_errors_naming_the_value(call, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(")):
        call()


def test_product_law_first_order_equals_direct_sums_for_rademacher_tokens():
    """tr C1 for z' = m + B x (x iid +-1) against E[w^2 |V(z' - mu_a)|^2] summed over the 2^r sign
    patterns directly (no mgf algebra)."""
    import itertools

    from softlin.numerics import first_order

    rng = np.random.default_rng(5)
    B, U, V = rng.normal(size=(3, 2)), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(2, 3))
    Z = rng.normal(size=(4, 3))
    got = first_order.product_trace_c1("rademacher", B, U, V, Z)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=2)))  # (4, 2), equally likely
    for z, value in zip(Z, got):
        a = U @ z
        w = np.exp(signs @ B.T @ a)
        w /= w.mean()
        mu = (w[:, None] * signs).mean(axis=0)  # tilted mean of x
        direct = np.mean(w**2 * np.sum(((signs - mu) @ (V @ B).T) ** 2, axis=1))
        assert value == pytest.approx(direct, rel=1e-12)


def test_product_law_first_order_matches_fixed_query_monte_carlo_for_uniform_tokens():
    from softlin.claims.prop_3_1.beyond import Law, product_limit
    from softlin.numerics import first_order
    from softlin.numerics.laws import UniformLaw

    G = np.array([[1.0, 0.3], [0.3, 0.5]])
    root = np.linalg.cholesky(G)
    U, V, m, z = (
        np.array([[0.6, 0.2], [-0.2, 0.5]]),
        np.array([[1.0, 0.5]]),
        np.zeros(2),
        np.array([[2.0, 1.0]]),
    )
    law = Law(UniformLaw(2), m, root, "uniform")
    L = 4096
    err, _ = montecarlo.fixed_query_errors(
        law,
        np.random.default_rng(9),
        20000,
        L,
        U,
        V,
        z,
        product_limit("uniform", m, root, U, V)(z),
    )
    sq = L * np.sum(err[:, 0, :] ** 2, axis=1)
    predicted = first_order.product_trace_c1("uniform", root, U, V, z)[0]
    # O(1/L) remainder: L MSE = tr C1 (1 + O(e^{q}/L)) with q ~ 1, i.e. a few 1e-3 relative; the
    # allowance 1e-2 tr C1 covers it, the rest is the z-test.
    assert (
        abs(sq.mean() - predicted)
        <= Z_CRIT * sq.std(ddof=1) / math.sqrt(sq.size) + 1e-2 * predicted
    )


def test_below_the_threshold_the_first_order_is_approached_as_L_to_the_minus_rho():
    """lambda = 0.4 (d = 1): L x error = coefficient - D(L) with D ~ L^-rho,
    rho = (1 - 2 lambda)/(3 lambda) = 1/6 (the emitted kernel remainder_exponent), far slower than
    1/L; the local exponent of the exact deficit between L = e^32 and e^64 is within 0.03 of it
    (logarithmic corrections)."""
    from softlin.numerics import kernels

    remainder_exponent = lambda lam: float(kernels.remainder_exponent(lam))

    lam = 0.4
    s = 1 - 2 * lam
    coefficient = s**-0.5 + lam * s**-1.5  # E_g e^{q}(1 + q), q = lam g^2 (d = 1, V^2 Gamma = 1)
    deficits = []
    for ell in (32, 64):
        L = int(round(math.exp(ell)))
        deficits.append(coefficient - math.exp(sn.scalar_average(lam, L, 1.0)[1] + math.log(L)))
    local = -(math.log(deficits[1]) - math.log(deficits[0])) / 32
    assert local == pytest.approx(remainder_exponent(lam), abs=0.03)
    assert remainder_exponent(0.15) == 1.0 and remainder_exponent(0.6) == 0.0


def test_loglog_fit_is_inverse_variance_weighted_least_squares():
    """Against numpy's polyfit (its weights are 1/sigma, and cov="unscaled" keeps the weights as
    variances) on unequal standard errors: slope, intercept, stderr and chi2 agree, and a simulation
    shows the reported stderr is the slope's real spread (weights y/s instead of (y/s)^2 would
    not)."""
    L = np.array([8.0, 16, 32, 64, 128, 256])
    y = 3.0 * L**-0.8 * np.array([1.02, 0.97, 1.05, 0.99, 0.93, 1.04])
    s = y * np.array([0.01, 0.05, 0.02, 0.2, 0.04, 0.1])  # relative errors from 1% to 20%
    fit = fits.loglog_fit(L, y, s)
    p, cov = np.polyfit(np.log(L), np.log(y), 1, w=y / s, cov="unscaled")
    assert fit.slope == pytest.approx(-p[0], rel=1e-10) and fit.intercept == pytest.approx(
        p[1], rel=1e-10
    )
    assert fit.stderr == pytest.approx(np.sqrt(cov[0, 0]), rel=1e-10)
    resid = np.log(y) - np.polyval(p, np.log(L))
    assert fit.chi2 == pytest.approx(np.sum((resid * y / s) ** 2), rel=1e-8)
    rng = np.random.default_rng(11)
    slopes = [
        fits.loglog_fit(L, 3.0 * L**-0.8 * np.exp(rng.normal(0, s / y)), s).slope
        for _ in range(4000)
    ]
    # the sample sd of 4000 normal slopes is within 6% of the truth with probability > 1 - 1e-6
    assert np.std(slopes) == pytest.approx(fit.stderr, rel=0.06)


def test_linear_fit_against_an_independent_least_squares_route():
    """fits.linear_fit (the one home of every fit) against numpy's lstsq on the whitened system
    (rows divided by s_j): same coefficients, covariance (A^T A)^{-1} of the whitened design,
    chi2."""
    rng = np.random.default_rng(3)
    X = np.column_stack([np.ones(9), rng.normal(size=9), rng.normal(size=9)])
    s = rng.uniform(0.05, 2.0, size=9)
    y = X @ np.array([1.0, -2.0, 0.5]) + s * rng.normal(size=9)
    fit = fits.linear_fit(X, y, s)
    A, b = X / s[:, None], y / s
    coef, res, *_ = np.linalg.lstsq(A, b, rcond=None)
    np.testing.assert_allclose(fit.coef, coef, rtol=1e-10)
    np.testing.assert_allclose(fit.cov, np.linalg.pinv(A.T @ A), rtol=1e-10)
    assert fit.chi2 == pytest.approx(float(res[0]), rel=1e-8) and fit.dof == 6
    plain = fits.linear_fit(X, y)
    np.testing.assert_allclose(plain.coef, np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-10)


def test_loglog_slope_design_is_the_fit_it_plans():
    """The planned weights reproduce loglog_fit's slope on any data with those relative errors, and
    the planned standard error is the fit's."""
    L = np.array([16.0, 64, 256, 1024])
    rel = np.array([0.02, 0.05, 0.03, 0.1])
    y = 2.0 * L**-0.7 * np.array([1.01, 0.98, 1.03, 0.95])
    c, se = fits.loglog_slope_design(L, rel)
    fit = fits.loglog_fit(L, y, rel * y)
    assert float(c @ np.log(y)) == pytest.approx(fit.slope, rel=1e-12) and se == pytest.approx(
        fit.stderr, rel=1e-12
    )
