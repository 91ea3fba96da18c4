"""numerics/extrapolation.py: each extrapolation removes exactly the remainder it is written for."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.numerics.extrapolation import aitken, richardson


def test_richardson_removes_a_1_over_L_term_exactly():
    f = lambda L: 2.5 - 7.0 / L
    assert richardson(f(1e4), f(1e5)) == pytest.approx(2.5, rel=1e-14, abs=0)


def test_richardson_leaves_the_1_over_L2_term_scaled_by_minus_one_over_the_ratio():
    f = lambda L: np.array([1.0, -3.0]) + np.array([4.0, 0.5]) / L + np.array([300.0, -80.0]) / L**2
    for ratio in (2, 10):
        L = 50.0
        remainder = richardson(f(L), f(ratio * L), ratio) - np.array([1.0, -3.0])
        assert remainder == pytest.approx(-np.array([300.0, -80.0]) / (ratio * L**2), rel=1e-9)


def test_aitken_is_exact_on_a_geometric_remainder():
    r = 10**-0.37
    assert aitken(np.array([2.0 + 0.3 * r**k for k in (1, 2, 3)])) == pytest.approx(2.0, rel=1e-12)
