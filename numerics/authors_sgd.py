"""The authors' one-head experiment at CPU scale
(docs/paper.md section 6, claim `authors-experiment`).

Data (one prompt): task beta ~ N(0, tau I_d), prompt inputs x_i = M_p g_i, query x_q = M_q g_q
(g standard normal), labels y = beta^T x + eps, eps ~ N(0, s2), also for the query label y_q.
Generators (R = the symmetric root of Sigma, R R = Sigma):
    "correct"  M_p = R,     M_q = R      (prompt and query ~ N(0, Sigma): the root applied once)
    "authors"  M_p = R R,   M_q = I      (the published code: root applied twice to the prompt,
                                          never to the query; erratum 5 of docs/paper.md)
Models, parameters (mu, omega), s_i = x_i^T x_q:
    softmax  yhat = mu sum_i softmax_i(omega s_i) y_i
    linear   yhat = mu (1/L) sum_i omega s_i y_i
Loss (y_q - yhat)^2; outputs, loss and gradients in the prompt's token statistics are derived in
derivations/authors_gradients.py and emitted (kernels `authors_sgd_*`); max-shifted softmax.

SGD: one batch of `batch` prompts of the largest length per step, shared by every L (each L uses
the first L tokens, an iid prompt of length L) and by both models (common random numbers). Each
(model, L) pair is an exact SGD on its own risk; only the noise is shared. Memory: batch x L_max x 2
(the reduced token sampler of `sample`: the models see a token only through (x_i^T x_q, y_i), drawn
from their exact conditional Gaussian law; `tokens="literal"` draws x_i = M_p g_i, for the tests).
Evaluation: fresh prompts per L, in chunks below `chunk_bytes`, the query noise averaged exactly
(loss (beta^T x_q - yhat)^2 + s2, the same mean with a smaller variance), both models on the
same prompts so their difference has its own standard error.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import kernels, validate

GENERATORS = ("correct", "authors")
MODELS = ("softmax", "linear")
DEFAULT_CHUNK_BYTES = 64 * 2**20


def covariance_root(Sigma: np.ndarray) -> np.ndarray:
    """Symmetric positive definite root R (R R = Sigma), by the eigendecomposition."""
    lam, Q = np.linalg.eigh(Sigma)
    if lam.min() <= 0:
        raise ValueError(f"sigma must be positive definite (smallest eigenvalue {lam.min():.3g})")
    return (Q * np.sqrt(lam)) @ Q.T


def generator_maps(Sigma: np.ndarray, generator: str) -> tuple[np.ndarray, np.ndarray]:
    """(M_p, M_q): prompt inputs M_p g, query M_q g."""
    R = covariance_root(Sigma)
    if generator == "correct":
        return R, R
    if generator == "authors":
        return R @ R, np.eye(Sigma.shape[0])
    raise ValueError(f"generator = {generator!r} is not one of {GENERATORS}")


def covariances(Sigma: np.ndarray, generator: str) -> tuple[np.ndarray, np.ndarray]:
    """(Sigma_p, Sigma_q) = (M_p M_p^T, M_q M_q^T): the covariances the generator really
    produces."""
    Mp, Mq = generator_maps(Sigma, generator)
    return Mp @ Mp.T, Mq @ Mq.T


def sample(
    rng: np.random.Generator,
    n: int,
    L: int,
    maps,
    s2: float,
    tau: float,
    tokens: str = "reduced",
    with_limit: bool = False,
):
    """n prompts of length L: scores s (n, L), labels y (n, L), query signal f = beta^T x_q (n,);
    with_limit: also g = beta^T Sigma_p x_q = (M_p^T beta).(M_p^T x_q) (n,), through which both
    models' infinite-prompt outputs are p g (derivation step 2), used as an exact control variate.

    tokens = "literal": x_i = M_p g_i with g_i ~ N(0, I_d) (d + 1 normals per token).
    tokens = "reduced" (default, same law, 2 normals per token): the models see a token only through
    (s_i, y_i) = (g_i^T u + 0, g_i^T v + eps_i) with u = M_p^T x_q, v = M_p^T beta fixed by the
    prompt's (x_q, beta); given them the pair is Gaussian with Var s = |u|^2, Cov(s, y) = u.v,
    Var y = |v|^2 + s2, so s = |u| z1,
    y = (u.v / |u|) z1 + sqrt(|v|^2 - (u.v)^2 / |u|^2 + s2) z2."""
    Mp, Mq = maps
    d = Mp.shape[0]
    beta = math.sqrt(tau) * rng.standard_normal((n, d))
    xq = rng.standard_normal((n, d)) @ Mq.T
    f = np.einsum("nd,nd->n", xq, beta)
    if tokens == "literal":
        g = rng.standard_normal((n, L, d))  # x_i = M_p g_i (not formed:
        sy = g @ (Mp.T @ np.stack([xq, beta], axis=2))  #  x_i^T v = g_i^T M_p^T v), (n, L, 2)
        y = sy[..., 1] + math.sqrt(s2) * rng.standard_normal((n, L))
        if with_limit:
            return sy[..., 0], y, f, np.einsum("nd,nd->n", xq @ Mp, beta @ Mp)
        return sy[..., 0], y, f
    if tokens != "reduced":
        raise ValueError(f"tokens = {tokens!r} is not 'literal' or 'reduced'")
    u, v = xq @ Mp, beta @ Mp  # rows: M_p^T x_q, M_p^T beta
    uu = np.einsum("nd,nd->n", u, u)
    uv = np.einsum("nd,nd->n", u, v)
    vv = np.einsum("nd,nd->n", v, v)
    nu = np.sqrt(uu)
    a = np.divide(uv, nu, out=np.zeros_like(uv), where=nu > 0)
    b = np.sqrt(np.maximum(vv - a * a, 0.0) + s2)
    z = rng.standard_normal((2, n, L))
    if with_limit:
        return nu[:, None] * z[0], a[:, None] * z[0] + b[:, None] * z[1], f, uv
    return nu[:, None] * z[0], a[:, None] * z[0] + b[:, None] * z[1], f


def softmax_weights(omega, s):
    """softmax_i(omega s_i) of each row of s (n, L), max-shifted."""
    z = omega * s
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def predict(model: str, mu: float, omega: float, s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """yhat per prompt: the token sums here (S, abar), the outputs from the emitted kernels."""
    if model == "softmax":
        return kernels.authors_sgd_softmax_output(
            mu, np.einsum("nl,nl->n", softmax_weights(omega, s), y)
        )
    if model == "linear":
        return kernels.authors_sgd_linear_output(mu, omega, np.mean(s * y, axis=1))
    raise ValueError(f"model = {model!r} is not one of {MODELS}")


def per_prompt_gradients(model: str, mu: float, omega: float, s, y, yq):
    """Per-prompt (loss, d/dmu, d/domega) of (y_q - yhat)^2, each (n,).

    An algorithm over the tokens of each prompt, not a formula: it reduces the prompt to the
    statistics S = sum_i p_i y_i, C = sum_i p_i s_i y_i - (sum_i p_i s_i) S (the max-shifted softmax
    p = softmax(omega s)) or abar = mean_i s_i y_i, and evaluates the loss and gradients derived in
    those statistics (derivations/authors_gradients.py, kernels `authors_sgd_*`). Tested against
    central differences and the complex step of an independent explicit-softmax loss
    (tests/numerics/test_authors_sgd.py)."""
    if model == "softmax":
        p = softmax_weights(omega, s)
        S = np.einsum("nl,nl->n", p, y)
        C = np.einsum("nl,nl,nl->n", p, s, y) - np.einsum("nl,nl->n", p, s) * S
        loss = kernels.authors_sgd_loss(yq, kernels.authors_sgd_softmax_output(mu, S))
        return (
            loss,
            kernels.authors_sgd_softmax_grad_mu(mu, S, yq),
            kernels.authors_sgd_softmax_grad_omega(mu, S, C, yq),
        )
    if model == "linear":
        a = np.mean(s * y, axis=1)
        loss = kernels.authors_sgd_loss(yq, kernels.authors_sgd_linear_output(mu, omega, a))
        return (
            loss,
            kernels.authors_sgd_linear_grad_mu(mu, omega, a, yq),
            kernels.authors_sgd_linear_grad_omega(mu, omega, a, yq),
        )
    raise ValueError(f"model = {model!r} is not one of {MODELS}")


def loss_and_grad(model: str, mu: float, omega: float, s, y, yq):
    """Batch means of `per_prompt_gradients`: the SGD step's (loss, d/dmu, d/domega)."""
    loss, gm, go = per_prompt_gradients(model, mu, omega, s, y, yq)
    return float(loss.mean()), float(gm.mean()), float(go.mean())


