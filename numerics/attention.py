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

**The Monte Carlo engine** (`sampled_outputs`, used by `prop-3.1` and `benchmarks/`). Prompts are
processed in blocks and each block's tokens in chunks sized to a small working set (`work_bytes`,
default 2 MB, so the arrays stay in cache; the hard cap `max_bytes` bounds it whatever L), with
preallocated buffers, in-place exponentials and batched matrix products instead of einsum.
Queries may be shared by all prompts, (Q, d), or drawn per prompt, (P, Q, d) (what an L2(nu)
average needs). For Gaussian tokens z = m + B g the engine never forms the tokens: the score is
s = (B^T a) . g + a . m, the constant a . m cancels in the softmax, and the weighted mean of the g's
maps back as V m + V B (sum p_i g_i), so a token costs its r = rank(Gamma) normal draws and the
attention arithmetic. The engine can also return the participation ratio sum_i p_i^2 (p the softmax
weights), which the exact finite-L bias of Gaussian prompts involves.

**The conditional sampler** (`sampler="conditional"`, the default for Gaussian tokens where it pays,
`conditional_pays`; derivations/conditional_sampler.py). With W (r x Q) an orthonormal basis
containing the coordinate tilts b_j = B^T a_j (reduced QR), g_i = W t_i + rho_i with t_i ~ N(0, I_Q)
independent of rho_i ~ N(0, I - W W^T), the scores are s_ij = c_j . t_i (c_j = W^T b_j) and

    sum_i p_ji g_i = W (sum_i p_ji t_i) + R_j,   (R_1 .. R_Q) | t  ~  (I - W W^T) xi C^T,

with xi an r x Q matrix of iid N(0, 1) and C C^T = G, G_jl = sum_i p_ji p_li (C the symmetric root
of G, which may be singular). A prompt costs L Q + r Q normal draws instead of L r; the outputs and
the participation ratios G_jj have exactly the law of the full draw
(not the same values for a seed). `sampler="full"` draws every coordinate: the reference route, and
the one replayed token by token in the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

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


# ---------------------------------------------------------------------------------------------
# The Monte Carlo engine.


@dataclass
class SampledOutputs:
    """T[mu_L](z) for P prompts and Q queries, (P, Q, k), and optionally sum_i p_i^2, (P, Q)."""

    output: np.ndarray
    participation: np.ndarray | None
    L: int


def is_gaussian(law) -> bool:
    return hasattr(law, "root") and hasattr(law, "mean") and getattr(law, "name", "") == "gaussian"


