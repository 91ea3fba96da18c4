"""Gaussian expectations of polynomials: the one home for E[poly(g)] used by the derivations.

- `standard_moment(p)` = E g^p for g ~ N(0, 1), read off the derived tilted moment of `tilt` at
  t = 0 ((p - 1)!! for even p, 0 for odd p);
- `standard_expectation(poly, gs)`: independent standard normals gs, monomial by monomial with those
  moments (in a polynomial ring where the coefficients are rational);
- `gaussian_polynomial_expectation(poly, ys, Sigma)`: y ~ N(0, Sigma) (any PSD Sigma, singular
  included), by Stein's identity E[y_i f(y)] = sum_j Sigma_ij E[d_j f(y)] on each monomial.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import tilt


@lru_cache(maxsize=None)
def standard_moment(p: int) -> sp.Expr:
    """E g^p for g ~ N(0, 1): the derived tilted moment of `tilt` at t = 0."""
    return sp.simplify(tilt.gaussian_moment_1d(p).subs(tilt.t_sym, 0))


def standard_expectation(poly, gs) -> sp.Expr:
    """E over independent N(0, 1) `gs` of a polynomial in them (coefficients may be symbolic)."""
    fast = expectation_in_a_ring(poly, list(gs))
    if fast is not None:
        return fast
    P = sp.Poly(sp.expand(poly), *gs)
    total = sp.Integer(0)
    for powers, coeff in P.terms():
        factor = sp.Integer(1)
        for p in powers:
            factor *= standard_moment(p)
        total += coeff * factor
    return sp.expand(total)


def expectation_in_a_ring(poly, gs: list) -> sp.Expr | None:
    """`standard_expectation` when the polynomial has rational coefficients in gs and its other
    symbols: expanded in the sparse polynomial ring QQ[gs, others], where a power of a sum costs a
    fraction of sympy's expansion of the expression tree (the n_q = 8 prompt variance of
    fluctuations_one_token: 0.7 s against 12 s), each monomial's gs part replaced by its moments.
    The same expectation, term by term; None where the coefficients are not rational (a square
    root, a float), for the expression route."""
    expr = sp.sympify(poly)
    if expr.has(sp.Float):  # the ring would make it an exact rational, changing the result's type
        return None
    others = sorted(expr.free_symbols - set(gs), key=sp.default_sort_key)
    gens = (*gs, *others)

    def in_ring(e: sp.Expr) -> sp.Poly:
        # sums, products and integer powers taken in the ring: Poly(e) itself would first expand
        # the expression tree, the cost this route avoids
        if e.is_Add or e.is_Mul:
            parts = [in_ring(a) for a in e.args]
            out = parts[0]
            for part in parts[1:]:
                out = out + part if e.is_Add else out * part
            return out
        if e.is_Pow and e.exp.is_Integer and e.exp >= 0:
            return in_ring(e.base) ** int(e.exp)
        return sp.Poly(e, *gens, domain="QQ")

    try:
        P = in_ring(expr)
    except sp.polys.polyerrors.BasePolynomialError:
        return None
    n = len(gs)
    reduced: dict[tuple, object] = {}
    for powers, coeff in P.terms():
        factor = 1
        for p in powers[:n]:
            factor *= int(standard_moment(p))
        if factor:
            reduced[powers[n:]] = reduced.get(powers[n:], 0) + coeff * factor
    if not others:
        return sp.Rational(reduced.get((), 0))
    return sp.expand(sp.Poly.from_dict(reduced, *others, domain="QQ").as_expr())


def gaussian_polynomial_expectation(poly: sp.Expr, variables: list, Sigma: sp.Matrix) -> sp.Expr:
    """E[poly(y)] for y ~ N(0, Sigma), exactly, by Stein's identity on each monomial."""
    P = sp.Poly(sp.expand(poly), *variables)
    n = len(variables)
    Sig = sp.Matrix(Sigma)

    @lru_cache(maxsize=None)
    def moment(alpha: tuple) -> sp.Expr:
        if sum(alpha) == 0:
            return sp.Integer(1)
        if sum(alpha) % 2:
            return sp.Integer(0)
        i = next(j for j, e in enumerate(alpha) if e > 0)
        rest = list(alpha)
        rest[i] -= 1  # y_i * y^rest
        total = sp.Integer(0)
        for j in range(n):
            if rest[j] == 0 or Sig[i, j] == 0:
                continue
            deriv = list(rest)
            deriv[j] -= 1
            total += Sig[i, j] * rest[j] * moment(tuple(deriv))
        return sp.expand(total)

    return sp.expand(sum(coeff * moment(tuple(mon)) for mon, coeff in P.terms()))
