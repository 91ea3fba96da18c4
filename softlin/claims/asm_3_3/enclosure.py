"""asm-3.3's enclosure step: the closed forms, converted to floats, inside Arb balls of the same
moments (numerics/tilted_moments_enclosure.py) computed from the scenario's exact decimals."""

from __future__ import annotations

import math

import sympy as sp

from ...derivations import tilted_moments as tm
from ...numerics import tilted_moments_enclosure as te
from ...numerics.selfnormalised_enclosure import outward
from ...judge import kinds as judge
from ...core.findings import Findings

# float() of a SymPy number: a rational rounds to nearest (2^-53 relative), an irrational one
# (c = 2: the determinant's square root) goes through evalf at 53 bits first, a few units of 2^-53
# at most (measured <= 0.81 x 2^-53 on three scenarios); 2^-50 is eight units, stated, not proved
FLOAT_CONVERSION_RELATIVE = 2.0**-50
# A ball wider than the float allowance (relative half-width) would let slips beyond the allowance
# pass unseen: such a ball leaves the check undecided (the balls measured are ~1e-27 wide)
MAX_RELATIVE_WIDTH = FLOAT_CONVERSION_RELATIVE


def enclosure_check(comp, m1, g1, u1, s1) -> Findings:
    """The d = 1 closed forms `comp` ({c: 3 x 3 SymPy values} on the scenario's first coordinates,
    the values the quadrature check is judged against) against Arb enclosures of the same moments
    from their definition (numerics/tilted_moments_enclosure.py, nothing of the closed forms used):
    each float(closed form) must lie in its ball widened by FLOAT_CONVERSION_RELATIVE of its
    midpoint (judge.containment), and a closed form is infinite exactly where the enclosure's exact
    finiteness test says so (where it is not, the check compares the two finiteness patterns
    exactly, and fails). A proved statement about the floats: a slip beyond 2^-50 relative is
    refuted, whatever the tolerance of the float quadrature."""
    intervals, widths, values, enclosing = {}, [], [], []
    finite_closed, finite_ball = [], []
    for c in tm.POWERS:
        balls = te.table(c, m1, g1, u1, s1)
        intervals[c] = [[None if b is None else outward(b) for b in row] for row in balls]
        for i in range(3):
            for j in range(3):
                ball, claimed = balls[i][j], comp[c][i][j]
                finite_closed.append(claimed != sp.oo)
                finite_ball.append(ball is not None)
                if ball is None or claimed == sp.oo:
                    continue  # both infinite agree; one finite and the other not: see below
                values.append(float(claimed))
                enclosing.append(ball)
                if ball.mid() != 0:  # an entry 0 (gamma = m = 0, p > 0) has no relative width
                    widths.append(float(2 * ball.rad() / abs(ball.mid())))
    widest = max(widths) if widths else None
    detail = (
        f"{len(values)} entries enclosed by python-flint's acb.integral (proved error balls, "
        "both tails bounded, not cut) of the Gaussian-reduced outer integral, the tilted "
        "token moments by their recurrence in ball arithmetic; infinite entries decided "
        "exactly (lambda = u^2 gamma sigma_q < 1/2 for c = 2); value: float(closed form) of each "
        "finite entry, bound: its ball widened by the float conversion allowance 2^-50 of its "
        "midpoint; largest relative width of the balls "
        + ("-" if widest is None else f"{widest:.1e}")
    )
    name = "d = 1 (first coordinates): the closed forms lie in their Arb enclosures"
    if finite_closed != finite_ball:
        # a closed form finite where the moment is infinite, or the reverse: a refutation, judged
        # on the finiteness patterns themselves (c = 1 then c = 2, rows p, columns q)
        check = judge.exact(
            name,
            "quadrature",
            id="closed-form/enclosure",
            value=finite_closed,
            expected=finite_ball,
            tier="enclosure",
            detail="finiteness of the closed forms (value) against the enclosure's exact "
            "finiteness test (bound), c = 1 then c = 2, rows p and columns q in (0, 4, 8)",
        )
    else:
        check = judge.containment(
            name,
            id="closed-form/enclosure",
            values=values,
            balls=enclosing,
            widen=FLOAT_CONVERSION_RELATIVE,
            max_relative_width=MAX_RELATIVE_WIDTH,
            detail=detail,
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
