"""The several-head risk's conditional sampler (numerics/heads_montecarlo.py, sampler="conditional":
finite-prompt-risk's Monte Carlo) against the exact finite-L risk of numerics/finite_risk_heads.py
and finite_risk.py, and against its full sampler.

The referee is the excess over the infinite-prompt loss, exact to a stated error e: each comparison
passes when |mean - exact| <= z se + e, z the two-sided normal critical value at 1e-6 over all the
comparisons of the test (nominal: the normal approximation at 1e5 prompts), on fixed seeds.
Sensitivity: the heads' residuals drawn independently (G taken diagonal) and the residual dropped
are refuted by the same comparisons.
"""

import functools

import numpy as np
import pytest

from softlin.numerics import (
    finite_risk as fr,
    finite_risk_heads as frh,
    heads_montecarlo,
)
from softlin.numerics.significance import z_critical

S = np.array([[1.0, 0.5], [0.5, 1.0]])
MODEL = fr.Model(S, S, 1 / 2, 0.1)
PROMPTS = 100_000
FAMILY = 1e-6
# one worker computes the exact references once (_exact_excess's cache) for the module's tests
pytestmark = pytest.mark.xdist_group("conditional-risk-exact")
# (L, mu, omega): antisymmetric heads, two heads of one sign pattern, one head
CASES = [(4, [1.0, -1.0], [0.5, -0.5]), (6, [0.8, 0.4], [0.6, -0.3]), (5, [1.0], [0.7])]


@functools.lru_cache(maxsize=None)
def _exact_excess(index):
    """(exact excess over the infinite-prompt loss, its stated error) of CASES[index]."""
    L, mu, om = CASES[index]
    exact = (
        frh.exact_risk(MODEL, L, mu, om) if len(mu) > 1 else fr.exact_risk(MODEL, L, mu[0], om[0])
    )
    return exact.value - fr.infinite_risk(MODEL, float(np.dot(mu, om)), 1.0), exact.error


def _excess_z(index, seed, sampler="conditional"):
    L, mu, om = CASES[index]
    excess, error = _exact_excess(index)
    mean, se = heads_montecarlo.risk(
        S, MODEL.s2, MODEL.tau, L, mu, om, PROMPTS, np.random.default_rng(seed), sampler=sampler
    )["excess"]
    # the exact route's stated error moves the centre by at most `error`: taken out of |z| first
    return max(0.0, abs(mean - excess) - error) / se


def _all_z(sampler="conditional"):
    return np.array([_excess_z(i, i, sampler) for i in range(len(CASES))])


def test_conditional_risk_matches_the_exact_finite_L_risk():
    zs = _all_z()
    assert np.max(zs) < z_critical(FAMILY, len(zs)), zs


def test_heads_residuals_drawn_independently_or_dropped_are_refuted(monkeypatch):
    """Two slips in one test, so that one worker computes the exact references (lru_cache): the Gram
    matrix P P^T taken diagonal (heads' residuals independent), and the residual dropped."""
    slips = {
        "independent": lambda G: (
            np.sqrt(np.diagonal(G, axis1=-2, axis2=-1))[..., None] * np.eye(G.shape[-1])
        ),
        "dropped": lambda G: 0.0 * G,
    }
    for name, slip in slips.items():
        monkeypatch.setattr(heads_montecarlo, "gram_root", slip)
        zs = _all_z()
        assert np.max(zs) > z_critical(FAMILY, len(zs)), (name, zs)


def test_the_two_samplers_agree():
    """Two-sample z on the risk and the excess, conditional against full, every case."""
    zs = []
    for i, (L, mu, om) in enumerate(CASES):
        runs = [
            heads_montecarlo.risk(
                S,
                MODEL.s2,
                MODEL.tau,
                L,
                mu,
                om,
                PROMPTS,
                np.random.default_rng(10 + i + k),
                sampler=s,
            )
            for k, s in enumerate(("full", "conditional"))
        ]
        for key in ("risk", "excess"):
            (m1, s1), (m2, s2) = runs[0][key], runs[1][key]
            zs.append(abs(m1 - m2) / np.hypot(s1, s2))
    assert max(zs) < z_critical(FAMILY, len(zs)), zs


def test_an_unknown_sampler_is_refused():
    with pytest.raises(ValueError, match="sampler"):
        heads_montecarlo.risk(
            S, 0.1, 0.5, 4, [1.0], [0.5], 10, np.random.default_rng(0), sampler="exact"
        )
