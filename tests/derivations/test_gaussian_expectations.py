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


def test_a_coefficient_outside_the_rationals_takes_the_expression_route_to_the_same_moments():
    """sqrt(s) and a float leave the polynomial ring (the fast route returns None); the expression
    route gives the moments sympy.stats does."""
    s = sp.Symbol("s", positive=True)
    x, y = sp.symbols("x y", real=True)
    X, Y = stats.Normal("X", 0, 1), stats.Normal("Y", 0, 1)
    for poly in ((sp.sqrt(s) * x + y) ** 4 - x**2, (0.5 * x + y**2) ** 2):
        assert ge.expectation_in_a_ring(poly, [x, y]) is None
        ours = ge.standard_expectation(poly, [x, y])
        theirs = stats.E(poly.subs({x: X, y: Y}))
        assert abs(sp.N(sp.expand(ours - theirs).subs(s, 3))) < 1e-12, (poly, ours, theirs)


def test_the_ring_route_takes_an_unexpanded_power_of_a_sum_to_sympy_stats_moments():
    """The unexpanded square of fluctuations_one_token's prompt variance, at a small size: the ring
    route (not None: it handles the power) and sympy.stats agree on E[(sum of squares - its
    mean)^2]."""
    a, c = sp.symbols("a c", real=True)
    g, h1, h2 = sp.symbols("g h1 h2", real=True)
    G, H1, H2 = (stats.Normal(n, 0, 1) for n in ("G", "H1", "H2"))
    Y = ((a * g - c * h1) ** 2 + (a * g - c * h2) ** 2) / 2
    poly = (Y - a**2 - c**2) ** 2
    ours = ge.expectation_in_a_ring(poly, [g, h1, h2])
    assert ours is not None
    theirs = stats.E(poly.subs({g: G, h1: H1, h2: H2}))
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
