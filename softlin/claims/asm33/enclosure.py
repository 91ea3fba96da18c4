"""asm-3.3's enclosure step: the closed forms, converted to floats, inside Arb balls of the same
moments (numerics/tilted_moments_enclosure.py) computed from the scenario's exact decimals."""

from __future__ import annotations

import math

import sympy as sp

from ...derivations import tilted_moments as tm
from ...numerics import tilted_moments_enclosure as te
from ...numerics.selfnormalised_enclosure import outward
from ..base import Check
from ..findings import Findings

# float() of a SymPy number: a rational rounds to nearest (2^-53 relative), an irrational one
# (c = 2: the determinant's square root) goes through evalf at 53 bits first, a few units of 2^-53
# at most (measured <= 0.81 x 2^-53 on three scenarios); 2^-50 is eight units, stated, not proved
FLOAT_CONVERSION_RELATIVE = 2.0**-50


def enclosure_check(comp, m1, g1, u1, s1) -> Findings:
    """The d = 1 closed forms `comp` ({c: 3 x 3 SymPy values} on the scenario's first coordinates,
    the values the quadrature check is judged against) against Arb enclosures of the same moments
    from their definition (numerics/tilted_moments_enclosure.py, nothing of the closed forms used):
    each float(closed form) must lie in its ball widened by FLOAT_CONVERSION_RELATIVE of itself, and
    a closed form is infinite exactly where the enclosure's exact finiteness test says so. A proved
    statement about the floats: a slip beyond 2^-50 relative is refuted, whatever the tolerance of
    the float quadrature."""
    worst, intervals, widths, enclosed = 0.0, {}, [], 0
    for c in tm.POWERS:
        balls = te.table(c, m1, g1, u1, s1)
        intervals[c] = [[None if b is None else outward(b) for b in row] for row in balls]
        for i in range(3):
            for j in range(3):
                ball, claimed = balls[i][j], comp[c][i][j]
                if ball is None or claimed == sp.oo:
                    # one finite and the other not is a refutation; both infinite agree
                    worst = max(worst, 0.0 if ball is None and claimed == sp.oo else math.inf)
                    continue
                value = float(claimed)
                excess = max(0.0, abs(value - float(ball.mid())) - float(ball.rad()))
                worst = max(worst, excess / max(abs(value), 1e-300) if excess > 0 else 0.0)
                enclosed += 1
                if ball.mid() != 0:  # an entry 0 (gamma = m = 0, p > 0) has no relative width
                    widths.append(float(2 * ball.rad() / abs(ball.mid())))
    widest = max(widths) if widths else None
    detail = (
        f"{enclosed} entries enclosed by python-flint's acb.integral (proved error balls, "
        "both tails bounded, not cut) of the Gaussian-reduced outer integral, the tilted "
        "token moments by their recurrence in ball arithmetic; infinite entries decided "
        "exactly (lambda = u^2 gamma sigma_q < 1/2 for c = 2); value: the largest distance "
        "of float(closed form) outside its ball, relative to the value, against the float "
        "conversion allowance 2^-50; largest relative width of the balls "
        + ("-" if widest is None else f"{widest:.1e}")
    )
    bound = FLOAT_CONVERSION_RELATIVE
    check = Check(
        "d = 1 (first coordinates): the closed forms lie in their Arb enclosures",
        "quadrature",
        bool(worst <= bound),
        worst,
        bound,
        detail,
        tier="enclosure",
        id="closed-form/enclosure",
        unit="relative error",
    )
    # the width itself (~1e-27) is below the noise floor of softlin/certio.py (written as
    # 0): its decimal exponent is written instead, to one decimal (stable across flint versions)
    log_widest = None if widest is None else round(math.log10(widest), 1)
    return Findings(
        [check],
        {
            "M_pq_d1_enclosure": intervals[1],
            "M_pq_c2_d1_enclosure": intervals[2],
            "M_pq_d1_enclosure_max_relative_width_log10": log_widest,
        },
    )
