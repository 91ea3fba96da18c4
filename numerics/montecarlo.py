"""Monte Carlo estimates of the finite-prompt error, at fixed queries and averaged over a query law.

- `fixed_query_errors`: P prompts of length L, errors T[mu_L](z) - T[mu](z) at given queries,
  (P, Q, k), and optionally the participation ratios sum_i p_i^2, (P, Q).
- `averaged_mse`: the L2(nu) error E|T[mu_L] - T[mu]|^2_{L2(nu)} for nu = N(0, Sigma_q). Every
  prompt gets Q fresh queries from the proposal N(0, c Sigma_q) (c >= 1, importance weights
  d nu / d nu', see query_average.draw_queries), so the per-prompt values
  (1/Q) sum_j W_j |err_j|^2 are iid across prompts with mean exactly the L2(nu) error: the returned
  standard error (sample standard deviation / sqrt(P)) is that of an iid mean.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import sampling, query_average, selfnormalised


@dataclass
class AveragedMSE:
    L: int
    mean: float
    stderr: float
    per_prompt: np.ndarray  # (P,) iid values with the L2(nu) error as mean


def fixed_query_errors(
    law, rng, prompts: int, L: int, U, V, queries, limit, *, participation=False
):
    """(errors (P, Q, k), participation (P, Q) or None); `limit` is T[mu](z) at the queries,
    (Q, k)."""
    out = sampling.sampled_outputs(
        law, rng, prompts, L, U, V, np.atleast_2d(queries), participation=participation
    )
    return out.output - np.asarray(limit)[None, :, :], out.participation


def averaged_mse(
    law,
    rng,
    prompts: int,
    L: int,
    U,
    V,
    Sigma_q,
    limit_fn,
    queries_per_prompt: int,
    scale: float = 1.0,
) -> AveragedMSE:
    """Importance-weighted L2(nu) error with fresh queries per prompt;
    `limit_fn(Z (n, d)) -> (n, k)`."""
    sample = query_average.draw_queries(rng, Sigma_q, (prompts, queries_per_prompt), scale)
    d = sample.Z.shape[-1]
    limit = limit_fn(sample.Z.reshape(-1, d)).reshape(prompts, queries_per_prompt, -1)
    out = sampling.sampled_outputs(law, rng, prompts, L, U, V, sample.Z)
    sq = np.sum((out.output - limit) ** 2, axis=2)
    if not np.all(np.isfinite(sq)):
        raise FloatingPointError(f"non-finite finite-prompt output at L = {L}")
    per_prompt = np.mean(sample.weights * sq, axis=1)
    stderr = float(np.std(per_prompt, ddof=1) / math.sqrt(prompts)) if prompts > 1 else math.inf
    return AveragedMSE(int(L), float(per_prompt.mean()), stderr, per_prompt)


@dataclass
class ExactAverage:
    """Rao-Blackwellised estimate of the exact finite-L L2(nu) error of Gaussian prompts: the exact
    per-query error (quadrature tables) averaged over importance-weighted query draws. `values` are
    the per-draw terms (the same draws for every L of one call, so differences across L are
    paired)."""

    L: int
    mean: float
    stderr: float
    values: np.ndarray


def exact_averages(
    Gamma, U, V, Sigma_q, Ls, rng, n_queries: int, scale: float = 1.0, table_points: int = 48
) -> list[ExactAverage]:
    """For each L: the mean over n_queries draws of W(z) E|err(z)|^2 (exact in the prompt)."""
    sample = query_average.draw_queries(rng, Sigma_q, (n_queries,), scale)
    terms = selfnormalised.query_terms(Gamma, U, V, sample.Z)
    q_max = float(np.max(terms.q)) if terms.q.size else 0.0
    out = []
    for L in Ls:
        tab = selfnormalised.table(L, q_max, table_points)
        values = sample.weights * selfnormalised.exact_mse(tab, terms)
        out.append(
            ExactAverage(
                int(L),
                float(values.mean()),
                float(values.std(ddof=1) / math.sqrt(n_queries)),
                values,
            )
        )
    return out


ROUNDOFF = (
    1e-10  # relative spread below which a numerator coordinate is deterministic up to rounding
)


def studentised_numerator(centred: np.ndarray, num: np.ndarray, claimed: np.ndarray) -> np.ndarray:
    """z = mean / (sd / sqrt n) of Y = num - claimed per (query, coordinate), over the
    trials axis 0. Where V Gamma V^T = 0 (e.g. Gamma = 0, or a row of V orthogonal to the token
    spread) every V z' equals V m, Y is rounding noise and the ratio is meaningless (for a
    point-mass Gaussian it can be inf and refute a correct limit). A coordinate whose spread is
    below ROUNDOFF times the size of its terms is judged exactly instead: z = 0 when its mean is
    rounding-sized too, z = inf (a real discrepancy) when not."""
    n = centred.shape[0]
    mean, sd = centred.mean(axis=0), centred.std(axis=0, ddof=1)
    degenerate, exact = rounding_degenerate(centred, num, claimed)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = mean / (sd / math.sqrt(n))
    return np.where(degenerate, exact, z)


def rounding_degenerate(
    centred: np.ndarray, num: np.ndarray, claimed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(mask, exact verdict) per (query, coordinate): the mask marks coordinates whose spread is
    below ROUNDOFF times the size of their terms; the exact verdict there is 0 when the mean is
    rounding-sized too and inf (a real discrepancy) when not."""
    mean, sd = centred.mean(axis=0), centred.std(axis=0, ddof=1)
    scale = np.mean(np.abs(num), axis=0) + np.mean(np.abs(claimed), axis=0)
    return sd <= ROUNDOFF * scale, np.where(np.abs(mean) <= 1e3 * ROUNDOFF * scale, 0.0, np.inf)
