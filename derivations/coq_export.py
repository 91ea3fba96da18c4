"""Prop 3.1's certified constant c1 as a Coq file, for a kernel-checked second opinion.

softlin certifies c1 with Arb (numerics/every_l_constant.py): with
g(L) = L eps_L^2 / (sigma^6 ln L), eps_L^2 = tp (4 e^q / L + L e^{-h(L)}),
h(L) = (L-2)^2 / (8 (L-1) e^q), the supremum of g over the integers L >= 2 is the maximum over
2 <= L <= L_T, where L_T is the first integer with L_T (1 - 1/(L_T-1)^2) > 16 e^q (past it g
decreases: h'(L) >= 2/L; SymPy proves h'(L) = (1 - 1/(L-1)^2) / (8 e^q) in
softlin/claims/shared/every_l.py).

This module writes the finite part of that argument as Coq lemmas, which Coq's `interval` tactic
(the coq-interval library: rigorous interval arithmetic with bisection, checked by Coq's kernel)
proves or fails to prove:

* `g_le_c1_L` for every integer 2 <= L <= L_T: g(L) <= c1, the certificate's c1;
* `decreasing_from`: L_T (1 - 1/(L_T-1)^2) > 16 e^q.

g is printed from the same SymPy expressions the kernels are emitted from
(derivations/fluctuations_bound.py: `paper_constant` with the bound `tp expectation_bound_factor`),
so Coq checks the derived formula, evaluated by an engine that shares no code with Arb or numpy.
q and tp are written as the exact rationals the scenario's floats give (q = a^T Gamma a,
tp = tr(V Gamma V^T) + |V Gamma a|^2, a = U z, each times `multiplier` as in numerics/every_l.py),
sigma as the exact float the claim used, c1 as the certificate's decimal.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp

from . import fluctuations_bound as fb

tp_sym = sp.Symbol("tp", positive=True)

# interval's working precision in bits: c1 is the maximum rounded up to 8 significant digits, so
# at the maximising L the margin can be a few units of 1e-8 relative
PRECISION_BITS = 80


def g_expression() -> sp.Expr:
    """g(L) = L eps_L^2 / (sigma^6 ln L) from the derived bound and the derived paper constant."""
    return fb.paper_constant().subs(fb.bound_sym, tp_sym * fb.expectation_bound_factor())


def _exact_matrix(M) -> list[list[Fraction]]:
    """Rows of the exact rationals of a float matrix (any nested sequence)."""
    return [[Fraction(float(x)) for x in row] for row in M]


def exact_invariants(Gamma, U, V, z, multiplier: int = 1) -> tuple[Fraction, Fraction]:
    """(q, tp) as exact rationals of the float inputs: q = a^T Gamma a, tp = k (tr(V Gamma V^T) +
    |V Gamma a|^2), a = U z, k = multiplier (numerics/every_l.py's `query_invariants`)."""
    G, Um, Vm = (_exact_matrix(M) for M in (Gamma, U, V))
    zv = [Fraction(float(x)) for x in z]
    dot = lambda x, y: sum((s * t for s, t in zip(x, y, strict=True)), Fraction(0))
    columns = list(zip(*G, strict=True))
    a = [dot(row, zv) for row in Um]
    Ga = [dot(row, a) for row in G]
    VGa = [dot(row, Ga) for row in Vm]
    trace = sum((dot(v, [dot(v, col) for col in columns]) for v in Vm), Fraction(0))
    return dot(a, Ga), Fraction(multiplier) * (trace + dot(VGa, VGa))


def coq_real(expr: sp.Expr) -> str:
    """`expr` as a Coq term of type R (Reals): +, *, /, integer powers, exp, ln and rationals."""
    if expr.is_Integer:
        return f"({int(expr)})" if expr < 0 else str(int(expr))
    if expr.is_Rational:
        return f"({expr.p} / {expr.q})"
    if expr.is_Symbol:
        return expr.name
    if expr.is_Add:
        return "(" + " + ".join(coq_real(t) for t in expr.args) + ")"
    if expr.is_Mul:
        num, den = sp.fraction(expr)
        if den != 1:
            return f"({coq_real(num)} / {coq_real(den)})"
        return "(" + " * ".join(coq_real(t) for t in expr.args) + ")"
    if expr.is_Pow:
        base, e = expr.args
        if e.is_Integer and e > 0:
            return f"({coq_real(base)} ^ {int(e)})"
        if e.is_Integer:
            return f"(/ {coq_real(base ** (-e))})"
        raise ValueError(f"no Coq form for the non-integer power {expr}")
    if isinstance(expr, (sp.exp, sp.log)):
        inner = coq_real(expr.args[0])
        inner = inner if inner.startswith("(") else f"({inner})"  # exp (q): a call in any reading
        return f"({'exp' if isinstance(expr, sp.exp) else 'ln'} {inner})"
    raise ValueError(f"no Coq form for {expr!r} ({type(expr).__name__})")


def _rational(x) -> str:
    f = Fraction(x)
    return f"({f.numerator} / {f.denominator})"


def c1_source(
    q: Fraction, tp: Fraction, sigma: float, c1: str, decreasing_from: int, *, title: str = ""
) -> str:
    """The Coq file stating and proving g(L) <= c1 at every integer 2 <= L <= decreasing_from and
    the threshold inequality there (module docstring); `c1` a decimal string (the certificate's)."""
    if not 3 <= decreasing_from <= 10_000:
        raise ValueError(f"decreasing_from = {decreasing_from}: one lemma per L, at most 10 000")
    g = g_expression()
    L = fb.L_sym
    body = coq_real(g.subs(L, sp.Symbol("L")))
    lines = [
        f"(* {title} *)" if title else "",
        "(* Written by softlin (derivations/coq_export.py); check with `coqc FILE.v`. g(L) is",
        "   L eps_L^2 / (sigma^6 ln L) as softlin derives it; past decreasing_from g decreases",
        "   (h'(L) >= 2/L, proved by SymPy in softlin), so these lemmas bound g at every",
        "   L >= 2. *)",
        "From Coq Require Import Reals.",
        "From Interval Require Import Tactic.",
        "Open Scope R_scope.",
        "",
        f"Definition q : R := {_rational(q)}.",
        f"Definition tp : R := {_rational(tp)}.",
        f"Definition sigma : R := {_rational(sigma)}.",
        f"Definition c1 : R := {_rational(Fraction(c1))}.",
        f"Definition g (L : R) : R := {body}.",
        "",
    ]
    for n in range(2, decreasing_from + 1):
        lines += [
            f"Lemma g_le_c1_{n} : g {n} <= c1.",
            f"Proof. unfold g, q, tp, sigma, c1. interval with (i_prec {PRECISION_BITS}). Qed.",
        ]
    n = decreasing_from
    lines += [
        "",
        f"Lemma decreasing_from : {n} * (1 - 1 / ({n} - 1) ^ 2) > 16 * exp q.",
        f"Proof. unfold q. interval with (i_prec {PRECISION_BITS}). Qed.",
        "",
    ]
    return "\n".join(lines)
