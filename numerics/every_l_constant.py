"""The constant c1 of Proposition 3.1's displayed form at a fixed query, certified as a ball: the
supremum over every integer L >= 2, not the maximum over a grid of L.

The display reads E|T[mu_L](z) - T[mu](z)|^2 <= c1 sigma^6 ln L / L^(c2 / sigma^2); below the
finiteness threshold softlin takes c2 = sigma^2, and its explicit bound eps_L^2(z) =
tp (4 e^q / L + L e^{-h(L)}), h(L) = (L-2)^2 / (8 (L-1) e^q) (numerics/every_l.py, whose proof
gives the error <= eps_L^2 for every L >= 2). The smallest c1 for which eps_L^2 <= c1 sigma^6 ln L
/ L at every L >= 2 is

    c1 = sup_{L >= 2} g(L),
    g(L) = L eps_L^2 / (sigma^6 ln L) = tp (4 e^q + L^2 e^{-h(L)}) / (sigma^6 ln L).

**The supremum is a finite maximum.** h'(L) = (L-2) L / (8 (L-1)^2 e^q) = (1 - 1/(L-1)^2) / (8 e^q)
(proved by SymPy in softlin/claims/shared/every_l.py, `bound_monotone_proof`) increases in L,
and 2/L decreases, so once h'(L_T) >= 2/L_T the log-derivative 2/L - h'(L) of L^2 e^{-h(L)} is
<= 0 on all of [L_T, inf): L^2 e^{-h(L)} and 4 e^q are non-increasing there, 1 / ln L decreases,
so g decreases on [L_T, inf) and sup_{L >= 2} g = max_{2 <= L <= L_T} g(L). L_T is the first
integer >= 3 at which Arb certifies L (1 - 1/(L-1)^2) > 16 e^q (the inequality above, multiplied
out); every g(L) for L <= L_T is a ball, and the maximum of balls encloses the maximum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from flint import arb

from . import every_l
from .arb.balls import outward
from .arb.context import precision

# Past this many integers below the monotone threshold (q above about ln(1e5 / 16) = 8.7) the
# maximum is not enumerated and the constant is not certified.
MAX_POINTS = 100_000


@dataclass(frozen=True)
class PaperConstant:
    """c1 in [lower, upper] (floats rounded outward), attained at L = argmax; g decreases from
    L = monotone_from on; grid_max: the largest g over the grid the averaged route samples
    (L = 2..64 and 120 geometric points to 1e9), for comparison."""

    lower: float
    upper: float
    argmax: int
    monotone_from: int
    grid_max: float

    def record(self) -> dict:
        return {
            "c1": [self.lower, self.upper],
            "argmax_L": self.argmax,
            "decreasing_from_L": self.monotone_from,
            "grid_max": self.grid_max,
            "statement": (
                "eps_L^2(z) <= c1 sigma^6 ln L / L for every integer L >= 2 with c1 = "
                f"{self.upper:.8g}, the supremum of g(L) = L eps_L^2 / (sigma^6 ln L) enclosed in "
                f"[{self.lower:.8g}, {self.upper:.8g}]: g decreases from L = "
                f"{self.monotone_from} on (h'(L) >= 2/L there) and every g(L) below is an Arb ball"
            ),
        }


def g_ball(Q: every_l.Query, sigma: arb, L: int) -> arb:
    """A ball containing g(L) = L eps_L^2 / (sigma^6 ln L) (module docstring)."""
    La = arb(L)
    return every_l.BoundForm().at(Q, L) * La / (sigma**6 * La.log())


def monotone_from(Q: every_l.Query, cap: int = MAX_POINTS) -> int | None:
    """The first integer L >= 3 with L (1 - 1/(L-1)^2) > 16 e^q certified (module docstring), or
    None past `cap`."""
    sixteen_eq = 16 * Q.q.exp()
    start = max(3, int(float(sixteen_eq.upper())))
    for L in range(start, cap + 1):
        La = arb(L)
        if La * (1 - 1 / (La - 1) ** 2) > sixteen_eq:
            return L
    return None


def certified_c1(Q: every_l.Query, sigma: float) -> PaperConstant | None:
    """c1 = sup_{L >= 2} g(L) enclosed (module docstring) at the query's invariants `Q` and the
    sub-Gaussian scale `sigma` (a float, taken as the exact number it is); None when the monotone
    threshold lies beyond MAX_POINTS."""
    with precision(every_l.PRECISION_BITS):
        L_T = monotone_from(Q)
        if L_T is None:
            return None
        s = arb(sigma)
        balls = [g_ball(Q, s, L) for L in range(2, L_T + 1)]
        lowers = [outward(b)[0] for b in balls]
        uppers = [outward(b)[1] for b in balls]
        i = int(np.argmax(uppers))
        grid = sorted(set(range(2, 65)) | {int(x) for x in np.geomspace(64, 1e9, 120)})
        grid_max = max(float(g_ball(Q, s, L).mid()) for L in grid)
        return PaperConstant(max(lowers), uppers[i], i + 2, L_T, grid_max)
