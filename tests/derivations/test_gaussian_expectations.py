"""derivations/gaussian_expectations.py, the one home of Gaussian polynomial expectations, against
sympy.stats (an independent implementation: it integrates against the normal density)."""

from __future__ import annotations

import pytest
import sympy as sp
from sympy import stats

from softlin.derivations import gaussian_expectations as ge


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
def test_standard_moments_are_the_double_factorials():
    g = stats.Normal("g", 0, 1)
    for p in range(0, 9):
        assert sp.simplify(ge.standard_moment(p) - stats.E(g**p)) == 0


def test_independent_standard_normals_against_sympy_stats():
    a, b = sp.symbols("a b", real=True)
    x, y = sp.symbols("x y", real=True)
    X, Y = stats.Normal("X", 0, 1), stats.Normal("Y", 0, 1)
    poly = (a * x**2 + b * x * y + y**3 - 1) ** 2 + x**4 * y**2
    ours = ge.standard_expectation(poly, [x, y])
    theirs = stats.E(poly.subs({x: X, y: Y}))
    assert sp.expand(ours - theirs) == 0


def test_correlated_gaussian_by_stein_against_sympy_stats():
    """y ~ N(0, Sigma) with Sigma = B B^T written as y = B g, and a singular Sigma (rank 1)."""
    y1, y2 = sp.symbols("y1 y2", real=True)
    G1, G2 = stats.Normal("G1", 0, 1), stats.Normal("G2", 0, 1)
    poly = y1**4 * y2**2 + 3 * y1 * y2**3 - y2**2 + 2
    for B in (sp.Matrix([[1, 0], [sp.Rational(1, 2), 2]]), sp.Matrix([[1, 0], [3, 0]])):
        Sigma = B * B.T
        ours = ge.gaussian_polynomial_expectation(poly, [y1, y2], Sigma)
        yv = B * sp.Matrix([G1, G2])
        theirs = stats.E(poly.subs({y1: yv[0], y2: yv[1]}))
        assert sp.simplify(ours - theirs) == 0
