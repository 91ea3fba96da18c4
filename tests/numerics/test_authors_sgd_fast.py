"""The fast SGD step (numerics/authors_sgd_fast.py) against the current one
(numerics/authors_sgd.py): the same seeded run to rounding, and the conditional sampler equal in law
(fixed seeds, stated false alarm)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from softlin.numerics import authors_sgd as sgd, authors_sgd_fast as fast

SIGMA = np.array([[0.5 ** abs(i - j) for j in range(5)] for i in range(5)])
S2, TAU = 0.1, 0.2


@pytest.mark.parametrize("generator", sgd.GENERATORS)
def test_fast_train_makes_the_same_updates_as_the_current_train(generator):
    args = (SIGMA, S2, TAU, [3, 17], generator, 25, 1e-2, 16, (0.5, 0.5))
    ref = sgd.train(*args, np.random.default_rng(4))
    new = fast.train(*args, np.random.default_rng(4))
    for m in sgd.MODELS:
        for L in (3, 17):
            moved = np.abs(np.subtract(ref["params"][m][L], (0.5, 0.5))).max()
            assert moved > 1e-3  # the runs did move
            assert np.allclose(new["params"][m][L], ref["params"][m][L], rtol=0, atol=1e-12)


@pytest.mark.parametrize("omega", [0.7, -1.3, 0.0])
def test_z_space_statistics_equal_the_token_statistics(omega):
    rng = np.random.default_rng(1)
    maps = sgd.generator_maps(SIGMA, "correct")
    nu, a, b, f, z = fast.draw(rng, 9, 11, maps, S2, TAU)
    s, y = nu[:, None] * z[0], a[:, None] * z[0] + b[:, None] * z[1]
    yq = f + 0.3
    for m in sgd.MODELS:
        _, gm, go = sgd.loss_and_grad(m, 1.1, omega, s, y, yq)
        assert np.allclose(
            fast.step_gradients(m, 1.1, omega, nu, a, b, z[0], z[1], yq),
            (gm, go),
            rtol=1e-12,
            atol=1e-13,
        )


def _gradient_draws(route, batches, L=6, n=64, theta=(0.9, 0.8), seed=0):
    """(batches, 4): batch-mean gradients of (softmax, linear) by the literal-z1 step or the
    conditional one."""
    rng = np.random.default_rng(seed)
    maps = sgd.generator_maps(SIGMA, "correct")
    out = np.empty((batches, 4))
    for k in range(batches):
        nu, a, b, f, z = fast.draw(rng, n, L, maps, S2, TAU)
        yq = f + math.sqrt(S2) * rng.standard_normal(n)
        if route == "literal":
            g = [fast.step_gradients(m, *theta, nu, a, b, z[0], z[1], yq) for m in sgd.MODELS]
        else:
            g = fast.conditional_gradients(rng, {m: theta for m in sgd.MODELS}, nu, a, b, z[0], yq)
            g = [g[m] for m in sgd.MODELS]
        out[k] = np.ravel(g)
    return out


def _max_z(x, y):
    """Largest two-sample z over the 4 gradient means and the 4 gradient second moments."""
    zs = []
    for u, v in ((x, y), (x * x, y * y)):
        se = np.sqrt(u.var(axis=0, ddof=1) / len(u) + v.var(axis=0, ddof=1) / len(v))
        zs.append(np.abs(u.mean(axis=0) - v.mean(axis=0)) / se)
    return float(np.max(zs))


# Two-sided, Bonferroni over 8 statistics, false alarm 1e-6 (fixed seeds: the verdict is
# deterministic).
Z_CRIT = float(stats.norm.isf(1e-6 / 16))


def test_conditional_sampler_has_the_law_of_the_literal_one():
    lit = _gradient_draws("literal", 1500, seed=1)
    con = _gradient_draws("conditional", 1500, seed=2)
    assert _max_z(lit, con) <= Z_CRIT


def test_conditional_sampler_without_the_correlations_is_detected(monkeypatch):
    """Sensitivity: dropping the off-diagonal Gram entries (z1's sums drawn independently) is a
    plausible slip; the same test must see it."""
    eigh = np.linalg.eigh
    monkeypatch.setattr(fast.np.linalg, "eigh", lambda G: eigh(G * np.eye(3) if G.ndim == 3 else G))
    con = _gradient_draws("conditional", 1500, seed=2)
    monkeypatch.undo()
    lit = _gradient_draws("literal", 1500, seed=1)
    assert _max_z(lit, con) > Z_CRIT
