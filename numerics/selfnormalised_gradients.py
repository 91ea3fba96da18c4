"""Exact finite-L errors of the Jacobians in V and U for Gaussian prompts, by quadrature.

Notation of numerics/selfnormalised.py: tokens N(m, Gamma), a = U z, q = a^T Gamma a, c = Gamma a,
e = c / sqrt(q), P = Gamma - c c^T / q (P = Gamma, e = 0 when q = 0). Token i is m + e g_i + r_i with
g_i ~ N(0, 1), r_i ~ N(0, P) independent; the weights p = softmax(sqrt(q) g) depend on the g_i only.
With f = g - sqrt(q) and x = f^2 - 1 (both mean zero under the tilt w = e^{sqrt(q) g - q/2}):

    zhat - mu_a = e (sum p f) + sum p r,
    C_hat - Gamma = alpha e e^T + e s^T + s e^T + R,     alpha = sum p x - (sum p f)^2,
    s = sum p_i (g_i - gbar) r_i,  R = sum p_i (r_i - rbar)(r_i - rbar)^T - P.

Conditionally on g, s ~ N(0, H P) with H = sum p_i^2 (g_i - gbar)^2, E R = -A P (A = sum p^2), and the
Wick formula for the weighted covariance of Gaussian vectors gives (derivations/gradient_fluctuations.py
`exact_gradient_U_error`, proved there), with M = V^T V,

    E||V (C_hat - Gamma)||_F^2 = S_aa (e^T M e)|e|^2 - 2 S_aA e^T M P e + (2 S_AA + S_A - 2 S_A3) tr(P M P)
                                 + (S_A - 2 S_A3 + S_AA) tr P tr(P M) + S_H (2 e^T M P e + |e|^2 tr(M P) + e^T M e tr P),

S_aa = E alpha^2, S_aA = E alpha A, S_AA = E A^2, S_A = E A, S_A3 = E sum p^3, S_H = E H; and
E||grad_V err||^2 = k E|zhat - mu_a|^2 = k (tr Gamma S_A + |c|^2 / q (S_B - S_A)), S_B = E (sum p f)^2.
The grad_U error is |z|^2 times the display. At L = 1: alpha = -1, A = 1, H = 0, so the display is
||V Gamma||_F^2 exactly.

**Quadrature (an algorithm; independent checks in tests/numerics and the claim).** Each S is a sum of
E[prod_j N_j / S^n] with N_j = sum_i w_i^{k_j} h_j(f_i), S = sum_i w_i. Writing
1/S^n = int_0^inf t^{n-1} e^{-tS} dt / (n-1)! and expanding the product over set partitions pi of the
factors (indices equal within a block, distinct across blocks),

    E[prod_j N_j / S^n] = int t^{n-1}/(n-1)! sum_pi L^(|pi|) prod_{B in pi} E[w^{k_B} h_B e^{-tw}] phi(t)^{L-|pi|} dt,

L^(b) the falling factorial, phi(t) = E e^{-tw}. The inner expectations are trapezoid sums over g of the
shifted Gaussian phi(g - k sqrt q) e^{(k^2-k) q/2} (no overflow; each row scaled by its maximum), centred
k = 1 functions in the expm1 form when that has less cancellation; the outer integral is a trapezoid sum
in v = log(t L), signed sums in log space. Same step rules as selfnormalised.log_moments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.polynomial import polynomial as npoly
from scipy import interpolate, stats

from . import selfnormalised, validate

STEP_V = 0.2
STEP_G = 0.25
NAMES = ("A", "B", "aa", "aA", "AA", "A3", "H")
# Polynomials in f (coefficients, lowest first).
_ONE, _F, _X, _F2 = (1.0,), (0.0, 1.0), (-1.0, 0.0, 1.0), (0.0, 0.0, 1.0)
# Each scalar: list of (coefficient, n, factors (k, poly)).
TERMS = {
    "A": [(1.0, 2, ((2, _ONE),))],
    "B": [(1.0, 2, ((1, _F), (1, _F)))],
    "aa": [(1.0, 2, ((1, _X), (1, _X))), (-2.0, 3, ((1, _X), (1, _F), (1, _F))),
           (1.0, 4, ((1, _F), (1, _F), (1, _F), (1, _F)))],
    "aA": [(1.0, 3, ((1, _X), (2, _ONE))), (-1.0, 4, ((1, _F), (1, _F), (2, _ONE)))],
    "AA": [(1.0, 4, ((2, _ONE), (2, _ONE)))],
    "A3": [(1.0, 3, ((3, _ONE),))],
    "H": [(1.0, 2, ((2, _F2),)), (-2.0, 3, ((1, _F), (2, _F))), (1.0, 4, ((1, _F), (1, _F), (2, _ONE)))],
}


def _partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in _partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]


def _gauss_mean(poly) -> float:
    """E poly(f) for f ~ N(0, 1)."""
    moments = [1.0, 0.0, 1.0, 0.0, 3.0, 0.0, 15.0, 0.0, 105.0]
    return float(sum(c * moments[i] for i, c in enumerate(poly)))


def _signed_logsumexp(logs: np.ndarray, signs: np.ndarray) -> tuple[float, float]:
    top = float(np.max(logs))
    if not math.isfinite(top):
        return -math.inf, 0.0
    total = float(np.sum(signs * np.exp(logs - top)))
    return (math.log(abs(total)) + top if total != 0 else -math.inf), math.copysign(1.0, total)


def log_scalars(q: float, L: int, step_v: float = STEP_V, step_g: float = STEP_G, terms=None) -> dict:
    """{name: (log|S|, sign)} for the scalars of the module docstring at (q, L)."""
    terms = TERMS if terms is None else terms
    q = float(q)
    if not math.isfinite(q) or q < 0:
        raise ValueError(f"q = {q!r} must be a finite number >= 0")
    L = validate.prompt_length("L", L)
    rq, ell = math.sqrt(q), math.log(L)
    kmax = max(sum(k for k, _ in fac) for ts in terms.values() for _, _, fac in ts)
    h = min(0.1, step_g / rq) if rq > 0 else 0.1
    g = np.arange(-12.0, kmax * rq + 12.0 + h, h)
    z_tail = stats.norm.isf(80.0 / max(L - kmax, 1)) if L - kmax > 160 else -12.0
    v_hi = ell + q / 2 - rq * z_tail + 5.0
    v_lo = min(-30.0, -1.5 * q - 12.0 * rq - 30.0)
    # Two passes: a coarse one (step 2; the integrands vary on scales >= 1 in v) finds where each term is
    # within e^-60 of its largest, the fine one integrates there (padded by 6 on each side).
    vc = np.arange(v_lo, v_hi + 2.0, 2.0)
    live = np.zeros(vc.size, dtype=bool)
    for lg, _ in _integrand(terms, vc, q, L, g, h).values():
        lg = np.where(np.isfinite(lg), lg, -np.inf).reshape(-1, vc.size).max(axis=0)
        if np.isfinite(lg).any():
            live |= lg > np.max(lg) - 60.0
    lo, hi = (vc[live][0] - 6.0, vc[live][-1] + 6.0) if live.any() else (v_lo, v_hi)
    fine = _integrand(terms, np.arange(max(lo, v_lo), min(hi, v_hi) + step_v, step_v), q, L, g, h)
    out = {}
    for name, (logs, signs) in fine.items():
        ok = np.isfinite(logs) & (signs != 0)
        lv, sv = _signed_logsumexp(logs[ok], signs[ok])
        out[name] = (lv + math.log(step_v), sv)
    return out


def _integrand(terms, v, q, L, g, h) -> dict:
    """{name: (log|integrand|, sign)} on the v grid, concatenated over terms and partitions (each of
    length len(v), in order)."""
    rq, ell = math.sqrt(q), math.log(L)
    f = g - rq
    logw = rq * g - q / 2
    lc = math.log(h / math.sqrt(2 * math.pi))
    with np.errstate(over="ignore", under="ignore"):
        tw = np.exp((v - ell)[:, None] + logw[None, :])                  # (nv, ng)
        p0 = np.exp(-g * g / 2 + lc)
        em1 = np.expm1(-tw)
        one_minus_phi = np.minimum(-(em1 @ p0), 1.0)
        log_direct0 = -g * g / 2 - tw
        top0 = log_direct0.max(axis=1)
        phi_direct = np.log(np.exp(log_direct0 - top0[:, None]).sum(axis=1)) + top0 + lc
    log_phi = np.where(one_minus_phi < 0.5, np.log1p(-np.minimum(one_minus_phi, 0.5)), phi_direct)
    rows: dict = {}                                                     # k -> (scaled exp matrix, log scale)

    def direct(k):
        if k not in rows:
            lg = -(g - k * rq) ** 2 / 2 - tw
            top = lg.max(axis=1)
            with np.errstate(under="ignore"):
                rows[k] = (np.exp(lg - top[:, None]), top + (k * k - k) * q / 2 + lc)
        return rows[k]

    inner_cache: dict = {}

    def inner(k, poly):
        key = (k, tuple(poly))
        if key in inner_cache:
            return inner_cache[key]
        vals = npoly.polyval(f, poly)
        E, scale = direct(k)
        dv = E @ vals
        logs, signs = np.log(np.abs(dv)) + scale, np.sign(dv)
        if k == 1 and abs(_gauss_mean(poly)) < 1e-14:                   # centred: E[w h] = 0
            with np.errstate(under="ignore"):
                pk = np.exp(-(g - rq) ** 2 / 2 + lc)
            alt = em1 @ (pk * vals)
            alt_abs = -(em1 @ (pk * np.abs(vals)))
            dir_abs = (E @ np.abs(vals)) * np.exp(scale)
            use = alt_abs <= dir_abs
            logs = np.where(use, np.log(np.abs(alt)), logs)
            signs = np.where(use, np.sign(alt), signs)
        inner_cache[key] = (logs, signs)
        return logs, signs

    out = {}
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        for name, ts in terms.items():
            all_logs, all_signs = [], []
            for coef, n, factors in ts:
                base = n * (v - ell) - math.lgamma(n) + math.log(abs(coef))
                for part in _partitions(list(range(len(factors)))):
                    b = len(part)
                    if b > L:
                        continue
                    logs = base + sum(math.log(L - i) for i in range(b)) + (L - b) * log_phi
                    signs = np.full_like(v, math.copysign(1.0, coef))
                    for block in part:
                        k = sum(factors[j][0] for j in block)
                        poly = (1.0,)
                        for j in block:
                            poly = npoly.polymul(poly, factors[j][1])
                        bl, bs = inner(k, poly)
                        logs, signs = logs + bl, signs * bs
                    all_logs.append(logs)
                    all_signs.append(signs)
            out[name] = (np.concatenate(all_logs), np.concatenate(all_signs))
    return out


def scalars(q: float, L: int, **kw) -> dict:
    """{name: S} (plain floats) at (q, L)."""
    return {k: s * math.exp(lv) for k, (lv, s) in log_scalars(q, L, **kw).items()}


# ---------------------------------------------------------------------------------------------
# Per-query assembly.

@dataclass
class Geometry:
    """Per-query matrix factors of the module docstring for queries Z (n, d)."""
    q: np.ndarray
    zz: np.ndarray            # |z|^2
    rho: np.ndarray           # |c|^2 / q
    trG: float
    coef: dict                # scalar name -> (n,) coefficient of S_name in ||V(C_hat - Gamma)||_F^2


def geometry(Gamma, U, V, Z) -> Geometry:
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    M = V.T @ V
    C = Z @ (Gamma @ U).T                                               # rows c = Gamma U z
    A = Z @ U.T
    q = np.maximum(np.einsum("ni,ni->n", A, C), 0.0)
    pos = q > 1e-300
    E = np.where(pos[:, None], C / np.sqrt(np.where(pos, q, 1.0))[:, None], 0.0)
    Ps = Gamma[None] - np.einsum("ni,nj->nij", E, E)
    eMe = np.einsum("ni,ij,nj->n", E, M, E)
    ee = np.einsum("ni,ni->n", E, E)
    eMPe = np.einsum("ni,ij,njk,nk->n", E, M, Ps, E)
    trP = np.einsum("nii->n", Ps)
    trMP = np.einsum("ij,nji->n", M, Ps)
    trPMP = np.einsum("nij,jk,nki->n", Ps, M, Ps)
    coef = {"aa": eMe * ee, "aA": -2 * eMPe, "AA": 2 * trPMP + trP * trMP, "A": trPMP + trP * trMP,
            "A3": -2 * trPMP - 2 * trP * trMP, "H": 2 * eMPe + ee * trMP + eMe * trP}
    rho = np.divide(np.sum(C * C, axis=1), q, out=np.zeros_like(q), where=pos)
    return Geometry(q, np.sum(Z * Z, axis=1), rho, float(np.trace(Gamma)), coef)


def errors(S: dict, geo: Geometry, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(E||grad_V err||^2, E||grad_U err||^2) per query, from scalars S (each an array over the queries)."""
    err_V = k * (geo.trG * S["A"] + geo.rho * (S["B"] - S["A"]))
    err_U = geo.zz * sum(geo.coef[n] * S[n] for n in geo.coef)
    return err_V, err_U


