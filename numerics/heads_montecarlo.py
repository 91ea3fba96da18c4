"""Plain Monte Carlo of the several-head softmax risk over fresh prompts (the independent route for
numerics/finite_risk_heads.py): yhat = sum_h mu_h sum_i softmax_i(omega_h s_i) y_i on prompts drawn
by numerics/authors_sgd.sample (one draw of (s, y) serves every head, as in the model), each head's
output from the emitted kernel `authors_sgd_softmax_output`, the loss with the query noise averaged
exactly (`authors_sgd_mean_loss`). The excess over the infinite-prompt loss is sampled with that
loss as an exact control variate on the same prompts
(its output p g, p = mu.omega, `authors_sgd_limit_output`).

Two samplers of the same law. "full": the (s, y) of every token (`authors_sgd.sample`, 2 normals a
token). "conditional" (the default): the scores s = |u| z0 and labels y = a z0 + b z1 of a prompt
depend on the tokens through z0 and z1 only, and each head's token sum is S_h = sum_i p_hi y_i =
a (p_h . z0) + b (p_h . z1), p_h = softmax(omega_h s). Given z0 the weights are fixed and z1 is iid
N(0, 1), so (p_h . z1)_h is Gaussian with covariance G = P P^T (heads x heads): it is drawn as C xi,
C C^T = G, xi ~ N(0, I_H) (derivations/conditional_sampler.py with a one-dimensional residual).
A prompt then costs L + H normals instead of 2 L.
"""

from __future__ import annotations


import numpy as np

from . import authors_sgd, authors_sgd_fast, kernels, validate
from .conditional_sampler import gram_root
from .streaming import StreamedMean

CHUNK = 4_000_000  # scores per chunk (n L), ~100 MB of work arrays


SAMPLERS = ("conditional", "full")


def conditional_head_sums(
    rng: np.random.Generator, n: int, L: int, maps, s2: float, tau: float, omega
):
    """(S (n, H), f (n,), g (n,)): each head's token sum S_h = sum_i p_hi y_i of n prompts drawn by
    the conditional sampler (module docstring), the query signal f and the limit's
    g = (M_p^T beta).(M_p^T x_q)."""
    nu, a, b, f, z = authors_sgd_fast.draw(rng, n, L, maps, s2, tau, rows=1)
    z0 = z[0]
    P = np.stack(
        [authors_sgd.softmax_weights(float(w), nu[:, None] * z0) for w in omega], axis=1
    )  # (n, H, L)
    mean_part = np.matmul(P, z0[:, :, None])[..., 0]  # p_h . z0
    G = np.matmul(P, P.transpose(0, 2, 1))
    resid = np.matmul(gram_root(G), rng.standard_normal((n, len(omega), 1)))[..., 0]
    return a[:, None] * mean_part + b[:, None] * resid, f, a * nu


def risk(
    Sigma,
    s2: float,
    tau: float,
    L: int,
    mu,
    omega,
    n: int,
    rng: np.random.Generator,
    generator: str = "correct",
    sampler: str = "conditional",
) -> dict:
    """{"risk": [mean, stderr], "excess": [mean, stderr]} over n prompts of length L."""
    L = validate.prompt_length("L", L)
    mu, omega = validate.vector("mu", mu), validate.vector("omega", omega, len(mu))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n = {n!r} must be an integer >= 2")
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler = {sampler!r} must be one of {', '.join(SAMPLERS)}")
    maps = authors_sgd.generator_maps(np.asarray(Sigma, float), generator)
    p = float(mu @ omega)
    per = max(1, CHUNK // (L * len(mu)))
    accs = (StreamedMean(), StreamedMean())  # loss, excess
    done = 0
    while done < n:
        k = min(per, n - done)
        if sampler == "conditional":
            S, f, g = conditional_head_sums(rng, k, L, maps, s2, tau, omega)
            yhat = sum(
                kernels.authors_sgd_softmax_output(float(m), S[:, h]) for h, m in enumerate(mu)
            )
        else:
            s, y, f, g = authors_sgd.sample(rng, k, L, maps, s2, tau, with_limit=True)
            yhat = sum(
                authors_sgd.predict("softmax", float(m), float(w), s, y) for m, w in zip(mu, omega)
            )
        loss = kernels.authors_sgd_mean_loss(f, yhat, s2)
        excess = loss - kernels.authors_sgd_mean_loss(
            f, kernels.authors_sgd_limit_output(p, 1.0, g), s2
        )
        for acc, v in zip(accs, (loss, excess)):
            acc.add(v)
        done += k
    return {key: [acc.mean, acc.stderr()] for key, acc in zip(("risk", "excess"), accs)}
