"""numerics/finite_risk.py's angular rule (`angular_rule`): the n-point Gauss rule of the law of
a = D.lam, D ~ Dirichlet(1/2, ..., 1/2), with the interpolatory b weights. Held to the closed form
of the Dirichlet moments (derived here, not taken from the code), to the Lanczos reduction of the
full tensor rule it replaces, and to that tensor rule on smooth functions of (a, b); plausible
wrong rules are caught by the same comparisons.

Closed form: with h ~ N(0, I_d), h^T diag(lam) h = Q a, Q = |h|^2 ~ chi2_d independent of a, and
E exp(t h^T diag(lam) h) = prod_j (1 - 2 t lam_j)^(-1/2), E Q^k = 2^k (d/2)_k, so
    E a^k = k! [t^k] prod_j (1 - t lam_j)^(-1/2) / (d/2)_k,
and differentiating in s at s = 0 the same generating function with diag(lam t + nu s),
    E[b a^k] = k! [t^k] (sum_j nu_j / (1 - t lam_j)) prod_j (1 - t lam_j)^(-1/2) / (2 (d/2)_{k+1}).
Every coefficient is a sum of positive terms (lam, nu >= 0), so the series are accurate to
rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest

from softlin.numerics import finite_risk as fr

# the moments of degree up to 2n - 1 sum n terms of size up to a_max^k: the rule's rounding
# (measured <= 3e-13 relative at n = 20, 5e-14 at n = 10, d = 5)
EXACT = 1e-11


def toeplitz(d, r):
    return np.array([[r ** abs(i - j) for j in range(d)] for i in range(d)])


def _series(lam, K):
    """Coefficients of prod_j (1 - t lam_j)^(-1/2) up to t^K."""
    c = np.zeros(K + 1)
    c[0] = 1.0
    for x in lam:
        c = np.convolve(c, [math.comb(2 * k, k) / 4**k * x**k for k in range(K + 1)])[: K + 1]
    return c


def dirichlet_moments(lam, nu, K):
    """(E a^k, E[b a^k]) for k = 0..K (module docstring)."""
    d = len(lam)
    base = _series(lam, K)
    poch = [math.prod(d / 2 + i for i in range(k)) for k in range(K + 2)]
    Ea = np.array([math.factorial(k) * base[k] / poch[k] for k in range(K + 1)])
    tilt = sum(n * np.convolve(base, x ** np.arange(K + 1))[: K + 1] for x, n in zip(lam, nu))
    Eba = np.array([math.factorial(k) * tilt[k] / (2 * poch[k + 1]) for k in range(K + 1)])
    return Ea, Eba


def moment_errors(a, b, w, lam, nu, n):
    """Largest relative errors of the rule's E a^k, k < 2n, and E[b a^k], k < n."""
    Ea, Eba = dirichlet_moments(lam, nu, 2 * n)
    ea = max(abs(w @ a**k - Ea[k]) / Ea[k] for k in range(2 * n))
    eb = max(abs(w @ (b * a**k) - Eba[k]) / Eba[k] for k in range(n))
    return ea, eb


LAWS = {
    "toeplitz-correct": fr.spectra(fr.Model(toeplitz(5, 0.5), toeplitz(5, 0.5), 0.2, 0.1)),
    "toeplitz-authors": fr.spectra(fr.Model(toeplitz(5, 0.5) @ toeplitz(5, 0.5), np.eye(5), 1, 0)),
    "d3-repeated-tail": (np.array([0.5, 2.0, 2.0]), np.array([0.1, 3.0, 1.0])),
    "d2": (np.array([0.3, 1.7]), np.array([0.2, 0.9])),
}


@pytest.mark.parametrize("law", LAWS)
@pytest.mark.parametrize("n", [4, 10, 20])
def test_moments_are_the_dirichlet_moments(law, n):
    lam, nu = LAWS[law]
    a, b, w = fr.angular_rule(lam, nu, n)
    ea, eb = moment_errors(a, b, w, lam, nu, n)
    assert ea <= EXACT and eb <= EXACT, (ea, eb)
    assert w.sum() == pytest.approx(1.0, abs=1e-14) and np.all(w > 0)
    assert lam.min() <= a.min() and a.max() <= lam.max()


def test_the_closed_form_moments_are_those_of_the_law():
    """The closed form against the first two moments by hand, E a = mean(lam), E b = mean(nu),
    E a^2 = (sum lam^2 + (sum lam)^2 / 2) / (d/2 (d/2 + 1)) / 2 (Dirichlet(1/2): E D_j^2 = 3/4 /
    (d/2 (d/2 + 1)), E D_i D_j = 1/4 / (d/2 (d/2 + 1))), and a Monte Carlo draw of the law at
    E[b a^3] (10^6 draws: 6 standard errors, false alarm ~2e-9, nominal: normal approximation)."""
    lam, nu = LAWS["toeplitz-correct"]
    d = lam.size
    Ea, Eba = dirichlet_moments(lam, nu, 3)
    assert Ea[1] == pytest.approx(lam.mean(), rel=1e-14)
    assert Eba[0] == pytest.approx(nu.mean(), rel=1e-14)
    c = d / 2 * (d / 2 + 1)
    assert Ea[2] == pytest.approx(
        (0.75 * (lam**2).sum() + 0.25 * (lam.sum() ** 2 - (lam**2).sum())) / c, rel=1e-14
    )
    D = np.random.default_rng(3).dirichlet(np.full(d, 0.5), size=10**6)
    x = (D @ nu) * (D @ lam) ** 3
    assert abs(x.mean() - Eba[3]) <= 6 * x.std() / math.sqrt(x.size)


