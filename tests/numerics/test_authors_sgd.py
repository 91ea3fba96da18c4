"""The authors' per-prompt SGD gradients (numerics/authors_sgd.py) against routes that do not share
their derivation: central differences and the complex step of an explicit softmax loss written here
(no max shift, no token statistics, no kernels)."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.numerics import authors_sgd as sgd, kernels


def explicit_loss(model, mu, omega, s, y, yq):
    """(y_q - yhat)^2 per prompt straight from the model's definition; complex-safe."""
    if model == "softmax":
        w = np.exp(omega * s)
        yhat = mu * (w * y).sum(axis=1) / w.sum(axis=1)
    else:
        yhat = mu * omega * (s * y).sum(axis=1) / s.shape[1]
    return (yq - yhat) ** 2


def _batch(seed, n=5, L=7):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, L)), rng.standard_normal((n, L)), rng.standard_normal(n)


@pytest.mark.parametrize("model", sgd.MODELS)
@pytest.mark.parametrize("mu, omega", [(0.8, 0.6), (-1.7, 1.9), (2.5, -0.4)])
def test_per_prompt_gradients_equal_the_complex_step_of_the_explicit_loss(model, mu, omega):
    s, y, yq = _batch(3)
    loss, gm, go = sgd.per_prompt_gradients(model, mu, omega, s, y, yq)
    h = 1e-30  # complex step: Im f(x + i h) / h has no cancellation, error O(h^2)
    cs_mu = explicit_loss(model, mu + 1j * h, omega, s, y, yq).imag / h
    cs_om = explicit_loss(model, mu, omega + 1j * h, s, y, yq).imag / h
    scale = np.maximum(1.0, np.abs(loss))
    assert np.all(np.abs(loss - explicit_loss(model, mu, omega, s, y, yq)) <= 1e-13 * scale)
    assert np.all(np.abs(gm - cs_mu) <= 1e-12 * scale) and np.all(
        np.abs(go - cs_om) <= 1e-12 * scale
    )


@pytest.mark.parametrize("model", sgd.MODELS)
def test_batch_gradient_equals_central_differences_of_the_explicit_batch_loss(model):
    s, y, yq = _batch(4, n=8, L=5)
    mu, omega, h = 0.9, 0.7, 1e-5  # error O(h^2) ~ 1e-10 for O(1) third derivatives
    _, gm, go = sgd.loss_and_grad(model, mu, omega, s, y, yq)
    f = lambda m, o: explicit_loss(model, m, o, s, y, yq).mean()
    assert abs((f(mu + h, omega) - f(mu - h, omega)) / (2 * h) - gm) < 1e-8
    assert abs((f(mu, omega + h) - f(mu, omega - h)) / (2 * h) - go) < 1e-8


def test_a_wrong_softmax_gradient_is_seen_by_the_complex_step():
    """The test has power: the omega-gradient without the mean correction of C is rejected."""
    s, y, yq = _batch(5)
    mu, omega = 0.8, 0.6
    p = np.exp(omega * s) / np.exp(omega * s).sum(axis=1, keepdims=True)
    S = (p * y).sum(axis=1)
    wrong = -2 * (yq - mu * S) * mu * (p * s * y).sum(axis=1)
    cs = explicit_loss("softmax", mu, omega + 1e-30j, s, y, yq).imag / 1e-30
    assert np.max(np.abs(wrong - cs)) > 1e-3


def test_profile_kernel_is_the_minimum_over_mu_of_the_sample_risk():
    """authors_sgd_profile(E y_q^2, E[y_q S], E[S^2]) against a direct scan of mean (y_q - mu
    S)^2."""
    rng = np.random.default_rng(6)
    yq, S = rng.standard_normal(400), 0.3 + rng.standard_normal(400)
    risk, mu_star = np.asarray(
        kernels.authors_sgd_profile(np.mean(yq**2), np.mean(yq * S), np.mean(S * S))
    ).ravel()
    grid = np.linspace(mu_star - 1, mu_star + 1, 2001)
    scan = np.array([np.mean((yq - m * S) ** 2) for m in grid])
    assert abs(scan.min() - risk) < 1e-6 and abs(grid[scan.argmin()] - mu_star) <= 1e-3
    assert np.all(scan >= risk - 1e-12)


def test_mean_loss_kernel_is_the_average_over_sampled_query_noise():
    """authors_sgd_mean_loss(f, yhat, s2) against the average of (f + eps - yhat)^2 over many
    eps."""
    rng = np.random.default_rng(8)
    f, yhat, s2 = np.array([0.3, -1.2]), np.array([0.1, 0.4]), 0.25
    eps = np.sqrt(s2) * rng.standard_normal((1_000_000, 1))
    mc = (f + eps - yhat) ** 2
    se = mc.std(axis=0) / np.sqrt(mc.shape[0])
    assert np.all(np.abs(mc.mean(axis=0) - kernels.authors_sgd_mean_loss(f, yhat, s2)) <= 5.3 * se)