def check_plan(Ls, steps, lr, batch):
    if (
        not isinstance(Ls, (list, tuple))
        or not Ls
        or any(isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1 for L in Ls)
    ):
        raise ValueError(f"L = {Ls!r} must be a non-empty list of integers >= 1")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps = {steps!r} must be an integer >= 1")
    if not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr = {lr!r} must be a finite number > 0")
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 2:
        raise ValueError(f"batch = {batch!r} must be an integer >= 2")


def train(
    Sigma,
    s2,
    tau,
    Ls,
    generator,
    steps,
    lr,
    batch,
    init,
    rng,
    record=50,
    progress=None,
    tokens="reduced",
) -> dict:
    """SGD for both models and every L from `init` = (mu0, omega0). Returns
    {"params": {model: {L: (mu, omega)}}, "trajectory": {model: {L: array (k, 2)}}, "record_steps",
    "seconds"}."""
    check_plan(Ls, steps, lr, batch)
    maps = generator_maps(Sigma, generator)
    Lmax = max(Ls)

    def batch_gradients():
        s, y, f = sample(rng, batch, Lmax, maps, s2, tau, tokens)
        yq = f + math.sqrt(s2) * rng.standard_normal(batch)
        return lambda m, L, mu, om: loss_and_grad(m, mu, om, s[:, :L], y[:, :L], yq)[1:]

    return sgd_loop(Ls, steps, lr, init, record, progress, batch_gradients)


