"""Plain Monte Carlo of the several-head softmax risk over fresh prompts (the independent route for
numerics/finite_risk_heads.py): yhat = sum_h mu_h sum_i softmax_i(omega_h s_i) y_i on prompts drawn by
numerics/authors_sgd.sample (one draw of (s, y) serves every head, as in the model), each head's output
from the emitted kernel `authors_sgd_softmax_output`, the loss with the query noise averaged exactly
(`authors_sgd_mean_loss`). The excess over the infinite-prompt loss is sampled with that loss as an
exact control variate on the same prompts (its output p g, p = mu.omega, `authors_sgd_limit_output`).
"""

from __future__ import annotations

import math

import numpy as np

from . import authors_sgd, kernels, validate

CHUNK = 4_000_000          # scores per chunk (n L), ~100 MB of work arrays


def risk(Sigma, s2: float, tau: float, L: int, mu, omega, n: int, rng: np.random.Generator,
         generator: str = "correct") -> dict:
    """{"risk": [mean, stderr], "excess": [mean, stderr]} over n prompts of length L."""
    L = validate.prompt_length("L", L)
    mu, omega = validate.vector("mu", mu), validate.vector("omega", omega, len(mu))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n = {n!r} must be an integer >= 2")
    maps = authors_sgd.generator_maps(np.asarray(Sigma, float), generator)
    p = float(mu @ omega)
    per = max(1, CHUNK // L)
    sums = np.zeros((2, 2))
    done = 0
    while done < n:
        k = min(per, n - done)
        s, y, f, g = authors_sgd.sample(rng, k, L, maps, s2, tau, with_limit=True)
        yhat = sum(authors_sgd.predict("softmax", float(m), float(w), s, y) for m, w in zip(mu, omega))
        loss = kernels.authors_sgd_mean_loss(f, yhat, s2)
        excess = loss - kernels.authors_sgd_mean_loss(f, kernels.authors_sgd_limit_output(p, 1.0, g), s2)
        for j, v in enumerate((loss, excess)):
            sums[j] += [v.sum(), (v * v).sum()]
        done += k

    def mean_se(acc):
        mean = acc[0] / n
        return [float(mean), float(math.sqrt(max(acc[1] / n - mean * mean, 0.0) / (n - 1)))]
    return {"risk": mean_se(sums[0]), "excess": mean_se(sums[1])}
