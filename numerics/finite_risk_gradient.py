"""Gradient of the exact finite-L softmax risk and its gradient flow (an algorithm).

grad R_L(mu, omega) = E_{x_q} (dI/dmu, dI/domega), the integrand's total derivatives derived and
emitted from derivations/risk_finite_gradient.py (`finite_risk_integrand_grad_*`), averaged with the
polar query rule of numerics/finite_risk.py (differentiation under the quadrature: the rule's nodes
do not depend on (mu, omega)). The slopes A_L'(q), B_L'(q) are those of the tabulated moments: with
x = sqrt q and the cubic splines l_A(x) = log A_L, l_B(x) = log B_L of the table,
    A_L'(q) = A_L(q) l_A'(x) / (2 x)      (-> A_L(0) l_A''(0) / 2 as x -> 0: l_A is even in x).
Stated error of a gradient: the sum of the changes when the radial rule is halved and every other
table point dropped (as numerics/finite_risk.exact_risk, without its angular coarsening: the judged
gradients are compared with the risk surface on the same angular rule, and the former tensor rule's
coarser nodes could leave the shared table's range); tests
compare it with central differences of the exact risk (an independent route: no slopes) and with a
finer table.

Gradient flow: d(mu, omega)/dt = -grad R_L from the authors' initialisation (scipy's solve_ivp, BDF:
the flow is stiff, a fast direction across the valley mu omega ~ p*_L and a slow one along it:
Hessian eigenvalues 24 and 9e-3 at L = 1000; measured there to t = 1e5, rtol 1e-7: 913 gradient
evaluations for BDF, 1630 for LSODA, the same end to 1e-8; RK45 needs ~3300 to reach t = 300 alone),
the infinite-batch limit of their SGD at time t = lr x steps. The flow runs on a coarser rule than
the judged gradient (FLOW_RADIAL, FLOW_ANGULAR), its end is judged on the fine one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import interpolate
from scipy.integrate import solve_ivp

from . import kernels
from .finite_risk import ANGULAR_NODES, RADIAL_NODES, Model, QueryRule, half_table, query_rule

FLOW_RTOL, FLOW_ATOL = 1e-7, 1e-10
SMALL_X = 1e-6  # below this sqrt(q) the slope uses the spline's curvature at 0
# The flow's cheaper rule (its endpoint is judged on the fine rule): 80 radial nodes and the fine
# rule's angular Gauss rule (numerics/finite_risk.angular_rule: 20 nodes, against 625 for the former
# tensor rule at 5 per Beta variable, d = 5). Measured on authors-experiment's law (L = 20, 1000):
# the same CPU time as 5 or 10 nodes, and the flow's end 2e-6 from the surface's optimum in
# (mu, omega) against 4e-5 (10 nodes) and 2e-4 (5 nodes).
FLOW_RADIAL, FLOW_ANGULAR = 80, ANGULAR_NODES


class Slopes:
    """(A, B, A', B') at an array of q from a table's splines in x = sqrt q (module docstring)."""

    def __init__(self, tab):
        ends = (
            (1, 0.0),
            "not-a-knot",
        )  # even in x: slope 0 at x = 0 (numerics/selfnormalised.Table)
        self.q_max = float(tab.q[-1])
        self.splines = [
            interpolate.CubicSpline(np.sqrt(tab.q), logs, bc_type=ends)
            for logs in (tab.log_a, tab.log_b)
        ]

    def __call__(self, q):
        q = np.asarray(q, dtype=float)
        if np.any(q > self.q_max * (1 + 1e-12)):
            raise ValueError(
                f"q outside the table range [0, {self.q_max:.4g}]: {float(np.max(q)):.4g}"
            )
        x = np.sqrt(q)
        out = []
        for s in self.splines:
            val = np.exp(s(x))
            ratio = np.where(x > SMALL_X, s(x, 1) / (2 * np.maximum(x, SMALL_X)), s(0.0, 2) / 2)
            out.append((val, val * ratio))
        (A, dA), (B, dB) = out
        return A, B, dA, dB


