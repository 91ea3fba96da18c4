"""Where the outer integrals' upper tails start, in ball arithmetic, rounded outward.

The enclosures integrate over v = log(t L) on a segment [V_LO, v_hi] (v_hi a float) and bound the
rest, t > t_hi = e^{v_hi} / L, separately. Computing t_hi in floats (exp(v_hi - log L)) gives a
number a few ulps above or below it; above, the range between t_hi and it is neither integrated
nor bounded (measured: the float start lay above t_hi for 32 of 80 (q, L) pairs). `tail_start`
computes t_hi in ball arithmetic (a ball that contains it) and rounds the ball down to a float
T <= t_hi: the tail bound then covers [T, inf), which contains [t_hi, inf); the sliver [T, t_hi]
is counted twice, which only widens the ball (each tail is bounded by integrals of nonnegative
majorants over [T, inf)).
"""

from __future__ import annotations

from flint import arb

from .balls import float_down


def tail_start(v_hi: float, L: int) -> float:
    """A float T <= e^{v_hi} / L, the largest float below the ball of e^{v_hi - log L}: the upper
    tail's start rounded down (module docstring). Call inside a `precision` block: the ball's
    width, so how far below T lies, is that precision's."""
    return float_down((arb(v_hi) - arb(L).log()).exp())
