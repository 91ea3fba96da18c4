"""The largest eigenvalue of an exact rational matrix with real spectrum, enclosed in a ball.

For M = U^T Gamma U Sigma_q (similar to the symmetric Sigma_q^{1/2} U^T Gamma U Sigma_q^{1/2}, so
its eigenvalues are real) the finiteness threshold lambda = lambda_max(M) decides which tilted
moments exist. Here it is enclosed without floating point: the characteristic polynomial of the
rational matrix is computed exactly (FLINT's fmpq_mat.charpoly), and its roots are isolated by
FLINT's certified complex root finder, which returns disjoint balls, each holding exactly one root
(counted with multiplicity), real roots with an imaginary part exactly 0. The largest real root's
ball is the enclosure.
"""

from __future__ import annotations

from fractions import Fraction

from flint import arb, fmpq, fmpq_mat


def _fmpq(x) -> fmpq:
    """An exact rational (int, Fraction, or anything with numerator/denominator such as a SymPy
    Rational) as FLINT's fmpq; a float is refused, since its decimal is not what it holds."""
    if isinstance(x, float):
        raise TypeError("an exact rational is needed, not a float")
    f = Fraction(int(x.p), int(x.q)) if hasattr(x, "p") and hasattr(x, "q") else Fraction(x)
    return fmpq(f.numerator, f.denominator)


def largest_real_eigenvalue(rows) -> arb:
    """A ball containing the largest eigenvalue of the square rational matrix `rows` (a list of
    rows, or a SymPy Matrix of Rationals), whose eigenvalues must all be real: a ValueError if a
    root's ball is not certified real."""
    rows = [list(r) for r in (rows.tolist() if hasattr(rows, "tolist") else rows)]
    n = len(rows)
    if n == 0 or any(len(r) != n for r in rows):
        raise ValueError(
            f"a square matrix is needed, got {n} rows of lengths {[len(r) for r in rows]}"
        )
    matrix = fmpq_mat(n, n, [_fmpq(x) for r in rows for x in r])
    roots = [root for root, _multiplicity in matrix.charpoly().complex_roots()]
    if any(not root.imag.is_zero() for root in roots):
        raise ValueError("the matrix has an eigenvalue that is not certified real")
    # isolated balls are disjoint, so the one with the largest upper end holds the largest root
    return max((root.real for root in roots), key=lambda ball: ball.upper())
