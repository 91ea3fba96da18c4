"""Gradient flows of the in-context linear-regression risk (docs/paper.md section 5), integrated
with SciPy.

(A, b) flow: dA/dt = -grad_A R_inf, db/dt = -grad_b R_inf, with the emitted kernels of
derivations/icl_kernels.py. Full flow: the same for (U11, u, v, b) with the emitted full-risk
gradients (the other entries of (U, V) have identically zero gradient, proved in
derivations/icl_gradients.py). The endpoint, the conserved quantity, the transverse rate and the
alpha ranges are the emitted kernels of derivations/icl_endpoint.py; what stays here is algorithm:
the eigenvalues they take as arguments, the initialisation, and the integration.

Stiffness: the minimisers form the curve {b Sigma A = I}; transverse to it the Hessian has
eigenvalues between b^2 lambda_min(Sigma)^3 and b^2 ||Sigma||^3
(d^2 R = ||(db Sigma A + b Sigma dA) Sigma^(1/2)||^2 at a minimiser), so for condition numbers up to
100 the problem is stiff: we use the implicit Radau method, whose accuracy is governed by rtol
(<= 1e-10 here) and atol.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.integrate import solve_ivp

from . import kernels, validate

RTOL = 1e-10
# The field evaluations one integration may spend (Radau's Jacobian columns included). Measured
# (Radau, rtol 1e-10, from the balanced start to T = 40 / transverse rate + 50): the built-in
# scenarios need at most 1.2e4; Sigma = diag(1, lam) needs 1.3e4, 4.8e4 and 3.3e5 at lam = 1e-2,
# 1e-3, 1e-4 (15 s), about seven times more per decade of condition number, since the float
# rounding of the equilibrated fast directions caps the step. So the budget decides condition
# numbers up to about 1e4, and a flow beyond them ends in BeyondReach within a minute instead of
# running for hours.
MAX_EVALUATIONS = 500_000


class OutOfBudget(Exception):
    """An integration spent its field evaluations before T; `t` is the time it had reached."""

    def __init__(self, t: float, evaluations: int):
        super().__init__(f"{evaluations:,} field evaluations spent at t = {t:.3g}")
        self.t, self.evaluations = t, evaluations


def _budgeted(rhs, evaluations: int):
    """`rhs`, raising OutOfBudget on its call number `evaluations` + 1."""
    state = {"calls": 0, "t": 0.0}

    def counted(t, y):
        state["calls"] += 1
        if state["calls"] > evaluations:
            raise OutOfBudget(state["t"], evaluations)
        state["t"] = max(state["t"], float(np.max(t)))
        return rhs(t, y)

    return counted


def _radau(what, Sigma, rhs, T, y0, rtol, scale, t_eval, evaluations, events=None):
    """solve_ivp's Radau on [0, T] at atol 1e-12 scale, within `evaluations` field evaluations
    (else BeyondReach, `beyond_reach`); a failed integration raises FloatingPointError."""
    try:
        sol = solve_ivp(
            _budgeted(rhs, evaluations),
            (0.0, T),
            y0,
            method="Radau",
            rtol=rtol,
            atol=1e-12 * scale,
            t_eval=t_eval,
            events=events,
        )
    except OutOfBudget as exc:
        raise beyond_reach(what, Sigma, T, exc) from None
    if not sol.success:
        raise FloatingPointError(f"solve_ivp failed: {sol.message}")
    return sol


def beyond_reach(what: str, Sigma: np.ndarray, T: float, exc: OutOfBudget):
    """The BeyondReach a flow raises when it ran out of budget: the time reached, and why."""
    lam = np.linalg.eigvalsh(Sigma)
    return validate.BeyondReach(
        f"the {what} gradient flow spent its {exc.evaluations:,} field evaluations by "
        f"t = {exc.t:.3g} of T = {T:.3g}: Sigma's condition number {lam[-1] / lam[0]:.3g} "
        f"(eigenvalues {lam[0]:.3g} to {lam[-1]:.3g}) makes it too stiff for the float ODE "
        "route, which decides condition numbers up to about 1e4"
    )


def balanced_init(Sigma: np.ndarray, alpha: float, Theta=None) -> tuple[np.ndarray, float]:
    """A(0) = alpha Theta Theta^T / ||Theta Theta^T||_F, b(0) = alpha (Theta = I by default)."""
    if (
        isinstance(alpha, bool)
        or not isinstance(alpha, (int, float))
        or not math.isfinite(alpha)
        or alpha <= 0
    ):
        raise ValueError(f"alpha = {alpha!r} must be a finite number > 0")
    d = Sigma.shape[0]
    Th = np.eye(d) if Theta is None else validate.matrix("theta", Theta, (d, None))
    G = Th @ Th.T
    nrm = np.linalg.norm(G)
    if nrm == 0:
        raise ValueError(f"theta = {Th.tolist()} gives Theta Theta^T = 0")
    return alpha * G / nrm, float(alpha)


def endpoint(Sigma: np.ndarray) -> tuple[np.ndarray, float]:
    """(A*, b*) = (tr(Sigma^-2)^(-1/4) Sigma^-1, tr(Sigma^-2)^(1/4))
    (kernels icl_endpoint_A, icl_endpoint_b)."""
    return np.asarray(kernels.icl_endpoint_A(Sigma), float), float(kernels.icl_endpoint_b(Sigma))


def paper_alpha_bound(Sigma: np.ndarray) -> float:
    """sqrt(2) / (d^(1/4) ||Sigma||_op): the alpha range stated with Theorem 5.2
    (kernel icl_paper_alpha_bound)."""
    return float(kernels.icl_paper_alpha_bound(float(np.linalg.norm(Sigma, 2)), Sigma.shape[0]))


def zfb_alpha_bound(Sigma: np.ndarray) -> float:
    """sqrt(2 / (||Sigma||_op sqrt(d))): the cited linear-attention condition
    alpha^2 ||Sigma|| sqrt(d) < 2 (kernel icl_zfb_alpha_bound)."""
    return float(kernels.icl_zfb_alpha_bound(float(np.linalg.norm(Sigma, 2)), Sigma.shape[0]))


def transverse_rate(Sigma: np.ndarray) -> float:
    """b*^2 lambda_min(Sigma)^3: the slowest transverse decay rate at the endpoint
    (kernel icl_transverse_rate)."""
    return float(kernels.icl_transverse_rate(Sigma, float(np.min(np.linalg.eigvalsh(Sigma)))))


def _ab_rhs(Sigma, d):
    def rhs(t, y):
        A = y[:-1].reshape(d, d)
        b = y[-1]
        return np.concatenate(
            [-kernels.icl_grad_A(Sigma, A, b).ravel(), [-float(kernels.icl_grad_b(Sigma, A, b))]]
        )

    return rhs


def integrate_ab(
    Sigma: np.ndarray,
    A0: np.ndarray,
    b0: float,
    T: float,
    eps_list=(),
    n_eval: int = 200,
    rtol: float = RTOL,
    evaluations: int = MAX_EVALUATIONS,
) -> dict:
    """Integrate the (A, b) flow on [0, T]; returns times, A(T), b(T), the conserved quantity's
    drift, the risk along a log-spaced grid, and the first time the risk reaches each eps
    (inf if never). More than `evaluations` field evaluations: BeyondReach."""
    if rtol > 1e-10:
        raise ValueError(f"rtol = {rtol} must be <= 1e-10")
    d = Sigma.shape[0]
    y0 = np.concatenate([A0.ravel(), [b0]])
    risk = lambda y: float(kernels.icl_risk(Sigma, y[:-1].reshape(d, d), y[-1]))
    events = []
    for eps in eps_list:
        ev = (lambda e: lambda t, y: risk(y) - e)(eps)
        ev.terminal = False
        ev.direction = -1
        events.append(ev)
    # A gradient flow never raises the risk: stop at once if it does (a wrong-sign field would
    # otherwise run to overflow); the endpoint checks then fail on the truncated run.
    r_start = risk(y0)
    ascent = lambda t, y: risk(y) - r_start * (1 + 1e-6) - 1e-12  # noqa: E731
    ascent.terminal, ascent.direction = True, 1
    events.append(ascent)
    t_eval = np.concatenate([[0.0], np.geomspace(min(1e-3, T / 10), T, n_eval - 1)])
    # atol: components are O(|A*|, b*); 1e-12 relative to that scale keeps atol below rtol * |y|.
    scale = max(1.0, float(np.max(np.abs(y0))), endpoint(Sigma)[1])
    sol = _radau(
        "(A, b)", Sigma, _ab_rhs(Sigma, d), T, y0, rtol, scale, t_eval, evaluations, events
    )
    Y = sol.y.T
    inv = np.array([float(kernels.icl_balance(y[:-1].reshape(d, d), y[-1])) for y in Y])
    r0 = risk(y0)
    times = {
        eps: (0.0 if r0 <= eps else float(sol.t_events[j][0]) if len(sol.t_events[j]) else math.inf)
        for j, eps in enumerate(eps_list)
    }
    return {
        "t": sol.t,
        "A": Y[-1, :-1].reshape(d, d),
        "b": float(Y[-1, -1]),
        "risk": [risk(y) for y in Y],
        "risk_increased": bool(len(sol.t_events[-1])),
        "reached_T": bool(sol.t[-1] >= T),
        "invariant": inv,
        "invariant_drift": float(np.max(np.abs(inv - inv[0]))),
        "time_to_risk": times,
        "nfev": int(sol.nfev),
    }


def integrate_full(
    Sigma: np.ndarray,
    A0: np.ndarray,
    u0,
    v0,
    b0: float,
    T: float,
    n_eval: int = 100,
    rtol: float = RTOL,
    evaluations: int = MAX_EVALUATIONS,
) -> dict:
    """Integrate the full (U11, u, v, b) flow; returns the largest |u|, |v| entry over the time
    grid. More than `evaluations` field evaluations: BeyondReach."""
    d = Sigma.shape[0]

    def split(y):
        return (
            y[: d * d].reshape(d, d),
            y[d * d : d * d + d].reshape(d, 1),
            y[d * d + d : d * d + 2 * d].reshape(d, 1),
            y[-1],
        )

    def rhs(t, y):
        A, u, v, b = split(y)
        return -np.concatenate(
            [
                kernels.icl_full_grad_U11(Sigma, A, u, v, b).ravel(),
                np.ravel(kernels.icl_full_grad_u(Sigma, A, u, v, b)),
                np.ravel(kernels.icl_full_grad_v(Sigma, A, u, v, b)),
                [float(kernels.icl_full_grad_b(Sigma, A, u, v, b))],
            ]
        )

    y0 = np.concatenate([A0.ravel(), np.ravel(u0), np.ravel(v0), [b0]])
    t_eval = np.concatenate([[0.0], np.geomspace(min(1e-3, T / 10), T, n_eval - 1)])
    scale = max(1.0, float(np.max(np.abs(y0))), endpoint(Sigma)[1])
    sol = _radau("full (U, V)", Sigma, rhs, T, y0, rtol, scale, t_eval, evaluations)
    off = np.abs(sol.y[d * d : d * d + 2 * d, :]).max(axis=0)
    A, u, v, b = split(sol.y[:, -1])
    return {
        "t": sol.t,
        "max_offblock": float(off.max()),
        "offblock": off,
        "A": A,
        "b": float(b),
        "risk": float(kernels.icl_full_risk(Sigma, A, u, v, b)),
    }
