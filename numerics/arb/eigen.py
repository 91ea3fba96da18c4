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


def symmetric_upper_eigenvalue(S) -> arb:
    """An upper bound (a ball whose upper end bounds it) of the largest eigenvalue of every real
    symmetric matrix in the ball matrix S (an arb_mat; S need not be symmetric as balls: its
    symmetric part (S + S^T)/2 is used, which is the logarithmic 2-norm's matrix of any J in S).

    The float eigenvectors V of the midpoint make C = V^-1 S V nearly diagonal; V^-1 is enclosed by
    Arb (V is exact, being floats), so every matrix of S is similar to one in C and its
    eigenvalues lie in the union of C's Gershgorin discs: lambda <= max_i (C_ii + sum_{j != i}
    |C_ij|), taken at the balls' upper ends. A midpoint beyond float64 gives +inf (no bound)."""
    import numpy as np
    from flint import arb_mat

    n = S.nrows()
    sym = arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            sym[i, j] = (S[i, j] + S[j, i]) / 2
    mid = np.array([[float(sym[i, j].mid()) for j in range(n)] for i in range(n)])
    if not np.all(np.isfinite(mid)):  # a ball beyond float64 (a hunt draw, Sigma ~ 2e6): no bound
        return arb("inf")
    _, V = np.linalg.eigh((mid + mid.T) / 2)
    Vb = arb_mat([[float(x) for x in row] for row in V])
    C = Vb.inv() * sym * Vb
    bound = None
    for i in range(n):
        disc = C[i, i] + sum((abs(C[i, j]) for j in range(n) if j != i), arb(0))
        top = arb(disc.upper())
        bound = top if bound is None or top > bound else bound
    return bound
