"""Exact finite-L moments of softmax attention over Gaussian prompts, by quadrature.

For tokens N(m, Gamma) and a fixed query with tilt a = U z, write q = a^T Gamma a and split
z' - m = Gamma a u / q + r with u = a^T (z' - m) ~ N(0, q) and r ~ N(0, Gamma_perp) independent of
u, Gamma_perp = Gamma - Gamma a a^T Gamma / q. The softmax weights depend on the tokens only through
the u_i = sqrt(q) g_i, p_i = e^{u_i} / sum_j e^{u_j}, and T[mu](z) = V (m + Gamma a), so

    T[mu_L](z) - T[mu](z) = V Gamma a (sum_i p_i g_i - sqrt q) / sqrt q + V sum_i p_i r_i.

Hence, with the two scalar functions of (q, L)

    A_L(q) = E sum_i p_i^2,        B_L(q) = E (sum_i p_i g_i - sqrt q)^2,

    E[err err^T] = A_L(q) V Gamma_perp V^T + B_L(q) V Gamma a a^T Gamma V^T / q,
    E|err|^2     = tr(V Gamma V^T) A_L(q) + rho (B_L(q) - A_L(q)),   rho = |V Gamma a|^2 / q,

and, by Gaussian integration by parts (d p_i / d g_i = sqrt(q) p_i (1 - p_i)),
E sum_i p_i g_i = sqrt(q) (1 - A_L(q)), so the exact bias at every L is

    E T[mu_L](z) - T[mu](z) = -A_L(q) V Gamma a
                              (first order: A_L ~ e^q / L, b1 = -e^q V Gamma a).

The split, the second moment, its trace and the Stein step are proved in
derivations/selfnormalised_error.py, which emits them as the kernels
selfnormalised_error_second_moment, selfnormalised_mse and selfnormalised_bias; this module computes
A_L and B_L (an algorithm) and calls those kernels.

**Quadrature.** With S = sum_j w_j (w = e^{u - q/2}, E w = 1), 1/S = int_0^inf e^{-tS} dt and
1/S^2 = int_0^inf t e^{-tS} dt turn the L-fold expectations into one-dimensional ones:

    A_L = L int t E[w^2 e^{-tw}] phi(t)^{L-1} dt,
    B_L = L int t E[w^2 f^2 e^{-tw}] phi(t)^{L-1} dt
          + L (L-1) int t E[w f e^{-tw}]^2 phi(t)^{L-2} dt,

phi(t) = E e^{-tw}, f = g - sqrt q. The inner expectations are trapezoid sums over g (step
min(0.1, 0.25 / sqrt q): the integrands are analytic in a strip of half-width ~ pi / (2 sqrt q), so
the error is ~ exp(-pi^2 / (step sqrt q)) < 1e-17); w^k phi(g) is written as the shifted Gaussian
phi(g - k sqrt q) e^{(k^2 - k) q / 2} (no overflow); E[w f e^{-tw}] and 1 - phi(t) are taken in the
form (direct or through expm1) that has no cancellation. The outer integral is a trapezoid sum in
v = log(t L) with step 0.2 (same analyticity argument, strip half-width ~ pi / 2), over a range
derived from where the integrands vanish; everything is summed in log space (logsumexp). Tests
compare with Monte Carlo and with halved steps (agreement ~1e-13).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import interpolate
from scipy.special import ndtri

from . import kernels, query_average, validate
from .logspace import exp_or_zero, expm1_neg, logsumexp

STEP_V = 0.2
STEP_G = 0.25
# The reach of the quadrature. The g grid has ~8 q + 96 sqrt(q) points and the v grid
# ~(q + 12 sqrt(q)) / STEP_V, so the work grows like q^2, and at large q the fixed ranges start to
# cut the integrands: the agreement of halved steps (log A, log B) is ~1e-13 up to a q that grows
# with ln L, then degrades fast (measured, q in steps of 10: at L = 2, 1e-7 at q = 310 and 6e-4 at
# 340; at L = 100, 4e-8 at 390 and 4e-4 at 400). REACH holds, per L, a q where the agreement is
# still <= 1e-6 relative (the tables built on these values state 1e-4); between the tabled L the
# reach is interpolated linearly in ln L (the breakdown point grows about linearly in
# ln L). U = 1000 I gives q ~ 1e6 (rows of 8e6 points, 22 GB): a q beyond the reach is refused, by
# the claims' estimators before any work, and here as the last guard
# (tests/test_reliability.py measures the agreement at tabled points).
REACH = (
    (2, 315.0),
    (3, 328.0),
    (5, 342.0),
    (8, 353.0),
    (10, 360.0),
    (16, 365.0),
    (32, 375.0),
    (100, 390.0),
)


def q_reach(L: int) -> float:
    """The largest q at which `log_moments` is trusted for prompt length L (see REACH); L = 1 is
    exact."""
    if L <= 1:
        return math.inf
    Ls, qs = zip(*REACH)
    return float(np.interp(math.log(L), np.log(Ls), qs))


# ln of the tw beyond which a column of a row block is not formed (log_moments): above 700 and 40,
# where e^{-tw} is taken as 0 and expm1(-tw) is -1, with room for the rounding of ln tw.
LOG_E_DEAD = math.log(800.0)
LOG_M_DEAD = math.log(50.0)

# Rows of the (v, g) arrays evaluated at once: at most CHUNK_ELEMENTS doubles (8 MiB) per array.
CHUNK_ELEMENTS = 2**20


def phi_powers(L: int) -> tuple[int, int]:
    """Powers of phi(t) = E e^{-tw} in A_L and B_L: the tokens other than one (L - 1) and other than
    a pair (L - 2). A named function so that a sensitivity test can inject the L-for-L-1 slip."""
    return L - 1, L - 2


def log_pair_fraction(L: int) -> float:
    """log of L (L - 1) / L^2, the share of ordered pairs i != j in the second part of B_L (a named
    function so that a sensitivity test can inject the L^2-for-L(L-1) slip)."""
    return math.log1p(-1.0 / L)


def _check(q: float, L: int) -> tuple[float, int]:
    q = float(q)
    if not math.isfinite(q) or q < 0:
        raise ValueError(f"q = {q!r} must be a finite number >= 0")
    L = validate.prompt_length("L", L)
    if q > q_reach(L):
        raise validate.BeyondReach(
            f"q = a^T Gamma a = {q:.4g} is beyond the exact quadrature's reach q <= "
            f"{q_reach(L):g} at L = {L} (a = U z: lower the scale of U, cov or the queries)"
        )
    return q, L


def log_moments(
    q: float, L: int, step_v: float = STEP_V, step_g: float = STEP_G
) -> tuple[float, float]:
    """(log A_L(q), log B_L(q)) of the module docstring."""
    q, L = _check(q, L)
    if L == 1:  # p_1 = 1: A = 1, B = E (g - sqrt q)^2 = 1 + q
        return 0.0, math.log1p(q)
    rq = math.sqrt(q)
    ell = math.log(L)
    h = min(0.1, step_g / rq) if rq > 0 else 0.1
    g = np.arange(-12.0, 2 * rq + 12.0 + h, h)
    c = h / math.sqrt(2 * math.pi)
    p0 = np.exp(-g * g / 2) * c
    p1 = np.exp(-((g - rq) ** 2) / 2) * c
    p2 = np.exp(-((g - 2 * rq) ** 2) / 2) * c
    logw = rq * g - q / 2
    f = g - rq
    pf, pf_abs, p2f2 = p1 * f, p1 * np.abs(f), p2 * f * f
    # One matrix product per row block reads the (v, g) matrix once for all its weights: the
    # columns of e^{-tw} @ P are E e^{-tw}, E[w f e^{-tw}], E[w |f| e^{-tw}], E[w^2 e^{-tw}] and
    # E[w^2 f^2 e^{-tw}] (the last two over e^q)
    P = np.column_stack([p0, pf, pf_abs, p2, p2f2])
    # P_tail[j] = sum_{k >= j} P[k, :3] (P_tail[g.size] = 0): what the columns where expm1(-tw)
    # = -1 contribute to expm1(-tw) @ P
    P_tail = np.zeros((g.size + 1, 3))
    P_tail[:-1] = np.cumsum(P[::-1, :3], axis=0)[::-1]
    # Where the integrands vanish: Phi = phi(t)^(L-1) < e^-50 once L P(t w > 1) > 80, and the
    # small-t end is cut by the t^2 factor (v = log(t L)).
    z_tail = -ndtri(80.0 / L) if L > 160 else -12.0  # the normal's upper 80 / L quantile
    v_hi = ell + q / 2 - rq * z_tail + 5.0
    # Below v_lo the integrands are < e^{2 v} (times at most 1 + q) while A_L >= 1/L and the
    # integrals are >= e^{-q}: the cut costs < e^{-40} relatively.
    v_lo = max(min(-25.0, ell - 1.5 * q - 12.0 * rq - 10.0), -q / 2 - math.log1p(q) - 25.0)
    v = np.arange(v_lo, v_hi + step_v, step_v)
    logs_a, logs_b1, logs_b2 = [], [], []
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        rows = max(1, min(256, CHUNK_ELEMENTS // g.size))
        for i in range(0, len(v), rows):
            vv = v[i : i + rows]
            # tw = t w grows along a row (with g) and down a column (with v): past the column
            # where the block's first row has tw > 800 (resp. 50), every row of the block has
            # e^{-tw} = 0 (resp. expm1(-tw) = -1 to the last bit), so those columns add 0 to E
            # and minus the tail sums of P to M without being formed.
            shift = vv[0] - ell
            c_e = int(np.searchsorted(logw, LOG_E_DEAD - shift, side="right"))
            c_m = int(np.searchsorted(logw, LOG_M_DEAD - shift, side="right"))
            tw = np.exp((vv - ell)[:, None] + logw[None, :c_e])
            # e^{-tw} below e^-700 counts as 0 (logspace.exp_or_zero): the weights are at most 1,
            # so the sums move by less than 1e-303.
            e = exp_or_zero(-tw)
            em1 = expm1_neg(tw[:, :c_m])
            E = e @ P[:c_e]
            M = em1 @ P[:c_m, :3] - P_tail[c_m]
            one_minus_phi = np.minimum(-M[:, 0], 1.0)
            phi = E[:, 0]
            log_phi = np.where(
                one_minus_phi < 0.5, np.log1p(-one_minus_phi), np.log(np.maximum(phi, 1e-320))
            )
            psi_expm1, psi_direct = M[:, 1], E[:, 1]
            psi = np.where(-M[:, 2] <= E[:, 2], psi_expm1, psi_direct)  # E[w f e^{-tw}]
            m2 = E[:, 3]  # E[w^2 e^{-tw}] / e^q
            m2f2 = E[:, 4]  # E[w^2 f^2 e^{-tw}] / e^q
            n1, n2 = phi_powers(L)
            log_phi1 = n1 * log_phi
            log_phi2 = n2 * log_phi if n2 != 0 else np.zeros_like(log_phi)
            logs_a.append(2 * vv + np.log(m2) + log_phi1)
            logs_b1.append(2 * vv + np.log(m2f2) + log_phi1)
            logs_b2.append(2 * vv + 2 * np.log(np.abs(psi)) + log_phi2)
    lstep = math.log(step_v)
    la = float(logsumexp(np.concatenate(logs_a))) + lstep
    lb1 = float(logsumexp(np.concatenate(logs_b1))) + lstep
    lb2 = float(logsumexp(np.concatenate(logs_b2))) + lstep
    log_a = q - ell + la
    log_b = float(np.logaddexp(q - ell + lb1, log_pair_fraction(L) + lb2))
    return log_a, log_b


@dataclass
class Table:
    """log A_L and log B_L on a grid of q in [0, q_max], interpolated by cubic splines in sqrt(q)
    (relative interpolation error below 1e-4 with the default 48 points and below 5e-4 with 32, for
    q_max up to ~130 and L up to 4096; measured in tests/numerics/test_prop31_selfnormalised.py)."""

    L: int
    q: np.ndarray
    log_a: np.ndarray
    log_b: np.ndarray

    def __post_init__(self):
        x = np.sqrt(self.q)
        # A and B are even functions of sqrt(q) (g -> -g), so the slope in sqrt(q) is 0 at q = 0.
        ends = ((1, 0.0), "not-a-knot")
        self._a = interpolate.CubicSpline(x, self.log_a, bc_type=ends)
        self._b = interpolate.CubicSpline(x, self.log_b, bc_type=ends)

    @property
    def q_max(self) -> float:
        return float(self.q[-1])

    def moments(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(A_L(q), B_L(q)) for an array of q in [0, q_max]."""
        q = np.asarray(q, dtype=float)
        if np.any(q < 0) or np.any(q > self.q_max * (1 + 1e-12)):
            raise ValueError(
                f"q outside the table range [0, {self.q_max:.4g}]: {float(np.max(q)):.4g}"
            )
        x = np.sqrt(q)
        return np.exp(self._a(x)), np.exp(self._b(x))


