"""Exact finite-L risk of in-context linear regression and its gradient flow, by quadrature
(docs/paper.md sections 4-5). An algorithm, not a new formula: it assembles proved pieces.

Model: prediction b sum_i p_i y_i, p = softmax(x_i^T A x), y_i = w^T x_i, x_i, x ~ N(0, Sigma),
w ~ N(0, I). Given the prompt and the query the error is w^T (b xhat - x) with xhat = sum_i p_i x_i,
so E over w gives the per-query loss 1/2 |b xhat - x|^2 exactly. Write xhat = Sigma a + err with
a = A x (Lemma 2.1 limit) and r = b Sigma a - x; then

    R_L(A, b) = R_inf(A, b) + 1/2 E_x [ 2 b r^T E[err | x] + E[|b err|^2 | x] ],

with the exact finite-L moments of numerics/selfnormalised.py (V = b I there): E[b err | x] =
-A_L(q) b Sigma a and E|b err|^2 = b^2 (tr Sigma A_L(q) + rho (B_L(q) - A_L(q))), q = a^T Sigma a,
rho = |Sigma a|^2 / q (kernels first_order_log_weight / first_order_numerator). A_L, B_L come from a
spline table in sqrt(q) (relative error < 1e-4 at 48 points, measured in the selfnormalised tests);
the outer E_x is tensor Gauss-Hermite in whitened coordinates
(`NODES` per axis; truncation checked in tests against 1.5x the nodes). The gradient of the excess
R_L - R_inf is taken by central differences (step `FD_STEP`: the spline is C^2, so the error is
O(h^2) ~ 1e-10 plus rounding 1e-16/h ~ 1e-11). Independent test: the claim compares it with Monte
Carlo gradients on fresh prompts.

Flows: dtheta/dt = -grad R(theta), theta = (vec A, b), integrated with DOP853 (`flow`).
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import DOP853
from scipy.optimize import brentq

from . import kernels, quadrature, query_average, selfnormalised, validate

NODES = 12
FD_STEP = 1e-5
REACH_MARGIN = 0.02  # flows stop at 98 % of the table's lambda (ExcessRisk.reach)
Q_LIMIT = 200.0  # log_moments is validated to q ~ 130 in its tests; refuse well beyond


class OutOfReach(Exception):
    """theta is where the finite-L gradient can no longer be evaluated
    (lambda(theta) beyond the table); `t` is the flow time when a flow stopped there
    (None when an evaluation was refused)."""

    def __init__(
        self,
        theta: np.ndarray,
        t: float | None = None,
        why: str = "lambda(theta) reaches the table's reach",
    ):
        super().__init__(why + ("" if t is None else f" at t = {t:.4g}"))
        self.theta, self.t = np.asarray(theta, float), t


def unpack(theta: np.ndarray, d: int) -> tuple[np.ndarray, float]:
    return np.asarray(theta[:-1], float).reshape(d, d), float(theta[-1])


def grad_inf(Sigma: np.ndarray, theta: np.ndarray) -> np.ndarray:
    d = Sigma.shape[0]
    A, b = unpack(theta, d)
    return np.concatenate(
        [kernels.icl_grad_A(Sigma, A, b).ravel(), [float(kernels.icl_grad_b(Sigma, A, b))]]
    )


def whitened_lambda(Sigma: np.ndarray, A: np.ndarray) -> float:
    """||S^T A^T Sigma A S||_op with Sigma = S S^T: q <= lambda |g|^2
    for x = S g (E_x e^q < inf iff < 1/2); the threshold lambda of selfnormalised with
    Gamma = Sigma_q = Sigma and U = A."""
    return query_average.threshold_lambda(Sigma, A, Sigma)


class ExcessRisk:
    """R_L - R_inf on the ball ||theta|| <= radius (module docstring)."""

    def __init__(
        self, Sigma: np.ndarray, L: int, lam_max: float, nodes: int = NODES, points: int = 48
    ):
        """`lam_max` bounds lambda(theta) = ||S^T A^T Sigma A S||_op (Sigma = S S^T) on the points
        to be evaluated; q = g^T S^T A^T Sigma A S g <= lam_max |g|^2 on the nodes x = S g."""
        self.Sigma, self.L, self.d = np.asarray(Sigma, float), int(L), Sigma.shape[0]
        g, self.weights = quadrature.tensor_grid(nodes, self.d)
        self.root = np.linalg.cholesky(self.Sigma)
        self.X = g @ self.root.T  # queries x = S g, (n, d)
        self.lam_max = float(lam_max)
        q_max = self.lam_max * float(np.max(np.sum(g * g, axis=1)))
        if q_max > Q_LIMIT:
            raise ValueError(
                f"lambda = {lam_max:.3g} reaches q = {q_max:.3g} > {Q_LIMIT} on the quadrature "
                "nodes"
            )
        self.table = selfnormalised.table(self.L, q_max * (1 + 1e-9), points)
        self.trace = float(np.trace(self.Sigma))

    def reach(self, theta: np.ndarray) -> float:
        """> 0 while lambda(theta) is inside the table's reach (the stopping event of `flow`);
        the 2 % margin keeps most stages of the step that crosses it inside the table; a step with a
        stage beyond it is rejected by `flow` and retried shorter."""
        A, _ = unpack(theta, self.d)
        return self.lam_max * (1 - REACH_MARGIN) - whitened_lambda(self.Sigma, A)

    def excess(self, theta: np.ndarray) -> float:
        A, b = unpack(theta, self.d)
        if whitened_lambda(self.Sigma, A) > self.lam_max * (1 + 1e-9):
            raise OutOfReach(
                theta,
                why=f"lambda(theta) = {whitened_lambda(self.Sigma, A):.4g} exceeds the table's "
                f"{self.lam_max:.4g}",
            )
        terms = selfnormalised.query_terms(self.Sigma, A, b * np.eye(self.d), self.X)
        mse = selfnormalised.exact_mse(self.table, terms)  # E |b err|^2 per query
        AL, _ = self.table.moments(terms.q)
        u = self.X @ A.T @ self.Sigma  # rows: Sigma a (Sigma symmetric)
        r = b * u - self.X
        cross = -2.0 * b * AL * np.sum(r * u, axis=1)  # 2 r^T E[b err]
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


# The field evaluations one flow may spend: thm-4.3's built-in flows need 500 to 1.4e3 (measured at
# standard), about 6 ms each; a stiff scenario (a hunt draw: Sigma ~ 1e-6, alpha ~ 3e5, T = 4e10)
# reached t = 15 after 2e4 of them (123 s) and ran past 150 s before the budget.
MAX_EVALUATIONS = 5_000


def flow(
    grad,
    theta0: np.ndarray,
    t_eval: np.ndarray,
    rtol: float = 1e-9,
    reach=None,
    evaluations: int = MAX_EVALUATIONS,
) -> np.ndarray:
    """theta(t) at t_eval for dtheta/dt = -grad(theta) (DOP853, atol = rtol * min(1, |theta0|) where
    theta0 != 0, else rtol * 1e-12).

    The absolute tolerance follows the initial state's own scale below 1: a flow from a tiny
    initialisation (alpha ~ 1e-6) creeps along the saddle at 0 before it escapes, and the time it
    escapes, hence every later state, inherits the relative error of that plateau (at atol =
    rtol, the trajectory from alpha = 9.5e-7 erred by 1e-6 absolute after the escape, the
    float route's stated error, which the Arb tube refuted).

    `reach(theta)`: optional, > 0 where `grad` can be evaluated (e.g. an ExcessRisk's table reach).
    The flow is an event: it stops where `reach` crosses 0, located on the step's dense output, and
    OutOfReach carries the time and the state there. A trial step whose Runge-Kutta stages leave the
    domain (`grad` raises OutOfReach, whose `t` is None) is rejected and retried with half the step;
    whether a stage lands outside depends on the last bits of the arithmetic, so a rejected stage
    must not decide the outcome. The stepping, the dense output and the event location are those of
    scipy's solve_ivp, which has no way to reject a step from inside the right-hand side. More than
    `evaluations` field evaluations: BeyondReach (a flow too stiff for this explicit method)."""
    theta0 = np.asarray(theta0, float)
    t_eval = np.asarray(t_eval, float)
    size = float(np.max(np.abs(theta0))) if theta0.size else 0.0
    scale = min(1.0, size) if size > 0 else 1e-12
    spent = {"calls": 0, "t": 0.0}  # the time reached, for the message (DOP853 calls from t = 0)

    def field(t, y):
        spent["calls"] += 1
        if spent["calls"] > evaluations:
            raise validate.BeyondReach(
                f"the exact gradient flow spent its {evaluations:,} field evaluations by "
                f"t = {spent['t']:.3g} of T = {float(t_eval[-1]):.3g}: too stiff for the explicit "
                "DOP853 route (thm-4.3's built-in flows need at most 1.4e3)"
            )
        spent["t"] = max(spent["t"], float(t))
        return -grad(y)

    solver = DOP853(field, 0.0, theta0, float(t_eval[-1]), rtol=rtol, atol=rtol * scale)
    out, k = [], 0
    g_old = None if reach is None else reach(theta0)
    while solver.status == "running":
        t_old = solver.t
        try:
            message = solver.step()
        except OutOfReach as exc:
            if exc.t is not None:
                raise
            solver.h_abs *= 0.5  # reject the trial step (solver state is the last accepted one)
            if solver.h_abs < 10 * np.finfo(float).eps * max(1.0, abs(t_old)):
                raise OutOfReach(
                    solver.y, t=float(t_old), why="the step size underflowed at the reach"
                ) from exc
            continue
        if solver.status == "failed":
            raise FloatingPointError(f"DOP853 failed: {message}")
        dense = solver.dense_output()
        t_stop = None
        if reach is not None:
            g_new = reach(solver.y)
            if g_old > 0 >= g_new:  # direction -1: the reach is being left
                t_stop = brentq(
                    lambda t: reach(dense(t)), t_old, solver.t, xtol=4 * np.finfo(float).eps
                )
            g_old = g_new
        t_end = solver.t if t_stop is None else t_stop
        stop = np.searchsorted(t_eval, t_end, side="right")
        if stop > k:
            out.append(dense(t_eval[k:stop]).T)
            k = stop
        if t_stop is not None:
            raise OutOfReach(dense(t_stop), t=float(t_stop))
    return np.concatenate(out, axis=0)
