"""Proposition 3.1 derivations: the first-order moments, the query average, the rate function and
the sharp exponent, each against an independent numeric route; wrong variants are rejected."""

import math

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import integrate

from softlin.derivations import catalogue, fluctuations, fluctuations_product, fluctuations_exponent
from softlin.claims.shared import exponents as prop31_common
from softlin.derivations.proof import is_zero
from softlin.numerics import kernels

from ..strategies import seeds


@pytest.mark.xdist_group("fluctuation-proofs")  # test_proofs proves the group on the same worker
def test_every_fluctuation_identity_reduces_to_zero():
    proofs = catalogue.fluctuation_proofs()  # cached: shared with test_proofs and the claim
    assert len(proofs) >= 35
    assert [p.statement for p in proofs if not p.passed] == []


def test_prover_rejects_c1_without_the_gamma_a_a_gamma_term():
    s = fluctuations.symbols()
    a, G, V = s["a"], s["Gamma"], s["V"]
    wrong = sp.exp(sp.Trace(a.T * G * a)) * V * G * V.T
    assert not is_zero(fluctuations.cov_first_order(s) - wrong)


def test_prover_rejects_a_bias_with_the_wrong_sign():
    s = fluctuations.symbols()
    a, G, V = s["a"], s["Gamma"], s["V"]
    assert not is_zero(fluctuations.bias_first_order(s) - sp.exp(sp.Trace(a.T * G * a)) * V * G * a)


def test_prover_rejects_the_naive_exponent_as_the_minimum():
    G = fluctuations_exponent.exponent_middle()
    naive = 1 / (2 * fluctuations_exponent.lam_sym)
    assert not is_zero(
        G.subs(fluctuations_exponent.x_sym, fluctuations_exponent.minimiser()) - naive
    )


def _rademacher_moments(a):
    """E w^2, E w^2 (x - mu), E w^2 (x - mu)^2 for x = +-1 by the two-point sum (no mgf algebra)."""
    xs = np.array([1.0, -1.0])
    w = np.exp(a * xs) / np.cosh(a)
    mu = np.tanh(a)
    return np.mean(w**2), np.mean(w**2 * (xs - mu)), np.mean(w**2 * (xs - mu) ** 2)


@given(st.floats(-2.5, 2.5))
def test_general_law_identities_match_two_point_sums_for_rademacher(a):
    mom = fluctuations.general_law_moments()
    exprs = [mom["claimed"][k] for k in ("w2", "w2_centred", "w2_centred2")]
    values = []
    for e in exprs:
        e = e.replace(fluctuations.M_fun, lambda arg: sp.cosh(arg)).doit()
        values.append(float(e.subs(fluctuations.a_sym, a).evalf(30)))
    np.testing.assert_allclose(values, _rademacher_moments(a), rtol=1e-12, atol=1e-14)


@settings(max_examples=10)
@given(seeds)
def test_kernels_b1_c1_match_a_direct_numpy_formula(seed):
    rng = np.random.default_rng(seed)
    d, k = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    B = rng.normal(size=(d, int(rng.integers(1, d + 1))))
    G, V, a = B @ B.T, rng.normal(size=(k, d)), rng.normal(size=(d, 1)) * 0.5
    q = (a.T @ G @ a).item()
    np.testing.assert_allclose(
        kernels.bias_first_order(G, V, a), -math.exp(q) * V @ G @ a, rtol=1e-13, atol=1e-15
    )
    np.testing.assert_allclose(
        kernels.cov_first_order(G, V, a),
        math.exp(q) * V @ (G + G @ a @ a.T @ G) @ V.T,
        rtol=1e-13,
        atol=1e-15,
    )


@settings(max_examples=6)
@given(st.floats(0.2, 2.0), st.floats(-0.6, 0.6), st.floats(-2, 2), st.floats(0.3, 2.0))
def test_first_order_coefficient_closed_form_matches_numerical_integration_in_1d(g, u, v, sq):
    """d = 1: E_z e^{M s z^2 ... } by scipy quad over the query, against the det/trace closed
    form. The scenario (Gamma, U, V, Sigma_q) is drawn itself, not from a seed, so a failure
    shrinks to the values that show it (Sigma_q = 1 hides where Sigma_q enters)."""
    assume(u * g * u * sq < 0.45)
    closed = float(
        fluctuations.first_order_coefficient_matrix(
            sp.Matrix([[g]]), sp.Matrix([[u]]), sp.Matrix([[v]]), sp.Matrix([[sq]])
        )
    )
    f = lambda z: (
        math.exp(z * z * (g * u * u - 1 / (2 * sq)))
        * (v * v * g + (v * g * u * z) ** 2)
        / math.sqrt(2 * math.pi * sq)
    )
    numeric = integrate.quad(f, -np.inf, np.inf, epsabs=0, epsrel=1e-12)[0]
    assert numeric == pytest.approx(closed, rel=1e-9)


def _laplace_rate(gamma, q=1.0):
    """h(gamma) by brute force: -(1/q) max over the dominant token position y = u/q of the two
    Laplace exponents, for gamma > 1/2."""
    y = np.linspace(-3, 6, 900001)
    bulk = np.where(y <= gamma + 0.5, 2 * y - 1 - y**2 / 2 - gamma, -np.inf)
    single = np.where(y >= gamma + 0.5, gamma - y**2 / 2, -np.inf)
    return -max(bulk.max(), single.max())


