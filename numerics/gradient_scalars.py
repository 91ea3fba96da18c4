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
has less cancellation; the outer integral is a trapezoid sum in u = log t over the multiples of the
step, signed sums in log space. Same step rules as selfnormalised.log_moments (whose grid is in
v = log(t L)); on a lattice fixed in u, several L at one q share the inner expectations
(`log_scalars_many`).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from numpy.polynomial import polynomial as npoly
from scipy.special import ndtri

from . import validate
from .logspace import exp_or_zero, expm1_neg

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
    return log_scalars_many(q, [L], step_v, step_g, terms)[0]


def log_scalars_many(
    q: float, Ls, step_v: float = STEP_V, step_g: float = STEP_G, terms=None
) -> list[dict]:
    """`log_scalars` at one q for each L of Ls. The outer sums run over a lattice of
    u = log t = v - log L (the multiples of the step), and the (u, g) matrices of the inner
    expectations do not depend on L: they are formed once on the union of the Ls' windows, and each
    L sums over the rows of its own window, the rows it would use alone."""
    terms = TERMS if terms is None else terms
    q = float(q)
    if not math.isfinite(q) or q < 0:
        raise ValueError(f"q = {q!r} must be a finite number >= 0")
    Ls = [validate.prompt_length("L", L) for L in Ls]
    if not Ls:
        raise ValueError("Ls must name at least one prompt length")
    rq = math.sqrt(q)
    kmax = max(sum(k for k, _ in fac) for ts in terms.values() for _, _, fac in ts)
    h = min(0.1, step_g / rq) if rq > 0 else 0.1
    g = np.arange(-12.0, kmax * rq + 12.0 + h, h)
    # Each L's range in u: above it phi(t)^(L - kmax) < e^-50, below it the t^(n-1) factor.
    ranges = []
    for L in Ls:
        z_tail = -ndtri(80.0 / max(L - kmax, 1)) if L - kmax > 160 else -12.0
        u_lo = min(-30.0, -1.5 * q - 12.0 * rq - 30.0) - math.log(L)
        ranges.append((u_lo, q / 2 - rq * z_tail + 5.0))
    # Two passes: a coarse one (step 2; the integrands vary on scales >= 1 in u) finds where each
    # term is within e^-60 of its largest, the fine one integrates there (padded by 6 on each side).
    coarse = _lattice(min(lo for lo, _ in ranges), max(hi for _, hi in ranges) + 2.0, 2.0)
    parts = _parts(terms, coarse, q, g, h, max(Ls))
    windows = []
    for L, (lo, hi) in zip(Ls, ranges):
        rows = (coarse >= lo) & (coarse <= hi + 2.0)
        uc = coarse[rows]
        live = np.zeros(uc.size, dtype=bool)
        for lg, _ in _integrand(terms, coarse, parts, L, rows).values():
            lg = np.where(np.isfinite(lg), lg, -np.inf).reshape(-1, uc.size).max(axis=0)
            if np.isfinite(lg).any():
                live |= lg > np.max(lg) - 60.0
        w_lo, w_hi = (uc[live][0] - 6.0, uc[live][-1] + 6.0) if live.any() else (lo, hi)
        windows.append((max(w_lo, lo), min(w_hi, hi)))
    fine = _lattice(min(lo for lo, _ in windows), max(hi for _, hi in windows), step_v)
    parts = _parts(terms, fine, q, g, h, max(Ls))
    out = []
    for L, (lo, hi) in zip(Ls, windows):
        rows = (fine >= lo) & (fine <= hi)
        scalars_at_L = {}
        for name, (logs, signs) in _integrand(terms, fine, parts, L, rows).items():
            ok = np.isfinite(logs) & (signs != 0)
            lv, sv = _signed_logsumexp(logs[ok], signs[ok])
            scalars_at_L[name] = (lv + math.log(step_v), sv)
        out.append(scalars_at_L)
    return out


def _lattice(lo: float, hi: float, step: float) -> np.ndarray:
    """The multiples of step in [lo, hi] (at least one)."""
    first = math.ceil(lo / step)
    return np.arange(first, max(math.floor(hi / step), first) + 1) * step


