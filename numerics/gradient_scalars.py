"""The scalars S of the Jacobian errors (numerics/selfnormalised_gradients.py) at (q, L), by
quadrature over set partitions: an algorithm, checked against numerics/selfnormalised.py (S_A, S_B),
halved steps and Monte Carlo at small L (tests/numerics/test_selfnormalised_gradients.py).

Each scalar is a signed combination of E[prod_j N_j / S^n]
(TERMS: coefficient, n, factors (k_j, h_j) with h_j a polynomial in f = g - sqrt q); the expansions
of S_aa, S_aA, S_AA, S_A3, S_H in these terms are the definitions of the display in
numerics/selfnormalised_gradients.py.

**Quadrature.** Each S is a sum of
E[prod_j N_j / S^n] with N_j = sum_i w_i^{k_j} h_j(f_i), S = sum_i w_i. Writing
1/S^n = int_0^inf t^{n-1} e^{-tS} dt / (n-1)! and expanding the product over set partitions pi of
the factors (indices equal within a block, distinct across blocks),

    E[prod_j N_j / S^n] = int t^{n-1}/(n-1)! sum_pi L^(|pi|)
                            prod_{B in pi} E[w^{k_B} h_B e^{-tw}] phi(t)^{L-|pi|} dt,

L^(b) the falling factorial, phi(t) = E e^{-tw}. The inner expectations are trapezoid sums over g of
the shifted Gaussian phi(g - k sqrt q) e^{(k^2-k) q/2}
(no overflow; each row scaled by its maximum), centred k = 1 functions in the expm1 form when that
has less cancellation; the outer integral is a trapezoid sum in v = log(t L), signed sums in
log space. Same step rules as selfnormalised.log_moments.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.polynomial import polynomial as npoly
from scipy.special import ndtri

from . import validate

STEP_V = 0.2
STEP_G = 0.25
NAMES = ("A", "B", "aa", "aA", "AA", "A3", "H")
# Polynomials in f (coefficients, lowest first).
_ONE, _F, _X, _F2 = (1.0,), (0.0, 1.0), (-1.0, 0.0, 1.0), (0.0, 0.0, 1.0)
# Each scalar: list of (coefficient, n, factors (k, poly)).
TERMS = {
    "A": [(1.0, 2, ((2, _ONE),))],
    "B": [(1.0, 2, ((1, _F), (1, _F)))],
    "aa": [
        (1.0, 2, ((1, _X), (1, _X))),
        (-2.0, 3, ((1, _X), (1, _F), (1, _F))),
        (1.0, 4, ((1, _F), (1, _F), (1, _F), (1, _F))),
    ],
    "aA": [(1.0, 3, ((1, _X), (2, _ONE))), (-1.0, 4, ((1, _F), (1, _F), (2, _ONE)))],
    "AA": [(1.0, 4, ((2, _ONE), (2, _ONE)))],
    "A3": [(1.0, 3, ((3, _ONE),))],
    "H": [
        (1.0, 2, ((2, _F2),)),
        (-2.0, 3, ((1, _F), (2, _F))),
        (1.0, 4, ((1, _F), (1, _F), (2, _ONE))),
    ],
}


def partitions(items):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        yield [[first]] + part
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1 :]


@lru_cache(maxsize=None)
def blocks_of(factors: tuple) -> tuple:
    """For each partition of a term's factors (k_j, h_j) into blocks, the blocks as
    (sum of k_j, product of h_j): they depend on TERMS alone, so they are formed once, not at every
    grid of v (the products by npoly.polymul, in the factors' order)."""
    out = []
    for part in partitions(list(range(len(factors)))):
        blocks = []
        for block in part:
            poly = (1.0,)
            for j in block:
                poly = npoly.polymul(poly, factors[j][1])
            blocks.append((sum(factors[j][0] for j in block), poly))
        out.append(tuple(blocks))
    return tuple(out)


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


def log_scalars(
    q: float, L: int, step_v: float = STEP_V, step_g: float = STEP_G, terms=None
) -> dict:
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
    z_tail = -ndtri(80.0 / max(L - kmax, 1)) if L - kmax > 160 else -12.0
    v_hi = ell + q / 2 - rq * z_tail + 5.0
    v_lo = min(-30.0, -1.5 * q - 12.0 * rq - 30.0)
    # Two passes: a coarse one (step 2; the integrands vary on scales >= 1 in v) finds where each
    # term is within e^-60 of its largest, the fine one integrates there (padded by 6 on each side).
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
        tw = np.exp((v - ell)[:, None] + logw[None, :])  # (nv, ng)
        p0 = np.exp(-g * g / 2 + lc)
        em1 = np.expm1(-tw)
        one_minus_phi = np.minimum(-(em1 @ p0), 1.0)
        log_direct0 = -g * g / 2 - tw
        top0 = log_direct0.max(axis=1)
        phi_direct = np.log(np.exp(log_direct0 - top0[:, None]).sum(axis=1)) + top0 + lc
    log_phi = np.where(one_minus_phi < 0.5, np.log1p(-np.minimum(one_minus_phi, 0.5)), phi_direct)
    rows: dict = {}  # k -> (scaled exp matrix, log scale)

    def direct(k):
        if k not in rows:
            lg = -((g - k * rq) ** 2) / 2 - tw
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
        if k == 1 and abs(_gauss_mean(poly)) < 1e-14:  # centred: E[w h] = 0
            with np.errstate(under="ignore"):
                pk = np.exp(-((g - rq) ** 2) / 2 + lc)
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
                for blocks in blocks_of(factors):
                    b = len(blocks)
                    if b > L:
                        continue
                    logs = base + sum(math.log(L - i) for i in range(b)) + (L - b) * log_phi
                    signs = np.full_like(v, math.copysign(1.0, coef))
                    for k, poly in blocks:
                        bl, bs = inner(k, poly)
                        logs, signs = logs + bl, signs * bs
                    all_logs.append(logs)
                    all_signs.append(signs)
            out[name] = (np.concatenate(all_logs), np.concatenate(all_signs))
    return out


def scalars(q: float, L: int, **kw) -> dict:
    """{name: S} (plain floats) at (q, L)."""
    return {k: s * math.exp(lv) for k, (lv, s) in log_scalars(q, L, **kw).items()}
