"""Monte Carlo of the authors' scalar model (docs/paper.md section 6) and its exact 1/L coefficient.

yhat = sum_h mu_h S_h, S_h = sum_i softmax_i(omega_h x_i^T x_q) y_i, x ~ N(0, I_d),
beta ~ N(0, I_d/d), y = beta^T x + eps (variance s2). Estimator of L (R_L - R_inf) per draw of
(beta, q, prompt), with the query noise averaged exactly (it is independent and enters as + s2) and
an exact zero-mean control variate: with r0 = (1 - mu.omega) beta^T q,
delta = sum_h mu_h (S_h - m_h) and delta_lin = sum_h mu_h (N_h - m_h D_h) (N, D normalised by the
exact E e^{omega x^T q}, so E[delta_lin | beta, q] = 0),
    Y = L [ delta^2 - 2 r0 (delta - delta_lin) ],   E Y = L (R_L - R_inf)   (unbiased at every L).
"""

from __future__ import annotations

import math

import numpy as np

from . import kernels
from .streaming import StreamedMean


def _heads(mu, omega):
    mu, omega = np.asarray(mu, float).reshape(-1, 1), np.asarray(omega, float).reshape(-1, 1)
    if mu.shape != omega.shape:
        raise ValueError(f"mu and omega need one entry per head (got {mu.size} and {omega.size})")
    return mu, omega


def first_order(mu, omega, d, s2) -> float:
    """C1 (kernel `scalar_first_order`, derivations/risk_scalar_heads.py); inf when some
    omega_h omega_k >= 1/2, where the risk decays slower than 1/L
    (the kernel is finite only below)."""
    mu, omega = _heads(mu, omega)
    if np.any(omega @ omega.T >= 0.5):
        return math.inf
    return float(np.asarray(kernels.scalar_first_order(mu, omega, d, s2)).item())


def heuristic(mu, omega, d, s2) -> float:
    """The authors' coefficient (kernel `scalar_heuristic`)."""
    mu, omega = _heads(mu, omega)
    return float(np.asarray(kernels.scalar_heuristic(mu, omega, d, s2)).item())


def infinite_risk(mu, omega, s2) -> float:
    """R_inf = (1 - mu.omega)^2 + s2 (kernel `scalar_infinite_risk`)."""
    mu, omega = _heads(mu, omega)
    return float(np.asarray(kernels.scalar_infinite_risk(mu, omega, s2)).item())


def mc_first_order(mu, omega, d, s2, L, n, rng, chunk_bytes=64 * 2**20):
    """Mean and standard error of Y = L (per-draw excess risk), n iid draws, in chunks.

    An algorithm, not a formula: the sampler of the module docstring's estimator (literal prompts,
    explicit softmax weights normalised by the exact E e^{omega x^T q} = e^{omega^2 |q|^2 / 2}
    proved in derivations/risk_scalar.py). Tested against an independent route, plain Monte Carlo of
    L (E (y_q - yhat)^2 - R_inf) with sampled query noise and no control variate
    (tests/numerics/test_scalar_risk.py)."""
    mu, omega = np.asarray(mu, float), np.asarray(omega, float)
    H = mu.size
    per = max(1, int(chunk_bytes // (8 * L * (d + 2 * H + 2))))
    acc, done = StreamedMean(), 0
    while done < n:
        m = min(per, n - done)
        beta = rng.standard_normal((m, d)) / math.sqrt(d)
        q = rng.standard_normal((m, d))
        X = rng.standard_normal((m, L, d))
        y = np.einsum("mld,md->ml", X, beta) + math.sqrt(s2) * rng.standard_normal((m, L))
        proj = np.einsum("mld,md->ml", X, q)
        qq = np.einsum("md,md->m", q, q)
        bq = np.einsum("md,md->m", beta, q)
        delta = np.zeros(m)
        delta_lin = np.zeros(m)
        for h in range(H):
            s = omega[h] * proj - 0.5 * omega[h] ** 2 * qq[:, None]  # log of normalised weights
            w = np.exp(s)
            N, D = (w * y).mean(axis=1), w.mean(axis=1)
            mh = omega[h] * bq
            S = (w * y).sum(axis=1) / w.sum(axis=1)
            delta += mu[h] * (S - mh)
            delta_lin += mu[h] * (N - mh * D)
        r0 = (1 - mu @ omega) * bq
        Y = L * (delta**2 - 2 * r0 * (delta - delta_lin))
        acc.add(Y)
        done += m
    return acc.mean, acc.stderr()


def optimum(objective, H, x0=None):
    """argmin over (mu, omega) in R^(2H) of objective(mu, omega) (Nelder-Mead, fixed start).

    An algorithm (a local optimiser), not a formula; tested against independent routes: the analytic
    minimiser of a quadratic and a grid search of the one-head risk R_inf + C1 / L
    (tests/numerics/test_scalar_risk.py)."""
    from scipy.optimize import minimize

    x0 = np.concatenate([np.full(H, 2.0), np.full(H, 0.3)]) if x0 is None else x0

    def value(x):
        # where the objective overflows (C1 grows like e^{c omega^2}) or is NaN (inf - inf), it
        # counts as +inf: the simplex moves away instead of carrying a NaN into the reported optimum
        with np.errstate(over="ignore", invalid="ignore"):
            v = float(objective(x[:H], x[H:]))
        return v if math.isfinite(v) else math.inf

    if not math.isfinite(value(x0)):
        raise ValueError(f"the objective is not finite at the start {x0.tolist()}")
    res = minimize(
        value, x0, method="Nelder-Mead", options={"xatol": 1e-8, "fatol": 1e-12, "maxiter": 4000}
    )
    return res.x[:H], res.x[H:], float(res.fun)
