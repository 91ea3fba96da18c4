"""prop-3.4's vectorised gradient errors (claims/prop34_exact.gradient_errors_fn: k |zhat - mu_a|^2
and |z|^2 ||V (C_hat - Gamma)||_F^2 over prompts x queries) against the independent route: the
squared Frobenius norm of the emitted finite-prompt Jacobian minus the emitted limit Jacobian, one
sample at a time."""

from __future__ import annotations

import numpy as np

from softlin.claims.prop_3_4 import exact as ex
from softlin.numerics import kernels, limits


def test_gradient_errors_equal_frobenius_norms_of_emitted_jacobian_differences(monkeypatch):
    rng = np.random.default_rng(11)
    d, k, P, Q = 3, 2, 4, 5
    B = rng.normal(size=(d, d))
    Gamma, U, V, m = (
        B @ B.T / 3,
        rng.normal(size=(d, d)) / 2,
        rng.normal(size=(k, d)),
        rng.normal(size=d),
    )
    queries = rng.normal(size=(Q, d))
    zhat = rng.normal(size=(P, Q, d))
    R = rng.normal(size=(P, Q, d, d))
    Chat = np.einsum("pqij,pqkj->pqik", R, R)  # PSD weighted covariances
    monkeypatch.setattr(ex.gradients, "sampled_weighted_moments", lambda *args, **kw: (zhat, Chat))
    mus = limits.gaussian_limit(
        m, Gamma, U, np.eye(d), queries
    )  # mu_a = m + Gamma U z (Lemma 2.1, V = I)
    errV, errU = ex.gradient_errors_fn(U, V, Gamma)(None, rng, P, 7, queries, mus)
    col = lambda x: np.asarray(x, dtype=float)[:, None]
    for p in range(P):
        for j, z in enumerate(queries):
            dV = kernels.finite_jacobian_V(col(zhat[p, j]), V) - kernels.limit_jacobian_V(
                col(m), Gamma, U, V, col(z)
            )
            dU = kernels.finite_jacobian_U(Chat[p, j], V, col(z)) - kernels.limit_jacobian_U(
                Gamma, V, col(z)
            )
            assert np.isclose(errV[p, j], np.sum(dV**2), rtol=1e-12)
            assert np.isclose(errU[p, j], np.sum(dU**2), rtol=1e-12)