@given(st.floats(0.55, 4.0))
def test_rate_function_is_the_brute_force_laplace_maximum(gamma):
    assert float(kernels.rate_function(gamma)) == pytest.approx(_laplace_rate(gamma), abs=1e-4)


@given(st.floats(0.05, 20.0))
def test_sharp_exponent_is_the_minimum_of_the_averaged_rate(lam):
    x = np.linspace(1e-9, 8, 20001)  # G is convex near its minimum: grid error ~ 1e-7
    G = x * kernels.rate_function(1 / x) + x / (2 * lam)
    kappa, naive = float(kernels.sharp_exponent(lam)), float(kernels.naive_exponent(lam))
    assert float(G.min()) == pytest.approx(kappa, abs=1e-5)
    assert kappa >= naive - 1e-15
    if lam > 0.5:
        assert kappa > naive


def test_sigma_squared_kappa_increases_with_sigma():
    lam0 = 0.3
    s2 = np.geomspace(1, 1e5, 300)
    values = np.array([x * float(kernels.sharp_exponent(x * lam0)) for x in s2])
    assert np.all(np.diff(values) > 0) and np.all(values < 1 / lam0)
    assert values[-1] * lam0 == pytest.approx(1, abs=1e-4)  # the paper's c2 / sigma^2 scaling


@pytest.mark.parametrize("bad", [-0.1, float("nan")])
def test_sharp_exponent_rejects_bad_lambda(bad):
    with pytest.raises(ValueError, match="lambda"):
        prop31_common.sharp_exponent(bad)


def test_prover_rejects_a_wrong_stable_form_of_the_rademacher_weight_moment():
    a, t = fluctuations_product.controls.a_sym, sp.Symbol("t", positive=True)
    derived = fluctuations_product.product_law_log_w2_derived("rademacher").subs(a, t)
    assert not is_zero((sp.exp(derived) - (1 + sp.tanh(t))).rewrite(sp.exp))


@pytest.mark.parametrize("kind", ["rademacher", "uniform"])
def test_product_law_kernels_equal_their_definitions_at_40_digits_including_near_zero(kind):
    """l(2a) - 2 l(a) and l''(a) from mpmath quadrature of the coordinate law (uniform) or the
    two-point sum (Rademacher), at 40 digits, against the emitted float64 kernels on both sides of
    the series switch |a| = 0.05."""
    import mpmath as mp

    def mgf(t):
        if kind == "rademacher":
            return mp.cosh(t)
        c = mp.sqrt(3)
        return mp.quad(lambda x: mp.exp(t * x), [-c, c]) / (2 * c)

    points = [1e-6, -0.03, 0.0499, 0.0501, -0.3, 1.7]
    log_w2 = getattr(kernels, f"{kind}_log_weight_second_moment")(np.array(points))
    curv = getattr(kernels, f"{kind}_curvature")(np.array(points))
    with mp.workdps(40):
        for a, lw, cv in zip(points, log_w2, curv):
            a = mp.mpf(a)
            lam = lambda t: mp.log(mgf(t))
            exact_lw = lam(2 * a) - 2 * lam(a)
            exact_cv = mp.diff(lam, a, 2)
            assert abs(float(exact_lw) - lw) <= 1e-13 * max(1.0, abs(float(exact_lw)))
            assert abs(float(exact_cv) - cv) <= 1e-12


@pytest.mark.parametrize("lam", ["1/10", "1/5", "3/10", "1/2", "7/10", "1", "3", "50"])
def test_emitted_exponent_kernels_equal_the_derivations_piecewise_forms_evaluated_exactly(lam):
    """The claims' exponents (emitted kernels, through prop31_common) against exact SymPy evaluation
    of the derived Piecewise at rational lambda (every branch and both thresholds), and h at
    rational gamma."""
    from softlin.claims.shared import exponents as c

    fe = fluctuations_exponent
    value = sp.Rational(lam)
    for got, expr in (
        (c.sharp_exponent, fe.sharp_exponent_piecewise()),
        (c.naive_exponent, fe.naive_exponent_piecewise()),
        (c.remainder_exponent, fe.remainder_exponent_piecewise()),
    ):
        assert got(float(value)) == pytest.approx(
            float(expr.subs(fe.lam_arg, value)), rel=1e-14, abs=1e-15
        )
    h = fe.rate_function_piecewise()
    for gamma in (value, 1 / (2 * value), 3 * value):
        assert float(kernels.rate_function(float(gamma))) == pytest.approx(
            float(h.subs(fe.gamma_arg, gamma)), rel=1e-14, abs=1e-15
        )


@pytest.mark.parametrize("L, q", [(2, 0.0), (3, 0.5), (64, 2.0), (4096, 7.0)])
def test_emitted_expectation_bound_factor_equals_its_definition(L, q):
    from softlin.numerics import kernels

    direct = 4 * math.exp(q) / L + L * math.exp(-((L - 2) ** 2) / (8 * (L - 1) * math.exp(q)))
    assert float(kernels.expectation_bound_factor(L, q)) == pytest.approx(direct, rel=1e-13)
