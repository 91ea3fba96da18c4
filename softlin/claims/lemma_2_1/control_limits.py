"""lemma-2.1's enclosure of its non-Gaussian controls' limits: the Rademacher and uniform tokens
refute the Gaussian formula V U z because their true limits are V tanh(U z) and V (sqrt3 coth(sqrt3
U z) - 1 / (U z)) (derived in derivations/controls.py, emitted as kernels). Those closed forms, at
the battery's queries, must lie in Arb balls computed from the laws' definitions
(numerics/control_limits_enclosure.py), widened only by the float route's rounding: a slip in a
derived closed form beyond that is refuted with certainty."""

from __future__ import annotations

import math

import numpy as np

from ...numerics import control_limits_enclosure as enclosure, limits
from ...numerics.selfnormalised_enclosure import outward
from ...judge import kinds as judge
from ...core.findings import Findings

# The float route's rounding, relative to sum_j |V_ij| max|f| (|f| <= sqrt 3): a handful of float
# operations per coordinate (the uniform form cancels near a = 0, where its Taylor branch takes
# over).
FLOAT_ROUTE_RELATIVE = 1e-12
FLOAT_ROUTES = {"rademacher": limits.rademacher_limit, "uniform": limits.uniform_limit}


def control_limits_check(queries: np.ndarray, U: np.ndarray, V: np.ndarray) -> Findings:
    """The check (tier enclosure) and, as a quantity, the balls as [lower, upper] per query and
    output coordinate."""
    scale = np.sum(np.abs(np.atleast_2d(V)), axis=1) * math.sqrt(3)  # per output coordinate
    values, balls, scales, written = [], [], [], {}
    for law, float_route in FLOAT_ROUTES.items():
        floats = float_route(U, V, queries)  # (n, k)
        law_balls = enclosure.limit_balls(law, U, V, queries)
        for n, row in enumerate(law_balls):
            for i, ball in enumerate(row):
                values.append(floats[n, i])
                balls.append(ball)
                scales.append(max(scale[i], 1e-300))
        written[law] = [[outward(ball) for ball in row] for row in law_balls]
    check = judge.containment(
        "controls: the derived limits V tanh(U z) and V (sqrt3 coth(sqrt3 U z) - 1/(U z)) lie in "
        "Arb enclosures from the laws' definitions",
        id="controls/limits-enclosure",
        values=values,
        balls=balls,
        widen=FLOAT_ROUTE_RELATIVE,
        # a ball wider than the float route's error could hide a slip of that size
        max_relative_width=FLOAT_ROUTE_RELATIVE,
        scales=scales,
        detail=f"at the {len(queries)} battery queries, both laws: the emitted kernels (floats) "
        "against balls of E[x e^(ax)] / E[e^(ax)] (two-point sums; acb.integral over "
        "[-sqrt3, sqrt3]); scale: sum_j |V_ij| sqrt3 per output coordinate",
    )
    return Findings([check], {"control_limit_enclosure": written})
