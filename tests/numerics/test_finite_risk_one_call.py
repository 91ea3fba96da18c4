"""numerics/finite_risk.py's RiskSurface (`average(..., one_call=True)`) and
numerics/finite_risk_gradient.py evaluate the emitted integrand (and its mu, omega derivatives) once
per node, at k2 = b Q, instead of twice (k2 = 0 and 1) with the
split P(k1) + k2 R(k1) averaged as P + b Q R. The integrand is affine in k2, so the two agree to
rounding: held here against the split computed from the kernels in the test, on an anisotropic
d = 2 law (a real angular rule, b not constant), and a plausible slip in k2 (a Q for b Q: K1's
eigenvalues where K2's diagonal belongs, or Q alone) is seen far beyond that agreement."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.numerics import finite_risk as fr, finite_risk_gradient as fg, kernels

# Sigma_p != Sigma_q: K2's diagonal nu differs from K1's eigenvalues lam, so b Q != a Q
MODEL = fr.Model(np.diag([1.0, 0.5]), np.array([[1.0, 0.3], [0.3, 0.8]]), 0.5, 0.1)
L, POINTS = 30, 9
ROUNDING = 1e-12  # relative: measured <= 3e-15 at d = 5 (Toeplitz 0.5), the sums' rounding


def _split_average(rule, moments, mu, omega, kern=kernels.finite_risk_integrand):
    """The split form from the kernel at k2 = 0 and k2 = 1; `moments(q)` gives the kernel's
    arguments after k2 ((A, B), or (A, B, A', B') for the derivatives)."""
    k1 = np.outer(rule.a, rule.Q)
    at = moments(omega**2 * k1)
    args = (mu, omega, MODEL.tau, MODEL.s2, float(np.trace(MODEL.Sigma_p)), k1)
    P = kern(*args, np.zeros_like(k1), *at)
    R = kern(*args, np.ones_like(k1), *at) - P
    return float(rule.wa @ (P @ rule.wq + rule.b * ((R * rule.Q) @ rule.wq)))


@pytest.fixture(scope="module")
def surface():
    return fr.RiskSurface(MODEL, L, 1.0, POINTS)


@pytest.mark.parametrize("mu, omega", [(0.8, 0.3), (-0.4, 0.7), (1.5, -0.5)])
def test_risk_at_k2_equals_the_split(surface, mu, omega):
    rule, tab = surface.rule, surface.table
    base = MODEL.tau * np.trace(MODEL.Sigma_q) + MODEL.s2
    split = base + _split_average(rule, tab.moments, mu, omega)
    one = fr.average(MODEL, rule, tab, mu, omega, one_call=True)
    assert abs(one - split) <= ROUNDING * abs(split), (one, split)
    assert abs(surface.risk(mu, omega) - split) <= 1e-10 * abs(split)  # quadratic in mu, 3 mu


@pytest.mark.parametrize("mu, omega", [(0.8, 0.3), (-0.4, 0.7)])
def test_gradient_at_k2_equals_the_split(surface, mu, omega):
    gs = fg.GradientSurface(surface)
    for rule in (gs.rule, gs.flow_rule):
        split = np.array(
            [
                _split_average(rule, gs.slopes, mu, omega, kern)
                for kern in (
                    kernels.finite_risk_integrand_grad_mu,
                    kernels.finite_risk_integrand_grad_omega,
                )
            ]
        )
        one = fg.rule_gradient(MODEL, rule, gs.slopes, mu, omega)
        assert np.all(np.abs(one - split) <= ROUNDING * np.maximum(np.abs(split), 1e-3)), (
            one,
            split,
        )


@pytest.mark.parametrize("slip", ["a Q", "Q"])
def test_a_slip_in_k2_is_seen(surface, monkeypatch, slip):
    """Sensitivity: k2 = a Q (the eigenvalues of K1 for the diagonal of K2) or k2 = Q (b dropped)
    moves the risk by far more than the rounding the agreement allows."""
    rule, tab = surface.rule, surface.table
    mu, omega = 0.8, 0.3
    base = MODEL.tau * np.trace(MODEL.Sigma_q) + MODEL.s2
    split = base + _split_average(rule, tab.moments, mu, omega)
    wrong_b = rule.a if slip == "a Q" else np.ones_like(rule.b)
    slipped = fr.QueryRule(rule.Q, rule.wq, rule.a, wrong_b, rule.wa)
    assert abs(
        fr.average(MODEL, slipped, tab, mu, omega, one_call=True) - split
    ) > 1e4 * ROUNDING * abs(split)
