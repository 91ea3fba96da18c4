"""The Monte Carlo engine: softmax attention over fresh prompts drawn from a token law.

`sampled_outputs` (used by `prop-3.1` and `benchmarks/`) processes prompts in blocks and each
block's tokens in chunks sized to a small working set (`work_bytes`, default 2 MB, so the arrays
stay in cache; the hard cap `max_bytes` bounds it whatever L), with preallocated buffers, in-place
exponentials and batched matrix products instead of einsum.
Queries may be shared by all prompts, (Q, d), or drawn per prompt, (P, Q, d) (what an L2(nu)
average needs). For Gaussian tokens z = m + B g the engine never forms the tokens: the score is
s = (B^T a) . g + a . m, the constant a . m cancels in the softmax, and the weighted mean of the g's
maps back as V m + V B (sum p_i g_i), so a token costs its r = rank(Gamma) normal draws and the
attention arithmetic. The engine can also return the participation ratio sum_i p_i^2 (p the softmax
weights), which the exact finite-L bias of Gaussian prompts involves.

`sampler` chooses how a prompt is drawn: "full" draws every token coordinate (the reference route,
replayed token by token in the tests), "conditional" the exact conditional sampler of
numerics/conditional_sampler.py (Gaussian and Gaussian-mixture laws), "auto" the conditional one
where it pays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .attention import (
    DEFAULT_MAX_BYTES,
    DEFAULT_WORK_BYTES,
    SoftmaxAccumulator,
    block_shape,
    chunk_tokens,
)
from .conditional_sampler import (
    accumulator_conditional_pays,
    conditional_accumulator,
    conditional_block,
    conditional_pays,
    gaussian_components,
    is_gaussian,
)

SAMPLERS = ("auto", "conditional", "full")


def sampled_accumulator(
    law,
    rng: np.random.Generator,
    prompts: int,
    L: int,
    U: np.ndarray,
    V: np.ndarray,
    queries: np.ndarray,
    fixed_shift: np.ndarray | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    *,
    sampler: str = "auto",
    work_bytes: int = DEFAULT_WORK_BYTES,
) -> SoftmaxAccumulator:
    """Accumulate `prompts` fresh prompts of length L drawn from `law`, chunk by chunk (the whole
    prompt is never held in memory). `sampler` as in `sampled_outputs`: "conditional" (Gaussian or
    Gaussian-mixture laws, `conditional_accumulator`), "full" (every token drawn by law.sample, the
    reference route) or "auto" (the conditional sampler where it pays)."""
    if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1:
        raise ValueError(f"prompt length L = {L!r} must be an integer >= 1")
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler = {sampler!r} must be one of {', '.join(SAMPLERS)}")
    components = gaussian_components(law)
    if sampler == "conditional" and components is None:
        raise ValueError(
            f"the conditional sampler needs Gaussian or Gaussian-mixture tokens, "
            f"not {getattr(law, 'name', law)!r}"
        )
    queries = np.asarray(queries, dtype=float)
    if components is not None and (
        sampler == "conditional"
        or (
            sampler == "auto"
            and accumulator_conditional_pays(L, queries.shape[0], len(components[2]))
        )
    ):
        return conditional_accumulator(
            components,
            rng,
            prompts,
            int(L),
            np.asarray(U, float),
            np.asarray(V, float),
            queries,
            fixed_shift,
            min(int(work_bytes), int(max_bytes) // 4),
        )
    acc = SoftmaxAccumulator(U, V, queries, prompts, fixed_shift)
    step = chunk_tokens(prompts, queries.shape[0], U.shape[0], V.shape[0], max_bytes)
    for start in range(0, L, step):
        acc.add(law.sample(rng, (prompts, min(step, L - start))))
    return acc


def sampled_attention(
    law,
    rng: np.random.Generator,
    prompts: int,
    L: int,
    U: np.ndarray,
    V: np.ndarray,
    queries: np.ndarray,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> np.ndarray:
    """T[mu_L](z) for `prompts` fresh prompts of length L drawn from `law`: (prompts, Q, k)."""
    return sampled_accumulator(law, rng, prompts, L, U, V, queries, None, max_bytes).result()


@dataclass
class SampledOutputs:
    """T[mu_L](z) for P prompts and Q queries, (P, Q, k), and optionally sum_i p_i^2, (P, Q)."""

    output: np.ndarray
    participation: np.ndarray | None
    L: int


def sampled_outputs(
    law,
    rng: np.random.Generator,
    prompts: int,
    L: int,
    U: np.ndarray,
    V: np.ndarray,
    queries: np.ndarray,
    *,
    participation: bool = False,
    sampler: str = "auto",
    work_bytes: int = DEFAULT_WORK_BYTES,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> SampledOutputs:
    """Softmax attention over `prompts` fresh prompts of length L from `law`, for queries (Q, d)
    shared by every prompt or (prompts, Q, d) drawn per prompt. Float64, streamed: the working
    set is about `work_bytes` (capped by `max_bytes`) whatever L; the outputs take P Q (k + 1)
    floats. `sampler`: "full" draws every token coordinate; "conditional" draws the scores and the
    weighted residuals (Gaussian laws only); "auto" takes the conditional sampler where it pays
    (`conditional_pays`), else the full one."""
    if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1:
        raise ValueError(f"prompt length L = {L!r} must be an integer >= 1")
    if isinstance(prompts, bool) or not isinstance(prompts, (int, np.integer)) or prompts < 1:
        raise ValueError(f"prompts = {prompts!r} must be an integer >= 1")
    queries = np.asarray(queries, dtype=float)
    U, V = np.asarray(U, dtype=float), np.asarray(V, dtype=float)
    d = U.shape[0]
    if U.shape != (d, d) or V.ndim != 2 or V.shape[1] != d:
        raise ValueError(f"shape mismatch: U {U.shape}, V {V.shape}")
    if queries.ndim == 2 and queries.shape[1] == d:
        per_prompt = False
    elif queries.ndim == 3 and queries.shape[0] == prompts and queries.shape[2] == d:
        per_prompt = True
    else:
        raise ValueError(
            f"queries must have shape (Q, {d}) or ({prompts}, Q, {d}), got {queries.shape}"
        )
    if not np.all(np.isfinite(queries)):
        raise ValueError("queries contain NaN or inf")
    Q, k = queries.shape[-2], V.shape[0]
    if prompts * Q * (k + 4) * 8 > max_bytes:
        raise ValueError(
            f"prompts x queries = {prompts} x {Q} outputs exceed the memory cap of {max_bytes} "
            "bytes"
        )
    work_bytes = min(int(work_bytes), int(max_bytes) // 4)
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler = {sampler!r} must be one of {', '.join(SAMPLERS)}")
    gaussian = is_gaussian(law)
    if sampler == "conditional" and not gaussian:
        raise ValueError(
            f"the conditional sampler needs Gaussian tokens, not {getattr(law, 'name', law)!r}"
        )
    if gaussian:
        root = law.root  # (d, r), B B^T = Gamma
        r = root.shape[1]
        coords = np.matmul(queries @ U.T, root)  # B^T a: (.., Q, r)
        value_map = V @ root  # (k, r)
        value_offset = V @ law.mean  # (k,)
    else:
        r = d
        coords = queries @ U.T  # a: (.., Q, d)
        value_map, value_offset = V, np.zeros(k)
    out = np.empty((prompts, Q, k))
    part = np.empty((prompts, Q)) if participation else None
    if r == 0:  # Gamma = 0: every token is the mean
        out[:] = value_offset
        if participation:
            part[:] = 1.0 / L
        return SampledOutputs(out, part, int(L))
    if gaussian and (
        sampler == "conditional" or (sampler == "auto" and conditional_pays(L, Q, r, prompts))
    ):
        pb_max, c = block_shape(prompts, L, 8 * 2 * Q * 2, work_bytes)
        for p0 in range(0, prompts, pb_max):
            pb = min(pb_max, prompts - p0)
            beta = coords[p0 : p0 + pb] if per_prompt else coords[None].repeat(pb, axis=0)
            means, sq = conditional_block(rng, beta, int(L), c, participation)
            out[p0 : p0 + pb] = means @ value_map.T + value_offset
            if participation:
                part[p0 : p0 + pb] = sq
        return SampledOutputs(out, part, int(L))
    pb_max, c = block_shape(prompts, L, 8 * (r + Q) * 2, work_bytes)
    draw_buf = np.empty((pb_max, r, c)) if gaussian else None
    score_buf = np.empty((pb_max, Q, c))
    for p0 in range(0, prompts, pb_max):
        pb = min(pb_max, prompts - p0)
        beta = coords[p0 : p0 + pb] if per_prompt else coords  # (pb, Q, r) or (Q, r)
        top = np.empty((pb, Q, 1))
        den = np.zeros((pb, Q, 1))
        num = np.zeros((pb, Q, r))
        sq = np.zeros((pb, Q, 1)) if participation else None
        for t0 in range(0, L, c):
            cc = min(c, L - t0)
            if gaussian:
                g = draw_buf[:pb, :, :cc]
                if cc == c:
                    rng.standard_normal(out=draw_buf[:pb])
                else:
                    g = rng.standard_normal((pb, r, cc))
            else:
                g = law.sample(rng, (pb, cc)).transpose(0, 2, 1)  # (pb, d, cc)
            s = score_buf[:pb, :, :cc]
            np.matmul(beta, g, out=s)  # (pb, Q, cc)
            chunk_top = s.max(axis=2, keepdims=True)
            if t0 == 0:
                top = chunk_top
            else:
                new_top = np.maximum(top, chunk_top)
                rescale = np.exp(top - new_top)
                den *= rescale
                num *= rescale
                if participation:
                    sq *= rescale * rescale
                top = new_top
            np.subtract(s, top, out=s)
            np.exp(s, out=s)
            den += s.sum(axis=2, keepdims=True)
            num += np.matmul(s, g.transpose(0, 2, 1))  # (pb, Q, r)
            if participation:
                sq += np.einsum("pqc,pqc->pq", s, s)[..., None]
        mean_coords = num / den  # weighted mean of g (or z)
        out[p0 : p0 + pb] = mean_coords @ value_map.T + value_offset
        if participation:
            part[p0 : p0 + pb] = (sq / (den * den))[..., 0]
    return SampledOutputs(out, part, int(L))