def _parts(terms, u, q, g, h, L_max) -> tuple:
    """(log phi(t), {(k, poly): (log|E[w^k poly(f) e^{-tw}]|, sign)}) on the grid u = log t: the
    pieces of the integrands that do not depend on L (blocks of more than L_max factors skipped)."""
    rq = math.sqrt(q)
    f = g - rq
    logw = rq * g - q / 2
    lc = math.log(h / math.sqrt(2 * math.pi))
    with np.errstate(over="ignore", under="ignore"):
        tw = np.exp(u[:, None] + logw[None, :])  # (nu, ng)
        p0 = np.exp(-g * g / 2 + lc)
        em1 = expm1_neg(tw)
        one_minus_phi = np.minimum(-(em1 @ p0), 1.0)
        log_direct0 = -g * g / 2 - tw
        top0 = log_direct0.max(axis=1)
        phi_direct = np.log(exp_or_zero(log_direct0 - top0[:, None]).sum(axis=1)) + top0 + lc
    log_phi = np.where(one_minus_phi < 0.5, np.log1p(-np.minimum(one_minus_phi, 0.5)), phi_direct)
    # Every (k, poly) the terms' blocks need, grouped by k: one matrix product per k reads the
    # (u, g) matrix once for all its polynomials.
    by_k: dict = {}
    for ts in terms.values():
        for _, _, factors in ts:
            for blocks in blocks_of(factors):
                if len(blocks) <= L_max:
                    for k, poly in blocks:
                        by_k.setdefault(k, {})[tuple(poly)] = None
    inner: dict = {}
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        for k, polys in by_k.items():
            polys = list(polys)
            vals = np.column_stack([npoly.polyval(f, poly) for poly in polys])
            # E[w^k h e^{-tw}] = E @ h e^scale, E relative to the row's largest term (below
            # e^-700 it is 0: logspace.exp_or_zero)
            lg = -((g - k * rq) ** 2) / 2 - tw
            top = lg.max(axis=1)
            E, scale = exp_or_zero(lg - top[:, None]), top + (k * k - k) * q / 2 + lc
            dv = E @ vals
            logs, signs = np.log(np.abs(dv)) + scale[:, None], np.sign(dv)
            centred = [j for j, poly in enumerate(polys) if abs(_gauss_mean(poly)) < 1e-14]
            if k == 1 and centred:  # centred: E[w h] = 0, so the expm1 form has no cancellation
                hc = vals[:, centred]
                pk = np.exp(-((g - rq) ** 2) / 2 + lc)[:, None]
                alt = em1 @ (pk * hc)
                alt_abs = -(em1 @ (pk * np.abs(hc)))
                dir_abs = (E @ np.abs(hc)) * np.exp(scale)[:, None]
                use = alt_abs <= dir_abs
                logs[:, centred] = np.where(use, np.log(np.abs(alt)), logs[:, centred])
                signs[:, centred] = np.where(use, np.sign(alt), signs[:, centred])
            for j, poly in enumerate(polys):
                inner[(k, poly)] = (logs[:, j], signs[:, j])
    return log_phi, inner


def _integrand(terms, u, parts, L, rows) -> dict:
    """{name: (log|integrand|, sign)} at prompt length L on the rows `rows` (a mask) of the grid u,
    concatenated over terms and partitions (each of length rows.sum(), in order)."""
    log_phi, inner = parts
    u, log_phi = u[rows], log_phi[rows]
    out = {}
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        for name, ts in terms.items():
            all_logs, all_signs = [], []
            for coef, n, factors in ts:
                base = n * u - math.lgamma(n) + math.log(abs(coef))
                for blocks in blocks_of(factors):
                    b = len(blocks)
                    if b > L:
                        continue
                    logs = base + sum(math.log(L - i) for i in range(b)) + (L - b) * log_phi
                    signs = np.full_like(u, math.copysign(1.0, coef))
                    for k, poly in blocks:
                        bl, bs = inner[(k, tuple(poly))]
                        logs, signs = logs + bl[rows], signs * bs[rows]
                    all_logs.append(logs)
                    all_signs.append(signs)
            out[name] = (np.concatenate(all_logs), np.concatenate(all_signs))
    return out


def scalars(q: float, L: int, **kw) -> dict:
    """{name: S} (plain floats) at (q, L)."""
    return {k: s * math.exp(lv) for k, (lv, s) in log_scalars(q, L, **kw).items()}
