"""Exact finite-L risk of the authors' two-head softmax model, by quadrature (an algorithm).

R_L(mu_1, mu_2, omega_1, omega_2) = tau tr Sigma_q + s2 + E_{x_q} integrand(k1, k2, A_hk, B_hk), the
integrand derived in derivations/risk_finite_heads.py and emitted as
`kernels.finite_risk_heads_integrand` (affine in k2), the moments taken at the temperatures
c_h = omega_h sqrt(k1). The query average is numerics/finite_risk.py's polar rule (radial
Gauss-Laguerre in Q ~ chi2_d, the Gauss rule of the law of a = D.lam over the directions,
`angular_rule`).

Moments: on a grid r_j = sqrt(k1_max) j / (n - 1) (dense near 0 in k1), the one-head A_L(c_h^2),
B_L(c_h^2) (numerics/selfnormalised.log_moments) and the cross A_12, B_12
(numerics/selfnormalised_pair.moments), interpolated by cubic splines in r: log A_hh, log B_hh, and
the cross moments as correlations A_12 / sqrt(A_11 A_22), B_12 / sqrt(B_11 B_22)
(bounded, smooth; all even in r, so the slope at r = 0 is 0). B_12 may be negative: it is never
interpolated in log space.

Stated error: as numerics/finite_risk.py, the sum of the changes when the radial nodes are halved,
the angular nodes lowered by 4 and every other table point dropped, plus the change when the cross
moments are taken at numerics/selfnormalised_pair.py's default step instead of the finer
PAIR_STEP_V that gives the value (tests compare with a finer evaluation). That last term is the
pair routine's own discretisation error, which no node count of the query rule sees: at the default
step it is ~4e-8 relative at small temperatures, and where two heads cancel (mu = (1, -1),
omega = (w, -w), tiny Sigma) it was the whole of a stated-error shortfall of 750 times.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import interpolate

from . import kernels, validate
from . import finite_risk as fr
from .selfnormalised import log_moments
from .selfnormalised_pair import moments as pair_moments

DEFAULT_TABLE_POINTS = 33  # odd: every other point is again a grid with both ends
# exact_risk's cross moments: trapezoid step in v = log(s L) (selfnormalised_pair: error ~
# exp(-pi^2 / step), measured 2e-13 relative at 0.3 against 4e-8 at the default 0.5)
PAIR_STEP_V = 0.3


@dataclass
class PairTable:
    """The six moments on r = sqrt(k1) in [0, r_max] for fixed (omega_1, omega_2) and L."""

    L: int
    omega: tuple[float, float]
    r: np.ndarray
    values: np.ndarray  # (6, n): log A11, log B11, log A22, log B22, corr A12, corr B12

    def __post_init__(self):
        ends = ((1, 0.0), "not-a-knot")
        self._splines = [interpolate.CubicSpline(self.r, v, bc_type=ends) for v in self.values]

    def moments(self, k1: np.ndarray) -> tuple[np.ndarray, ...]:
        """(A11, A22, A12, B11, B22, B12) at the given k1 (array)."""
        r = np.sqrt(np.asarray(k1, dtype=float))
        if np.any(r > self.r[-1] * (1 + 1e-12)):
            raise ValueError(f"k1 outside the table range [0, {self.r[-1] ** 2:.4g}]")
        la1, lb1, la2, lb2, ca, cb = (s(r) for s in self._splines)
        A11, B11, A22, B22 = np.exp(la1), np.exp(lb1), np.exp(la2), np.exp(lb2)
        return A11, A22, ca * np.sqrt(A11 * A22), B11, B22, cb * np.sqrt(B11 * B22)

    def half(self) -> "PairTable":
        return PairTable(self.L, self.omega, self.r[::2], self.values[:, ::2])


def pair_table(
    L: int,
    omega: tuple[float, float],
    k1_max: float,
    points: int = DEFAULT_TABLE_POINTS,
    step_v: float | None = None,
) -> PairTable:
    """The six moments on `points` values of r = sqrt(k1) in [0, sqrt(k1_max)]; the cross moments
    at trapezoid step `step_v` (default: selfnormalised_pair's)."""
    if points % 2 == 0 or points < 5:
        raise ValueError(f"points = {points!r} must be odd and >= 5")
    r = math.sqrt(max(k1_max, 1e-6)) * (np.arange(points) / (points - 1))
    o1, o2 = omega
    rows = []
    for x in r:
        la1, lb1 = log_moments(o1 * o1 * x * x, L)
        la2, lb2 = log_moments(o2 * o2 * x * x, L)
        A12, B12 = (
            pair_moments(o1 * x, o2 * x, L)
            if step_v is None
            else pair_moments(o1 * x, o2 * x, L, step_v=step_v)
        )
        rows.append(
            (la1, lb1, la2, lb2, A12 / math.exp((la1 + la2) / 2), B12 / math.exp((lb1 + lb2) / 2))
        )
    return PairTable(int(L), (float(o1), float(o2)), r, np.array(rows).T)


def average(model: fr.Model, rule: fr.QueryRule, tab: PairTable, mu) -> float:
    """tau tr Sigma_q + s2 + E integrand, the integrand split as P(k1) + k2 R(k1) (affine in k2)."""
    k1 = np.outer(rule.a, rule.Q)
    M = tab.moments(k1)
    tr_p = float(np.trace(model.Sigma_p))
    args = (mu[0], mu[1], tab.omega[0], tab.omega[1], model.tau, model.s2, tr_p, k1)
    P = kernels.finite_risk_heads_integrand(*args, np.zeros_like(k1), *M)
    R = kernels.finite_risk_heads_integrand(*args, np.ones_like(k1), *M) - P
    per_angle = P @ rule.wq + rule.b * ((R * rule.Q) @ rule.wq)
    return float(model.tau * np.trace(model.Sigma_q) + model.s2 + rule.wa @ per_angle)


def _heads(name: str, value) -> tuple[float, float]:
    v = validate.vector(name, value, 2)
    return float(v[0]), float(v[1])


def _rules(model, radial, angular):
    rule = fr.query_rule(model, radial, angular)
    coarse_r = fr.query_rule(model, radial // 2, angular)
    coarse_a = fr.query_rule(model, radial, max(2, angular - 4))
    k1_max = max(float(r.a.max() * r.Q.max()) for r in (rule, coarse_r, coarse_a))
    return rule, coarse_r, coarse_a, k1_max


def exact_risk(
    model: fr.Model,
    L: int,
    mu,
    omega,
    radial: int = fr.RADIAL_NODES,
    angular: int = fr.ANGULAR_NODES,
    points: int = DEFAULT_TABLE_POINTS,
) -> fr.RiskValue:
    """R_L(mu, omega) for two heads (mu, omega of length 2) with its stated error
    (module docstring)."""
    validate.prompt_length("L", L)
    mu, omega = _heads("mu", mu), _heads("omega", omega)
    rule, coarse_r, coarse_a, k1_max = _rules(model, radial, angular)
    tab = pair_table(L, omega, k1_max, points, step_v=PAIR_STEP_V)
    value = average(model, rule, tab, mu)
    err = sum(
        abs(value - average(model, r, t, mu))
        for r, t in (
            (coarse_r, tab),
            (coarse_a, tab),
            (rule, tab.half()),
            (rule, pair_table(L, omega, k1_max, points)),
        )
    )
    return fr.RiskValue(value, max(err, fr.ROUNDOFF * abs(value)))


def quadratic(
    model: fr.Model, rule: fr.QueryRule, tab: PairTable
) -> tuple[float, np.ndarray, np.ndarray]:
    """For fixed omega the risk is quadratic in mu (the integrand is): R = c0 + g.mu + mu^T H mu,
    read off six values."""
    R = lambda m1, m2: average(model, rule, tab, (m1, m2))
    c0 = R(0.0, 0.0)
    p1, n1, p2, n2 = R(1.0, 0.0), R(-1.0, 0.0), R(0.0, 1.0), R(0.0, -1.0)
    g = np.array([(p1 - n1) / 2, (p2 - n2) / 2])
    h11, h22 = (p1 + n1) / 2 - c0, (p2 + n2) / 2 - c0
    h12 = (R(1.0, 1.0) - c0 - g.sum() - h11 - h22) / 2
    return c0, g, np.array([[h11, h12], [h12, h22]])


def profile(model: fr.Model, rule: fr.QueryRule, tab: PairTable) -> tuple[float, np.ndarray]:
    """(min over mu of R, the minimiser mu*) for the table's omega: mu* = -H^{-1} g / 2."""
    c0, g, H = quadratic(model, rule, tab)
    mu = -np.linalg.solve(H, g) / 2
    return float(c0 + g @ mu / 2), mu


def antisymmetric_optimum(
    model: fr.Model,
    L: int,
    omega_max: float = 1.0,
    lo: float = 1e-2,
    points: int = 17,
    xatol: float = 1e-5,
) -> dict:
    """The optimum over the antisymmetric pairs (mu, omega), (-mu, -omega),
    yhat = mu (S(omega) - S(-omega)).

    Why this family: the integrand is invariant under (mu_h, omega_h) -> (-mu_h, -omega_h) for both
    heads (it sees omega_h omega_k, mu_h mu_k, mu_h omega_h and moments even under
    (c_1, c_2) -> (-c_1, -c_2), g -> -g) and under swapping the heads; the antisymmetric pairs are
    the fixed points of the composition of the two, so a critical point of the risk restricted to
    them is a critical point of the full two-head risk (its gradient lies in the fixed subspace).
    Whether it is a minimum in the other directions is checked by the caller. For fixed omega the
    risk is a quadratic in mu (three values); the profile is minimised over omega in [lo, omega_max]
    by bounded Brent."""
    from scipy.optimize import minimize_scalar

    rule = fr.query_rule(model)
    k1_max = float(rule.a.max() * rule.Q.max())

    def prof(om):
        tab = pair_table(L, (om, -om), k1_max, points)
        r0, rp, rm = (average(model, rule, tab, (m, -m)) for m in (0.0, 1.0, -1.0))
        c1, c2 = (rp - rm) / 2, (rp + rm) / 2 - r0
        return r0 - c1 * c1 / (4 * c2), -c1 / (2 * c2)

    res = minimize_scalar(
        lambda om: prof(om)[0], bounds=(lo, omega_max), method="bounded", options={"xatol": xatol}
    )
    R, mu = prof(float(res.x))
    return {
        "mu": [mu, -mu],
        "omega": [float(res.x), -float(res.x)],
        "risk": R,
        "evaluations": int(res.nfev),
    }


def profile_at(
    model: fr.Model, L: int, omega, points: int = DEFAULT_TABLE_POINTS
) -> tuple[float, np.ndarray]:
    """min over (mu_1, mu_2) of R_L at fixed omega (the full 2 x 2 quadratic), with the
    minimiser."""
    rule = fr.query_rule(model)
    return profile(
        model,
        rule,
        pair_table(L, tuple(_heads("omega", omega)), float(rule.a.max() * rule.Q.max()), points),
    )


def optimum(
    model: fr.Model, L: int, start, omega_max: float = 1.0, points: int = 17, xatol: float = 1e-4
) -> dict:
    """(mu*, omega*, R*) of the two-head surface: Nelder-Mead over (omega_1, omega_2) in
    [-omega_max, omega_max]^2 from `start` (the profile risk, mu eliminated in closed form), each
    step with its own (coarser, `points`) table; the caller re-evaluates the optimum with
    exact_risk."""
    from scipy.optimize import minimize

    rule = fr.query_rule(model)
    k1_max = float(rule.a.max() * rule.Q.max())

    def f(om):
        if np.max(np.abs(om)) > omega_max or abs(om[0] - om[1]) < 1e-6:  # equal heads: H singular
            return math.inf
        return profile(model, rule, pair_table(L, tuple(om), k1_max, points))[0]

    res = minimize(
        f,
        np.asarray(start, float),
        method="Nelder-Mead",
        options={"xatol": xatol, "fatol": 1e-12, "initial_simplex": None},
    )
    om = tuple(float(x) for x in res.x)
    R, mu = profile(model, rule, pair_table(L, om, k1_max, points))
    return {
        "mu": [float(m) for m in mu],
        "omega": list(om),
        "risk": R,
        "evaluations": int(res.nfev),
    }
