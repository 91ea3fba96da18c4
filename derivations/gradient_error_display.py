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

`conditional_display_proof(L)` proves the conditional identity exactly at L tokens in d = 2: the
tokens' r_i = Q u_i with u_i standard normal, each E[X_ij X_kl] taken by
`gaussian_expectations.standard_expectation`, against the display with alpha, A, A3, H written from
their definitions (weights p_1 .. p_{L-1} free, p_L = 1 - the others). It takes m = 0 (C_hat does
not move with m) and P = Q Q^T diagonal: both sides are unchanged by a rotation
(X -> O X O^T, M -> O M O^T, e -> O e), so a diagonal P loses nothing while e and M stay general.
At L = 2 the weights' sums are tied (A3 = (3 A - 1) / 2), so the identity is proved at L = 2 and 3.
"""

from __future__ import annotations

import functools
import itertools
from typing import Callable

import sympy as sp

from .gaussian_expectations import standard_expectation
from .kernel_spec import KernelSpec
from .matrix_ops import scalar, tr
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
def conditional_second_moment(L: int) -> tuple[sp.Expr, tuple, tuple]:
    """(E[tr(X M X) | g], the invariants with |z|^2 = 1, the scalars alpha^2, alpha A, A^2, A, A3, H
    taken at g) at L tokens in d = 2 (see the module docstring); kept, as it is the costly part
    (~10 s at L = 3) and does not depend on the display it is compared with."""
    d = 2
    p = list(sp.symbols(f"p1:{L}", real=True))
    p.append(1 - sum(p))
    g = sp.symbols(f"g1:{L + 1}", real=True)
    e = sp.Matrix(d, 1, sp.symbols(f"e1:{d + 1}", real=True))
    Q = sp.diag(*sp.symbols(f"q1:{d + 1}", positive=True))
    M = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"m{min(i, j)}{max(i, j)}", real=True))
    u = [sp.Matrix(d, 1, sp.symbols(f"u{i}_1:{d + 1}", real=True)) for i in range(L)]
    noise = [x for ui in u for x in ui]
    tokens = [e * g[i] + Q * u[i] for i in range(L)]
    mean = sum((p[i] * tokens[i] for i in range(L)), sp.zeros(d, 1))
    C = sum((p[i] * (t - mean) * (t - mean).T for i, t in enumerate(tokens)), sp.zeros(d, d))
    P = Q * Q.T
    X = (C - (P + e * e.T)).applyfunc(sp.expand)
    # E tr(X M X) = sum_{i,j,k} M_jk E[X_ij X_ki]: one Gaussian expectation per pair of entries
    moments: dict = {}

    def moment(i, j, k, l):
        key = tuple(sorted((tuple(sorted((i, j))), tuple(sorted((k, l))))))
        if key not in moments:
            (a, b), (c, f) = key
            moments[key] = standard_expectation(X[a, b] * X[c, f], noise)
        return moments[key]

    lhs = sum(M[j, k] * moment(i, j, k, i) for i, j, k in itertools.product(range(d), repeat=3))
    gbar = sum(p[i] * g[i] for i in range(L))
    A = sum(x**2 for x in p)
    alpha = sum(p[i] * (g[i] - gbar) ** 2 for i in range(L)) - 1
    H = sum(p[i] ** 2 * (g[i] - gbar) ** 2 for i in range(L))
    invariants = (
        1,
        scalar(e.T * M * e),
        scalar(e.T * e),
        scalar(e.T * M * P * e),
        tr(P),
        tr(M * P),
        tr(P * M * P),
    )
    scalars = (alpha**2, alpha * A, A**2, A, sum(x**3 for x in p), H)
    return lhs, invariants, scalars


def conditional_display_proof(L: int, stated: Callable[..., sp.Expr] = display) -> Proof:
    """E[tr(X M X) | g] = `stated`(invariants, scalars at g) at L tokens, d = 2."""
    lhs, invariants, scalars = conditional_second_moment(L)
    return prove_zero(
        f"E[||V (C_hat - Gamma)||_F^2 | g] = the six-scalar display (Wick on r_i ~ N(0, P)) "
        f"[L={L}, d=2, P diagonal]",
        lhs - stated(invariants, scalars),
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
