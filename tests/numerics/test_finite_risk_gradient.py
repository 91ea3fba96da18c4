"""The exact-risk gradient (numerics/finite_risk_gradient.py) against central differences of the
exact risk surface (no slopes of A_L, B_L: an independent route), the linear-attention gradient
kernel against differences of the closed-form risk, and the SGD noise floor's Lyapunov solution
against the fixed-point iteration of the recursion it solves."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest

from softlin.numerics import finite_risk as fr, finite_risk_gradient as fg, kernels

ISO = fr.Model(np.eye(5), np.eye(5), 0.2, 0.1)
H_FD = 1e-4  # central-difference step: truncation ~ h^2 R''' / 6 ~ 1e-9 here


@lru_cache(maxsize=None)
def _surfaces(L):
    surf = fr.RiskSurface(ISO, L, 1.0)
    return surf, fg.GradientSurface(surf)


def _central(surf, mu, om, h=H_FD):
    return np.array(
        [
            (surf.risk(mu + h, om) - surf.risk(mu - h, om)) / (2 * h),
            (surf.risk(mu, om + h) - surf.risk(mu, om - h)) / (2 * h),
        ]
    )


@pytest.mark.parametrize("L, mu, om", [(10, 0.7, 0.6), (200, 1.3, 0.35), (200, -0.4, 0.9)])
def test_exact_gradient_equals_central_differences_of_the_exact_risk(L, mu, om):
    surf, gs = _surfaces(L)
    g = gs.gradient(mu, om)
    diff = np.abs(g.value - _central(surf, mu, om))
    assert np.all(diff <= g.error + 1e-8), (g.value, g.error, diff)
    assert np.all(
        g.error <= 2e-3 * np.maximum(1.0, np.abs(g.value))
    )  # the stated error is informative


def test_a_chain_rule_slip_is_caught_by_central_differences(monkeypatch):
    """Sensitivity: the slopes A', B' entering with half their weight (the 2 of d q / d omega
    dropped)."""
    surf, gs = _surfaces(10)
    good = kernels.finite_risk_integrand_grad_omega
    monkeypatch.setattr(
        kernels,
        "finite_risk_integrand_grad_omega",
        lambda mu, om, tau, s2, tr_p, k1, k2, A, B, dA, dB: good(
            mu, om, tau, s2, tr_p, k1, k2, A, B, dA / 2, dB / 2
        ),
    )
    g = gs.gradient(0.7, 0.6)
    assert np.abs(g.value - _central(surf, 0.7, 0.6))[1] > g.error[1] + 1e-8


def test_flow_ends_at_the_surface_optimum():
    surf, gs = _surfaces(10)
    mu_s, om_s, R_star = surf.optimum()
    end = fg.flow(gs.flow_value, (0.5, 0.5), 300.0)["end"]
    assert abs(end[1] - om_s) < 1e-3 and abs(end[0] - mu_s) < 1e-3
    assert -1e-9 <= surf.risk(*end) - R_star <= 1e-7


def test_linear_gradient_kernel_equals_differences_of_the_linear_risk():
    S = np.array([[0.5 ** abs(i - j) for j in range(4)] for i in range(4)])
    args = (S, S @ S, 0.3, 0.25, 17)
    g = np.asarray(
        kernels.authors_linear_risk_gradient(S, S @ S, 0.8, -0.6, *args[2:]), float
    ).ravel()
    R = lambda mu, om: float(kernels.authors_linear_risk(S, S @ S, mu, om, *args[2:]))
    h = 1e-5
    fd = [
        (R(0.8 + h, -0.6) - R(0.8 - h, -0.6)) / (2 * h),
        (R(0.8, -0.6 + h) - R(0.8, -0.6 - h)) / (2 * h),
    ]
    assert np.allclose(g, fd, rtol=1e-7, atol=1e-9)


def test_stationary_covariance_is_the_fixed_point_of_the_sgd_recursion():
    H = np.array([[2.0, 0.7], [0.7, 0.5]])
    C = np.array([[3.0, -1.1], [-1.1, 1.4]])
    lr, n = 0.2, 8  # a large step: the discrete correction matters
    M = np.eye(2) - lr * H
    P = np.zeros((2, 2))
    for _ in range(2000):  # contraction: spectral radius of M < 1
        P = M @ P @ M.T + lr**2 * C / n
    args = (H[0, 0], H[0, 1], H[1, 1], C[0, 0], C[0, 1], C[1, 1], lr, n)
    assert np.allclose(
        np.asarray(kernels.sgd_stationary_covariance(*args), float), P, rtol=1e-12, atol=1e-15
    )
    excess = float(kernels.sgd_mean_excess(*args))
    assert np.isclose(excess, np.trace(H @ P) / 2, rtol=1e-12)
    assert not np.isclose(
        excess, lr * np.trace(C) / (4 * n), rtol=0.05
    )  # the exact floor is not the lr -> 0 one
