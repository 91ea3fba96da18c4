"""The exact conditional sampler of Gaussian prompts: the weighted token sums drawn from the scores.

Tokens z_i = m + B g_i with g_i ~ N(0, I_r) iid (B B^T = Gamma, r = rank Gamma) and k queries whose
tilts a_j = U z_j give the scores s_ij = a_j^T z_i = b_j . g_i + a_j . m, b_j = B^T a_j. The
constant a_j . m cancels in the softmax. Let W (r x k, W^T W = I) have orthonormal columns whose
span contains every b_j (a reduced QR of [b_1 .. b_k]), and split each token's coordinates

    g_i = W t_i + rho_i,   t_i = W^T g_i ~ N(0, I_k),   rho_i = (I - W W^T) g_i ~ N(0, I - W W^T),

with t_i and rho_i uncorrelated, hence independent (jointly Gaussian; `original_coordinates_proofs`
with Gamma = I). The scores
s_ij = c_j . t_i, c_j = W^T b_j, depend on the tokens only through the t_i, so the weights
p_ji = softmax_i(s_j.) do too, and the weighted sums are

    sum_i p_ji g_i = W (sum_i p_ji t_i) + R_j,   R_j = sum_i p_ji rho_i.

Given the t's, (R_1 .. R_k) is a linear map of the iid rho_i, so it is Gaussian with mean 0 and

    E[R_j R_l^T | t] = (sum_i p_ji p_li) (I - W W^T) = G_jl (I - W W^T),   G = P P^T (k x k)

(`residual_covariance_proof`). With C C^T = G and xi an r x k matrix of iid N(0, 1),
R = (I - W W^T) xi C^T has exactly that law: vec R = (C (x) (I - W W^T)) vec xi, whose covariance is
(C C^T) (x) (I - W W^T)^2 = G (x) (I - W W^T) (`sampler_covariance_proofs`; the projector is
idempotent). A prompt therefore costs L k + r k normal draws instead of L r, which saves work while
k < r. In the original coordinates, with A = [a_1 .. a_k] and M = A^T Gamma A invertible, the same
split reads z_i - m = Gamma A M^{-1} u_i + r_i, u_i = A^T (z_i - m),
Cov(r_i) = Gamma - Gamma A M^{-1} A^T Gamma (for k = 1: the split of
derivations/selfnormalised_error.py); `original_coordinates_proofs`.

The sampler is exact in distribution for every functional of the scores and the weighted sums (the
outputs, their errors, the participation ratios G_jj), not for functionals of other token sums (the
weighted second moments of prop-3.4's gradients are not Gaussian given the weights).
"""

from __future__ import annotations

import sympy as sp

from .gaussian_expectations import gaussian_polynomial_expectation
from .group import Group
from .proof import Proof, prove_zero
from .proof_cache import cached


def residual_covariance_proof(r: int = 2, k: int = 2, L: int = 2) -> Proof:
    """E[R_j R_l^T] = (sum_i p_ji p_li) Pi for R_j = sum_i p_ji rho_i, rho_i iid N(0, Pi), Pi
    symbolic, the weights fixed (given the scores): by Stein's recursion on the monomials
    (gaussian_expectations)."""
    Pi = sp.Matrix(r, r, lambda i, j: sp.Symbol(f"Pi{min(i, j)}{max(i, j)}", real=True))
    p = sp.Matrix(k, L, lambda j, i: sp.Symbol(f"p{j}_{i}", real=True))
    rhos = [sp.Matrix(r, 1, sp.symbols(f"y{i}_0:{r}", real=True)) for i in range(L)]
    variables = [y for Y in rhos for y in Y]
    Sigma = sp.diag(*([Pi] * L))
    R = [sum((p[j, i] * rhos[i] for i in range(L)), sp.zeros(r, 1)) for j in range(k)]
    G = p * p.T
    diff = []
    for j in range(k):
        for l in range(k):
            outer = R[j] * R[l].T
            moment = outer.applyfunc(lambda e: gaussian_polynomial_expectation(e, variables, Sigma))
            diff.append(moment - G[j, l] * Pi)
    return prove_zero(
        f"E[R_j R_l^T | t] = (P P^T)_jl (I - W W^T) [r={r}, k={k}, L={L}]", sp.Matrix.vstack(*diff)
    )