def diverged(model: str, L: int, step: int, lr: float) -> validate.BeyondReach:
    """Constant-step SGD is stable only while lr times the batch loss's curvature stays below 2
    (a quadratic's step map 1 - lr h); the curvature grows with the inputs' and labels' scale
    (||Sigma||, the noise) while the authors' lr is fixed, so at extreme scales (Sigma ~ 2^20 and
    noise 2^20: a hunt draw, which crashed) the route is beyond its reach, said in one line."""
    return validate.BeyondReach(
        f"SGD with the authors' step lr = {lr:g} diverged ({model}, L = {L}, step {step}): "
        "constant-step SGD is stable only while lr times the loss's curvature stays below 2, "
        "and that curvature grows with the scale of icl.sigma and icl.noise; lower them"
    )


def sgd_loop(Ls, steps, lr, init, record, progress, batch_gradients) -> dict:
    """The SGD driver shared by `train` and authors_sgd_fast.train: at each step `batch_gradients()`
    draws one batch (shared by every L, as the prompts of length L are the first L tokens of the
    longest) and returns grad(model, L, mu, omega) -> (d/dmu, d/domega) of the batch loss; both
    models at every L take the step mu, omega -= lr grad. Divergence is beyond the route's reach
    (`diverged`); `record` states are kept along the way. Returns the dict that `train`
    documents."""
    theta = {m: {L: [float(init[0]), float(init[1])] for L in Ls} for m in MODELS}
    every = max(1, steps // record)
    rec_steps = [0]
    traj = {m: {L: [tuple(theta[m][L])] for L in Ls} for m in MODELS}
    start = time.perf_counter()
    for k in range(1, steps + 1):
        grad = batch_gradients()
        for L in Ls:
            for m in MODELS:
                mu, om = theta[m][L]
                # an overflow here is the divergence the next line reports: no numpy warning
                with np.errstate(over="ignore", invalid="ignore"):
                    gm, go = grad(m, L, mu, om)
                    mu, om = mu - lr * gm, om - lr * go
                if not (math.isfinite(mu) and math.isfinite(om)):
                    raise diverged(m, L, k, lr)
                theta[m][L] = [mu, om]
        if k % every == 0 or k == steps:
            rec_steps.append(k)
            for m in MODELS:
                for L in Ls:
                    traj[m][L].append(tuple(theta[m][L]))
        if progress is not None:
            progress(k, steps)
    return {
        "params": {m: {L: tuple(theta[m][L]) for L in Ls} for m in MODELS},
        "trajectory": {m: {L: np.array(traj[m][L]) for L in Ls} for m in MODELS},
        "record_steps": rec_steps,
        "seconds": time.perf_counter() - start,
    }


def evaluate(
    params: dict,
    Sigma,
    s2,
    tau,
    L,
    generator,
    n,
    rng,
    chunk_bytes=DEFAULT_CHUNK_BYTES,
    tokens="reduced",
    keep: tuple = (),
) -> dict:
    """Test risk at prompt length L of {name: (model, mu, omega)} on n fresh prompts (the same
    prompts for every name): for each name [mean, stderr] of the per-prompt loss (query noise
    averaged exactly), the trace of the per-prompt gradient covariance (with a sampled query noise,
    as SGD sees it), and [mean, stderr] of the per-prompt difference of every pair of names; for the
    names in `keep`, also the n per-prompt losses ("losses", for a test that needs the sample)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise ValueError(f"n = {n!r} must be an integer >= 2")
    maps = generator_maps(Sigma, generator)
    per = max(1, int(chunk_bytes // (8 * L * (12 + len(params)))))  # ~12 (n, L) work arrays
    names = list(params)
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]
    extra = [(t, k) for k in names for t in ("limit", "excess")]
    sums = {k: np.zeros(2) for k in names + pairs + extra}
    gsum = {k: np.zeros(2) for k in names}
    gouter = {k: np.zeros((2, 2)) for k in names}
    kept = {k: [] for k in keep}
    done = 0
    while done < n:
        k = min(per, n - done)
        s, y, f, g = sample(rng, k, L, maps, s2, tau, tokens, with_limit=True)
        eq = math.sqrt(s2) * rng.standard_normal(k)
        losses = {}
        for name, (model, mu, om) in params.items():
            losses[name] = kernels.authors_sgd_mean_loss(f, predict(model, mu, om, s, y), s2)
            if name in kept:
                kept[name].append(losses[name])
            # the infinite-prompt loss, mean R_inf(mu omega)
            limit = kernels.authors_sgd_mean_loss(
                f, kernels.authors_sgd_limit_output(mu, om, g), s2
            )
            losses[("limit", name)] = limit
            losses[("excess", name)] = losses[name] - limit
            _, gm, go = per_prompt_gradients(model, mu, om, s, y, f + eq)
            G = np.stack([gm, go], axis=1)
            gsum[name] += G.sum(axis=0)
            gouter[name] += G.T @ G
        for key in names + pairs + extra:
            v = losses[key] if key in losses else losses[key[0]] - losses[key[1]]
            sums[key] += [v.sum(), (v**2).sum()]
        done += k

    def mean_se(acc):
        mean = acc[0] / n
        var = max(acc[1] / n - mean**2, 0.0) * n / (n - 1)
        return [float(mean), float(math.sqrt(var / n))]

    return {
        "risk": {k: mean_se(sums[k]) for k in names},
        "n": int(n),
        "limit_loss": {k: mean_se(sums[("limit", k)]) for k in names},
        "excess_over_limit": {k: mean_se(sums[("excess", k)]) for k in names},
        "difference": {f"{a} - {b}": mean_se(sums[(a, b)]) for a, b in pairs},
        "grad_cov_trace": {
            k: float(np.trace(gouter[k] / n - np.outer(gsum[k] / n, gsum[k] / n))) for k in names
        },
        **({"losses": {k: np.concatenate(v) for k, v in kept.items()}} if keep else {}),
    }


def best_softmax(Sigma, s2, tau, L, generator, n, rng, bounds=(1e-3, 2.0), max_bytes=64 * 2**20):
    """(mu*, omega*) minimising the softmax risk on one fixed sample of n prompts (at most
    max_bytes of scores and labels): for fixed omega the risk is quadratic in mu, so
    mu*(omega) = E[y_q S] / E[S^2] and the profile risk E y_q^2 - E[y_q S]^2 / E[S^2] is minimised
    over omega in `bounds` (bounded Brent; the profile is the kernel `authors_sgd_profile`). Judge
    the result on fresh prompts (`evaluate`)."""
    from scipy.optimize import minimize_scalar

    n = int(min(n, max(2, max_bytes // (16 * L))))
    s, y, f = sample(rng, n, L, generator_maps(Sigma, generator), s2, tau)
    Eyq2 = float(np.mean(f * f)) + s2  # query noise is independent of S: E[y_q S] = E[f S]

    step = max(1, (4 * 2**20) // (8 * L))  # softmax temporaries of at most ~4 MB each

    def profile(om):
        S = np.concatenate(
            [
                np.einsum("nl,nl->n", softmax_weights(om, s[j : j + step]), y[j : j + step])
                for j in range(0, n, step)
            ]
        )
        a, b = float(np.mean(f * S)), float(np.mean(S * S))
        risk, mu_star = np.asarray(kernels.authors_sgd_profile(Eyq2, a, b), dtype=float).ravel()
        return float(risk), float(mu_star)

    res = minimize_scalar(
        lambda om: profile(om)[0], bounds=bounds, method="bounded", options={"xatol": 1e-4}
    )
    return float(profile(res.x)[1]), float(res.x), n