def table(L: int, q_max: float, points: int = 48) -> Table:
    """A Table on q_j = q_max (j / (points - 1))^2 (dense near 0, where the functions vary fastest
    relative to their size)."""
    validate.prompt_length("L", L)
    if not math.isfinite(q_max) or q_max < 0:
        raise ValueError(f"q_max = {q_max!r} must be a finite number >= 0")
    q_max = max(q_max, 1e-6)
    _check(q_max, L)  # refuse beyond the reach before the first point
    qs = q_max * (np.arange(points) / (points - 1)) ** 2
    logs = np.array([log_moments(q, L) for q in qs])
    return Table(int(L), qs, logs[:, 0], logs[:, 1])


# ---------------------------------------------------------------------------------------------
# Per-query quantities for Gaussian tokens (from the emitted kernels).


@dataclass
class QueryTerms:
    """For queries Z (n, d): q = a^T Gamma a, rho = |V Gamma a|^2 / q (0 where q = 0),
    tr(V Gamma V^T), and the first-order mean squared error e^q (tr + |V Gamma a|^2), also as its
    logarithm (finite where e^q overflows)."""

    q: np.ndarray
    rho: np.ndarray
    trace: float
    first_order: np.ndarray
    log_first_order: np.ndarray


def query_terms(Gamma: np.ndarray, U: np.ndarray, V: np.ndarray, Z: np.ndarray) -> QueryTerms:
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    q = np.maximum(kernels.first_order_log_weight(Gamma, U, Z.T)[0], 0.0)
    numerator = kernels.first_order_numerator(Gamma, V, U, Z.T)[0]  # tr + |V Gamma a|^2
    trace = float(np.trace(V @ Gamma @ V.T))
    n = np.maximum(numerator - trace, 0.0)
    rho = np.divide(n, q, out=np.zeros_like(q), where=q > 1e-300)
    with np.errstate(over="ignore", divide="ignore"):
        first = np.exp(q) * numerator
        log_first = q + np.log(numerator)
    return QueryTerms(q, rho, trace, first, log_first)


