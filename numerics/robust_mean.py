"""Catoni's mean estimator and its zero-mean test, over the emitted kernels of
derivations/catoni.py.

For n iid samples Y_j with Var Y <= v (v known, derived), l = log(2 / delta) and n > 2 l:

    theta_hat solves sum_j psi(alpha* (Y_j - theta)) = 0,   P(|theta_hat - E Y| > r) <= delta,

with alpha*, r and psi the emitted kernels. No normal approximation: the level holds for any law
with that variance (heavy-tailed self-normalised weights included). `zero_mean_test` returns
|theta_hat| / r per entry (> 1 rejects E Y = 0); `power_lower_bound` the planned power against a
true mean mu, 1 - exp(-l'(|mu| - r)) (derivations/catoni.py), 0 when |mu| <= r.
"""

from __future__ import annotations

import math

import numpy as np

from . import kernels

# Bisection stops at 1e-13 of the initial bracket [min Y, max Y] (44 halvings): the radius r it is
# compared with is at least of order the spread / sqrt(n), many orders above that.
RELATIVE_BRACKET = 1e-13


def log_term(delta: float) -> float:
    """l = log(2 / delta) (two-sided)."""
    return math.log(2.0 / delta)


def estimate(samples: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """theta_hat over axis 0 (one alpha per remaining entry): bisection on the decreasing
    theta -> sum_j psi(alpha (Y_j - theta)), which is >= 0 at min Y and <= 0 at max Y."""
    lo, hi = samples.min(axis=0), samples.max(axis=0)
    for _ in range(math.ceil(math.log2(1 / RELATIVE_BRACKET))):
        mid = (lo + hi) / 2
        positive = np.sum(kernels.catoni_influence(alpha * (samples - mid)), axis=0) > 0
        lo, hi = np.where(positive, mid, lo), np.where(positive, hi, mid)
    return (lo + hi) / 2


def zero_mean_test(
    samples: np.ndarray, variance: np.ndarray, delta: float
) -> tuple[np.ndarray, np.ndarray]:
    """(|theta_hat| / r, r) per entry for H0: E Y = 0 at level delta per entry; needs n > 2 l and
    variance > 0 (the caller judges zero-variance entries exactly)."""
    n, ell = samples.shape[0], log_term(delta)
    if n <= 2 * ell:
        raise ValueError(f"Catoni's test needs n > 2 log(2/delta) = {2 * ell:.3g}; got n = {n}")
    v = np.asarray(variance, float)
    alpha = kernels.catoni_scale(n, v, ell)
    r = kernels.catoni_radius(n, v, ell)
    return np.abs(estimate(samples, alpha)) / r, r


def power_lower_bound(n: int, variance: float, mean: float, delta: float) -> float:
    """P(the level-delta test rejects) >= this, for n samples of mean `mean` and variance
    `variance`."""
    ell = log_term(delta)
    if n <= 2 * ell or variance <= 0:
        return 0.0
    alpha = float(kernels.catoni_scale(n, variance, ell))
    gap = abs(mean) - float(kernels.catoni_radius(n, variance, ell))
    if gap <= 0:
        return 0.0
    exponent = float(kernels.catoni_power_exponent(n, variance, alpha, min(gap, 1.0 / alpha)))
    return max(0.0, -math.expm1(-exponent))


def detectable_mean(n: int, variance: float, delta: float, target: float) -> float:
    """The smallest |mean| at which the level-delta test's planned power (power_lower_bound)
    reaches `target`, for n samples of variance `variance`: c sqrt(variance), c found by bisection
    at unit variance (the bound is scale-free: r and 1 / alpha* both scale as sqrt(v)); inf when
    even the bound's reach r + 1 / alpha* (where the exponent stops growing) falls short of it."""
    ell = log_term(delta)
    if n <= 2 * ell or not variance > 0:
        return math.inf
    lo = float(kernels.catoni_radius(n, 1.0, ell))
    hi = lo + 1.0 / float(kernels.catoni_scale(n, 1.0, ell))
    if power_lower_bound(n, 1.0, hi, delta) < target:
        return math.inf
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if power_lower_bound(n, 1.0, mid, delta) >= target else (mid, hi)
    return hi * math.sqrt(variance)