def rule_gradient(
    model: Model, rule: QueryRule, slopes: Slopes, mu: float, omega: float
) -> np.ndarray:
    """(dR/dmu, dR/domega): the emitted integrand derivatives averaged with the polar rule, at
    k1 = a Q and k2 = b Q on the rule's nodes (angular a, b; radial Q)."""
    k1, k2 = rule_k(rule)
    return _gradient_at(model, rule, k1, k2, slopes(omega**2 * k1), mu, omega)


def rule_k(rule: QueryRule) -> tuple[np.ndarray, np.ndarray]:
    """(k1, k2) = (a Q, b Q) on the rule's nodes, (angular, radial)."""
    return np.outer(rule.a, rule.Q), np.outer(rule.b, rule.Q)


def _gradient_at(
    model: Model, rule: QueryRule, k1, k2, moments, mu: float, omega: float
) -> np.ndarray:
    """`rule_gradient` given (k1, k2) and the slopes' (A, B, A', B') at q = omega^2 k1, so that
    several mu at one omega share the splines' evaluation. One call of each kernel, at k2 = b Q on
    the nodes (as numerics/finite_risk.average): the derivatives are affine in k2, so this is the
    split P(k1) + k2 R(k1), R = I(k2 = 1) - I(k2 = 0), to rounding, for half the kernel calls."""
    A, B, dA, dB = moments
    tr_p = float(np.trace(model.Sigma_p))
    return np.array(
        [
            float(
                rule.wa
                @ (kern(mu, omega, model.tau, model.s2, tr_p, k1, k2, A, B, dA, dB) @ rule.wq)
            )
            for kern in (
                kernels.finite_risk_integrand_grad_mu,
                kernels.finite_risk_integrand_grad_omega,
            )
        ]
    )


@dataclass(frozen=True)
class Gradient:
    value: np.ndarray  # (dR/dmu, dR/domega)
    error: np.ndarray  # stated numerical error per component


