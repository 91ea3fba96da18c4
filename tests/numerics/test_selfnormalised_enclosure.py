"""Arb enclosures of the exact finite-L moments (numerics/selfnormalised_enclosure.py): they contain
the closed forms where these exist and the independent float route elsewhere, they are narrow, and a
plausible slip lies outside them."""

import math

import numpy as np
import pytest
from flint import arb

from softlin.claims.prop_3_1 import fixed as prop31_fixed
from softlin.numerics import selfnormalised as sn, selfnormalised_enclosure as se


def _inside(ball: arb, value: float) -> bool:
    return abs(value - float(ball.mid())) <= float(ball.rad())


def test_closed_forms_one_token_and_equal_scores():
    m = se.moments(0.7, 1)  # one token: p = 1
    assert m.A == 1 and _inside(m.B, 1.7)
    for L in (3,):  # q = 0: every weight is 1/L, B = E (mean of L g)^2 = 1/L
        m = se.moments(0.0, L)
        assert _inside(m.A, 1 / L) and _inside(m.B, 1 / L) and float(m.A.rad()) < 1e-8 / L


@pytest.mark.parametrize("q, L", [(0.3405, 16), (3.0, 64)])
def test_the_enclosure_holds_the_float_route_and_excludes_its_slips(q, L):
    m = se.moments(q, L)
    log_a, log_b = sn.log_moments(q, L)
    A, B = math.exp(log_a), math.exp(log_b)
    assert _inside(m.A, A) and _inside(m.B, B)
    assert float(m.A.rad()) < 1e-7 * A and float(m.B.rad()) < 1e-7 * B
    # slips: L - 1 tokens (A_{L-1}); B without its pair term, which is >= 1e-3 of it here
    assert not _inside(m.A, math.exp(sn.log_moments(q, L - 1)[0]))
    assert not _inside(m.B, B * (1 - 1e-6)) and not _inside(m.A, A * (1 + 1e-6))


def test_outward_rounding_keeps_the_ball_inside():
    ball = arb(0.123456789123, 3e-12)
    lo, hi = se.outward(ball)
    assert lo <= float(ball.lower()) and hi >= float(ball.upper())
    assert f"{lo:.7e}" == f"{lo:.7e}" and float(f"{lo:.7e}") == lo and float(f"{hi:.7e}") == hi


def _enclosure(*args):
    """prop-3.1's fixed-query enclosure step: its one check and its quantities."""
    found = prop31_fixed.enclosure_check(*args)
    return found.checks[0], found.quantities


def test_the_claim_check_refutes_a_float_route_off_by_one_part_in_a_million():
    Gamma = np.array([[1.0, 0.3], [0.3, 0.5]])
    U = np.array([[0.3, 0.1], [-0.1, 0.25]])
    V = np.eye(2)
    z = np.array([1.5, 1.0])
    bias, second = sn.exact_second_moment(Gamma, U, V, z, 16)
    mse = float(np.trace(second))
    right, q = _enclosure(Gamma, U, V, z, [16], [bias.tolist()], [mse])
    assert right.passed is True and right.tier == "enclosure"
    lo, hi = q["fixed_query_exact_mse_enclosure"][0]
    assert lo <= mse <= hi and (hi - lo) < 1e-7 * mse
    wrong, _ = _enclosure(Gamma, U, V, z, [16], [bias.tolist()], [mse * (1 + 1e-6)])
    assert wrong.passed is False
    slipped_bias = (bias * np.array([1.0, 1.0 + 1e-6])).tolist()
    assert _enclosure(Gamma, U, V, z, [16], [slipped_bias], [mse])[0].passed is False
