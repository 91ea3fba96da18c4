"""Softmax-weighted token mean and covariance of finite prompts, streamed (what the Jacobians in
U and V of T[mu_L](z) are made of; see derivations/jacobians.py).

For prompt tokens z_i and a query z with scores s_i = z_i^T U z and weights p = softmax(s):

    zhat  = sum_i p_i z_i,                 C_hat = sum_i p_i (z_i - zhat)(z_i - zhat)^T.

Streamed like numerics/attention.py: a running maximum score M and the shifted sums
S = sum e^{s_i - M}, N1 = sum e^{s_i - M} (z_i - c), N2 = sum e^{s_i - M} (z_i - c)(z_i - c)^T about
a fixed centre c per query (the claimed limit mean, so that C_hat = N2/S - (N1/S)(N1/S)^T suffers
no cancellation when zhat is close to c). Memory is bounded by the chunk, whatever L.
"""

from __future__ import annotations

import numpy as np

from .attention import DEFAULT_MAX_BYTES


class WeightedMomentAccumulator:
    def __init__(self, U: np.ndarray, queries: np.ndarray, prompts: int, centres: np.ndarray):
        self.tilts = queries @ U.T  # (Q, d)
        self.centres = np.asarray(centres, dtype=float)  # (Q, d)
        Q, d = queries.shape
        self.max = np.full((prompts, Q), -np.inf)
        self.S = np.zeros((prompts, Q))
        self.N1 = np.zeros((prompts, Q, d))
        self.N2 = np.zeros((prompts, Q, d, d))
        self.count = 0

    def add(self, tokens: np.ndarray) -> None:
        scores = tokens @ self.tilts.T  # (P, c, Q)
        new_max = np.maximum(self.max, scores.max(axis=1))
        rescale = np.exp(self.max - new_max)
        w = np.exp(scores - new_max[:, None, :])  # (P, c, Q)
        x = tokens[:, :, None, :] - self.centres[None, None, :, :]  # (P, c, Q, d)
        wx = w[..., None] * x
        self.S = self.S * rescale + w.sum(axis=1)
        self.N1 = self.N1 * rescale[..., None] + wx.sum(axis=1)
        self.N2 = self.N2 * rescale[..., None, None] + np.einsum("pcqi,pcqj->pqij", wx, x)
        self.max = new_max
        self.count += tokens.shape[1]

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """(zhat (P, Q, d), C_hat (P, Q, d, d))."""
        if self.count == 0:
            raise ValueError("no tokens were added (L must be >= 1)")
        mean_offset = self.N1 / self.S[..., None]
        C = self.N2 / self.S[..., None, None] - np.einsum("pqi,pqj->pqij", mean_offset, mean_offset)
        return self.centres[None] + mean_offset, C


def weighted_moments(
    tokens: np.ndarray,
    U: np.ndarray,
    queries: np.ndarray,
    centres: np.ndarray | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> tuple[np.ndarray, np.ndarray]:
    """(zhat, C_hat) for tokens (P, L, d) and queries (Q, d)."""
    tokens = np.asarray(tokens, dtype=float)
    P, L, d = tokens.shape
    if L < 1:
        raise ValueError(f"prompt length L = {L} must be >= 1")
    queries = np.atleast_2d(queries)
    centres = np.zeros_like(queries) if centres is None else centres
    acc = WeightedMomentAccumulator(U, queries, P, centres)
    step = _chunk(P, queries.shape[0], d, max_bytes)
    for start in range(0, L, step):
        acc.add(tokens[:, start : start + step])
    return acc.result()


def _chunk(prompts: int, queries: int, d: int, max_bytes: int) -> int:
    per_token = 8 * prompts * queries * (3 * d + 2) * 2
    return max(1, int(max_bytes // per_token))


def sampled_weighted_moments(
    law,
    rng: np.random.Generator,
    prompts: int,
    L: int,
    U: np.ndarray,
    queries: np.ndarray,
    centres: np.ndarray,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> tuple[np.ndarray, np.ndarray]:
    """(zhat, C_hat) for `prompts` fresh prompts of length L from `law`, drawn chunk by chunk."""
    if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1:
        raise ValueError(f"prompt length L = {L!r} must be an integer >= 1")
    acc = WeightedMomentAccumulator(U, queries, prompts, centres)
    step = _chunk(prompts, queries.shape[0], U.shape[0], max_bytes)
    for start in range(0, L, step):
        acc.add(law.sample(rng, (prompts, min(step, L - start))))
    return acc.result()
