"""Gaussian expectations of polynomials: the one home for E[poly(g)] used by the derivations.

- `standard_moment(p)` = E g^p for g ~ N(0, 1), read off the derived tilted moment of `tilt` at
  t = 0 ((p - 1)!! for even p, 0 for odd p);
- `standard_expectation(poly, gs)`: independent standard normals gs, monomial by monomial with those
  moments;
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
    P = sp.Poly(sp.expand(poly), *gs)
    total = sp.Integer(0)
    for powers, coeff in P.terms():
        factor = sp.Integer(1)
        for p in powers:
            factor *= standard_moment(p)
        total += coeff * factor
    return sp.expand(total)


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
