"""A fast SGD step for the authors' one-head models (claim `authors-experiment`).

numerics/authors_sgd.py forms the scores and labels of every token, s = |u| z0 and
y = a z0 + b z1 (its reduced sampler, z0, z1 standard normal (n, L)), then softmax(omega s) and the
statistics S, C of each prompt. The same statistics are functions of (z0, z1) and of three numbers
per prompt (|u|, a, b), so nothing of size (n, L) but the draws and one exponential is formed here.
With temperature t = omega |u| per prompt and p = softmax(t z0) (max-shifted, the max taken on the
side of the sign of t), the softmax-weighted moments m0 = E_p z0, m00 = E_p z0^2, n1 = E_p z1,
n01 = E_p z0 z1 give
    S = a m0 + b n1,                               (sum_i p_i y_i)
    C = |u| (a (m00 - m0^2) + b (n01 - m0 n1)),    (sum_i p_i s_i y_i - (sum_i p_i s_i) S)
    abar = |u| (a mean(z0^2) + b mean(z0 z1)),     (linear attention: (1/L) sum_i s_i y_i)
by linearity of s and y in (z0, z1) (an algorithm; the loss and its gradients in S, C, abar are the
emitted kernels `authors_sgd_*` of derivations/authors_gradients.py). The draws are those of
`authors_sgd.sample` with the same generator calls in the same order, so a seeded run here makes the
same updates as `authors_sgd.train` to rounding (tests/numerics/test_authors_sgd_fast.py).

Where the time goes (benchmarks/authors_sgd_step.py, L = 1000, n = 128): the 2 n L standard normals
dominate; the exponential and five row reductions follow. The authors' recipe draws n L d + ...
normals and works on an (n, L, d) tensor.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import kernels
from .authors_sgd import MODELS, check_plan, diverged, generator_maps, sgd_loop


def draw(rng: np.random.Generator, n: int, L: int, maps, s2: float, tau: float, rows: int = 2):
    """(nu, a, b, f, z) with z of shape (rows, n, L): the generator calls of `authors_sgd.sample`
    (reduced tokens), returning the per-prompt factors instead of the (n, L) scores and labels."""
    Mp, Mq = maps
    d = Mp.shape[0]
    beta = math.sqrt(tau) * rng.standard_normal((n, d))
    xq = rng.standard_normal((n, d)) @ Mq.T
    f = np.einsum("nd,nd->n", xq, beta)
    u, v = xq @ Mp, beta @ Mp
    uu = np.einsum("nd,nd->n", u, u)
    uv = np.einsum("nd,nd->n", u, v)
    vv = np.einsum("nd,nd->n", v, v)
    nu = np.sqrt(uu)
    a = np.divide(uv, nu, out=np.zeros_like(uv), where=nu > 0)
    b = np.sqrt(np.maximum(vv - a * a, 0.0) + s2)
    z = rng.standard_normal((rows, n, L))  # rows = 1: z0 only (`conditional_sums` stands for z1)
    return nu, a, b, f, z


def softmax_statistics(omega: float, nu, a, b, z0, z1):
    """(S, C) of every prompt from the z-space moments (module docstring)."""
    t = omega * nu
    top = np.where(t >= 0, z0.max(axis=1), z0.min(axis=1))
    e = np.exp(t[:, None] * (z0 - top[:, None]))
    Z = e.sum(axis=1)
    ez0 = e * z0
    m0 = ez0.sum(axis=1) / Z
    m00 = np.einsum("nl,nl->n", ez0, z0) / Z
    n1 = np.einsum("nl,nl->n", e, z1) / Z
    n01 = np.einsum("nl,nl->n", ez0, z1) / Z
    S = a * m0 + b * n1
    C = nu * (a * (m00 - m0 * m0) + b * (n01 - m0 * n1))
    return S, C


def linear_statistic(nu, a, b, z0, z1):
    """abar = (1/L) sum_i s_i y_i of every prompt."""
    L = z0.shape[1]
    return nu * (a * np.einsum("nl,nl->n", z0, z0) + b * np.einsum("nl,nl->n", z0, z1)) / L


def step_gradients(
    model: str, mu: float, omega: float, nu, a, b, z0, z1, yq
) -> tuple[float, float]:
    """Batch-mean (d/dmu, d/domega) of (y_q - yhat)^2."""
    if model == "softmax":
        S, C = softmax_statistics(omega, nu, a, b, z0, z1)
        return (
            float(np.mean(kernels.authors_sgd_softmax_grad_mu(mu, S, yq))),
            float(np.mean(kernels.authors_sgd_softmax_grad_omega(mu, S, C, yq))),
        )
    if model == "linear":
        ab = linear_statistic(nu, a, b, z0, z1)
        return (
            float(np.mean(kernels.authors_sgd_linear_grad_mu(mu, omega, ab, yq))),
            float(np.mean(kernels.authors_sgd_linear_grad_omega(mu, omega, ab, yq))),
        )
    raise ValueError(f"model = {model!r} is not one of {MODELS}")


def conditional_sums(rng: np.random.Generator, omega: float, nu, z0):
    """Draw (E_p z1 Z, sum_i e_i z0_i z1_i, sum_i z0_i z1_i) given z0 without drawing z1: given z0
    they are Gaussian with mean 0 and covariance the Gram matrix G of the vectors
    (e, e z0, z0) (e the max-shifted softmax numerators at temperature omega |u|), so G^{1/2} xi
    with xi ~ N(0, I_3) has their exact law (G^{1/2} by the eigendecomposition, PSD clipped at 0).
    3 normals per prompt instead of L. Returns (e, Z, sums (n, 3))."""
    t = omega * nu
    top = np.where(t >= 0, z0.max(axis=1), z0.min(axis=1))
    e = np.exp(t[:, None] * (z0 - top[:, None]))
    V = np.stack([e, e * z0, z0], axis=1)  # (n, 3, L)
    G = np.einsum("nil,njl->nij", V, V)
    lam, Q = np.linalg.eigh(G)
    root = Q * np.sqrt(np.maximum(lam, 0.0))[:, None, :]
    xi = rng.standard_normal((z0.shape[0], 3))
    return e, np.einsum("nij,nj->ni", root, xi), G


def conditional_gradients(rng, mu_om: dict, nu, a, b, z0, yq) -> dict:
    """{model: batch-mean (d/dmu, d/domega)} of both models on one batch, z1 replaced by its three
    conditionally Gaussian sums (`conditional_sums`, at the softmax model's omega). Equal in law to
    `step_gradients` on the same z0 with z1 drawn."""
    mu_s, om_s = mu_om["softmax"]
    e, sums, G = conditional_sums(rng, om_s, nu, z0)
    Z = e.sum(axis=1)
    m0, m00 = G[:, 0, 2] / Z, G[:, 1, 2] / Z  # Gram entries: sum e z0, sum e z0^2
    n1, n01 = sums[:, 0] / Z, sums[:, 1] / Z
    S = a * m0 + b * n1
    C = nu * (a * (m00 - m0 * m0) + b * (n01 - m0 * n1))
    L = z0.shape[1]
    ab = nu * (a * G[:, 2, 2] + b * sums[:, 2]) / L
    mu_l, om_l = mu_om["linear"]
    return {
        "softmax": (
            float(np.mean(kernels.authors_sgd_softmax_grad_mu(mu_s, S, yq))),
            float(np.mean(kernels.authors_sgd_softmax_grad_omega(mu_s, S, C, yq))),
        ),
        "linear": (
            float(np.mean(kernels.authors_sgd_linear_grad_mu(mu_l, om_l, ab, yq))),
            float(np.mean(kernels.authors_sgd_linear_grad_omega(mu_l, om_l, ab, yq))),
        ),
    }


def train(
    Sigma, s2, tau, Ls, generator, steps, lr, batch, init, rng, record=50, progress=None
) -> dict:
    """`authors_sgd.train` (reduced tokens) with the fast step: same arguments, same result to
    rounding."""
    check_plan(Ls, steps, lr, batch)
    maps = generator_maps(Sigma, generator)
    Lmax = max(Ls)

    def batch_gradients():
        nu, a, b, f, z = draw(rng, batch, Lmax, maps, s2, tau)
        yq = f + math.sqrt(s2) * rng.standard_normal(batch)
        return lambda m, L, mu, om: step_gradients(
            m, mu, om, nu, a, b, z[0, :, :L], z[1, :, :L], yq
        )

    return sgd_loop(Ls, steps, lr, init, record, progress, batch_gradients)


def train_conditional(
    Sigma, s2, tau, L, generator, steps, lr, batch, init, rng, record=50, progress=None
) -> dict:
    """SGD for both models at one L with `conditional_gradients` (n L + 3 n normals per step instead
    of 2 n L): the same SGD in law as `train` at that L, not the same draws. Returns
    {"params": {model: (mu, omega)}, "trajectory": {model: array (k, 2)}, "record_steps",
    "seconds"}."""
    check_plan([L], steps, lr, batch)
    maps = generator_maps(Sigma, generator)
    theta = {m: (float(init[0]), float(init[1])) for m in MODELS}
    every = max(1, steps // record)
    rec_steps, traj = [0], {m: [theta[m]] for m in MODELS}
    start = time.perf_counter()
    for k in range(1, steps + 1):
        nu, a, b, f, z = draw(rng, batch, L, maps, s2, tau, rows=1)
        yq = f + math.sqrt(s2) * rng.standard_normal(batch)
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is reported below
            grads = conditional_gradients(rng, theta, nu, a, b, z[0], yq)
        for m in MODELS:
            mu, om = theta[m][0] - lr * grads[m][0], theta[m][1] - lr * grads[m][1]
            if not (math.isfinite(mu) and math.isfinite(om)):
                raise diverged(m, L, k, lr)
            theta[m] = (mu, om)
        if k % every == 0 or k == steps:
            rec_steps.append(k)
            for m in MODELS:
                traj[m].append(theta[m])
        if progress is not None:
            progress(k, steps)
    return {
        "params": dict(theta),
        "trajectory": {m: np.array(traj[m]) for m in MODELS},
        "record_steps": rec_steps,
        "seconds": time.perf_counter() - start,
    }
