"""Exact finite-L risk of in-context linear regression and its gradient flow, by quadrature (docs/paper.md
sections 4-5). An algorithm, not a new formula: it assembles proved pieces.

Model: prediction b sum_i p_i y_i, p = softmax(x_i^T A x), y_i = w^T x_i, x_i, x ~ N(0, Sigma), w ~ N(0, I).
Given the prompt and the query the error is w^T (b xhat - x) with xhat = sum_i p_i x_i, so E over w gives
the per-query loss 1/2 |b xhat - x|^2 exactly. Write xhat = Sigma a + err with a = A x (Lemma 2.1 limit)
and r = b Sigma a - x; then

    R_L(A, b) = R_inf(A, b) + 1/2 E_x [ 2 b r^T E[err | x] + E[|b err|^2 | x] ],

with the exact finite-L moments of numerics/selfnormalised.py (V = b I there): E[b err | x] =
-A_L(q) b Sigma a and E|b err|^2 = b^2 (tr Sigma A_L(q) + rho (B_L(q) - A_L(q))), q = a^T Sigma a,
rho = |Sigma a|^2 / q (kernels first_order_log_weight / first_order_numerator). A_L, B_L come from a
spline table in sqrt(q) (relative error < 1e-4 at 48 points, measured in the selfnormalised tests); the
outer E_x is tensor Gauss-Hermite in whitened coordinates (`NODES` per axis; truncation checked in
tests against 1.5x the nodes). The gradient of the excess R_L - R_inf is taken by central differences
(step `FD_STEP`: the spline is C^2, so the error is O(h^2) ~ 1e-10 plus rounding 1e-16/h ~ 1e-11).
Independent test: the claim compares it with Monte Carlo gradients on fresh prompts.

Flows: dtheta/dt = -grad R(theta), theta = (vec A, b), integrated with scipy's solve_ivp (DOP853).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy.integrate import solve_ivp

from . import kernels, query_average, selfnormalised

NODES = 12
FD_STEP = 1e-5
REACH_MARGIN = 0.02     # flows stop at 98 % of the table's lambda (ExcessRisk.reach)
Q_LIMIT = 200.0          # log_moments is validated to q ~ 130 in its tests; refuse well beyond


class OutOfReach(Exception):
    """theta is where the finite-L gradient can no longer be evaluated (lambda(theta) beyond the table);
    `t` is the flow time when a flow stopped there (None when an evaluation was refused)."""

    def __init__(self, theta: np.ndarray, t: float | None = None, why: str = "lambda(theta) reaches the table's reach"):
        super().__init__(why + ("" if t is None else f" at t = {t:.4g}"))
        self.theta, self.t = np.asarray(theta, float), t


def unpack(theta: np.ndarray, d: int) -> tuple[np.ndarray, float]:
    return np.asarray(theta[:-1], float).reshape(d, d), float(theta[-1])


def grad_inf(Sigma: np.ndarray, theta: np.ndarray) -> np.ndarray:
    d = Sigma.shape[0]
    A, b = unpack(theta, d)
    return np.concatenate([kernels.icl_grad_A(Sigma, A, b).ravel(), [float(kernels.icl_grad_b(Sigma, A, b))]])


def whitened_lambda(Sigma: np.ndarray, A: np.ndarray) -> float:
    """||S^T A^T Sigma A S||_op with Sigma = S S^T: q <= lambda |g|^2 for x = S g (E_x e^q < inf iff < 1/2);
    the threshold lambda of selfnormalised with Gamma = Sigma_q = Sigma and U = A."""
    return query_average.threshold_lambda(Sigma, A, Sigma)


class ExcessRisk:
    """R_L - R_inf on the ball ||theta|| <= radius (module docstring)."""

    def __init__(self, Sigma: np.ndarray, L: int, lam_max: float, nodes: int = NODES, points: int = 48):
        """`lam_max` bounds lambda(theta) = ||S^T A^T Sigma A S||_op (Sigma = S S^T) on the points to be
        evaluated; q = g^T S^T A^T Sigma A S g <= lam_max |g|^2 on the nodes x = S g."""
        self.Sigma, self.L, self.d = np.asarray(Sigma, float), int(L), Sigma.shape[0]
        x, w = hermegauss(nodes)
        w = w / math.sqrt(2 * math.pi)
        g = np.array(list(itertools.product(x, repeat=self.d)))
        self.weights = np.prod(np.array(list(itertools.product(w, repeat=self.d))), axis=1)
        self.root = np.linalg.cholesky(self.Sigma)
        self.X = g @ self.root.T                                           # queries x = S g, (n, d)
        self.lam_max = float(lam_max)
        q_max = self.lam_max * float(np.max(np.sum(g * g, axis=1)))
        if q_max > Q_LIMIT:
            raise ValueError(f"lambda = {lam_max:.3g} reaches q = {q_max:.3g} > {Q_LIMIT} on the quadrature nodes")
        self.table = selfnormalised.table(self.L, q_max * (1 + 1e-9), points)
        self.trace = float(np.trace(self.Sigma))

    def reach(self, theta: np.ndarray) -> float:
        """> 0 while lambda(theta) is inside the table's reach (a solve_ivp event for `flow`); the 2 %
        margin keeps the stages of the step that crosses it, evaluated before the event is located,
        inside the table (if one is not, `excess` raises OutOfReach all the same)."""
        A, _ = unpack(theta, self.d)
        return self.lam_max * (1 - REACH_MARGIN) - whitened_lambda(self.Sigma, A)

    def excess(self, theta: np.ndarray) -> float:
        A, b = unpack(theta, self.d)
        if whitened_lambda(self.Sigma, A) > self.lam_max * (1 + 1e-9):
            raise OutOfReach(theta, why=f"lambda(theta) = {whitened_lambda(self.Sigma, A):.4g} exceeds the table's "
                             f"{self.lam_max:.4g}")
        terms = selfnormalised.query_terms(self.Sigma, A, b * np.eye(self.d), self.X)
        mse = selfnormalised.exact_mse(self.table, terms)                  # E |b err|^2 per query
        AL, _ = self.table.moments(terms.q)
        u = self.X @ A.T @ self.Sigma                                      # rows: Sigma a (Sigma symmetric)
        r = b * u - self.X
        cross = -2.0 * b * AL * np.sum(r * u, axis=1)                      # 2 r^T E[b err]
        return 0.5 * float(self.weights @ (cross + mse))

    def gap(self, theta: np.ndarray) -> np.ndarray:
        """grad R_L - grad R_inf at theta (central differences of `excess`)."""
        theta = np.asarray(theta, float)
        out = np.empty_like(theta)
        for k in range(theta.size):
            e = np.zeros_like(theta)
            e[k] = FD_STEP
            out[k] = (self.excess(theta + e) - self.excess(theta - e)) / (2 * FD_STEP)
        return out

    def grad(self, theta: np.ndarray) -> np.ndarray:
        return grad_inf(self.Sigma, theta) + self.gap(theta)

    def risk(self, theta: np.ndarray) -> float:
        A, b = unpack(theta, self.d)
        return float(kernels.icl_risk(self.Sigma, A, b)) + self.excess(theta)


def flow(grad, theta0: np.ndarray, t_eval: np.ndarray, rtol: float = 1e-9, reach=None) -> np.ndarray:
    """theta(t) at t_eval for dtheta/dt = -grad(theta) (solve_ivp, DOP853, atol = rtol * max(1, |theta0|)).

    `reach(theta)`: optional, > 0 where `grad` can be evaluated (e.g. an ExcessRisk's table reach); the
    flow stops where it reaches 0, and OutOfReach carries the time and the state there."""
    scale = max(1.0, float(np.max(np.abs(theta0))))
    events = None
    if reach is not None:
        def events(t, y):
            return reach(y)
        events.terminal, events.direction = True, -1
    sol = solve_ivp(lambda t, y: -grad(y), (0.0, float(t_eval[-1])), np.asarray(theta0, float), method="DOP853",
                    rtol=rtol, atol=rtol * scale, t_eval=t_eval, events=events)
    if not sol.success:
        raise FloatingPointError(f"solve_ivp failed: {sol.message}")
    if sol.status == 1:
        raise OutOfReach(sol.y_events[0][0], t=float(sol.t_events[0][0]))
    return sol.y.T
