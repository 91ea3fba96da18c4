"""The exact finite-L error of the U-gradient over Gaussian prompts, as a display in six scalars.

Notation of `selfnormalised_error`: tokens z_i ~ N(m, Gamma), a fixed query with a = U z,
q = a^T Gamma a > 0, e = Gamma a / sqrt q and P = Gamma - e e^T. Token i is m + e g_i + r_i with
g_i ~ N(0, 1) and r_i ~ N(0, P) independent, and the softmax weights p_i depend on the g_i only.
The weighted covariance C_hat = sum_i p_i (z_i - zbar)(z_i - zbar)^T gives (`gradient_fluctuations`)

    ||grad_U T[mu_L](z) - grad_U T[mu](z)||_F^2 = |z|^2 ||V (C_hat - Gamma)||_F^2
                                                 = |z|^2 tr(X M X),   X = C_hat - Gamma, M = V^T V.

Given g, with gbar = sum p_i g_i, A = sum p_i^2, A3 = sum p_i^3,
alpha = sum p_i (g_i - gbar)^2 - 1 and H = sum p_i^2 (g_i - gbar)^2, the r_i are iid N(0, P) and
Wick's formula gives

    E[tr(X M X) | g] = alpha^2 (e^T M e)|e|^2 - 2 alpha A e^T M P e
                       + (2 A^2 + A - 2 A3) tr(P M P) + (A - 2 A3 + A^2) tr P tr(M P)
                       + H (2 e^T M P e + |e|^2 tr(M P) + e^T M e tr P).

The six invariants do not depend on g, so averaging over g replaces alpha^2, alpha A, A^2, A, A3, H
by the scalars S_aa, S_aA, S_AA, S_A, S_A3, S_H (computed by numerics/gradient_scalars.py); the
emitted kernel `gradient_U_error_display` is |z|^2 times that display.

`conditional_display_proof(L)` proves the conditional identity exactly at L tokens in d = 2, in
SymPy's sparse polynomial ring over the rationals (exact, and fast enough for L = 3): the tokens'
r_i = Q u_i with u_i standard normal, the expectation over the u's taken monomial by monomial with
the derived moments E u^k (`gaussian_expectations.standard_moment`; the coordinates are
independent), against the display with alpha, A, A3, H written from their definitions (weights
p_1 .. p_{L-1} free, p_L = 1 - the others); the difference must be the zero polynomial. It takes
m = 0 (C_hat does not move with m) and P = Q Q^T diagonal: both sides are unchanged by a rotation
(X -> O X O^T, M -> O M O^T, e -> O e), so a diagonal P loses nothing while e and M stay general.
At L = 2 the weights' sums are tied (A3 = (3 A - 1) / 2), so the identity is proved at L = 2 and 3.
"""

from __future__ import annotations

import functools
import itertools
from typing import Callable

import sympy as sp

from sympy.polys.domains import QQ
from sympy.polys.rings import ring

from .gaussian_expectations import standard_moment
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero

# The invariants of the query (|z|^2 and the six matrix factors) and the scalars, in kernel order.
INVARIANTS = sp.symbols("zz eMe ee eMPe trP trMP trPMP", real=True)
SCALARS = sp.symbols("S_aa S_aA S_AA S_A S_A3 S_H", real=True)


def display(invariants=INVARIANTS, scalars=SCALARS) -> sp.Expr:
    """|z|^2 times the display of the module docstring."""
    zz, eMe, ee, eMPe, trP, trMP, trPMP = invariants
    S_aa, S_aA, S_AA, S_A, S_A3, S_H = scalars
    return zz * (
        S_aa * eMe * ee
        - 2 * S_aA * eMPe
        + (2 * S_AA + S_A - 2 * S_A3) * trPMP
        + (S_A - 2 * S_A3 + S_AA) * trP * trMP
        + S_H * (2 * eMPe + ee * trMP + eMe * trP)
    )


