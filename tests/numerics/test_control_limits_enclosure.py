"""numerics/control_limits_enclosure.py and lemma-2.1's check on it: balls of the control laws'
limits from their definitions contain 40-digit values computed another way, and a slipped closed
form lies outside them (the check fails)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from flint import arb

from softlin.claims.lemma_2_1 import control_limits
from softlin.numerics import control_limits_enclosure as enclosure, limits


@pytest.mark.parametrize("a", [-3.5, -0.7, -1e-3, 0.0, 2e-6, 0.04, 0.3, 4.0])
def test_balls_contain_forty_digit_values_of_the_definitions(a):
    with mp.workdps(40):
        rad = mp.tanh(mp.mpf(a))
        c = mp.sqrt(3)
        uni = mp.quad(lambda x: x * mp.exp(a * x), [-c, c]) / mp.quad(
            lambda x: mp.exp(a * x), [-c, c]
        )
    for ball, value in (
        (enclosure.rademacher_tilted_mean(a), rad),
        (enclosure.uniform_tilted_mean(a), uni),
    ):
        assert float(ball.rad()) < 1e-18
        # the 38-digit decimal of the value as a ball (arb reads it with its rounding error)
        assert ball.overlaps(arb(mp.nstr(value, 38)))
        assert not ball.overlaps(arb(mp.nstr(value + mp.mpf(10) ** -17, 38)))


def _setup():
    rng = np.random.default_rng(20261204)
    return rng.normal(size=(6, 3)), rng.normal(size=(3, 3)), rng.normal(size=(2, 3))


def test_the_emitted_closed_forms_lie_in_the_balls():
    Z, U, V = _setup()
    found = control_limits.control_limits_check(Z, U, V)
    [check], written = found.checks, found.quantities
    assert check.passed is True and check.tier == "enclosure"
    lo, hi = written["control_limit_enclosure"]["uniform"][0][0]
    assert lo <= limits.uniform_limit(U, V, Z)[0, 0] <= hi


@pytest.mark.parametrize(
    "law, slip",
    [
        # 1/(2a) for 1/a: the derivative of log(sinh(sqrt3 a)/(sqrt3 a)) with its last term halved
        (
            "uniform",
            lambda U, V, Z: (
                (V @ (np.sqrt(3) / np.tanh(np.sqrt(3) * (U @ Z.T)) - 0.5 / (U @ Z.T))).T
            ),
        ),
        # the Gaussian answer f(a) = a in place of tanh a (what the control must refute)
        ("rademacher", lambda U, V, Z: (V @ (U @ Z.T)).T),
        # a tiny slip: tanh computed at a (1 + 1e-9)
        ("rademacher", lambda U, V, Z: (V @ np.tanh((1 + 1e-9) * (U @ Z.T))).T),
    ],
)
def test_a_slipped_closed_form_fails_the_check(monkeypatch, law, slip):
    Z, U, V = _setup()
    monkeypatch.setitem(control_limits.FLOAT_ROUTES, law, slip)
    [check] = control_limits.control_limits_check(Z, U, V).checks
    assert check.passed is False


def test_an_unknown_law_is_refused():
    with pytest.raises(ValueError, match="no enclosure"):
        enclosure.limit_balls("cauchy", np.eye(1), np.eye(1), np.ones((1, 1)))