def block_shape(prompts: int, L: int, per_token_bytes: int, work_bytes: int) -> tuple[int, int]:
    """(prompts per block, tokens per chunk) for a working set of about `work_bytes`."""
    tokens = max(1, int(work_bytes // per_token_bytes))
    if tokens >= L:
        return max(1, min(prompts, tokens // L)), L
    return 1, tokens


SAMPLERS = ("auto", "conditional", "full")


def conditional_pays(L: int, Q: int, r: int) -> bool:
    """Where "auto" takes the conditional sampler (measured by benchmarks/bench_sampler.py): it
    draws L Q normals for L r, but a token then costs about 3 Q^2 products for the full draw's
    2 Q r, and each prompt a QR and an eigendecomposition; it pays from 2 Q <= r and L >= 64."""
    return 2 * Q <= r and L >= 64


def accumulator_conditional_pays(L: int, Q: int, components: int) -> bool:
    """Where `sampled_accumulator`'s "auto" takes the conditional sampler. Its full route draws
    whole tokens by law.sample, so the conditional one pays even at Q >= r once a prompt is long
    enough to amortise the per-prompt eigendecompositions. Measured at 2000 prompts
    (full time / conditional time): Gaussian d = 3, Q = 8: 0.92 at L = 32, 1.26 at 64, 2.02 at 128;
    the two-component mixture (d = 2, its masks cost more), Q = 8: 0.57 at L = 64, 0.84 at
    128; Q = 4: 1.84 at L = 1024. The rule asks for about twice the break-even."""
    return L >= (32 if components > 1 else 16) * Q


def gram_root(G: np.ndarray) -> np.ndarray:
    """The symmetric square root C of each PSD Gram matrix G (.., Q, Q), C C^T = G; singular G (two
    queries with the same weights) included, rounding's negative eigenvalues taken as 0."""
    lam, vec = np.linalg.eigh(G)
    return np.matmul(vec * np.sqrt(np.clip(lam, 0.0, None))[..., None, :], np.swapaxes(vec, -1, -2))


def project_off(W: np.ndarray, xi: np.ndarray) -> np.ndarray:
    """(I - W W^T) xi for orthonormal columns W (.., r, Q): xi's component off the score
    directions."""
    return xi - np.matmul(W, np.matmul(np.swapaxes(W, -1, -2), xi))


def conditional_block(
    rng: np.random.Generator, beta: np.ndarray, L: int, c: int, participation: bool
):
    """The weighted coordinate means sum_i p_ji g_i, (pb, Q, r), and the participation ratios,
    (pb, Q), for pb prompts with coordinate tilts beta (pb, Q, r), Q < r, drawn by the conditional
    sampler."""
    pb, Q, r = beta.shape
    W, tri = np.linalg.qr(
        beta.transpose(0, 2, 1)
    )  # beta_j = W tri[:, j]: W (pb, r, Q), tri (pb, Q, Q)
    coef = tri.transpose(0, 2, 1)  # s_j = coef[j] . t
    top = np.empty((pb, Q, 1))
    den = np.zeros((pb, Q, 1))
    num = np.zeros((pb, Q, Q))  # sum_i p_ji t_i (unnormalised)
    gram = np.zeros((pb, Q, Q))  # sum_i p_ji p_li (unnormalised)
    for t0 in range(0, L, c):
        cc = min(c, L - t0)
        t = rng.standard_normal((pb, Q, cc))
        s = np.matmul(coef, t)  # (pb, Q, cc)
        chunk_top = s.max(axis=2, keepdims=True)
        if t0 == 0:
            top = chunk_top
        else:
            new_top = np.maximum(top, chunk_top)
            rescale = np.exp(top - new_top)
            den *= rescale
            num *= rescale
            gram *= rescale * rescale.transpose(0, 2, 1)
            top = new_top
        np.subtract(s, top, out=s)
        np.exp(s, out=s)
        den += s.sum(axis=2, keepdims=True)
        num += np.matmul(s, t.transpose(0, 2, 1))
        gram += np.matmul(s, s.transpose(0, 2, 1))
    mean_t = num / den  # (pb, Q, Q): row j is sum_i p_ji t_i
    G = gram / (den * den.transpose(0, 2, 1))
    root = gram_root(G)
    xi = rng.standard_normal((pb, r, Q))
    resid = project_off(W, xi)
    R = np.matmul(resid, root.transpose(0, 2, 1))  # column j is R_j
    means = np.matmul(W, mean_t.transpose(0, 2, 1)) + R  # (pb, r, Q)
    part = np.diagonal(G, axis1=1, axis2=2).copy() if participation else None
    return means.transpose(0, 2, 1), part


def gaussian_components(law):
    """(weights (K,), means (K, d), roots [B_k (d, r_k)]) of a Gaussian (K = 1) or Gaussian-mixture
    law, else None: the laws the conditional sampler covers."""
    if is_gaussian(law):
        return np.ones(1), law.mean[None, :], [law.root]
    if getattr(law, "name", "") == "mixture" and hasattr(law, "roots"):
        return law.weights, law.means, law.roots
    return None


def conditional_accumulator(
    components,
    rng: np.random.Generator,
    prompts: int,
    L: int,
    U: np.ndarray,
    V: np.ndarray,
    queries: np.ndarray,
    fixed_shift: np.ndarray | None,
    work_bytes: int = DEFAULT_WORK_BYTES,
) -> SoftmaxAccumulator:
    """`prompts` prompts of length L drawn by the conditional sampler, component by component, for
    queries (Q, d) shared by every prompt.

    Given its label k (drawn with the mixture weights; no draw when K = 1), a token is m_k + B_k g,
    g ~ N(0, I_{r_k}). With W_k (r_k x q_k, q_k = min(Q, r_k)) orthonormal columns spanning the
    tilts b_kj = B_k^T a_j (reduced QR), g = W_k t + rho and the score is
    s_j = a_j . m_k + c_kj . t. Given the labels and the t's, the residual sums
    R_kj = sum_{i in k} w_ji rho_i are independent across components and Gaussian with covariance
    G_k (x) (I - W_k W_k^T), G_k,jl = sum_{i in k} w_ji w_li (derivations/conditional_sampler.py
    applied to the tokens of each component, which are iid Gaussian given the labels). A token costs
    max_k q_k normals (and a uniform when K > 1) instead of r_k normals. The sums are max-shifted,
    so the fixed-shift ones follow (`SoftmaxAccumulator.from_sums`)."""
    weights, means, roots = components
    A = queries @ U.T  # (Q, d): a_j = U z_j
    Q, K = A.shape[0], len(roots)
    parts = []
    for m, B in zip(means, roots):
        if B.shape[1] == 0:  # a point mass: no coordinates
            W, tri = np.zeros((0, 0)), np.zeros((0, Q))
        else:
            W, tri = np.linalg.qr((A @ B).T)  # b_kj = W tri[:, j]
        parts.append((A @ m, tri.T, W))  # offsets (Q,), c_kj rows (Q, q_k)
    q_max = max(W.shape[1] for _, _, W in parts)
    cumulative = np.cumsum(weights)[:-1]
    pb_max, c = block_shape(prompts, L, 8 * (q_max + 3 * Q + K) * 2, work_bytes)
    top, den, num = (
        np.empty((prompts, Q)),
        np.empty((prompts, Q)),
        np.empty((prompts, Q, V.shape[0])),
    )
    for p0 in range(0, prompts, pb_max):
        pb = min(pb_max, prompts - p0)
        dens = np.zeros((K, pb, Q, 1))
        sums = [np.zeros((pb, Q, W.shape[1])) for _, _, W in parts]  # sum_i w_ji t_i per component
        grams = np.zeros((K, pb, Q, Q))
        for t0 in range(0, L, c):
            cc = min(c, L - t0)
            t = rng.standard_normal((pb, q_max, cc))
            masks = None
            if K > 1:
                labels = np.searchsorted(cumulative, rng.random((pb, cc)), side="right")
                masks = [(labels == k)[:, None, :] for k in range(K)]
            s = np.empty((pb, Q, cc))
            for k, (offset, coef, _) in enumerate(parts):
                s_k = np.matmul(coef, t[:, : coef.shape[1]]) + offset[:, None]
                if masks is None:
                    s = s_k
                else:
                    np.copyto(s, s_k, where=masks[k])
            chunk_top = s.max(axis=2, keepdims=True)
            if t0 == 0:
                block_top = chunk_top
            else:
                new_top = np.maximum(block_top, chunk_top)
                rescale = np.exp(block_top - new_top)
                dens *= rescale
                for k in range(K):
                    sums[k] *= rescale
                grams *= rescale * rescale.transpose(0, 2, 1)
                block_top = new_top
            w = np.exp(s - block_top)
            for k, (_, coef, _) in enumerate(parts):
                w_k = w if masks is None else w * masks[k]
                dens[k] += w_k.sum(axis=2, keepdims=True)
                sums[k] += np.matmul(w_k, t[:, : coef.shape[1]].transpose(0, 2, 1))
                grams[k] += np.matmul(w_k, w_k.transpose(0, 2, 1))
        total = np.zeros((pb, Q, A.shape[1]))  # sum_i w_ji z_i
        for k, ((_, _, W), m, B) in enumerate(zip(parts, means, roots)):
            xi = rng.standard_normal((pb, B.shape[1], Q))
            R = np.matmul(
                project_off(W, xi), gram_root(grams[k]).transpose(0, 2, 1)
            )  # (pb, r_k, Q)
            g_sum = np.matmul(W, sums[k].transpose(0, 2, 1)) + R
            total += dens[k] * m + np.matmul(B, g_sum).transpose(0, 2, 1)
        top[p0 : p0 + pb] = block_top[..., 0]
        den[p0 : p0 + pb] = dens.sum(axis=0)[..., 0]
        num[p0 : p0 + pb] = total @ V.T
    return SoftmaxAccumulator.from_sums(top, den, num, fixed_shift, L)


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
    if gaussian and (sampler == "conditional" or (sampler == "auto" and conditional_pays(L, Q, r))):
        pb_max, c = block_shape(prompts, L, 8 * 2 * Q * 2, work_bytes)
        for p0 in range(0, prompts, pb_max):
            pb = min(pb_max, prompts - p0)
            beta = coords[p0 : p0 + pb] if per_prompt else np.broadcast_to(coords, (pb, Q, r))
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
