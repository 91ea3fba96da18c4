"""The exact conditional sampler of softmax attention over Gaussian (or Gaussian-mixture) prompts.

The engine (numerics/sampling.py) takes it with `sampler="conditional"`, and by default for Gaussian
tokens where it pays (`conditional_pays`); its law is derived in derivations/conditional_sampler.py.
With W (r x Q) an orthonormal basis
containing the coordinate tilts b_j = B^T a_j (reduced QR), g_i = W t_i + rho_i with t_i ~ N(0, I_Q)
independent of rho_i ~ N(0, I - W W^T), the scores are s_ij = c_j . t_i (c_j = W^T b_j) and

    sum_i p_ji g_i = W (sum_i p_ji t_i) + R_j,   (R_1 .. R_Q) | t  ~  (I - W W^T) xi C^T,

with xi an r x Q matrix of iid N(0, 1) and C C^T = G, G_jl = sum_i p_ji p_li (C the symmetric root
of G, which may be singular). A prompt costs L Q + r Q normal draws instead of L r; the outputs and
the participation ratios G_jj have exactly the law of the full draw (not the same values for a
seed).
"""

from __future__ import annotations

import math

import numpy as np

from .attention import DEFAULT_WORK_BYTES, SoftmaxAccumulator, block_shape


# The fewest tokens (prompts x L) for which "auto" takes the conditional sampler (conditional_pays).
CONDITIONAL_MIN_TOKENS = 4096


def is_gaussian(law) -> bool:
    return hasattr(law, "root") and hasattr(law, "mean") and getattr(law, "name", "") == "gaussian"


def conditional_pays(L: int, Q: int, r: int, prompts: int) -> bool:
    """Where "auto" takes the conditional sampler (measured by benchmarks/bench_sampler.py --grid):
    it draws L Q normals for L r, but a token then costs about 3 Q^2 products for the full draw's
    2 Q r, and each block of prompts a QR and an eigendecomposition (about 0.1 ms on 2 cores). It
    pays from 2 Q <= r and L >= 64 once a call draws at least CONDITIONAL_MIN_TOKENS tokens in all
    (measured break-even at d = 5, one query: about 1000 to 2000 tokens; a few prompts of 64 tokens
    are faster drawn whole)."""
    return 2 * Q <= r and L >= 64 and prompts * L >= CONDITIONAL_MIN_TOKENS


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


def token_sum(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """sum_c x[p, q, c] y[p, r, c], (pb, Q, R): the sums over a chunk's tokens. With one row on
    each side it is a dot product over a long axis, which the BLAS behind np.matmul threads badly
    (measured on 2 cores: about 500 ns a token with two threads, 0.3 with one); np.einsum's own
    loop takes about 0.6 ns. Wider products go to np.matmul, where BLAS pays."""
    if x.shape[1] == 1 and y.shape[1] == 1:
        return np.einsum("pqc,prc->pqr", x, y)
    return np.matmul(x, y.transpose(0, 2, 1))


def conditional_block(
    rng: np.random.Generator, beta: np.ndarray, L: int, c: int, participation: bool
):
    """The weighted coordinate means sum_i p_ji g_i, (pb, Q, r), and the participation ratios,
    (pb, Q), for pb prompts with coordinate tilts beta (pb, Q, r), Q < r, drawn by the conditional
    sampler."""
    if beta.shape[:2] == (1, 1):
        return one_prompt_one_query(rng, beta[0, 0], L, c, participation)
    return batched_block(rng, beta, L, c, participation)


def one_prompt_one_query(
    rng: np.random.Generator, b: np.ndarray, L: int, c: int, participation: bool
):
    """`batched_block` for one prompt and one query, tilt b (r,): the same draws in the same order,
    the 1 x 1 sums kept as Python floats. A NumPy call on a 1 x 1 array costs about a microsecond,
    and batched_block makes some forty of them a block: a sixth of a 1e4-token prompt's time."""
    norm = math.sqrt(float(np.dot(b, b)))
    unit = b / norm if norm > 0 else np.eye(len(b))[0]  # a zero tilt keeps any unit W
    top = den = num = gram = 0.0  # num = sum_i w_i t_i, gram = sum_i w_i^2 (unnormalised)
    for t0 in range(0, L, c):
        t = rng.standard_normal(min(c, L - t0))
        s = t * norm
        chunk_top = float(s.max())
        if t0 == 0:
            top = chunk_top
        elif chunk_top > top:
            rescale = math.exp(top - chunk_top)
            den, num, gram = den * rescale, num * rescale, gram * rescale * rescale
            top = chunk_top
        s -= top
        np.exp(s, out=s)
        den += float(s.sum())
        num += float(np.dot(s, t))
        gram += float(np.dot(s, s))
    G = gram / (den * den)
    xi = rng.standard_normal(len(b))
    resid = xi - unit * float(np.dot(unit, xi))
    means = unit * (num / den) + resid * math.sqrt(G)
    return means[None, None, :], (np.full((1, 1), G) if participation else None)


def batched_block(rng: np.random.Generator, beta: np.ndarray, L: int, c: int, participation: bool):
    """conditional_block for any number of prompts and queries."""
    pb, Q, r = beta.shape
    if Q == 1:
        # one tilt: W = beta / |beta|, tri = |beta| (a QR per prompt costs more than a short
        # prompt's tokens; a zero tilt keeps any unit W, its scores being 0 whatever W)
        norm = np.linalg.norm(beta, axis=2, keepdims=True)  # (pb, 1, 1)
        unit = np.where(norm > 0, beta / np.where(norm > 0, norm, 1.0), np.eye(r)[:1])
        W, coef = unit.transpose(0, 2, 1), norm
    else:
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
        # (pb, Q, cc); one query: a scale, not a 1 x 1 product (token_sum says why)
        s = coef * t if Q == 1 else np.matmul(coef, t)
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
        num += token_sum(s, t)
        gram += token_sum(s, s)
    mean_t = num / den  # (pb, Q, Q): row j is sum_i p_ji t_i
    G = gram / (den * den.transpose(0, 2, 1))
    root = np.sqrt(G) if Q == 1 else gram_root(G)  # a 1 x 1 Gram matrix is its own eigenvalue
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
                sums[k] += token_sum(w_k, t[:, : coef.shape[1]])
                grams[k] += token_sum(w_k, w_k)
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