def exact_mse(tab: Table, terms: QueryTerms) -> np.ndarray:
    """E|T[mu_L](z) - T[mu](z)|^2 for each query, from the table
    (exact up to quadrature; the emitted kernel `selfnormalised_mse`)."""
    A, B = tab.moments(terms.q)
    return kernels.selfnormalised_mse(terms.trace, terms.rho, A, B)


def exact_second_moment(Gamma, U, V, z, L: int) -> tuple[np.ndarray, np.ndarray]:
    """(E err, E err err^T) at one query z and prompt length L, directly from `log_moments`, through
    the emitted kernels `selfnormalised_bias` and `selfnormalised_error_second_moment`:
    (-A V Gamma a, A V (Gamma - e e^T) V^T + B V e e^T V^T), e = Gamma a / sqrt q (0 when q = 0)."""
    a = (U @ np.asarray(z, dtype=float))[:, None]
    Ga = Gamma @ a
    q = max(0.0, float(a[:, 0] @ Ga[:, 0]))
    log_a, log_b = log_moments(q, L)
    A, B = math.exp(log_a), math.exp(log_b)
    e = Ga / math.sqrt(q) if q > 1e-300 else np.zeros_like(Ga)
    bias = kernels.selfnormalised_bias(Gamma, V, a, A)[:, 0]
    return bias, kernels.selfnormalised_error_second_moment(Gamma, V, e, A, B)


def scalar_average(lam: float, L: int, kappa: float, step: float = 0.2) -> tuple[float, float]:
    """(log E_g A_L(lam g^2), log E_g B_L(lam g^2)) for g ~ N(0, 1): the query average when the
    whitened interaction has rank one (d = 1), by the trapezoid rule on g >= 0 (even integrand; the
    integrand is analytic, so the rule converges geometrically). The range reaches q = 2 lam
    (kappa ln L + 30), past which the Gaussian weight is below e^-30 L^-kappa (kappa: the
    predicted exponent, or any smaller number)."""
    L = validate.prompt_length("L", L)
    gs, log_w = query_average.half_line_rule(lam, L, kappa, step)
    logs = np.array([log_moments(lam * g * g, L) for g in gs])
    return float(logsumexp(log_w + logs[:, 0])), float(logsumexp(log_w + logs[:, 1]))
