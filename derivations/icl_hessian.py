"""A Lipschitz constant of grad R_inf on a ball (docs/paper.md section 4, Theorem 4.3: beta_inf).

Second variation (proved, symbolic entries, d = 1, 2). With M = b Sigma A - I, along
theta + e h, h = (H, beta),

    d^2/de^2 R_inf = tr(DM Sigma DM^T) + tr(M Sigma D2M^T),   DM = beta Sigma A + b Sigma H,
                                                              D2M = 2 beta Sigma H,

i.e. ||Df[h]||^2 + <f, D^2 f[h, h]> for
f = M Sigma^(1/2) (`second_variation`, `second_variation_proofs`).

Bound (an inequality, argued here, not proved symbolically; the independent route is the sampled
Hessian norms of tests/claims/test_icl.py and of thm-4.3). On ||theta||^2 = ||A||_F^2 + b^2 <= r^2,
||h||^2 = ||H||_F^2 + beta^2, s = ||Sigma||_op, tau = tr Sigma:

    ||Df[h]||      <= s^(3/2) (|beta| ||A|| + |b| ||H||) <= s^(3/2) r (|beta| + ||H||)
                   <= c1 s^(3/2) r ||h||,
    ||f||          <= s^(3/2) |b| ||A|| + ||Sigma^(1/2)||_F <= s^(3/2) r^2 + sqrt(tau),
    ||D^2 f[h, h]|| <= 2 s^(3/2) |beta| ||H|| <= c2 s^(3/2) ||h||^2,

with c1 = max (cos t + sin t) = sqrt 2 and c2 = max 2 cos t sin t = 1 over t in [0, pi/2], computed
by SymPy below (`circle_constants`). Hence
beta_inf = (c1 s^(3/2) r)^2 + (s^(3/2) r^2 + sqrt(tau)) c2 s^(3/2) = 3 s^3 r^2 + s^(3/2) sqrt(tau).
Not tight: Cauchy-Schwarz gives |beta| ||A|| + |b| ||H|| <= r ||h|| and |b| ||A|| <= r^2 / 2,
so 1.5 s^3 r^2 would do; the looser constants are kept (thm-4.3's step size and certificates are
built on them).
"""

from __future__ import annotations

import sympy as sp

from .icl_gradients import sym_sigma
from .icl_risk import b_sym, kernel_symbols, paper_risk
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero

eps_sym = sp.Symbol("e", real=True)
t_sym = sp.Symbol("t", real=True)
s_sym = sp.Symbol("s", positive=True)  # ||Sigma||_op
r_sym = sp.Symbol("radius", positive=True)  # radius of the ball in (A, b)


def second_variation(Sigma, A, b, H, beta) -> sp.Expr:
    """d^2/de^2 R_inf(A + e H, b + e beta) at e = 0 (differentiated, not typed)."""
    return sp.diff(paper_risk(Sigma, A + eps_sym * H, b + eps_sym * beta), eps_sym, 2).subs(
        eps_sym, 0
    )


def second_variation_matrix_form(Sigma, A, b, H, beta) -> sp.Expr:
    M = b * Sigma * A - sp.eye(Sigma.shape[0])
    DM = beta * Sigma * A + b * Sigma * H
    D2M = 2 * beta * Sigma * H
    return (DM * Sigma * DM.T).trace() + (M * Sigma * D2M.T).trace()


def second_variation_proofs(d: int) -> list[Proof]:
    Sigma = sym_sigma(d)
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    H = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"h{i}{j}", real=True))
    beta = sp.Symbol("beta", real=True)
    return [
        prove_zero(
            f"second variation of R_inf = tr(DM Sigma DM^T) + tr(M Sigma D2M^T) [d={d}]",
            sp.expand(
                second_variation(Sigma, A, b_sym, H, beta)
                - second_variation_matrix_form(Sigma, A, b_sym, H, beta)
            ),
        )
    ]


def circle_constants() -> tuple[sp.Expr, sp.Expr]:
    """(c1, c2) = (max cos t + sin t, max 2 cos t sin t) over t in [0, pi/2]: the largest value of
    |beta| + ||H|| and of 2 |beta| ||H|| on ||h|| = 1."""
    quarter = sp.Interval(0, sp.pi / 2)
    return (
        sp.calculus.util.maximum(sp.cos(t_sym) + sp.sin(t_sym), t_sym, quarter),
        sp.calculus.util.maximum(2 * sp.cos(t_sym) * sp.sin(t_sym), t_sym, quarter),
    )


def lipschitz_bound(tau) -> sp.Expr:
    """beta_inf = ||Df||^2 bound + ||f|| bound x ||D^2 f|| bound (module docstring),
    tau = tr Sigma."""
    c1, c2 = circle_constants()
    s32 = s_sym ** sp.Rational(3, 2)
    Df = c1 * s32 * r_sym
    f_norm = s32 * r_sym**2 + sp.sqrt(tau)
    D2f = c2 * s32
    return Df**2 + f_norm * D2f


def kernel_lipschitz_bound(k):
    return lipschitz_bound(sp.Trace(k["Sigma"]))


def proofs() -> list[Proof]:
    c1, c2 = circle_constants()
    return (
        second_variation_proofs(1)
        + second_variation_proofs(2)
        + [
            prove_zero(
                "c1 = sqrt 2 is attained on the quarter circle (cos + sin at t = pi/4)",
                c1 - (sp.cos(t_sym) + sp.sin(t_sym)).subs(t_sym, sp.pi / 4),
            ),
            prove_zero(
                "c2 = 1 is attained on the quarter circle (2 cos sin at t = pi/4)",
                c2 - (2 * sp.cos(t_sym) * sp.sin(t_sym)).subs(t_sym, sp.pi / 4),
            ),
        ]
    )


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the Lipschitz constant beta_inf of grad R_inf on a ball."""
    k = kernel_symbols()
    return [
        KernelSpec(
            "icl_hessian_bound",
            (k["Sigma"], s_sym, r_sym),
            ("(d, d) SPD", "scalar ||Sigma||_op", "scalar"),
            kernel_lipschitz_bound(k),
            "beta_inf = 3 s^3 r^2 + s^(3/2) sqrt(tr Sigma): Lipschitz constant of grad R_inf on "
            "||theta|| <= r.",
            "icl_hessian",
            "scalar",
        ),
    ]
