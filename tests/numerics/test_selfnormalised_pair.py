"""numerics/selfnormalised_pair.py: the joint self-normalised moments of two temperatures, against
the one-head quadrature, a finer rule and literal Monte Carlo over prompts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from softlin.numerics import selfnormalised as sn, selfnormalised_pair as sp2


@pytest.mark.parametrize("c, L", [(0.5, 10), (2.0, 2), (-1.5, 50), (3.0, 1000), (2.0, 10**6)])
def test_equal_temperatures_are_the_one_head_moments(c, L):
    """c_1 = c_2 = c: A_L(c, c) = A_L(c^2), B_L(c, c) = B_L(c^2) (an independent 1-D quadrature)."""
    A, B = sp2.moments(c, c, L)
    la, lb = sn.log_moments(c * c, L)
    assert A == pytest.approx(math.exp(la), rel=1e-6) and B == pytest.approx(math.exp(lb), rel=1e-6)


@pytest.mark.parametrize("c1, c2, L", [(3.0, -2.0, 10), (1.0, 0.5, 50), (2.0, 1.0, 10**4)])
def test_default_steps_against_a_finer_rule(c1, c2, L):
    A, B = sp2.moments(c1, c2, L)
    Af, Bf = sp2.moments(c1, c2, L, step_v=0.25, step_g=0.25)
    assert A == pytest.approx(Af, rel=1e-6) and B == pytest.approx(Bf, rel=1e-6)


def test_one_token_and_bad_input():
    assert sp2.moments(0.7, -0.4, 1) == (1.0, 1.0 - 0.28)
    with pytest.raises(ValueError):
        sp2.moments(float("nan"), 0.1, 5)
    with pytest.raises(ValueError):
        sp2.moments(0.1, 0.1, 0)


@pytest.mark.parametrize("c1, c2, L", [(1.0, -0.7, 5), (2.0, 0.5, 8)])
def test_agrees_with_monte_carlo_over_prompts(c1, c2, L):
    """Literal prompts g ~ N(0, I_L), 40 000 of them: each moment within 5 standard errors
    (false alarm ~6e-7 per comparison). Swapping the sign of one temperature (a plausible slip) is
    refuted."""
    g = np.random.default_rng(11).standard_normal((40000, L))

    def p(c):
        x = c * g
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    P1, P2 = p(c1), p(c2)
    a = (P1 * P2).sum(axis=1)
    b = ((P1 * g).sum(axis=1) - c1) * ((P2 * g).sum(axis=1) - c2)
    A, B = sp2.moments(c1, c2, L)
    se = lambda v: v.std() / math.sqrt(v.size)
    assert abs(A - a.mean()) < 5 * se(a) and abs(B - b.mean()) < 5 * se(b)
    A_slip, _ = sp2.moments(c1, -c2, L)
    assert abs(A_slip - a.mean()) > 5 * se(a)
