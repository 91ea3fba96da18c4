"""Theorem 4.3's Gronwall transfer bound, derived (derivations/gronwall.py)."""

import sympy as sp

from softlin.derivations import gronwall


def test_the_comparison_ode_solution_and_the_majorant_gap_are_proved():
    assert all(p.passed for p in gronwall.proofs())


def test_the_majorant_exceeds_the_comparison_solution_and_is_first_order_sharp():
    e, B = gronwall.comparison_solution(), gronwall.majorant()
    t = gronwall.t
    # equal slopes at t = 0 (first-order sharp), and B - e grows like g2 beta t^2 / 2
    assert sp.simplify((B - e).diff(t).subs(t, 0)) == 0
    assert (
        sp.simplify(sp.series(B - e, t, 0, 3).removeO() - gronwall.g2 * gronwall.beta * t**2 / 2)
        == 0
    )
