"""The authors' per-prompt SGD gradients (numerics/authors_sgd.py) against routes that do not share
their derivation: central differences and the complex step of an explicit softmax loss written here
(no max shift, no token statistics, no kernels)."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.numerics import authors_sgd as sgd


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
    h = 1e-30         # complex step: Im f(x + i h) / h has no cancellation, error O(h^2)
    cs_mu = explicit_loss(model, mu + 1j * h, omega, s, y, yq).imag / h
    cs_om = explicit_loss(model, mu, omega + 1j * h, s, y, yq).imag / h
    scale = np.maximum(1.0, np.abs(loss))
    assert np.all(np.abs(loss - explicit_loss(model, mu, omega, s, y, yq)) <= 1e-13 * scale)
    assert np.all(np.abs(gm - cs_mu) <= 1e-12 * scale) and np.all(np.abs(go - cs_om) <= 1e-12 * scale)


@pytest.mark.parametrize("model", sgd.MODELS)
def test_batch_gradient_equals_central_differences_of_the_explicit_batch_loss(model):
    s, y, yq = _batch(4, n=8, L=5)
    mu, omega, h = 0.9, 0.7, 1e-5     # error O(h^2) ~ 1e-10 for O(1) third derivatives
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
