"""Variance of linear attention's per-prompt test loss in the authors' experiment (derivations/
authors_experiment.py, step 6): the bound of the Catoni tests of its test risk.

The per-prompt loss is Y = D^2 + s2 with D = f - p abar (numerics/authors_sgd.evaluate, the query
noise averaged), so Var Y = E D^4 - (E D^2)^2. Given (beta, q) the emitted kernels
`authors_linear_loss_conditional_second` and `_fourth` give E[D^2 | beta, q] and E[D^4 | beta, q]
as polynomials in f = beta^T q, A = q^T Sigma_p q, B = beta^T Sigma_p beta + s2,
C = beta^T Sigma_p q. The outer expectation is over beta ~ N(0, tau I) and q ~ N(0, Sigma_q): in
the common eigenbasis of Sigma_p and Sigma_q (they commute: the derivation's hypothesis), beta =
sqrt(tau) b and q = sqrt(kap) h coordinatewise with b, h independent standard normal, and the
integrand is a polynomial of degree <= 4 in each coordinate b_j, h_j (f and C are linear in each of
beta and q, A and B quadratic, and every term of D^4 has degree 4 in beta and in q). The tensor
Gauss-Hermite rule with GH_NODES = 3 nodes per coordinate is exact to degree 5 per coordinate, so
the expectation is exact up to float64 rounding: 3^(2d) nodes, at most MAX_DIM = 6 dimensions
(531 441 nodes); beyond, `OutOfReach`. The variance returned adds ROUNDING x E D^4 for the
rounding of the sums and of the difference E D^4 - (E D^2)^2 (float64, relative ~1e-15 per node).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from . import kernels
from .quadrature import tensor_grid

GH_NODES = 3  # exact to degree 5 per coordinate; the integrand has degree <= 4 in each
MAX_DIM = 6  # 3^(2 d) nodes: 531 441 at d = 6
ROUNDING = 1e-9  # relative to E D^4: float64 rounding over <= 531 441 nodes, with a wide margin


@lru_cache(maxsize=2)
def _grid(dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The tensor rule over 2 d coordinates, built once per dimension (building it is the cost:
    ~0.9 s at d = 5 under load, the kernels ~0.03 s)."""
    points, weights = tensor_grid(GH_NODES, dim)
    points.setflags(write=False), weights.setflags(write=False)
    return points, weights


class OutOfReach(ValueError):
    """The dimension is beyond the exact rule's node budget."""


def joint_eigenvalues(Sigma_p, Sigma_q) -> tuple[np.ndarray, np.ndarray]:
    """(lam, kap): the eigenvalues of Sigma_p and Sigma_q in a common orthonormal eigenbasis, from
    the eigenvectors of a generic combination; ValueError when the matrices do not commute."""
    Sp, Sq = np.asarray(Sigma_p, float), np.asarray(Sigma_q, float)
    scale = max(np.abs(Sp).max(), np.abs(Sq).max(), 1e-300)
    if np.abs(Sp @ Sq - Sq @ Sp).max() > 1e-10 * scale**2:
        raise ValueError("Sigma_p and Sigma_q do not commute: the derivation does not apply")
    _, Q = np.linalg.eigh(Sp + math.sqrt(2) * Sq)
    P, K = Q.T @ Sp @ Q, Q.T @ Sq @ Q
    off = max(np.abs(P - np.diag(np.diag(P))).max(), np.abs(K - np.diag(np.diag(K))).max())
    if off > 1e-9 * scale:
        raise ValueError(f"no common eigenbasis found (off-diagonal {off:.3g})")
    return np.diag(P).copy(), np.diag(K).copy()


def linear_loss_moments(Sigma_p, Sigma_q, mu, omega, s2, tau, L) -> tuple[float, float]:
    """(E D^2, E D^4) of D = f - mu omega abar over prompts, by the exact tensor rule."""
    lam, kap = joint_eigenvalues(Sigma_p, Sigma_q)
    d = lam.size
    if d > MAX_DIM:
        raise OutOfReach(
            f"d = {d} > {MAX_DIM}: the exact rule needs {GH_NODES}^{2 * d} nodes (MAX_DIM)"
        )
    points, weights = _grid(2 * d)
    q = points[:, :d] * np.sqrt(kap)
    beta = points[:, d:] * math.sqrt(tau)
    f = np.sum(beta * q, axis=1)
    A = np.sum(lam * q * q, axis=1)
    C = np.sum(lam * beta * q, axis=1)
    B = np.sum(lam * beta * beta, axis=1) + s2
    p = float(mu) * float(omega)
    second = kernels.authors_linear_loss_conditional_second(f, A, B, C, p, float(L))
    fourth = kernels.authors_linear_loss_conditional_fourth(f, A, B, C, p, float(L))
    return float(weights @ second), float(weights @ fourth)


def linear_loss_variance(Sigma_p, Sigma_q, mu, omega, s2, tau, L) -> float:
    """An upper bound on Var Y of the per-prompt loss Y = D^2 + s2: E D^4 - (E D^2)^2 (exact rule)
    plus ROUNDING x E D^4 for float64 rounding."""
    m2, m4 = linear_loss_moments(Sigma_p, Sigma_q, mu, omega, s2, tau, L)
    return max(m4 - m2 * m2, 0.0) + ROUNDING * m4