def exact_errors(Gamma, U, V, z, L: int) -> tuple[float, float]:
    """Both exact errors at one query (direct quadrature, no table)."""
    geo = geometry(Gamma, U, V, np.asarray(z, dtype=float)[None, :])
    S = {n: np.array([s]) for n, s in scalars(float(geo.q[0]), L).items()}
    eV, eU = errors(S, geo, V.shape[0])
    return float(eV[0]), float(eU[0])


@dataclass
class Table:
    """Scalars on q_j = q_max (j/(points-1))^2, cubic splines in sqrt(q) (even in sqrt q): log S for the
    positive ones, S / S_A for E alpha A (which changes sign)."""
    L: int
    q: np.ndarray
    logs: dict

    def __post_init__(self):
        x = np.sqrt(self.q)
        ends = ((1, 0.0), "not-a-knot")
        self._s = {n: interpolate.CubicSpline(x, v, bc_type=ends) for n, v in self.logs.items()}

    def scalars(self, q) -> dict:
        q = np.asarray(q, dtype=float)
        if np.any(q > self.q[-1] * (1 + 1e-12)):
            raise ValueError(f"q outside the table range [0, {self.q[-1]:.4g}]: {float(np.max(q)):.4g}")
        x = np.sqrt(np.maximum(q, 0.0))
        out = {n: np.exp(s(x)) for n, s in self._s.items() if n != "aA"}
        out["aA"] = self._s["aA"](x) * out["A"]
        return out


