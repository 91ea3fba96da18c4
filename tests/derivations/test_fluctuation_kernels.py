"""The kernels emitted for prop-3.1 / prop-3.4's remaining formulas, each against an independent
route (Monte Carlo of the defining expectation, finite differences of the log-mgf)."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.numerics import kernels


def _scenario(rng, d=3, k=2):
    B = rng.normal(size=(d, d))
    S = rng.normal(size=(d, d))
    return (
        rng.normal(size=d),
        B @ B.T / 3,
        rng.normal(size=(d, d)) / 2,
        rng.normal(size=(k, d)),
        S @ S.T / 2,
        B,
    )


def test_one_token_output_error_kernel_equals_monte_carlo_of_one_token_attention():
    """L = 1: T[mu_1](z) = V z_1; the squared error against V (m + Gamma U z), averaged over z_1
    and z."""
    rng = np.random.default_rng(3)
    m, G, U, V, Sq, _ = _scenario(rng)
    n = 400_000
    z1 = rng.multivariate_normal(m, G, size=n, method="eigh")
    z = rng.multivariate_normal(np.zeros(3), Sq, size=n, method="eigh")
    err = z1 @ V.T - (V @ (m[:, None] + G @ U @ z.T)).T
    sq = np.sum(err**2, axis=1)
    assert abs(
        sq.mean() - float(kernels.output_error_one_token(G, U, V, Sq))
    ) < 6 * sq.std() / np.sqrt(n)


def test_one_token_gradient_V_error_kernel_equals_monte_carlo():
    rng = np.random.default_rng(4)
    m, G, U, V, _, _ = _scenario(rng)
    z = rng.normal(size=3)
    n = 400_000
    z1 = rng.multivariate_normal(m, G, size=n, method="eigh")
    sq = V.shape[0] * np.sum((z1 - (m + G @ U @ z)) ** 2, axis=1)
    got = float(kernels.gradient_V_error_one_token(G, V, U, z[:, None])[0, 0])
    assert abs(sq.mean() - got) < 6 * sq.std() / np.sqrt(n)


@pytest.mark.parametrize("kind", ["rademacher", "uniform"])
def test_product_law_limit_is_the_gradient_of_the_log_mgf_by_finite_differences(kind):
    """V (m + B l'(B^T a)) against V times central differences of Lambda(a) = a^T m + sum_j
    l((B^T a)_j)."""
    rng = np.random.default_rng(5)
    m, _, U, V, _, B = _scenario(rng)
    B = B[:, :2]  # rank 2 root: B is d x r
    log_mgf = kernels.rademacher_log_mgf if kind == "rademacher" else kernels.uniform_log_mgf
    lam = lambda a: float(a @ m + np.sum(log_mgf(B.T @ a)))
    Z = np.column_stack([rng.normal(size=(3, 4)), np.zeros(3)])
    got = getattr(kernels, f"{kind}_affine_limit")(m[:, None], B, U, V, Z)
    h = 1e-5
    for j in range(Z.shape[1]):
        a = U @ Z[:, j]
        grad = np.array([(lam(a + h * e) - lam(a - h * e)) / (2 * h) for e in np.eye(3)])
        assert np.allclose(got[:, j], V @ grad, rtol=1e-7, atol=1e-8)


def test_error_fourth_moment_model_equals_monte_carlo_of_a_gaussian_error():
    rng = np.random.default_rng(6)
    k = 2
    R = rng.normal(size=(k, k))
    P, u = R @ R.T, rng.normal(size=k)
    A, B, q = 0.3, 0.7, 1.5
    S = A * P + (B - A) / q * np.outer(u, u)
    n = 1_000_000
    e = rng.multivariate_normal(np.zeros(k), S, size=n, method="eigh")
    y = np.sum(e**2, axis=1) ** 2
    got = float(
        kernels.error_fourth_moment_model(np.trace(S), A, B, q, np.trace(P @ P), u @ P @ u, u @ u)
    )
    assert abs(y.mean() - got) < 6 * y.std() / np.sqrt(n)
