"""Theorem 4.3's transfer bound (Lemma D.1, Gronwall form; docs/paper.md section 4).

With g2 = sup_{B_{2 rho}} ||grad R_L - grad R_inf|| and beta = a Lipschitz constant of grad R_inf on
B_{2 rho}, the gap e(t) = ||theta_L(t) - theta_inf(t)|| obeys e' <= g2 + beta e, e(0) = 0. The
comparison ODE e' = g2 + beta e is solved here by `sympy.dsolve`:

    e(t) = g2 (e^{beta t} - 1) / beta,

and the paper's majorant B(t) = g2 t e^{beta t} bounds it. The bound itself needs no solver:
B(0) = 0 and B' - (g2 + beta B) = int_0^t g2 beta e^{beta u} du >= 0, so B is a supersolution of the
comparison inequality and e <= B for every e with e' <= g2 + beta e, e(0) = 0 (Lemma D.1). With the
solution, B - e and (1 + beta t) e - B are double integrals of the same positive density
g2 beta e^{beta u}: e <= B <= (1 + beta t) e (B is first-order sharp at t = 0). That dsolve's e
solves its ODE is a back-substitution (proof.back_substitute): shown, never counted by a claim.
"""

from __future__ import annotations

import sympy as sp

from .group import Group
import time

from .proof import Proof, back_substitute, prove_zero
from .proof_cache import cached

t = sp.Symbol("t", nonnegative=True)
s = sp.Symbol("s", nonnegative=True)
u = sp.Symbol("u", nonnegative=True)
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


def _positive(statement: str, expr: sp.Expr) -> Proof:
    """expr > 0 decided by SymPy's assumptions on its symbols (g2, beta > 0; t, s, u >= 0)."""
    start = time.perf_counter()
    ok = bool(expr.is_positive)
    return Proof(statement, ok, time.perf_counter() - start, "" if ok else str(expr)[:500])


def proofs() -> list[Proof]:
    e, B = comparison_solution(), majorant()
    density = g2 * beta * sp.exp(beta * u)
    return [
        back_substitute(
            "Gronwall comparison: e(t) solves e' = g2 + beta e", e.diff(t) - g2 - beta * e
        ),
        back_substitute("Gronwall comparison: e(0) = 0", e.subs(t, 0)),
        prove_zero("Gronwall majorant: B(0) = 0", B.subs(t, 0)),
        prove_zero(
            "Gronwall majorant: B' - (g2 + beta B) = int_0^t g2 beta e^{beta u} du (>= 0): B is a "
            "supersolution, so e <= B whenever e' <= g2 + beta e, e(0) = 0",
            B.diff(t) - g2 - beta * B - sp.integrate(density, (u, 0, t)),
        ),
        prove_zero(
            "Gronwall majorant: B - e = int_0^t int_s^t g2 beta e^{beta u} du ds (>= 0)",
            B - e - sp.integrate(sp.integrate(density, (u, s, t)), (s, 0, t)),
        ),
        prove_zero(
            "Gronwall majorant: (1 + beta t) e - B = int_0^t int_0^s g2 beta e^{beta u} du ds "
            "(>= 0: first-order sharp)",
            (1 + beta * t) * e - B - sp.integrate(sp.integrate(density, (u, 0, s)), (s, 0, t)),
        ),
        _positive("Gronwall majorant: the density g2 beta e^{beta u} is positive", density),
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
