"""Gradient-flow facts of the in-context regression risk (docs/paper.md section 5, Theorem 5.2).

Proved with symbolic entries for d = 1, 2, 3, on the risks of `icl_risk`:
    grad_A R = b Sigma (b Sigma A - I) Sigma,   grad_b R = tr(Sigma A Sigma (b Sigma A - I)^T);
    d/dt (||A||_F^2 - b^2) = 0 along dA/dt = -grad_A R, db/dt = -grad_b R;
    stationary points: b Sigma A = I, or b = 0 and tr(Sigma A Sigma) = 0 (on the balanced set
    ||A||_F = |b| the second family is the origin only);
    the gradients of R_full in (U11, u, v, b) in matrix form.
Block invariance: on {u = 0, v = 0} the full-flow derivatives of u and v vanish identically
(proved: grad_u R_full = grad_v R_full = 0 there, since every surviving term is odd in w), and the
full flow of (U11, b) is the (A, b) flow.
"""

from __future__ import annotations

import sympy as sp

from .icl_risk import b_sym, matrix_full_risk, paper_risk
from .proof import Proof, prove_zero


# ---------------------------------------------------------------------------------------------
# Gradients of the full and restricted risks (matrix forms, proved against entry derivatives).


def full_gradients(Sigma, U11, u, v, b):
    """(grad_U11, grad_u, grad_v, grad_b) of R_full in matrix form (Sigma symmetric)."""
    d = Sigma.shape[0]
    tau = Sigma.trace()
    kappa = tau**2 + 2 * (Sigma * Sigma).trace()
    P = U11.T * Sigma * v
    M = b * U11.T * Sigma - sp.eye(d) + u * v.T * Sigma
    gU = Sigma * v * P.T * Sigma + b * Sigma * M.T * Sigma + b * tau * Sigma * v * u.T * Sigma
    gu = Sigma * M * Sigma * v + b**2 * kappa * Sigma * u + b * tau * Sigma * P
    gv = Sigma * U11 * Sigma * P + Sigma * M.T * Sigma * u + b * tau * Sigma * U11 * Sigma * u
    gb = (
        (M.T * Sigma * U11.T * Sigma).trace()
        + b * kappa * (u.T * Sigma * u)[0, 0]
        + tau * (P.T * Sigma * u)[0, 0]
    )
    return gU, gu, gv, gb


def restricted_gradients(Sigma, A, b):
    """(grad_A, grad_b) of R_inf(A, b) in matrix form."""
    M = b * Sigma * A - sp.eye(Sigma.shape[0])
    return b * Sigma * M * Sigma, (Sigma * A * Sigma * M.T).trace()


def sym_sigma(d: int) -> sp.Matrix:
    return sp.Matrix(d, d, lambda i, j: sp.Symbol(f"S{min(i, j)}{max(i, j)}", real=True))


def gradient_proofs(d: int) -> list[Proof]:
    tag = f"d={d}"
    Sigma = sym_sigma(d)
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    U11 = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"p{i}{j}", real=True))
    u = sp.Matrix(d, 1, sp.symbols(f"q0:{d}", real=True))
    v = sp.Matrix(d, 1, sp.symbols(f"r0:{d}", real=True))
    b = b_sym
    R = paper_risk(Sigma, A, b)
    gA, gb = restricted_gradients(Sigma, A, b)
    out = [
        prove_zero(
            f"grad_A R_inf = b Sigma (b Sigma A - I) Sigma [{tag}]",
            gA - sp.Matrix(d, d, lambda i, j: sp.diff(R, A[i, j])),
        ),
        prove_zero(
            f"grad_b R_inf = tr(Sigma A Sigma (b Sigma A - I)^T) [{tag}]", gb - sp.diff(R, b)
        ),
    ]
    # Conservation: d/dt (||A||_F^2 - b^2) = 2 <A, -grad_A> - 2 b (-grad_b).
    rate = -2 * sum(A[i, j] * gA[i, j] for i in range(d) for j in range(d)) + 2 * b * gb
    out.append(
        prove_zero(f"d/dt (||A||_F^2 - b^2) = 0 along the (A, b) gradient flow [{tag}]", rate)
    )
    # Stationary set: grad_A = 0 and grad_b = 0 on b Sigma A = I (A = Sigma^-1 / b), and at b = 0
    # exactly when tr(Sigma A Sigma) = 0.
    Ainv = Sigma.inv() / b
    out.append(
        prove_zero(
            f"b Sigma A = I is stationary (both gradients vanish at A = Sigma^-1 / b) [{tag}]",
            sp.Matrix(
                [sp.simplify(x) for x in gA.subs(dict(zip(A, Ainv)))]
                + [sp.simplify(gb.subs(dict(zip(A, Ainv))))]
            ),
        )
    )
    out.append(
        prove_zero(
            f"at b = 0: grad_A R = 0 and grad_b R = -tr(Sigma A Sigma) [{tag}]",
            sp.Matrix(list(gA.subs(b, 0)) + [gb.subs(b, 0) + (Sigma * A * Sigma).trace()]),
        )
    )
    # Full gradients and block invariance.
    Rf = matrix_full_risk(Sigma, U11, u, v, b)
    fU, fu, fv, fb = full_gradients(Sigma, U11, u, v, b)
    out.append(
        prove_zero(
            f"full gradients (U11, u, v, b) of R_full equal their matrix forms [{tag}]",
            sp.Matrix(
                list(fU - sp.Matrix(d, d, lambda i, j: sp.diff(Rf, U11[i, j])))
                + list(fu - sp.Matrix([sp.diff(Rf, x) for x in u]))
                + list(fv - sp.Matrix([sp.diff(Rf, x) for x in v]))
                + [fb - sp.diff(Rf, b)]
            ),
        )
    )
    on_block = {**{x: 0 for x in u}, **{x: 0 for x in v}}
    out.append(
        prove_zero(
            f"block invariance: grad_u R_full = grad_v R_full = 0 on {{u = 0, v = 0}} [{tag}]",
            sp.Matrix(list(fu.subs(on_block)) + list(fv.subs(on_block))),
        )
    )
    out.append(
        prove_zero(
            f"on {{u = 0, v = 0}} the full flow of (U11, b) is the (A, b) flow [{tag}]",
            sp.Matrix(
                list(fU.subs(on_block) - gA.subs(dict(zip(A, U11))))
                + [fb.subs(on_block) - gb.subs(dict(zip(A, U11)))]
            ),
        )
    )
    return out
