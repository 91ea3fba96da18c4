"""Finite-prompt softmax attention T[mu_L](z), streamed over the prompt in chunks.

For prompts z_1..z_L (one row each) and a query z,

    T[mu_L](z) = sum_i exp(s_i) V z_i / sum_i exp(s_i),   s_i = z_i^T U z = z_i . a,  a = U z.

The reference formula is that ratio. The implementation keeps, per (prompt, query), a running
maximum score M, the shifted denominator S = sum exp(s_i - M) and numerator
N = sum exp(s_i - M) V z_i, rescaling both by exp(M_old - M_new) when the maximum grows
(online log-sum-exp). Memory is then bounded by the chunk, whatever L.

Optionally the accumulator also keeps sums with a *fixed* shift c_q per query,
S_c = sum_i exp(s_i - c_q) and N_c = sum_i exp(s_i - c_q) V z_i: unlike the max-shifted sums
their expectations are known in closed form (L E e^{s - c} and L E e^{s - c} V z'), which the
unbiased-numerator test of the claims uses.

Where the prompts come from (a law, drawn in chunks or by the conditional sampler) is
numerics/sampling.py; this module only accumulates the prompts it is given.
"""

from __future__ import annotations

import numpy as np

DEFAULT_MAX_BYTES = 256 * 2**20
DEFAULT_WORK_BYTES = 2 * 2**20


class SoftmaxAccumulator:
    """Accumulate softmax attention for P prompts and Q queries over token chunks of shape
    (P, c, d)."""

    def __init__(
        self,
        U: np.ndarray,
        V: np.ndarray,
        queries: np.ndarray,
        prompts: int,
        fixed_shift: np.ndarray | None = None,
    ):
        self.tilts = queries @ U.T  # (Q, d): a_q = U z_q
        self.V = V
        Q, k = queries.shape[0], V.shape[0]
        self.max = np.full((prompts, Q), -np.inf)
        self.den = np.zeros((prompts, Q))
        self.num = np.zeros((prompts, Q, k))
        self.fixed_shift = None if fixed_shift is None else np.asarray(fixed_shift, dtype=float)
        self.fixed_den = np.zeros((prompts, Q))
        self.fixed_num = np.zeros((prompts, Q, k))
        self.count = 0

    def add(self, tokens: np.ndarray) -> None:
        scores = np.matmul(tokens, self.tilts.T)  # (P, c, Q)
        values = np.matmul(tokens, self.V.T)  # (P, c, k)
        new_max = np.maximum(self.max, scores.max(axis=1))
        rescale = np.exp(self.max - new_max)  # exp(-inf) = 0 on the first chunk
        if self.fixed_shift is not None:
            fixed = np.exp(scores - self.fixed_shift)
            self.fixed_den += fixed.sum(axis=1)
            self.fixed_num += np.matmul(fixed.transpose(0, 2, 1), values)
        np.subtract(scores, new_max[:, None, :], out=scores)
        weights = np.exp(scores, out=scores)
        self.den = self.den * rescale + weights.sum(axis=1)
        self.num = self.num * rescale[..., None] + np.matmul(weights.transpose(0, 2, 1), values)
        self.max = new_max
        self.count += tokens.shape[1]

    @classmethod
    def from_sums(
        cls,
        top: np.ndarray,
        den: np.ndarray,
        num: np.ndarray,
        fixed_shift: np.ndarray | None,
        count: int,
    ) -> "SoftmaxAccumulator":
        """The accumulator's state from max-shifted sums drawn elsewhere (the conditional sampler):
        top (P, Q) the largest score, den = sum_i e^{s_i - top},
        num = sum_i e^{s_i - top} V z_i (P, Q, k). The fixed-shift sums are the same sums rescaled
        by e^{top - c}: the weights differ by that factor."""
        acc = cls.__new__(cls)
        acc.tilts, acc.V = None, None
        acc.max, acc.den, acc.num, acc.count = top, den, num, int(count)
        acc.fixed_shift = None if fixed_shift is None else np.asarray(fixed_shift, dtype=float)
        if acc.fixed_shift is None:
            acc.fixed_den, acc.fixed_num = np.zeros_like(den), np.zeros_like(num)
        else:
            factor = np.exp(top - acc.fixed_shift)
            acc.fixed_den, acc.fixed_num = den * factor, num * factor[..., None]
        return acc

    def result(self) -> np.ndarray:
        if self.count == 0:
            raise ValueError("no tokens were added (L must be >= 1)")
        return self.num / self.den[..., None]  # (P, Q, k)


def chunk_tokens(
    prompts: int, queries: int, d: int, k: int, max_bytes: int = DEFAULT_MAX_BYTES
) -> int:
    """Tokens per chunk so that the chunk's arrays (tokens, scores, weights, values) fit
    max_bytes."""
    per_token = 8 * prompts * (d + 2 * queries + k) * 2  # factor 2: temporaries of the same size
    return max(1, int(max_bytes // per_token))


def softmax_attention(
    tokens: np.ndarray,
    U: np.ndarray,
    V: np.ndarray,
    queries: np.ndarray,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> np.ndarray:
    """T[mu_L](z) for tokens (P, L, d) and queries (Q, d): returns (P, Q, k)."""
    tokens = np.asarray(tokens, dtype=float)
    queries = np.atleast_2d(np.asarray(queries, dtype=float))
    if tokens.ndim != 3:
        raise ValueError(f"tokens must have shape (prompts, L, d), got {tokens.shape}")
    P, L, d = tokens.shape
    if L < 1:
        raise ValueError(f"prompt length L = {L} must be >= 1")
    if U.shape != (d, d) or V.shape[1] != d or queries.shape[1] != d:
        raise ValueError(
            f"shape mismatch: tokens d = {d}, U {U.shape}, V {V.shape}, queries {queries.shape}"
        )
    acc = SoftmaxAccumulator(U, V, queries, P)
    step = chunk_tokens(P, queries.shape[0], d, V.shape[0], max_bytes)
    for start in range(0, L, step):
        acc.add(tokens[:, start : start + step])
    return acc.result()


def block_shape(prompts: int, L: int, per_token_bytes: int, work_bytes: int) -> tuple[int, int]:
    """(prompts per block, tokens per chunk) for a working set of about `work_bytes`."""
    tokens = max(1, int(work_bytes // per_token_bytes))
    if tokens >= L:
        return max(1, min(prompts, tokens // L)), L
    return 1, tokens