def test_a_wrong_rule_is_caught():
    """Plausible slips, each caught by the moment comparison far beyond EXACT: b taken at its mean
    (the isotropic shortcut), the b weights left undivided (W^b_j for b_j), and the Gauss rule of
    the wrong law (Dirichlet(1, ..., 1), uniform on the simplex, drawn and reduced the same way as
    the right law's tensor rule, which passes)."""
    lam, nu = LAWS["toeplitz-correct"]
    n = 10
    a, b, w = fr.angular_rule(lam, nu, n)
    assert moment_errors(a, np.full_like(b, nu.mean()), w, lam, nu, n)[1] > 1e-3
    assert moment_errors(a, w * b, w, lam, nu, n)[1] > 1e-1
    # Dirichlet(1, ..., 1) (uniform directions on the simplex) in place of Dirichlet(1/2, ...)
    D, wd = fr.dirichlet_rule(lam.size, n)
    shifted = np.random.default_rng(0).dirichlet(np.ones(lam.size), size=200_000)
    x, ww, bb = fr.gauss_reduction(shifted @ lam, np.full(200_000, 1 / 200_000), shifted @ nu, n)
    assert moment_errors(x, bb, ww, lam, nu, n)[0] > 1e-2
    x, ww, bb = fr.gauss_reduction(D @ lam, wd, D @ nu, n)
    assert max(moment_errors(x, bb, ww, lam, nu, n)) <= EXACT


@pytest.mark.parametrize("law", ["toeplitz-correct", "d3-repeated-tail"])
def test_it_is_the_lanczos_reduction_of_the_tensor_rule(law):
    """The tensor Gauss-Jacobi rule with n nodes per Beta variable (n^(d-1) points) reduced to n
    nodes at once gives the same rule as the one Beta variable at a time construction."""
    lam, nu = LAWS[law]
    n = 8
    D, wd = fr.dirichlet_rule(lam.size, n)
    x, w, b = fr.gauss_reduction(D @ lam, wd, D @ nu, n)
    a2, b2, w2 = fr.angular_rule(lam, nu, n)
    assert x.size == a2.size
    np.testing.assert_allclose(a2, x, rtol=0, atol=1e-12 * lam.max())
    np.testing.assert_allclose(w2, w, rtol=0, atol=1e-12)
    np.testing.assert_allclose(b2, b, rtol=0, atol=1e-11 * nu.max())


def test_against_the_tensor_rule_on_a_smooth_function():
    """E[exp(-a) + b / (1 + a)] by the 20-node rule against the tensor rule at 16 nodes per axis
    (65 536 points): measured 7e-12 relative (1.5e-5 at 6 nodes, 1.9e-10 at 16)."""
    lam, nu = LAWS["toeplitz-correct"]
    D, wd = fr.dirichlet_rule(lam.size, 16)
    f = lambda a, b: np.exp(-a) + b / (1 + a)  # noqa: E731
    ref = wd @ f(D @ lam, D @ nu)
    a, b, w = fr.angular_rule(lam, nu, 20)
    assert abs(w @ f(a, b) - ref) <= 1e-10 * ref
    a, b, w = fr.angular_rule(lam, nu, 6)  # a coarse rule is seen
    assert abs(w @ f(a, b) - ref) > 1e-7 * ref


def test_d2_is_the_gauss_jacobi_rule_itself():
    """At d = 2 a = lam_2 + (lam_1 - lam_2) B is affine in the one Beta variable, so the n-point
    rule is the former tensor rule's n Gauss-Jacobi nodes (b, affine too, exact at every node)."""
    lam, nu = LAWS["d2"]
    model_free = fr.angular_rule(lam, nu, 10)
    D, wd = fr.dirichlet_rule(2, 10)
    order = np.argsort(D @ lam)
    np.testing.assert_allclose(model_free[0], (D @ lam)[order], rtol=1e-13)
    np.testing.assert_allclose(model_free[1], (D @ nu)[order], rtol=1e-12)
    np.testing.assert_allclose(model_free[2], wd[order], rtol=1e-11)


def test_isotropic_and_one_dimensional_laws_have_one_node():
    for model in (
        fr.Model(np.eye(4), np.eye(4), 0.25, 0.1),
        fr.Model(np.eye(1) * 2.0, np.eye(1), 1.0, 0.1),
        fr.Model(np.diag([2.0, 1.0]), np.diag([0.5, 1.0]), 0.5, 0.0),  # K1 = I: a constant
    ):
        rule = fr.query_rule(model)
        lam, nu = fr.spectra(model)
        assert rule.a.size == 1 and rule.wa.tolist() == [1.0]
        assert rule.b[0] == pytest.approx(nu.mean(), rel=1e-14)
    # a law whose a is constant but not caught by the shortcut: the reduction stops at one node
    a, b, w = fr.angular_rule(np.array([1.0, 1.0, 1.0 + 1e-15]), np.array([1.0, 2.0, 3.0]), 10)
    assert a.size == 1 and b[0] == pytest.approx(2.0, rel=1e-12)
