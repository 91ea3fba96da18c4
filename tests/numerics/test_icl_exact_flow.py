"""The exact flows' float route (numerics/icl_exact.flow) keeps thm-4.3's stated error (ODE_SLACK,
1e-6 absolute) from a tiny initialisation: the flow creeps along the saddle at 0 and its escape
time inherits the plateau's relative error, so the absolute tolerance must follow the initial
state's scale (found by `softlin hunt thm-4.3 --seed 11`: alpha = 9.5e-7, the Arb tube refuted the
float trajectory by ~1e-6 after the escape)."""

import numpy as np
import pytest

from softlin.claims.thm_4_3.gronwall_checks import ODE_SLACK
from softlin.numerics import icl_exact, icl_flows

SIGMA = np.array([[0.5625, -0.125], [-0.125, 1.3125]])


@pytest.mark.parametrize("alpha", [9.5367431640625e-07, 1e-3, 0.5])
def test_the_float_flow_from_a_small_start_is_within_a_tenth_of_its_stated_error(alpha):
    A0, b0 = icl_flows.balanced_init(SIGMA, alpha)
    theta0 = np.concatenate([A0.ravel(), [b0]])
    t = np.concatenate([[0.0], np.geomspace(1e-3, 15.0, 24)])

    def grad(y):
        return icl_exact.grad_inf(SIGMA, y)

    route = icl_exact.flow(grad, theta0, t)
    reference = icl_exact.flow(grad, theta0, t, rtol=1e-13)
    assert np.abs(route).max() > 0.1  # the flow has escaped the saddle within the horizon
    assert np.abs(route - reference).max() <= ODE_SLACK / 10


def test_a_flow_beyond_its_evaluation_budget_is_beyond_reach():
    """A stiff linear field (rates 1 and 1e4 over T = 1e3) needs far more than 50 explicit
    evaluations: BeyondReach naming the budget and the time reached; the same flow within the
    default budget, non-stiff (rates 1 and 2), reaches e^(-t) theta0."""
    from softlin.numerics.validate import BeyondReach

    stiff = np.array([1.0, 1e4])
    with pytest.raises(BeyondReach, match=r"spent its 50 field evaluations by t = .* of T = 1e"):
        icl_exact.flow(lambda y: stiff * y, np.ones(2), np.array([0.0, 1e3]), evaluations=50)
    rates = np.array([1.0, 2.0])
    out = icl_exact.flow(lambda y: rates * y, np.ones(2), np.array([0.0, 1.0]))
    assert np.allclose(out[-1], np.exp(-rates), rtol=1e-7)
