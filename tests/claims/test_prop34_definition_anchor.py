"""prop-3.4's L = 2, 3 anchor of the whole grad_U error from its definition: it agrees with the
exact route at the default scenario and refutes a slip in the derived display that the float
route and the Arb enclosure share (they evaluate the same emitted display kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.claims.prop_3_4 import definition_anchor as da
from softlin.claims.prop_3_4.claim import default_scenario
from softlin.numerics import kernels
from softlin.numerics import selfnormalised_gradients as sg


def _setup():
    s = default_scenario()
    return (
        np.array(s["cov"]),
        np.array(s["U"]),
        np.array(s["V"]),
        np.array(s["mean"], float),
        np.array(s["query"], float),
    )


_ANCHORED = {}


def _anchored(Gamma, U, V, m, z, L):
    """The definition quadrature does not read the display: computed once for the module."""
    if L not in _ANCHORED:
        _ANCHORED[L] = _REAL_ANCHORED(Gamma, U, V, m, z, L)
    return _ANCHORED[L]


_REAL_ANCHORED = da.anchored


def _check(display=None, monkeypatch=None):
    G, U, V, m, z = _setup()
    if monkeypatch is not None:
        monkeypatch.setattr(da, "anchored", _anchored)
        if display is not None:
            monkeypatch.setattr(kernels, "gradient_U_error_display", display)
    return da.definition_anchor_check(G, U, V, m, z, lambda L: sg.exact_errors(G, U, V, z, L)[1])


def test_the_definition_anchor_agrees_with_the_exact_route_at_the_default_scenario(monkeypatch):
    c = _check(monkeypatch=monkeypatch)
    assert c.passed is True and c.judged
    # its allowance is tight: a relative slip of 1e-8 would exceed it at both L
    G, U, V, m, z = _setup()
    for L in (2, 3):
        value, tol, _ = _anchored(G, U, V, m, z, L)
        assert tol + da.EXACT_ROUTE < 1e-8


@pytest.mark.parametrize("coefficient", [1, 3])
def test_a_slipped_s_h_coefficient_of_the_display_is_refuted(monkeypatch, coefficient):
    """S_H (c e'MPe + |e|^2 tr MP + e'Me tr P) with c != 2: the display slip of the catalogue."""
    real = kernels.gradient_U_error_display

    def slipped(zz, eMe, ee, eMPe, trP, trMP, trPMP, **S):
        return (
            real(zz, eMe, ee, eMPe, trP, trMP, trPMP, **S)
            + (coefficient - 2) * zz * S["S_H"] * eMPe
        )

    assert _check(slipped, monkeypatch).passed is False


def test_a_relative_slip_of_one_in_a_million_in_the_display_is_refuted(monkeypatch):
    real = kernels.gradient_U_error_display
    assert _check(lambda *a, **k: real(*a, **k) * (1 + 1e-6), monkeypatch).passed is False


def test_the_tilt_rule_converges_and_the_orthogonal_rule_is_exact():
    """n/2 -> n tilt nodes changes the value by far less than the allowance's scale, and 3 or 5
    nodes on the orthogonal coordinates give the same value (degree <= 4 there)."""
    G, U, V, m, z = _setup()
    a = da.grad_u_error(G, U, V, m, z, 2, 16)
    b = da.grad_u_error(G, U, V, m, z, 2, 48)
    assert abs(a - b) / b < 1e-12
    old = da.ORTHOGONAL_NODES
    try:
        da.ORTHOGONAL_NODES = 5
        c = da.grad_u_error(G, U, V, m, z, 2, 48)
    finally:
        da.ORTHOGONAL_NODES = old
    assert abs(c - b) / b < 1e-13


def test_the_planned_fixed_query_count_resolves_a_ten_percent_slip_at_the_target_power():
    """Gamma-distributed errors with coefficient of variation 1.5 (as the default scenario's
    grad_U error at L = 16..1024, 1.3-1.8): the count planned from a 600-draw pilot gives a z-test
    whose resolution at power 0.999, computed from the true sd, is within 10 % (+ pilot noise)."""
    from softlin.claims.prop_3_4 import exact as ex
    from softlin.judge import kinds
    from softlin.numerics import significance

    rng = np.random.default_rng(3)
    shape = 1 / 1.5**2  # cv = 1 / sqrt(shape)
    pilot = rng.gamma(shape, 1.0, 600)
    zc = significance.z_critical(1e-6, 42)
    n = ex.planned_prompts(pilot, zc, 16, 600)
    z_power = significance.z_quantile(kinds.POWER_TARGET)
    true_resolution = (zc + z_power) * 1.5 / np.sqrt(n)
    assert 0.08 < true_resolution < 0.11
    # the token cap binds at long prompts; the pilot's count is the floor
    assert ex.planned_prompts(pilot, zc, 4096, 600) == max(600, ex.PLAN_TOKENS // 4096)
    assert ex.planned_prompts(np.zeros(600), zc, 16, 600) == 600
