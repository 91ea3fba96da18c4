"""thm-4.3's infinite-prompt trajectory proved, not only integrated: the flow theta_inf(t) of
grad R_inf from the scenario's theta(0), enclosed on [0, T] (T the horizon of the Gronwall step) by
the Taylor stepper in Arb (numerics/arb/ode.py) with the derived field (the emitted kernels
icl_grad_A, icl_grad_b, evaluated on balls: numerics/icl_flow_enclosure.vector_field). Two checks
of tier enclosure:

* `transfer/infinite-trajectory-enclosed`: the float trajectory the Gronwall step uses
  (solve_ivp on icl_exact.grad_inf, rtol 1e-9) lies, at every grid time, inside the tube widened
  by the float route's stated error (ODE_SLACK): the float route and the enclosure are two
  implementations of the same derived field, so a slip in either is refuted;
* `hypothesis/infinite-bounded-enclosed`: ||theta_inf(t)|| <= rho for every t in [0, T], not only at
  the grid times: the largest upper bound of the norm over the tube's segments. rho is
  max(||theta(0)||, ||theta*||), so a flow that starts on the sphere has its supremum at rho
  exactly, which a tube of positive width can neither prove <= rho nor refute: the check is then
  undecided with that reason (the supremum's lower end, from the grid times, is <= rho).

Where the stepper cannot reach T (its segment cap, a field that blows up), both are undecided with
the reason, never passed.
"""

from __future__ import annotations


import numpy as np
from flint import arb

from ...core.findings import Findings
from ...judge import kinds as judge
from ...numerics.arb import ode
from ...numerics.arb.balls import float_down, float_up
from ...numerics.arb.context import precision
from ...numerics.icl_flow_enclosure import BITS, ORDER, TOLERANCE, vector_field

# Widest tube radius, relative to the state's size, that still decides containment at ODE_SLACK.
MAX_RELATIVE_WIDTH = 1e-9


def enclose_infinite(Sigma: np.ndarray, theta0: np.ndarray, horizon: float) -> ode.Tube:
    """The tube of the infinite-prompt flow from theta0 (exact floats) over [0, horizon]."""
    f = vector_field(np.asarray(Sigma, float))
    with precision(BITS):
        y0 = [arb(float(x)) for x in theta0]
        return ode.enclose(
            f, y0, lambda tube: tube.t_end >= horizon, order=ORDER, tolerance=TOLERANCE
        )


def enclosure_checks(
    Sigma: np.ndarray,
    theta0: np.ndarray,
    t: np.ndarray,
    inf: np.ndarray,
    rho: float,
    slack: float,
    tube: ode.Tube | None = None,
) -> Findings:
    """The two checks of the module docstring; `inf` the float trajectory at the grid `t`, `slack`
    its stated absolute error; `tube` an enclosure already made from theta0 (else made here)."""
    tube = tube or enclose_infinite(Sigma, theta0, float(t[-1]))
    reached = bool(tube.segments) and not tube.failure and tube.t_end >= float(t[-1])
    why = "" if reached else f"the enclosure did not reach T = {t[-1]:.6g}: {tube.failure}"
    quantities = {
        "infinite_enclosure": {
            "T": float(t[-1]),
            "segments": len(tube.segments),
            "failure": tube.failure,
        }
    }
    if not reached:
        return Findings(
            [
                judge.unjudged(
                    INSIDE,
                    "ode",
                    why,
                    tier="enclosure",
                    id=INSIDE_ID,
                    unit="values",
                    rule="value in bound",
                ),
                judge.unjudged(
                    BOUNDED,
                    "ode",
                    why,
                    tier="enclosure",
                    id=BOUNDED_ID,
                    unit="norm",
                    rule="value <= bound",
                ),
            ],
            quantities,
        )
    with precision(BITS):
        balls = [b for tk in t for b in tube.box_at(float(tk))]
        sup_norm = max(
            float_up(ode.norm_upper(tube.box_over(k))) for k in range(len(tube.segments))
        )
        # a lower bound of the same supremum: the norm's lower end at the grid times
        sup_lower = max(_norm_lower(tube.box_at(float(tk))) for tk in t)
    scale = max(1.0, float(np.abs(inf).max()))
    widest = max(float_up(s.r_sup) for s in tube.segments)
    inside = judge.containment(
        INSIDE,
        id=INSIDE_ID,
        values=np.asarray(inf, float).ravel().tolist(),
        balls=balls,
        widen=slack,
        scales=[scale] * len(balls),
        max_relative_width=MAX_RELATIVE_WIDTH,
        kind="ode",
        detail=f"theta_inf(t_k) by solve_ivp at the {len(t)} grid times against the Arb tube "
        f"({len(tube.segments)} Taylor segments, widest error radius {widest:.2g})",
    )
    bounded = judge.verdict(
        BOUNDED,
        "ode",
        id=BOUNDED_ID,
        unit="norm",
        value=sup_norm,
        bound=rho,
        rule="value <= bound",
        tier="enclosure",
        detail=f"largest upper bound of ||theta_inf(t)|| over the tube's segments on [0, "
        f"{t[-1]:.6g}] against rho = {rho:.8g}; the supremum is at least {sup_lower:.17g}",
        # rho = max(||theta(0)||, ||theta*||): a flow that starts on the sphere (or touches it)
        # has its supremum at rho, which no tube of positive width proves to be <= rho; nor does
        # it show the hypothesis false
        undecided=(
            f"the supremum lies in [{sup_lower:.17g}, {sup_norm:.17g}], which holds rho = "
            f"{rho:.17g}: the tube cannot decide (the flow starts on or touches the sphere)"
            if sup_lower <= rho < sup_norm
            else ""
        ),
    )
    quantities["infinite_enclosure"]["sup_norm_upper"] = sup_norm
    return Findings([inside, bounded], quantities)


def _norm_lower(values) -> float:
    """A lower bound of the 2-norm of a vector of balls (each |v| at least its lower end, or 0)."""
    squares = sum((arb(max(float_down(abs(v)), 0.0)) ** 2 for v in values), arb(0))
    return float_down(squares.sqrt())


INSIDE = "transfer: the float infinite-prompt trajectory lies inside its Arb enclosure"
INSIDE_ID = "transfer/infinite-trajectory-enclosed"
BOUNDED = "hypothesis: ||theta_inf(t)|| <= rho for every t in [0, T] (enclosed)"
BOUNDED_ID = "hypothesis/infinite-bounded-enclosed"