def sampler_covariance_proofs(r: int = 2, k: int = 2) -> list[Proof]:
    """vec(S xi C^T) = (C (x) S) vec xi, and (C (x) S)(C (x) S)^T = (C C^T) (x) (S S^T): with S = Pi
    (a symmetric idempotent) the drawn residuals have covariance G (x) Pi."""
    S = sp.Matrix(r, r, lambda i, j: sp.Symbol(f"S{i}{j}", real=True))
    C = sp.Matrix(k, k, lambda i, j: sp.Symbol(f"C{i}{j}", real=True))
    xi = sp.Matrix(r, k, lambda i, j: sp.Symbol(f"xi{i}{j}", real=True))
    vec = lambda M: sp.Matrix(
        [M[i, j] for j in range(M.cols) for i in range(M.rows)]
    )  # column-major
    K = sp.kronecker_product(C, S)
    return [
        prove_zero(
            f"vec(S xi C^T) = (C (x) S) vec xi [r={r}, k={k}]", vec(S * xi * C.T) - K * vec(xi)
        ),
        prove_zero(
            f"(C (x) S)(C (x) S)^T = (C C^T) (x) (S S^T) [r={r}, k={k}]",
            K * K.T - sp.kronecker_product(C * C.T, S * S.T),
        ),
    ]


def original_coordinates_proofs(d: int = 3, k: int = 2) -> list[Proof]:
    """With A = [a_1 .. a_k], M = A^T Gamma A, H = Gamma A M^{-1} and r = (I - H A^T)(z - m):
    Cov(A^T (z - m), r) = 0, Cov(r) = Gamma - Gamma A M^{-1} A^T Gamma, z - m = H A^T (z - m) + r.
    Gamma is a generic symmetric matrix; with Gamma = I and W = A these are the whitened split (for
    orthonormal W, H = W). The identities are proved multiplied out by det M
    (M^{-1} = adj M / det M), which leaves polynomial identities: D = det M,
    R_D = D I - Gamma A adj(M) A^T = D (I - H A^T)."""
    G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"G{min(i, j)}{max(i, j)}", real=True))
    A = sp.Matrix(d, k, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    M = A.T * G * A
    adj, D = M.adjugate(), M.det()
    RD = D * sp.eye(d) - G * A * adj * A.T
    perp_D = D * G - G * A * adj * A.T * G  # D (Gamma - Gamma A M^-1 A^T Gamma)
    expand = lambda X: X.applyfunc(sp.expand)
    return [
        prove_zero(f"D Cov(r, A^T (z - m)) = R_D Gamma A = 0 [d={d}, k={k}]", expand(RD * G * A)),
        prove_zero(
            f"D^2 Cov(r) = D^2 (Gamma - Gamma A M^-1 A^T Gamma) [d={d}, k={k}]",
            expand(RD * G * RD.T - D * perp_D),
        ),
        prove_zero(
            f"D (z - m) = Gamma A adj(M) A^T (z - m) + R_D (z - m) [d={d}, k={k}]",
            expand(G * A * adj * A.T + RD - D * sp.eye(d)),
        ),
    ]


def proofs() -> list[Proof]:
    return (
        original_coordinates_proofs(2, 1)
        + original_coordinates_proofs(3, 1)
        + original_coordinates_proofs(3, 2)
        + [residual_covariance_proof(2, 2, 2)]
        + sampler_covariance_proofs(2, 2)
    )


@cached
def conditional_sampler_proofs() -> tuple[Proof, ...]:
    """The exact conditional sampler of Gaussian prompts (derivations/conditional_sampler.py)."""
    return tuple(proofs())


GROUP = Group(
    "conditional_sampler",
    title="The exact conditional sampler: weighted token sums drawn from the scores",
    hypotheses="tokens N(m, Gamma), k queries sharing a prompt, A^T Gamma A invertible; the "
    "weights fixed given the scores",
    proofs=conditional_sampler_proofs,
    parts=("conditional_sampler",),
)
