"""thm-4.3's infinite-prompt trajectory enclosed (claims/thm_4_3/validated.py): the float route
lies inside the Arb tube and the tube proves ||theta_inf(t)|| <= rho on [0, T]; a float trajectory
moved by 1e-4, one integrated with a slipped field (grad_b doubled), and a rho below the proved
supremum are refuted; a tube that cannot reach T leaves both checks undecided."""

import numpy as np
import pytest

from softlin.claims.thm_4_3 import validated
from softlin.numerics import icl_exact, icl_flows
from softlin.numerics.arb import ode

SIGMA = np.array([[1.2, 0.3], [0.3, 0.7]])
THETA0 = np.array([0.4, 0.1, -0.05, 0.3, 0.5])  # A(0) row by row, then b(0): not balanced
T = np.concatenate([[0.0], np.geomspace(1e-3, 6.0, 15)])
SLACK = 1e-6


def float_route(grad=None):
    return icl_exact.flow(grad or (lambda y: icl_exact.grad_inf(SIGMA, y)), THETA0, T)


@pytest.fixture(scope="module")
def inf():
    return float_route()


TUBE = []  # made once: the enclosure does not depend on what is checked against it


def checks(inf, rho=10.0, tube=None):
    if tube is None and not TUBE:
        TUBE.append(validated.enclose_infinite(SIGMA, THETA0, float(T[-1])))
    tube = tube or TUBE[0]
    return validated.enclosure_checks(SIGMA, THETA0, T, inf, rho, SLACK, tube).checks


def test_the_float_route_lies_in_the_tube_and_the_norm_is_proved_below_rho(inf):
    inside, bounded = checks(inf)
    assert inside.passed is True and inside.tier == "enclosure"
    assert bounded.passed is True and bounded.value >= np.linalg.norm(inf, axis=1).max()


def test_a_float_trajectory_moved_by_1e_4_is_refuted(inf):
    moved = inf.copy()
    moved[5, 1] += 1e-4
    assert checks(moved)[0].passed is False


def test_a_float_flow_of_a_slipped_field_is_refuted():
    def slipped(y):
        g = icl_exact.grad_inf(SIGMA, y).copy()
        g[-1] *= 2  # grad_b doubled
        return g

    assert checks(float_route(slipped))[0].passed is False


def test_a_rho_below_the_proved_supremum_is_refuted(inf):
    sup = checks(inf)[1].value
    assert checks(inf, rho=0.999 * np.linalg.norm(inf, axis=1).max())[1].passed is False
    assert checks(inf, rho=1.0001 * sup)[1].passed is True


def test_a_rho_inside_the_supremums_enclosure_leaves_the_bound_undecided(inf):
    """rho between the supremum's proved lower end (the grid times) and its upper end (the
    segments): a flow that touches the sphere. Neither proved nor refuted: undecided, with the
    interval that holds rho, and still judged (a verdict the claim reports, not dropped)."""
    sup = checks(inf)[1].value
    lower = np.linalg.norm(inf, axis=1).max()
    assert lower < sup
    bounded = checks(inf, rho=0.5 * (lower + sup))[1]
    assert bounded.passed is None and bounded.judged is not False
    assert "cannot decide" in bounded.reason and bounded.value == sup


def test_a_tube_that_cannot_reach_the_horizon_leaves_both_undecided(inf):
    f = validated.vector_field(SIGMA)
    with validated.precision(validated.BITS):
        y0 = [validated.arb(float(x)) for x in THETA0]
        short = ode.enclose(f, y0, lambda tube: False, max_segments=2)
    for check in checks(inf, tube=short):
        assert check.passed is None and check.judged is False and "did not reach" in check.reason


def test_the_enclosed_field_is_thm_5_2s_balanced_flow():
    """The tube starts anywhere; from thm-5.2's balanced start it ends near the Bayes endpoint."""
    A0, b0 = icl_flows.balanced_init(SIGMA, 0.5)
    theta0 = np.concatenate([A0.ravel(), [b0]])
    tube = validated.enclose_infinite(SIGMA, theta0, 30.0)
    As, bs = icl_flows.endpoint(SIGMA)
    centre, _ = tube.end_state()
    assert abs(float(centre[-1].mid()) - bs) < 1e-3
