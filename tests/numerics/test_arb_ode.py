"""The validated stepper (numerics/arb/ode.py) and its parts (numerics/arb/jets.py,
numerics/arb/eigen.py) against solutions and spectra known in closed form, each with a control a
slip of which the enclosure must exclude."""

import math

import numpy as np
from flint import arb, arb_mat

from softlin.numerics.arb import ode
from softlin.numerics.arb.context import precision
from softlin.numerics.arb.eigen import symmetric_upper_eigenvalue
from softlin.numerics.arb.jets import gradient_hessian, jacobian

LAMBDA = [[2.0, 1.0], [1.0, 3.0]]


def _linear(y):
    return [-(LAMBDA[i][0] * y[0] + LAMBDA[i][1] * y[1]) for i in range(2)]


def _exact_linear(t: float):
    """exp(-Lambda t) y0, y0 = (1, -0.5), by Arb's matrix exponential."""
    E = (arb_mat(LAMBDA) * arb(-t)).exp()
    y = E * arb_mat([[1.0], [-0.5]])
    return [y[0, 0], y[1, 0]]


def test_a_linear_symmetric_flow_is_enclosed_and_a_shifted_solution_is_not():
    with precision(128):
        tube = ode.enclose(_linear, [arb(1.0), arb(-0.5)], lambda tb: tb.t_end >= 6.0)
        assert not tube.failure
        for t in (0.3, 1.7, 4.0, 6.0):
            box, exact = tube.box_at(t), _exact_linear(t)
            assert all(b.overlaps(e) for b, e in zip(box, exact)), t
            assert max(float(b.rad()) for b in box) < 1e-20
            shifted = [e + 1e-18 * abs(e) + 1e-30 for e in exact]  # a relative slip of 1e-18
            assert not all(b.overlaps(e) for b, e in zip(box, shifted)), t


def test_a_cubic_flow_is_enclosed_against_its_closed_form():
    """y' = -y^3, y(0) = 2: y(t) = 2 / sqrt(1 + 8 t); the same with 8 t -> 8.08 t (a 1 % slip of
    the rate) is excluded."""
    with precision(128):
        tube = ode.enclose(lambda y: [-(y[0] * y[0] * y[0])], [arb(2.0)], lambda tb: tb.t_end >= 5)
        for t in (0.01, 0.5, 5.0):
            (box,) = tube.box_at(t)
            assert box.overlaps(2 / (1 + 8 * arb(t)).sqrt())
            assert not box.overlaps(2 / (1 + 8.08 * arb(t)).sqrt())


def test_the_crossing_time_is_enclosed_and_one_percent_earlier_is_outside():
    """y' = -y from 1 reaches 1/2 at ln 2."""
    with precision(128):
        tube = ode.enclose(lambda y: [-y[0]], [arb(1.0)], lambda tb: tb.t_end >= 2)
        lo, hi = ode.crossing(tube, lambda y: y[0], 0.5, 1e-9)
    assert lo <= math.log(2) <= hi and hi - lo <= 1e-9 * hi
    assert not lo <= 0.99 * math.log(2) <= hi


def test_the_largest_eigenvalue_bound_holds_and_is_sharp():
    rng = np.random.default_rng(3)
    B = rng.standard_normal((5, 5))
    S = (B + B.T) / 2
    true = np.linalg.eigvalsh(S).max()
    with precision(128):
        bound = symmetric_upper_eigenvalue(arb_mat(S.tolist()))
        widened = symmetric_upper_eigenvalue(
            arb_mat([[arb(x, 1e-3) for x in row] for row in S.tolist()])
        )
    assert true <= float(bound.upper()) <= true + 1e-12
    # the ball matrix holds S + 1e-3 I, whose largest eigenvalue the bound must cover
    assert float(widened.upper()) >= true + 1e-3


def test_forward_mode_derivatives_match_the_hand_ones():
    with precision(128):
        J = jacobian(lambda y: [y[0] * y[1], y[0] * y[0] * y[1]], [arb(2.0), arb(3.0)])
        grad, H = gradient_hessian(lambda y: y[0] * y[0] * y[1] - y[1] * y[1], [arb(2.0), arb(3.0)])
    assert [[float(J[i, j].mid()) for j in range(2)] for i in range(2)] == [[3, 2], [12, 4]]
    assert [float(g.mid()) for g in grad] == [12, -2]
    assert [[float(H[i, j].mid()) for j in range(2)] for i in range(2)] == [[6, 4], [4, -2]]
