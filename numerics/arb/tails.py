"""Tails: how much a Gaussian holds beyond a point, and where the outer integrals' upper tails
start, in ball arithmetic, rounded outward.

Gaussian tails (numerics/arb/inner.py bounds its integrals' tails with them), u ~ N(0, 1):

    M_i(c) = int_c^inf u^i phi_N(u) du = c^{i-1} phi_N(c) + (i - 1) M_{i-2}(c),
    M_0 = Q(c) = erfc(c / sqrt 2) / 2,  M_1 = phi_N(c)

(integration by parts), and K(b) = (1+b)^4 + 4 (1+b)^3 + 6 (1+b)^2 + 8 (1+b) + 3
>= E(1 + b + |u|)^4 (E|u|^m <= 1, 1, 1, 2, 3 for m = 0..4), each a ball.

Upper tail starts. The enclosures integrate over v = log(t L) on a segment [V_LO, v_hi] (v_hi a
float) and bound the rest, t > t_hi = e^{v_hi} / L, separately. Computing t_hi in floats
(exp(v_hi - log L)) gives a number a few ulps above or below it; above, the range between t_hi
and it is neither integrated nor bounded (measured: the float start lay above t_hi for 32 of 80
(q, L) pairs). `tail_start` computes t_hi in ball arithmetic (a ball that contains it) and rounds
the ball down to a float T <= t_hi: the tail bound then covers [T, inf), which contains
[t_hi, inf); the sliver [T, t_hi] is counted twice, which only widens the ball (each tail is
bounded by integrals of nonnegative majorants over [T, inf)).
"""

from __future__ import annotations

from flint import arb

from .balls import float_down, ipow


def tail_start(v_hi: float, L: int) -> float:
    """A float T <= e^{v_hi} / L, the largest float below the ball of e^{v_hi - log L}: the upper
    tail's start rounded down (module docstring). Call inside a `precision` block: the ball's
    width, so how far below T lies, is that precision's."""
    return float_down((arb(v_hi) - arb(L).log()).exp())


def tail_moments(c: float) -> list:
    """Balls of M_i(c) = int_c^inf u^i phi_N(u) du, i = 0..4 (module docstring), c > 0 a float."""
    c = arb(c)
    phi = (-c * c / 2).exp() / (2 * arb.pi()).sqrt()
    M = [(c / arb(2).sqrt()).erfc() / 2, phi]
    for i in range(2, 5):
        M.append(ipow(c, i - 1) * phi + (i - 1) * M[i - 2])
    return M


def K(b: arb) -> arb:
    """K(b) >= E (1 + b + |u|)^4, u ~ N(0, 1)."""
    s = 1 + b
    return ipow(s, 4) + 4 * ipow(s, 3) + 6 * s * s + 8 * s + 3
