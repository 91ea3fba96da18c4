"""Finite-prompt softmax training for in-context linear regression (docs/paper.md sections 4-5).

Model (trained blocks only): prediction b * sum_i softmax_i(x_i^T A x) y_i for prompt tokens
(x_i, y_i = w^T x_i) and query x; loss 1/2 (prediction - w^T x)^2.

Common random numbers: one fixed sample of `prompts` tasks/prompts/queries per L defines the
empirical risk R^_L; gradient descent on it is deterministic. Gradient (exact for R^_L):
    S = sum_i p_i y_i,  err = b S - w^T x,
    grad_b = mean(err S),   grad_A = mean(err b sum_i p_i (y_i - S) x_i x^T).
Memory is bounded: the sample is (prompts, L, d) float64 and the gradient works in chunks of prompts
below `max_bytes`. The gradient above is an algorithm over the sample
(tested against finite differences of R^_L in tests/claims/test_icl.py); the infinite-prompt
gradient and the Lipschitz constant are the emitted kernels icl_grad_A, icl_grad_b and
icl_hessian_bound (derivations/icl_kernels.py, icl_hessian.py).
"""

from __future__ import annotations

import math

import numpy as np

from . import kernels
from .laws import GaussianLaw

DEFAULT_MAX_BYTES = 64 * 2**20