class GradientSurface:
    """grad R_L for one L on the rule and table of a numerics/finite_risk.RiskSurface
    (shared: the table of A_L, B_L is the costly part). `flow_rule` (coarser, cheap) drives the
    gradient flow; `gradient` (the surface's own rule, with a stated error) judges its endpoint."""

    def __init__(self, surface, flow_rule: QueryRule | None = None):
        self.model, self.L, self.omega_max = surface.model, surface.L, surface.omega_max
        self.rule = surface.rule
        self.coarse = query_rule(self.model, RADIAL_NODES // 2, ANGULAR_NODES)
        self.flow_rule = flow_rule or query_rule(self.model, FLOW_RADIAL, FLOW_ANGULAR)
        self.slopes, self.half = Slopes(surface.table), Slopes(half_table(surface.table))
        # the table covers omega^2 a Q <= q_max for the surface's rule; a coarser rule may reach
        # further out
        reach = max(float(r.a.max() * r.Q.max()) for r in (self.rule, self.coarse, self.flow_rule))
        self.omega_max = min(self.omega_max, math.sqrt(self.slopes.q_max / reach))
        self._k1 = {}
        # the last (omega, slopes) of each (rule, table): the Hessian's mu +- h, the flow solver's
        # Jacobian column in mu and the gradient at a recorded point share their omega
        self._last: dict[tuple[int, int], tuple[float, tuple]] = {}
        # every judged gradient (not the flow's), by (rule, table, mu, omega, kernels): the flow's
        # end is also its last recorded point, whose gradient and Hessian the end's tolerance asks
        # for again; the kernels are in the key so that a test replacing one is not served the old
        # values
        self._values: dict[tuple, np.ndarray] = {}

    def _at(self, rule: QueryRule, slopes: Slopes, mu: float, omega: float) -> np.ndarray:
        if rule is self.flow_rule:
            # the flow asks once per point: keeping its ~900 small arrays per L interleaved with
            # the fine rule's 4.6 MB temporaries raised the peak RSS of 19 flows by ~190 MB
            return self._compute(rule, slopes, mu, omega)
        point = (
            id(rule),
            id(slopes),
            float(mu),
            float(omega),
            kernels.finite_risk_integrand_grad_mu,
            kernels.finite_risk_integrand_grad_omega,
        )
        if point not in self._values:
            self._values[point] = self._compute(rule, slopes, mu, omega)
        return self._values[point].copy()

    def _compute(self, rule: QueryRule, slopes: Slopes, mu: float, omega: float) -> np.ndarray:
        key = (id(rule), id(slopes))
        if key not in self._k1:
            self._k1[key] = np.outer(rule.a, rule.Q)
        k1 = self._k1[key]
        last = self._last.get(key)
        if last is None or last[0] != float(omega):
            last = (float(omega), slopes(omega**2 * k1))
            self._last[key] = last
        # k2 = b Q made afresh (~1 ms on the fine rule, 3% of a call): kept beside k1 for the three
        # fine (rule, table) pairs it raised the peak RSS of the flows at L = 10..80 by ~110 MB
        return _gradient_at(self.model, rule, k1, np.outer(rule.b, rule.Q), last[1], mu, omega)

    def _check(self, omega):
        if not math.isfinite(omega) or abs(omega) > self.omega_max:
            raise ValueError(
                f"omega = {omega} outside the gradient surface's range |omega| <= {self.omega_max}"
            )

    def value(self, mu: float, omega: float) -> np.ndarray:
        self._check(omega)
        return self._at(self.rule, self.slopes, mu, omega)

    def flow_value(self, mu: float, omega: float) -> np.ndarray:
        self._check(omega)
        return self._at(self.flow_rule, self.slopes, mu, omega)

    def gradient(self, mu: float, omega: float) -> Gradient:
        """The gradient with its stated error: the changes when the radial rule is halved and when
        every other table point is dropped (module docstring: no angular coarsening)."""
        g = self.value(mu, omega)
        err = np.abs(g - self._at(self.coarse, self.slopes, mu, omega)) + np.abs(
            g - self._at(self.rule, self.half, mu, omega)
        )
        return Gradient(g, err)

    def hessian(self, mu: float, omega: float, h: float = 1e-4) -> np.ndarray:
        """Central differences of the gradient, symmetrised (for the SGD noise floor)."""
        cols = [
            (self.value(mu + h, omega) - self.value(mu - h, omega)) / (2 * h),
            (self.value(mu, omega + h) - self.value(mu, omega - h)) / (2 * h),
        ]
        H = np.column_stack(cols)
        return (H + H.T) / 2


def flow(grad, init, t_end: float, t_record=()) -> dict:
    """Gradient flow theta' = -grad(theta) from `init` to t_end (BDF). Returns {"end": (mu, omega),
    "at": {t: (mu, omega)} for t in t_record, "t": times, "path": (k, 2), "evaluations"}."""
    ts = sorted({float(t) for t in t_record if 0 < t < t_end} | {float(t_end)})
    sol = solve_ivp(
        lambda t, th: -np.asarray(grad(th[0], th[1])),
        (0.0, float(t_end)),
        np.asarray(init, float),
        method="BDF",
        rtol=FLOW_RTOL,
        atol=FLOW_ATOL,
        t_eval=np.geomspace(1e-2, t_end, 60).tolist() if t_end > 1e-2 else None,
        dense_output=True,
    )
    if not sol.success:
        raise RuntimeError(f"gradient flow failed: {sol.message}")
    at = {t: tuple(float(v) for v in sol.sol(t)) for t in ts}
    return {
        "end": at[float(t_end)],
        "at": at,
        "t": sol.t.tolist(),
        "path": sol.y.T.copy(),
        "evaluations": int(sol.nfev),
    }
