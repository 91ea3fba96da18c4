"""The emitted limit kernels against the independent quadrature routes, over random admissible
parameters (Gamma = B B^T, rank-deficient included)."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings

from softlin.numerics import sampling, limits, quadrature
from softlin.numerics.laws import GaussianLaw, MixtureLaw

from ..strategies import gaussian_setups, seeds


@given(gaussian_setups())
def test_gaussian_kernel_equals_gauss_hermite_quadrature(setup):
    m, cov, U, V, Z, _ = setup
    kernel = limits.gaussian_limit(m, cov, U, V, Z)
    gh = quadrature.gauss_hermite_limit(GaussianLaw(m, cov), U, V, Z)
    assert np.max(np.abs(kernel - gh)) <= 1e-12 * max(1.0, np.max(np.abs(gh)))


@settings(max_examples=4)
@given(gaussian_setups())
def test_gaussian_kernel_equals_40_digit_quadrature(setup):
    m, cov, U, V, Z, _ = setup
    mp_value = quadrature.gaussian_limit_mp(m, cov, U, V, Z[0])
    kernel = limits.gaussian_limit(m, cov, U, V, Z[:1])[0]
    assert max(abs(float(x) - y) for x, y in zip(mp_value, kernel)) <= 1e-13 * max(
        1.0, np.max(np.abs(kernel))
    )


@given(seeds)
def test_mixture_kernel_equals_gauss_hermite_quadrature(seed):
    rng = np.random.default_rng(seed)
    d, K = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    Bs = [rng.normal(size=(d, int(rng.integers(1, d + 1)))) * 0.6 for _ in range(K)]
    weights = rng.dirichlet(np.ones(K))
    law = MixtureLaw(weights, rng.normal(size=(K, d)), np.stack([B @ B.T for B in Bs]))
    U, V, Z = rng.normal(size=(d, d)) * 0.3, rng.normal(size=(2, d)), rng.normal(size=(5, d))
    kernel = limits.mixture_limit(law, U, V, Z)
    gh = quadrature.mixture_gauss_hermite_limit(law, U, V, Z)
    assert np.max(np.abs(kernel - gh)) <= 1e-12 * max(1.0, np.max(np.abs(gh)))


def test_mixture_of_one_component_is_lemma_2_1():
    rng = np.random.default_rng(2)
    B = rng.normal(size=(3, 2))
    law = MixtureLaw([1.0], rng.normal(size=(1, 3)), (B @ B.T)[None])
    U, V, Z = rng.normal(size=(3, 3)), rng.normal(size=(2, 3)), rng.normal(size=(6, 3))
    np.testing.assert_allclose(
        limits.mixture_limit(law, U, V, Z),
        limits.gaussian_limit(law.means[0], law.covs[0], U, V, Z),
        rtol=1e-13,
        atol=1e-14,
    )
    g = GaussianLaw(law.means[0], law.covs[0])
    np.testing.assert_allclose(
        limits.mixture_bound_moments(law, U, V, Z[0]),
        limits.gaussian_bound_moments(g, U, V, Z[0]),
        rtol=1e-12,
    )


def test_control_kernels_equal_their_40_digit_limits_including_near_zero():
    U, V = np.diag([1.0, 0.04, 1e-7]), np.eye(3)
    for z in (np.array([0.7, 1.0, 1.0]), np.array([-2.0, 1.26, 3.0])):
        for kind, kernel in (
            ("rademacher", limits.rademacher_limit),
            ("uniform", limits.uniform_limit),
        ):
            exact = [float(x) for x in quadrature.product_law_limit_mp(kind, U, V, z)]
            np.testing.assert_allclose(kernel(U, V, z[None])[0], exact, rtol=1e-13, atol=1e-20)


def _tensor_gauss_hermite_2d(nodes=60):
    """Standard-normal points g in R^2 and weights of a tensor Gauss-Hermite rule (nodes per
    axis)."""
    from numpy.polynomial.hermite_e import hermegauss

    x, w = hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    G1, G2 = np.meshgrid(x, x, indexing="ij")
    return np.column_stack([G1.ravel(), G2.ravel()]), np.outer(w, w).ravel()


@given(seeds)
def test_bound_moments_match_tensor_gauss_hermite_quadrature(seed):
    """E w^2 and E w^2 ||V(z'-mu_a)||^2 from the kernels against a direct tensor Gauss-Hermite
    expectation over z' = m + B g (60 nodes per axis: exact for the polynomial part, truncation of
    exp(2 a^T B g) below 1e-14 for the tilts drawn here). Deterministic, so no heavy-tail issue."""
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(2, 2)) * 0.5
    law = GaussianLaw(rng.normal(size=2) * 0.3, B @ B.T)
    U, V, z = rng.normal(size=(2, 2)) * 0.3, rng.normal(size=(2, 2)), rng.normal(size=2)
    a = U @ z
    g, W = _tensor_gauss_hermite_2d()
    pts = law.mean + g @ law.root.T
    logw = pts @ a - (a @ law.mean + a @ law.cov @ a / 2)  # log of the normalised weight
    mu = law.mean + law.cov @ a
    w2 = np.exp(2 * logw)
    direct = (np.sum(W * w2), np.sum(W * w2 * np.sum(((pts - mu) @ V.T) ** 2, axis=1)))
    np.testing.assert_allclose(limits.gaussian_bound_moments(law, U, V, z), direct, rtol=1e-11)


@given(seeds)
def test_mixture_bound_moments_match_tensor_gauss_hermite_quadrature(seed):
    """The mixture's E w^2 and E w^2 ||V(z'-mu_a)||^2 (kernels summed over components in log space)
    against a direct tensor Gauss-Hermite expectation of each component, mixed with the weights pi_k
    and normalised by the quadrature's own Z(a) and mu_a (60 nodes per axis, as the Gaussian test
    above)."""
    rng = np.random.default_rng(seed)
    roots = [rng.normal(size=(2, 2)) * 0.5 for _ in range(2)]
    law = MixtureLaw(
        rng.dirichlet([2.0, 2.0]), rng.normal(size=(2, 2)) * 0.5, np.array([B @ B.T for B in roots])
    )
    U, V, z = rng.normal(size=(2, 2)) * 0.3, rng.normal(size=(2, 2)), rng.normal(size=2)
    a = U @ z
    g, W = _tensor_gauss_hermite_2d()
    pts = [m + g @ B.T for m, B in zip(law.means, roots)]
    E = lambda f: sum(
        p * np.sum(W * f(P)) for p, P in zip(law.weights, pts)
    )  # E_mu f(z') by quadrature
    Z = E(lambda P: np.exp(P @ a))
    mu = np.array([E(lambda P: np.exp(P @ a) * P[:, i]) for i in range(2)]) / Z
    direct = (
        E(lambda P: np.exp(2 * P @ a)) / Z**2,
        E(lambda P: np.exp(2 * P @ a) * np.sum(((P - mu) @ V.T) ** 2, axis=1)) / Z**2,
    )
    np.testing.assert_allclose(limits.mixture_bound_moments(law, U, V, z), direct, rtol=1e-10)


def test_finite_prompt_mean_square_error_approaches_the_first_order_moment():
    """L E||T[mu_L](z) - T(z)||^2 -> E w^2 ||V(z'-mu_a)||^2 (O(1/L) correction): at L = 2048 the
    Monte Carlo value must be within 5 standard errors plus a 10% allowance for that correction."""
    rng = np.random.default_rng(11)
    law = GaussianLaw([0.1, -0.2], [[1.0, 0.3], [0.3, 0.5]])
    U, V, q = np.array([[0.4, 0.1], [-0.2, 0.3]]), np.eye(2), np.array([[0.8, -0.5]])
    L = 2048
    out = sampling.sampled_attention(law, rng, 3000, L, U, V, q)
    sq = L * np.sum((out[:, 0] - limits.gaussian_limit(law.mean, law.cov, U, V, q)[0]) ** 2, axis=1)
    predicted = limits.gaussian_bound_moments(law, U, V, q[0])[1]
    assert abs(sq.mean() - predicted) <= 5 * sq.std() / math.sqrt(sq.size) + 0.1 * predicted


@settings(max_examples=25, deadline=None)
@given(seeds)
def test_numerator_moments_equal_tensor_gauss_hermite_over_psd_covariances_including_singular(seed):
    """E X and Var X of X = e^{a^T z' - c}(V z' - t) (numerics/numerator_moments.py, behind the
    controls' power) against a direct tensor Gauss-Hermite expectation over z' = m + B g, for
    Gamma = B B^T of every rank from 0 (a point mass) to d, a Gaussian mixture of such components,
    and a wrong t."""
    from numpy.polynomial.hermite_e import hermegauss
    from softlin.numerics import numerator_moments

    rng = np.random.default_rng(seed)
    d, k = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    comps = []
    for _ in range(int(rng.integers(1, 3))):
        rank = int(rng.integers(0, d + 1))
        B = rng.normal(size=(d, rank)) * 0.5
        comps.append((rng.normal(size=d) * 0.5, B @ B.T, B))
    weights = rng.dirichlet(np.ones(len(comps)))
    U, V, z = rng.normal(size=(d, d)) * 0.4, rng.normal(size=(k, d)), rng.normal(size=d)
    t, c = rng.normal(size=k), float(rng.normal())
    a = U @ z
    x, w = hermegauss(40)
    w = w / np.sqrt(2 * np.pi)
    first, second = np.zeros(k), np.zeros(k)
    for pi, (m, _, B) in zip(weights, comps):
        r = B.shape[1]
        grid = np.array(list(itertools.product(x, repeat=r))) if r else np.zeros((1, 0))
        gw = np.array([np.prod(cw) for cw in itertools.product(w, repeat=r)])
        pts = m + grid @ B.T
        X = np.exp(pts @ a - c)[:, None] * (pts @ V.T - t)
        first += pi * gw @ X
        second += pi * gw @ X**2
    law = (
        GaussianLaw(comps[0][0], comps[0][1])
        if len(comps) == 1
        else MixtureLaw(
            weights, np.array([c_[0] for c_ in comps]), np.array([c_[1] for c_ in comps])
        )
    )
    mean, var = numerator_moments.moments(law, U, V, z, t, c)
    scale = max(1.0, float(np.max(np.abs(second))))
    np.testing.assert_allclose(mean, first, atol=1e-10 * scale)
    np.testing.assert_allclose(var, second - first**2, atol=1e-10 * scale)


def test_deviation_bound_kernel_solves_its_two_tail_equations():
    """eps_L = s / (1 - t): s solves N / (L s^2) = delta/2 and t solves
    exp(-L t^2 / (2 W)) = delta/2 (checked numerically by bisection on the tails, not by retyping
    the closed form)."""
    from scipy.optimize import brentq
    from softlin.numerics import kernels

    L, delta, W, N = 200, 1e-3, 1.3, 2.5
    s = brentq(lambda s: N / (L * s * s) - delta / 2, 1e-6, 1e6)
    t = brentq(lambda t: math.exp(-L * t * t / (2 * W)) - delta / 2, 0, 10)
    assert float(kernels.deviation_bound(L, delta, W, N)) == pytest.approx(s / (1 - t), rel=1e-10)
    assert float(kernels.deviation_bound(3, delta, W, N)) == math.inf


def test_the_tensor_gauss_hermite_rule_integrates_standard_normal_moments_exactly():
    from softlin.numerics.quadrature import gauss_hermite, tensor_grid

    x, w = gauss_hermite(5)  # exact up to degree 9 per coordinate
    assert float(w @ x**8) == pytest.approx(105.0, rel=1e-13)  # E g^8 = 7!!
    g, wt = tensor_grid(5, 3)
    assert g.shape == (125, 3) and wt.shape == (125,)
    assert np.array_equal(g[:5, 2], x) and np.all(g[:5, :2] == x[0])  # last coordinate fastest
    assert float(wt.sum()) == pytest.approx(1.0, rel=1e-14)
    moment = float(wt @ (g[:, 0] ** 2 * g[:, 1] ** 4 * g[:, 2] ** 6))
    assert moment == pytest.approx(45.0, rel=1e-13)
