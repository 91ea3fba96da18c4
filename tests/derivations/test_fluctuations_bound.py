"""The in-expectation bound's Maurer deviation is read off its good event
(derivations/fluctuations_bound.py)."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from softlin.derivations import fluctuations_bound
from softlin.numerics import kernels


def test_maurer_deviation_moves_with_the_good_event(monkeypatch):
    """t is read off GOOD_EVENT: another threshold gives another t, and the proof of the stated
    value fails."""
    L = fluctuations_bound.L_sym
    assert sp.simplify(fluctuations_bound.maurer_deviation() - (L - 2) / (2 * (L - 1))) == 0
    monkeypatch.setattr(fluctuations_bound, "GOOD_EVENT", sp.Interval(sp.Rational(1, 3), sp.oo))
    assert sp.simplify(fluctuations_bound.maurer_deviation() - (1 - L / (3 * (L - 1)))) == 0
    assert sp.simplify(fluctuations_bound.good_event_constant() - 9) == 0
    failed = [p.statement for p in fluctuations_bound.proofs() if not p.passed]
    assert any("Maurer deviation from the good event" in s for s in failed)


@pytest.mark.parametrize("L, sigma", [(2, 1.0), (64, 1.0), (1000, 1.5), (10**9, 2.0)])
def test_paper_constant_makes_the_paper_form_equal_the_bound_at_rate_one_over_L(L, sigma):
    """The form c1 sigma^6 ln L / L at c1 = paper_constant(bound) gives back the bound, and it is
    the displayed right side c1 sigma^6 ln L / L^(c2/sigma^2) typed here independently."""
    bound = 0.0375
    c1 = float(kernels.paper_constant(bound, sigma, L))
    assert float(kernels.paper_form(c1, sigma, sigma**2, L)) == pytest.approx(bound, rel=1e-14)
    assert float(kernels.paper_form(2.0, sigma, 0.5, L)) == pytest.approx(
        2.0 * sigma**6 * math.log(L) / L ** (0.5 / sigma**2), rel=1e-14
    )
