"""Joint self-normalised moments of two softmax temperatures over one Gaussian prompt
(an algorithm).

Two heads see the same standardised scores g_1..g_L ~ N(0, 1) at signed temperatures c_1, c_2:
p_i(c) = e^{c g_i} / sum_j e^{c g_j}, G_h = sum_i p_i(c_h) g_i. The two-head risk
(derivations/risk_finite_heads.py) needs, besides the one-head A_L(c^2), B_L(c^2) of
numerics/selfnormalised.py, the cross moments

    A_L(c_1, c_2) = E sum_i p_i(c_1) p_i(c_2),      B_L(c_1, c_2) = E (G_1 - c_1)(G_2 - c_2),

which reduce to A_L(c^2), B_L(c^2) at c_1 = c_2 = c (tested). With w_h = e^{c_h g - c_h^2 / 2}
(E w_h = 1), S_h = sum_j w_h(g_j) and 1 / (S_1 S_2) = int int e^{-s_1 S_1 - s_2 S_2} ds_1 ds_2, the
L-fold expectations become two-dimensional integrals of one-dimensional ones:

    A = L int int E[w_1 w_2 e^{-s.w}] Phi^{L-1},
    B = L int int E[w_1 w_2 f_1 f_2 e^{-s.w}] Phi^{L-1} + L (L-1) int int psi_1 psi_2 Phi^{L-2},

Phi(s) = E e^{-s_1 w_1 - s_2 w_2}, psi_h = E[w_h f_h e^{-s.w}], f_h = g - c_h,
s.w = s_1 w_1 + s_2 w_2. Since e^{-s.w} = e^{-s_1 w_1} e^{-s_2 w_2}, every inner expectation on the
(s_1, s_2) grid is one matrix product over the g nodes.
w_1 w_2 phi(g) = e^{c_1 c_2} phi(g - c_1 - c_2) and w_h phi(g) = phi(g - c_h)
(shifted Gaussians, no overflow). psi_h vanishes at s = 0 (E w_h f_h = 0), so it is taken either
directly or through e^{-a-b} - 1 = expm1(-a) + expm1(-b) + expm1(-a) expm1(-b), whichever carries
less absolute mass (less cancellation); 1 - Phi likewise through expm1 when small.

Rules: trapezoid in g (step min(0.1, 0.25 / max|c|), the integrands are analytic in a strip) and in
v_h = log(s_h L) with step STEP_V = 0.4 (analytic in a strip of half-width ~ pi / 2: error
~ exp(-pi^2 / STEP_V) ~ 2e-11); ranges per axis from numerics/selfnormalised.py's one-head bounds,
the low end lowered by 8 (the 2-D cut costs ~ e^{v_lo} relatively, not e^{2 v_lo}). Measured against
step 0.2 and a wider range, and against Monte Carlo, in tests/numerics/test_selfnormalised_pair.py.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtri

from . import validate
from .logspace import exp_or_zero, expm1_neg

STEP_V = 0.5
STEP_G = 0.5


def _axis(c: float, L: int, cmax: float, step_v: float) -> np.ndarray:
    """v = log(s L) nodes for one temperature: above v_hi the factor e^{-s w} (or Phi^{L-1}) is
    below e^-50 wherever the shifted Gaussians have mass (g within 12 + max|c| of 0); below v_lo the
    integrand is below e^{v_lo} relative."""
    q, rc, ell = c * c, abs(c), math.log(L)
    z_tail = -ndtri(80.0 / L) if L > 160 else -12.0 - cmax  # upper 80 / L quantile
    v_hi = ell + q / 2 - rc * z_tail + 5.0
    v_lo = max(min(-25.0, ell - 1.5 * q - 12.0 * rc - 10.0), -q / 2 - math.log1p(q) - 25.0) - 8.0
    return np.arange(v_lo, v_hi + step_v, step_v)


def moments(
    c1: float, c2: float, L: int, step_v: float = STEP_V, step_g: float = STEP_G
) -> tuple[float, float]:
    """(A_L(c1, c2), B_L(c1, c2)) of the module docstring."""
    c1, c2 = float(c1), float(c2)
    if not (math.isfinite(c1) and math.isfinite(c2)):
        raise ValueError(f"temperatures c1 = {c1!r}, c2 = {c2!r} must be finite")
    L = validate.prompt_length("L", L)
    if L == 1:  # p_1 = 1: A = 1, B = E (g - c1)(g - c2)
        return 1.0, 1.0 + c1 * c2
    cmax = max(abs(c1), abs(c2))
    h = min(0.1, step_g / cmax) if cmax > 0 else 0.1
    ends = (0.0, c1, c2, c1 + c2)
    g = np.arange(min(ends) - 12.0, max(ends) + 12.0 + h, h)
    dens = lambda m: np.exp(-((g - m) ** 2) / 2) * (h / math.sqrt(2 * math.pi))
    p0, p12 = dens(0.0), dens(c1 + c2)
    ell = math.log(L)
    axes, e, em = [], [], []
    for c in (c1, c2):
        v = _axis(c, L, cmax, step_v)
        # tw capped at e^7 > 700, where e^{-tw} is 0 and expm1(-tw) is -1 either way: NumPy's exp
        # is slow where it overflows, and where it underflows (logspace.exp_or_zero)
        tw = np.exp(np.minimum((v - ell)[:, None] + (c * g - c * c / 2)[None, :], 7.0))
        axes.append(v)
        e.append(exp_or_zero(-tw))
        em.append(expm1_neg(tw))
    (e1, e2), (m1, m2) = e, em

    def pair(weights):  # E[weights(g) e^{-s1 w1} e^{-s2 w2}] on the grid
        return (e1 * weights) @ e2.T

    def pair_m1(weights):  # E[weights(g) (e^{-s.w} - 1)]
        return (m1 @ weights)[:, None] + (m2 @ weights)[None, :] + (m1 * weights) @ m2.T

    one_minus = np.clip(-pair_m1(p0), 0.0, 1.0)
    with np.errstate(divide="ignore"):
        log_phi = np.where(
            one_minus < 0.5, np.log1p(-one_minus), np.log(np.maximum(pair(p0), 1e-320))
        )
    psi = []
    for c, ph in ((c1, dens(c1)), (c2, dens(c2))):
        pf = ph * (g - c)
        direct, shifted = pair(pf), pair_m1(pf)
        a = np.abs(pf)
        mass_direct = pair(a)
        mass_shifted = (
            (np.abs(m1) @ a)[:, None] + (np.abs(m2) @ a)[None, :] + (np.abs(m1) * a) @ np.abs(m2).T
        )
        psi.append(np.where(mass_shifted <= mass_direct, shifted, direct))
    base = axes[0][:, None] + axes[1][None, :]
    w1 = exp_or_zero(base + (L - 1) * log_phi)
    w2 = exp_or_zero(base + (L - 2) * log_phi) if L > 2 else np.exp(base)
    area = step_v * step_v
    scale = math.exp(c1 * c2) / L * area
    A = scale * float(np.sum(w1 * pair(p12)))
    B = scale * float(np.sum(w1 * pair(p12 * (g - c1) * (g - c2)))) + (L - 1) / L * area * float(
        np.sum(w2 * psi[0] * psi[1])
    )
    return A, B