def table(L: int, q_max: float, points: int = 32) -> Table:
    q_max = max(float(q_max), 1e-6)
    qs = q_max * (np.arange(points) / (points - 1)) ** 2
    vals = [scalars(q, L) for q in qs]
    logs = {}
    for n in NAMES:
        v = np.array([x[n] for x in vals])
        if n == "aA":
            logs[n] = v / np.array([x["A"] for x in vals])
        elif np.all(v > 0):
            logs[n] = np.log(v)
        else:
            raise ArithmeticError(f"S_{n} is not positive on [0, {q_max:.3g}] at L = {L}")
    return Table(int(L), qs, logs)


def scalar_average(lam: float, L: int, kappa: float, step: float = 0.4) -> tuple[float, float]:
    """(log E_g S_B(lam g^2), log E_g g^2 S_aa(lam g^2)) for g ~ N(0, 1): up to constants, the L2(nu)
    errors of grad_V and grad_U for d = 1 (P = 0, e^2 = Gamma, z^2 = g^2 for Sigma_q = 1), by the
    trapezoid rule on g >= 0 over q <= 2 lam (kappa ln L + 30) (as selfnormalised.scalar_average; the
    integrand is analytic in g: step 0.4 agrees with 0.2 to ~1e-6 relative)."""
    from scipy.special import logsumexp

    L = validate.prompt_length("L", L)
    gs, log_w = selfnormalised.half_line_rule(lam, L, kappa, step)
    sub = {"B": TERMS["B"], "aa": TERMS["aa"]}
    vals = [log_scalars(lam * g * g, L, terms=sub) for g in gs]
    lb = np.array([v["B"][0] for v in vals])
    la = np.array([v["aa"][0] for v in vals])
    with np.errstate(divide="ignore"):
        lg2 = 2 * np.log(gs)
    return float(logsumexp(log_w + lb)), float(logsumexp(log_w + la + lg2))
