"""prop-3.4's fixed-query grad_V error enclosed with Arb. Its exact finite-L value is

    E||grad_V T[mu_L] - grad_V T[mu]||^2 = k (tr Gamma A_L(q) + |Gamma a|^2 / q (B_L(q) - A_L(q))),

k the number of output rows (numerics/selfnormalised_gradients.py, proved in
derivations/gradient_fluctuations.py): prop-3.1's fixed-query mean squared error with V = I, times
k. So the balls of A_L and B_L (numerics/selfnormalised_enclosure.py: acb.integral, tails bounded)
give it with certainty, and the float route the Monte Carlo checks are judged against (the
set-partition quadrature of numerics/gradient_scalars.py) must lie inside.

The grad_U error, |z|^2 times

    S_aa (e^T M e)|e|^2 - 2 S_aA e^T M P e + (2 S_AA + S_A - 2 S_A3) tr(P M P)
    + (S_A - 2 S_A3 + S_AA) tr P tr(P M) + S_H (2 e^T M P e + |e|^2 tr(M P) + e^T M e tr P)

(M = V^T V, e = Gamma a / sqrt q, P = Gamma - e e^T), needs five more scalars
(E alpha^2, E alpha A, E A^2, E sum p^3, E H): numerics/gradient_scalars_enclosure.py encloses them
from their definitions, and the geometry is evaluated in ball arithmetic from the float inputs."""

from __future__ import annotations

import numpy as np

from ...numerics import gradient_scalars_enclosure as u_enclosure
from ...numerics import selfnormalised_enclosure as enclosure
from ...judge import kinds as judge
from ...core.findings import Findings

# The float route's own error (quadrature in double precision): measured below 1e-13 relative. Each
# ball is widened by this times its midpoint before the float value is judged inside it.
FLOAT_ROUTE_RELATIVE = 1e-10
# The widest ball (radius over |midpoint|) that decides: the float route the Monte Carlo checks are
# judged against is then certified to a millionth, four orders below their resolution (detectable
# ~1e-2 at quick); the enclosures reach radius / |midpoint| <= 6e-8 at the default scenario. A wider
# ball leaves the check undecided.
MAX_RELATIVE_WIDTH = 1e-6


def ball_check(id: str, name: str, how: str, Ls, values, ball_at, quantity: str) -> Findings:
    """The check (tier enclosure, judge.containment) that each float value lies in its Arb ball
    `ball_at(L)`, widened by the float route's own error, and, as the quantity `quantity`, the balls
    [lower, upper] per L. `how` says what the ball is; the detail adds the widths and every miss."""
    if not len(Ls):
        return Findings(
            [
                judge.unjudged(
                    name,
                    "quadrature",
                    "no prompt length",
                    tier="enclosure",
                    id=id,
                    unit="values",
                )
            ]
        )
    arbs, balls, widths, misses = [], [], [], []
    for L, value in zip(Ls, values):
        ball = ball_at(L)
        outside = max(0.0, abs(value - float(ball.mid())) - float(ball.rad()))
        if outside > 0:
            misses.append(
                f"L = {L}: {value:.10g} outside [{ball.lower()}, {ball.upper()}] by "
                f"{outside / max(abs(value), 1e-300):.2g} relative"
            )
        arbs.append(ball)
        balls.append(enclosure.outward(ball))
        widths.append(2 * float(ball.rad()) / max(abs(float(ball.mid())), 1e-300))
    check = judge.containment(
        name,
        id=id,
        values=[float(v) for v in values],
        balls=arbs,
        widen=FLOAT_ROUTE_RELATIVE,
        max_relative_width=MAX_RELATIVE_WIDTH,
        detail=f"at L = {list(Ls)}: {how}; relative widths (diameter / |midpoint|) "
        + ", ".join(f"{w:.1e}" for w in widths)
        + ("; " + "; ".join(misses) if misses else ""),
    )
    return Findings([check], {quantity: balls})


def grad_v_enclosure_check(Gamma, U, V, z, Ls, exact_V) -> Findings:
    """grad_V's ball: prop-3.1's fixed-query MSE with V = I, times k."""
    d, k = Gamma.shape[0], V.shape[0]
    return ball_check(
        "fixed/grad-v-enclosure",
        "fixed query: the exact finite-L E||grad_V err||^2 (float route) lies in its Arb enclosure",
        "k (tr Gamma A_L + |Gamma a|^2 / q (B_L - A_L)) with A_L(q), B_L(q) enclosed by "
        "acb.integral (tails bounded, not cut)",
        Ls,
        exact_V,
        lambda L: enclosure.fixed_query(Gamma, U, np.eye(d), z, L).mse * k,
        "fixed_query_exact_grad_V_enclosure",
    )


GRAD_U_NAME = (
    "fixed query: the exact finite-L E||grad_U err||^2 (float route) lies in its Arb enclosure"
)


def grad_u_enclosure_check(Gamma, U, V, z, Ls, exact_U) -> Findings:
    """grad_U's ball: the display of the module docstring from the seven enclosed scalars. Its
    scalars' route divides by sqrt q, q = a^T Gamma a (a = U z): at a query with Gamma a = 0 (a
    valid scenario, e.g. U z in the kernel of a singular Gamma) the check is kept, not judged, with
    that reason (it crashed the run before)."""
    a = np.asarray(U, float) @ np.asarray(z, float)
    if not float(a @ np.asarray(Gamma, float) @ a) > 0:
        return Findings(
            [
                judge.unjudged(
                    GRAD_U_NAME,
                    "quadrature",
                    "q = a^T Gamma a = 0 at the fixed query (a = U z): the enclosed scalars divide "
                    "by sqrt q, beyond this route's reach",
                    tier="enclosure",
                    id="fixed/grad-u-enclosure",
                    unit="values",
                )
            ]
        )
    return ball_check(
        "fixed/grad-u-enclosure",
        GRAD_U_NAME,
        "|z|^2 (S_aa (e^T M e)|e|^2 - 2 S_aA e^T M P e "
        "+ (2 S_AA + S_A - 2 S_A3) tr(P M P) + (S_A - 2 S_A3 + S_AA) tr P tr(P M) "
        "+ S_H (2 e^T M P e + |e|^2 tr(M P) "
        "+ e^T M e tr P)) with the seven scalars enclosed by acb.integral (tails bounded, not cut; "
        "S_aa, S_aA, S_AA, S_A3, S_H expanded from their definitions) and the geometry in ball "
        "arithmetic",
        Ls,
        exact_U,
        lambda L: u_enclosure.fixed_query_grad_u(Gamma, U, V, z, L),
        "fixed_query_exact_grad_U_enclosure",
    )
