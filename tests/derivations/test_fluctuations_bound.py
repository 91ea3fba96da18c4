"""The in-expectation bound's Maurer deviation is read off its good event (derivations/fluctuations_bound.py)."""

from __future__ import annotations

import sympy as sp

from softlin.derivations import fluctuations_bound


def test_maurer_deviation_moves_with_the_good_event(monkeypatch):
    """t is read off GOOD_EVENT: another threshold gives another t, and the proof of the stated value fails."""
    L = fluctuations_bound.L_sym
    assert sp.simplify(fluctuations_bound.maurer_deviation() - (L - 2) / (2 * (L - 1))) == 0
    monkeypatch.setattr(fluctuations_bound, "GOOD_EVENT", sp.Interval(sp.Rational(1, 3), sp.oo))
    assert sp.simplify(fluctuations_bound.maurer_deviation() - (1 - L / (3 * (L - 1)))) == 0
    assert sp.simplify(fluctuations_bound.good_event_constant() - 9) == 0
    failed = [p.statement for p in fluctuations_bound.proofs() if not p.passed]
    assert any("Maurer deviation from the good event" in s for s in failed)
