"""Symbolic proofs: an identity lhs == rhs is proved by reducing lhs - rhs to exactly zero.

Never by comparing printed forms (docs/design.md). A `Proof` records the statement, whether the
difference reduced to zero, and how long SymPy took.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Proof:
    statement: str
    passed: bool
    seconds: float
    residual: str = ""  # the unreduced difference when the proof fails
    # A solver's output (sympy.solve, dsolve) substituted back into its own equation: it checks the
    # solver, not a statement of the paper. Shown in the derivation report, never counted by a
    # claim's proof check (back_substitutions, counted).
    back_substitution: bool = False


def _is_zero_scalar(e: sp.Expr) -> bool:
    e = sp.sympify(e)
    if e == 0:
        return True
    # Cheap reductions first; exponentials are merged (powsimp) and their exponents expanded.
    merge_exp = lambda x: sp.expand(
        sp.powsimp(sp.expand(x), force=True).replace(sp.exp, lambda arg: sp.exp(sp.expand(arg)))
    )
    for reduce in (sp.expand, sp.cancel, merge_exp, sp.simplify):
        if reduce(e) == 0:
            return True
    return False


def is_zero(expr) -> bool:
    """True when expr (scalar, explicit matrix or matrix expression) reduces to exactly zero."""
    if isinstance(expr, sp.MatrixBase):
        return all(_is_zero_scalar(e) for e in expr)
    if isinstance(expr, sp.MatrixExpr):
        reduced = sp.simplify(expr.doit())
        if isinstance(reduced, sp.ZeroMatrix) or getattr(reduced, "is_ZeroMatrix", False):
            return True
        return isinstance(reduced, sp.MatrixBase) and is_zero(reduced)
    return _is_zero_scalar(expr)


def back_substitute(statement: str, difference) -> Proof:
    """A solver's result put back into the equation it solved (`difference == 0`): recorded as a
    back-substitution (Proof.back_substitution)."""
    p = prove_zero(statement, difference)
    return Proof(p.statement, p.passed, p.seconds, p.residual, back_substitution=True)


def counted(proofs) -> dict:
    """statement -> Proof of what a claim's proof check counts: back-substitutions left out."""
    return {p.statement: p for p in proofs if not p.back_substitution}


def prove_zero(statement: str, difference) -> Proof:
    """Prove `statement`, whose content is `difference == 0`."""
    start = time.perf_counter()
    ok = is_zero(difference)
    elapsed = time.perf_counter() - start
    return Proof(statement, ok, elapsed, "" if ok else str(difference)[:500])