@functools.lru_cache(maxsize=None)
def conditional_second_moment(L: int) -> tuple:
    """(E[tr(X M X) | g], the invariants with |z|^2 = 1, the scalars alpha^2, alpha A, A^2, A, A3, H
    taken at g), each an element of one polynomial ring over QQ, at L tokens in d = 2 (see the
    module docstring)."""
    d = 2
    names = (
        [f"p{i}" for i in range(1, L)]
        + [f"g{i}" for i in range(1, L + 1)]
        + ["e1", "e2", "q1", "q2", "m11", "m12", "m22"]
    )
    noise_names = [f"u{i}_{a}" for i in range(1, L + 1) for a in (1, 2)]
    R, *gens = ring(",".join(names + noise_names), QQ)
    x = dict(zip(names + noise_names, gens))
    p = [x[f"p{i}"] for i in range(1, L)]
    p.append(1 - sum(p))
    g = [x[f"g{i}"] for i in range(1, L + 1)]
    e = [x["e1"], x["e2"]]
    Q = [x["q1"], x["q2"]]  # P = diag(q1^2, q2^2)
    M = [[x["m11"], x["m12"]], [x["m12"], x["m22"]]]
    tokens = [[e[a] * g[i] + Q[a] * x[f"u{i + 1}_{a + 1}"] for a in range(d)] for i in range(L)]
    mean = [sum(p[i] * tokens[i][a] for i in range(L)) for a in range(d)]
    P = [[Q[a] ** 2 if a == b else R(0) for b in range(d)] for a in range(d)]
    X = [
        [
            sum(p[i] * (t[a] - mean[a]) * (t[b] - mean[b]) for i, t in enumerate(tokens))
            - P[a][b]
            - e[a] * e[b]
            for b in range(d)
        ]
        for a in range(d)
    ]
    noise = [len(names) + j for j in range(len(noise_names))]
    moment = {k: int(standard_moment(k)) for k in range(9)}  # degree <= 4 in each u

    def expectation(poly):
        """E over the u's, independent N(0, 1): each monomial times prod E u^k, the u's dropped."""
        out = R(0)
        for monomial, coefficient in poly.terms():
            factor = 1
            for j in noise:
                factor *= moment[monomial[j]]
            if factor:
                kept = tuple(0 if j in noise else k for j, k in enumerate(monomial))
                out += R({kept: coefficient * factor})
        return out

    # E tr(X M X) = sum_{i,j,k} M_jk E[X_ij X_ki]
    lhs = sum(
        (
            M[j][k] * expectation(X[i][j] * X[k][i])
            for i, j, k in itertools.product(range(d), repeat=3)
        ),
        R(0),
    )

    def times(A, v):
        return [sum(A[a][b] * v[b] for b in range(d)) for a in range(d)]

    def dot(v, w):
        return sum(v[a] * w[a] for a in range(d))

    def product(A, B):
        return [[sum(A[a][c] * B[c][b] for c in range(d)) for b in range(d)] for a in range(d)]

    MP = product(M, P)
    gbar = sum(p[i] * g[i] for i in range(L))
    A = sum(w**2 for w in p)
    alpha = sum(p[i] * (g[i] - gbar) ** 2 for i in range(L)) - 1
    H = sum(p[i] ** 2 * (g[i] - gbar) ** 2 for i in range(L))
    invariants = (
        R(1),
        dot(e, times(M, e)),
        dot(e, e),
        dot(e, times(MP, e)),
        P[0][0] + P[1][1],
        MP[0][0] + MP[1][1],
        sum(product(P, MP)[a][a] for a in range(d)),
    )
    scalars = (alpha**2, alpha * A, A**2, A, sum(w**3 for w in p), H)
    return lhs, invariants, scalars


def conditional_display_proof(L: int, stated: Callable[..., sp.Expr] = display) -> Proof:
    """E[tr(X M X) | g] = `stated`(invariants, scalars at g) at L tokens, d = 2: the difference of
    the two polynomials, reduced to zero."""
    lhs, invariants, scalars = conditional_second_moment(L)
    return prove_zero(
        f"E[||V (C_hat - Gamma)||_F^2 | g] = the six-scalar display (Wick on r_i ~ N(0, P)) "
        f"[L={L}, d=2, P diagonal]",
        (lhs - stated(invariants, scalars)).as_expr(),
    )


def proofs() -> list[Proof]:
    return [conditional_display_proof(L) for L in (2, 3)]


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the exact E||grad_U err||^2 from the query's invariants and the six scalars."""
    return [
        KernelSpec(
            "gradient_U_error_display",
            (*INVARIANTS, *SCALARS),
            ("any shape",) * (len(INVARIANTS) + len(SCALARS)),
            display(),
            "E||grad_U err||^2 = |z|^2 [S_aa e'Me |e|^2 - 2 S_aA e'MPe + (2 S_AA + S_A - 2 S_A3) "
            "tr PMP + (S_A - 2 S_A3 + S_AA) tr P tr MP + S_H (2 e'MPe + |e|^2 tr MP + e'Me tr P)].",
            "gradient_error_display",
            "broadcast shape",
        ),
    ]
