"""Theorem 4.3's transfer bound (Lemma D.1, Gronwall form; docs/paper.md section 4).

With g2 = sup_{B_{2 rho}} ||grad R_L - grad R_inf|| and beta = a Lipschitz constant of grad R_inf on
B_{2 rho}, the gap e(t) = ||theta_L(t) - theta_inf(t)|| obeys e' <= g2 + beta e, e(0) = 0. The
comparison ODE e' = g2 + beta e is solved here by `sympy.dsolve`:

    e(t) = g2 (e^{beta t} - 1) / beta,

and the paper's majorant B(t) = g2 t e^{beta t} bounds it:
B - e = g2 int_0^t (e^{beta t} - e^{beta s}) ds >= 0, with B <= (1 + beta t) e
(so B is first-order sharp at t = 0). The proofs check the solution against the ODE and its initial
condition, and the integral form of B - e.
"""

from __future__ import annotations

import sympy as sp

from .group import Group
from .proof import Proof, prove_zero
from .proof_cache import cached

t = sp.Symbol("t", nonnegative=True)
s = sp.Symbol("s", nonnegative=True)
g2 = sp.Symbol("g_2", positive=True)
beta = sp.Symbol("beta", positive=True)
_e = sp.Function("e")


def comparison_solution() -> sp.Expr:
    """The solution of e' = g2 + beta e, e(0) = 0 (by dsolve)."""
    sol = sp.dsolve(sp.Eq(_e(t).diff(t), g2 + beta * _e(t)), _e(t), ics={_e(0): 0})
    return sp.simplify(sol.rhs)


def majorant() -> sp.Expr:
    """B(t) = g2 t e^{beta t}, the right side of Lemma D.1."""
    return g2 * t * sp.exp(beta * t)


def proofs() -> list[Proof]:
    e = comparison_solution()
    gap = sp.integrate(g2 * (sp.exp(beta * t) - sp.exp(beta * s)), (s, 0, t))
    return [
        prove_zero("Gronwall comparison: e(t) solves e' = g2 + beta e", e.diff(t) - g2 - beta * e),
        prove_zero("Gronwall comparison: e(0) = 0", e.subs(t, 0)),
        prove_zero(
            "Gronwall majorant: B - e = g2 int_0^t (e^{beta t} - e^{beta s}) ds (>= 0)",
            majorant() - e - gap,
        ),
    ]


@cached
def gronwall_proofs() -> tuple[Proof, ...]:
    """Theorem 4.3's transfer bound (derivations/gronwall.py)."""
    return tuple(proofs())


GROUP = Group(
    "gronwall",
    title="Theorem 4.3: the Gronwall transfer bound (Lemma D.1)",
    hypotheses="grad R_inf beta-Lipschitz and |grad R_L - grad R_inf| <= g_2 on B_2rho; same "
    "initialisation",
    proofs=gronwall_proofs,
    parts=("gronwall",),
    results="thm43",
)