class PromptSample:
    """A fixed sample: w (n, d), X (n, L, d), y (n, L), query x (n, d), target w^T x (n,)."""

    def __init__(
        self,
        Sigma: np.ndarray,
        L: int,
        prompts: int,
        rng: np.random.Generator,
        max_bytes: int = 256 * 2**20,
    ):
        if isinstance(L, bool) or not isinstance(L, (int, np.integer)) or L < 1:
            raise ValueError(f"L = {L!r} must be an integer >= 1")
        if isinstance(prompts, bool) or not isinstance(prompts, (int, np.integer)) or prompts < 2:
            raise ValueError(f"prompts = {prompts!r} must be an integer >= 2")
        d = Sigma.shape[0]
        if prompts * L * d * 8 > max_bytes:
            raise ValueError(
                f"prompts x L x d = {prompts} x {L} x {d} exceeds the memory cap {max_bytes} bytes"
            )
        tokens = GaussianLaw(np.zeros(d), Sigma, factor="cholesky")
        self.Sigma, self.L, self.n, self.d = Sigma, int(L), int(prompts), d
        self.w = rng.standard_normal((prompts, d))
        self.X = tokens.sample(rng, (prompts, L))
        self.y = np.einsum("nld,nd->nl", self.X, self.w)
        self.xq = tokens.sample(rng, (prompts,))
        self.target = np.einsum("nd,nd->n", self.xq, self.w)

    def _chunks(self, max_bytes=DEFAULT_MAX_BYTES):
        step = max(1, int(max_bytes // (self.L * self.d * 8 * 3)))
        for s in range(0, self.n, step):
            yield slice(s, min(self.n, s + step))

    def _forward(self, A, sl):
        scores = np.einsum("nld,de,ne->nl", self.X[sl], A, self.xq[sl])
        scores -= scores.max(axis=1, keepdims=True)
        p = np.exp(scores)
        p /= p.sum(axis=1, keepdims=True)
        S = np.einsum("nl,nl->n", p, self.y[sl])
        return p, S

    def losses(self, A: np.ndarray, b: float) -> np.ndarray:
        """Per-prompt losses 1/2 (b S - w^T x)^2 (n,)."""
        out = np.empty(self.n)
        for sl in self._chunks():
            _, S = self._forward(A, sl)
            out[sl] = 0.5 * (b * S - self.target[sl]) ** 2
        return out

    def risk_and_grad(self, A: np.ndarray, b: float):
        total, gA, gb = 0.0, np.zeros_like(A), 0.0
        for sl in self._chunks():
            p, S = self._forward(A, sl)
            err = b * S - self.target[sl]
            total += 0.5 * float(np.sum(err**2))
            gb += float(np.sum(err * S))
            r = p * (self.y[sl] - S[:, None])  # (n, L)
            mx = np.einsum("nl,nld->nd", r, self.X[sl])  # sum_i p_i (y_i - S) x_i
            gA += b * np.einsum("n,nd,ne->de", err, mx, self.xq[sl])
        return total / self.n, gA / self.n, gb / self.n


def gradient_descent(grad, A0, b0, step: float, steps: int):
    """theta_{k+1} = theta_k - step grad(theta_k); returns the trajectory (steps+1, d*d+1)."""
    A, b = A0.copy(), float(b0)
    traj = [np.concatenate([A.ravel(), [b]])]
    for _ in range(steps):
        gA, gb = grad(A, b)
        A, b = A - step * gA, b - step * gb
        if not (np.all(np.isfinite(A)) and math.isfinite(b)):
            raise FloatingPointError(f"gradient descent diverged (step {step})")
        traj.append(np.concatenate([A.ravel(), [b]]))
    return np.array(traj)


def infinite_gd(Sigma, A0, b0, step, steps):
    return gradient_descent(
        lambda A, b: (kernels.icl_grad_A(Sigma, A, b), float(kernels.icl_grad_b(Sigma, A, b))),
        A0,
        b0,
        step,
        steps,
    )


def finite_gd(sample: PromptSample, A0, b0, step, steps):
    return gradient_descent(lambda A, b: sample.risk_and_grad(A, b)[1:], A0, b0, step, steps)


def hessian_bound(Sigma: np.ndarray, radius: float) -> float:
    """Lipschitz constant of grad R_inf on the ball ||theta|| <= radius (Frobenius in A, plus b):
    beta = 3 s^3 r^2 + s^(3/2) sqrt(tr Sigma), s = ||Sigma||_op
    (kernel icl_hessian_bound, derived with its second-variation identity in
    derivations/icl_hessian.py); s is the only computation here."""
    return float(kernels.icl_hessian_bound(Sigma, float(np.linalg.norm(Sigma, 2)), radius))


def prompt_weights(X: np.ndarray, x: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, xhat): the softmax weights p_i = softmax_i(x_i^T A x) (k, L), max-shifted, and
    xhat = sum_i p_i x_i (k, d), for prompts X (k, L, d) and queries x (k, d)."""
    sc = np.einsum("nld,de,ne->nl", X, A, x)
    sc -= sc.max(axis=1, keepdims=True)
    p = np.exp(sc)
    p /= p.sum(axis=1, keepdims=True)
    return p, np.einsum("nl,nld->nd", p, X)


def prompt_gradient_batch(
    X: np.ndarray, x: np.ndarray, A: np.ndarray, b: float, w: np.ndarray | None = None
) -> np.ndarray:
    """Gradients (k, d*d + 1) in (vec A, b) of the per-prompt loss 1/2 |b xhat - x|^2
    (the w-average of 1/2 (b xhat^T w - x^T w)^2), xhat = sum_i p_i x_i, p = softmax_i(x_i^T A x),
    for prompts X (k, L, d) and queries x (k, d). An algorithm over a sample, not a closed form: it
    evaluates, batched over prompts, the sample gradients of derivations/risk.py
    (kernels risk_sample_grad_U/V) at V = b I with residual r = b xhat - x and
    C_hat = sum_i p_i (x_i - xhat)(x_i - xhat)^T: grad_A = b C_hat r x^T, grad_b = r^T xhat. Tested
    against finite differences of the loss (tests/numerics/test_icl_training.py).

    With the prompts' task vectors w (k, d): the gradients of the loss at that w, 1/2 (w^T r)^2
    with labels y_i = w^T x_i, the loss PromptSample trains on: grad_A = b (C_hat w)(w^T r) x^T,
    grad_b = (w^T r)(w^T xhat) (sum_i p_i (y_i - S) x_i = C_hat w, S = w^T xhat). Their mean over
    w ~ N(0, I) is the w-averaged gradient, their spread is larger: the standard error of the
    training's own gradient must come from these."""
    k, _, d = X.shape
    p, xh = prompt_weights(X, x, A)
    r = b * xh - x
    D = X - xh[:, None, :]
    out = np.empty((k, d * d + 1))
    if w is None:
        Cr = np.einsum("nl,nld,nle,ne->nd", p, D, D, r)  # C_hat r
        out[:, :-1] = b * np.einsum("nd,ne->nde", Cr, x).reshape(k, d * d)
        out[:, -1] = np.einsum("nd,nd->n", r, xh)
        return out
    err = np.einsum("nd,nd->n", w, r)  # w^T r
    Cw = np.einsum("nl,nld,nle,ne->nd", p, D, D, w)  # C_hat w
    out[:, :-1] = b * np.einsum("n,nd,ne->nde", err, Cw, x).reshape(k, d * d)
    out[:, -1] = err * np.einsum("nd,nd->n", w, xh)
    return out


def prompt_gradient_scales(
    X: np.ndarray, x: np.ndarray, A: np.ndarray, b: float, w: np.ndarray
) -> np.ndarray:
    """The magnitudes (k, d*d + 1) of the summands behind each per-prompt gradient of
    `prompt_gradient_batch` at the task vectors w, which bound the rounding of any summation
    order: with e = |w^T r| + |w|(|b| |xhat| + |x|) (the residual and its terms) and y_i = w^T x_i,
    S = w^T xhat, |grad_A|_de <= |b| e |x_e| sum_i p_i (|y_i| + |S|) |x_{i,d}| and
    |grad_b| <= e sum_i p_i |y_i|. Where the weights are nearly one-hot, C_hat w is a difference
    of terms of this size that nearly cancel: two implementations then agree to a few units of
    rounding of these magnitudes, not of the (much smaller) gradient."""
    k, _, d = X.shape
    p, xh = prompt_weights(X, x, A)
    r = b * xh - x
    e = np.abs(np.einsum("nd,nd->n", w, r)) + np.linalg.norm(w, axis=1) * (
        abs(b) * np.linalg.norm(xh, axis=1) + np.linalg.norm(x, axis=1)
    )
    y = np.abs(np.einsum("nld,nd->nl", X, w))
    S = np.abs(np.einsum("nd,nd->n", w, xh))
    weighted = np.einsum("nl,nld->nd", p * (y + S[:, None]), np.abs(X))
    out = np.empty((k, d * d + 1))
    out[:, :-1] = abs(b) * np.einsum("n,nd,ne->nde", e, weighted, np.abs(x)).reshape(k, d * d)
    out[:, -1] = e * np.einsum("nl,nl->n", p, y)
    return out


def prompt_gradients(
    Sigma: np.ndarray,
    A: np.ndarray,
    b: float,
    L: int,
    n: int,
    rng: np.random.Generator,
    mixture_mean=None,
    chunk: int = 4096,
) -> np.ndarray:
    """Per-prompt gradients (n, d*d + 1) of the w-averaged loss 1/2 |b xhat - x|^2 on fresh prompts
    (`prompt_gradient_batch` on each chunk). Tokens N(0, Sigma), or with `mixture_mean` m the
    mixture 1/2 N(m, Sigma - m m^T) + 1/2 N(-m, Sigma - m m^T) (same covariance, non-linear limit);
    query N(0, Sigma)."""
    d = Sigma.shape[0]
    tokens = GaussianLaw(np.zeros(d), Sigma, factor="cholesky")
    if mixture_mean is not None:
        m = np.asarray(mixture_mean, float)
        Rm = np.linalg.cholesky(Sigma - np.outer(m, m))
    out = np.empty((n, d * d + 1))
    for s in range(0, n, chunk):
        k = min(chunk, n - s)
        if mixture_mean is None:
            X = tokens.sample(rng, (k, L))
        else:
            X = rng.standard_normal((k, L, d)) @ Rm.T + rng.choice([-1.0, 1.0], size=(k, L, 1)) * m
        x = tokens.sample(rng, (k,))
        out[s : s + k] = prompt_gradient_batch(X, x, A, b)
    return out
