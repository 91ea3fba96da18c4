"""The exact risk surface and its gradient reuse work (numerics/finite_risk.py, `surface` and
RiskSurface's quadratics by omega; numerics/finite_risk_gradient.py, the slopes of the last omega
per rule): every reused number is bit for bit the one computed afresh, a reuse at another omega or
for a replaced integrand would be caught, and the certificates therefore do not move."""

from __future__ import annotations

import numpy as np

from softlin.numerics import finite_risk as fr, finite_risk_gradient as fg, kernels

# d = 2, anisotropic: a real angular rule (10 nodes), a small table (cheap)
MODEL = fr.Model(np.diag([1.0, 0.5]), np.array([[1.0, 0.3], [0.3, 0.8]]), 0.5, 0.1)
L = 30
POINTS = 9  # a coarse table: the reuse, not the accuracy, is under test


def _fresh_quadratic(surf, omega):
    r0, rp, rm = (
        fr.average(surf.model, surf.rule, surf.table, m, omega, one_call=True)
        for m in (0.0, 1.0, -1.0)
    )
    return r0, (rp - rm) / 2, (rp + rm) / 2 - r0


def test_quadratics_by_omega_are_the_fresh_ones_bit_for_bit():
    surf = fr.RiskSurface(MODEL, L, 1.0, POINTS)
    for om in (0.3, 0.7, 0.3, -0.45):  # back to an omega seen: served from the memo
        assert surf.quadratic(om) == _fresh_quadratic(surf, om), om
    # a memo that ignored omega would serve 0.3's coefficients at 0.7
    assert surf.quadratic(0.7) != surf.quadratic(0.3)


def test_gradients_reuse_slopes_only_at_the_same_omega():
    gs = fg.GradientSurface(fr.RiskSurface(MODEL, L, 1.0, POINTS))
    points = [(0.5, 0.3), (0.8, 0.3), (0.8, 0.6), (0.5, 0.3), (-0.2, 0.6)]
    for mu, om in points:
        assert np.array_equal(gs.value(mu, om), fg.rule_gradient(MODEL, gs.rule, gs.slopes, mu, om))
        assert np.array_equal(
            gs.flow_value(mu, om), fg.rule_gradient(MODEL, gs.flow_rule, gs.slopes, mu, om)
        )
        g = gs.gradient(mu, om)
        fresh = fg.rule_gradient(MODEL, gs.rule, gs.slopes, mu, om)
        err = np.abs(fresh - fg.rule_gradient(MODEL, gs.coarse, gs.slopes, mu, om)) + np.abs(
            fresh - fg.rule_gradient(MODEL, gs.rule, gs.half, mu, om)
        )
        assert np.array_equal(g.value, fresh) and np.array_equal(g.error, err), (mu, om)
    # the slopes at another omega differ: a reuse across omegas would be seen above
    assert not np.array_equal(gs.value(0.5, 0.3), gs.value(0.5, 0.6))
    # a gradient asked for again (the flow's end, also its last recorded point) is a copy of the
    # one computed: changing what the caller got leaves the next answer as it was
    g = gs.value(0.5, 0.3)
    g[:] = 0.0
    assert np.array_equal(gs.value(0.5, 0.3), fg.rule_gradient(MODEL, gs.rule, gs.slopes, 0.5, 0.3))


def test_a_surface_is_shared_until_its_data_or_integrand_changes(monkeypatch):
    first = fr.surface(MODEL, L, 1.0, POINTS)
    assert fr.surface(MODEL, L, 1.0, POINTS) is first
    assert fr.surface(MODEL, L + 1, 1.0, POINTS) is not first
    other = fr.Model(MODEL.Sigma_p, MODEL.Sigma_q, MODEL.tau, 0.2)
    assert fr.surface(other, L, 1.0, POINTS) is not first
    optimum = first.optimum()
    good = kernels.finite_risk_integrand
    monkeypatch.setattr(kernels, "finite_risk_integrand", lambda *a: 1.01 * good(*a))
    slipped = fr.surface(MODEL, L, 1.0, POINTS)
    assert slipped is not first and slipped.optimum() != optimum
