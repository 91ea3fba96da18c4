"""Proved enclosures of the exact finite-L moments A_L(q), B_L(q) by Arb ball arithmetic.

numerics/selfnormalised.py computes, in floats, the two scalar functions behind every exact finite-L
fixed-query moment of softmax attention over Gaussian prompts (p = softmax of L iid N(0, q) scores,
g_i the standardised scores, f = g - sqrt q, w = e^{sqrt(q) g - q/2}, phi(t) = E e^{-t w}):

    A_L(q) = E sum_i p_i^2 = L int_0^inf t E[w^2 e^{-tw}] phi(t)^{L-1} dt,
    B_L(q) = E (sum_i p_i g_i - sqrt q)^2
           = L int_0^inf t E[w^2 f^2 e^{-tw}] phi^{L-1} dt
             + L (L-1) int_0^inf t E[w f e^{-tw}]^2 phi^{L-2} dt.

This module computes them a second time, with certainty: python-flint's `acb.integral` returns a
ball that contains the integral over a finite segment (Gauss-Legendre with a proved error bound
from the integrand's size on complex ellipses), and every infinite tail is bounded, never cut:

- inner integrals over g, after the shift w^k phi_N(g) = phi_N(g - k sqrt q) e^{(k^2 - k) q / 2}: on
  [-sqrt q - G, 2 sqrt q + G] by `acb.integral`; beyond, |e^{-tw}| <= 1 (Re t >= 0) and, with
  u = g - k sqrt q, b = |k - 1| sqrt q and |u| >= c >= 1, (|u| + b)^2 <= 4 (1 + b)^2 u^2, so each
  tail is at most 4 (1 + b)^2 (c phi_N(c) + Q(c)), Q the normal tail (erfc);
- the outer integral in v = log(t L), t = e^v / L (the integrand is holomorphic where
  |Im v| < pi / 2, which keeps Re t > 0): on [V_LO, v_hi] by `acb.integral`; below V_LO each
  integrand is at most (1 + q) e^{2v} (E[w^2 f^2] / e^q = 1 + q, E[w f^2] = 1, E[w^2] / e^q = 1),
  so the tail is at most (1 + q) e^{2 V_LO} / 2 times the prefactor; above v_hi (t > T), with phi
  decreasing, int_T^inf t e^{-tw} dt = (1 + T w) e^{-Tw} / w^2 and Cauchy-Schwarz
  E[w f e^{-tw}]^2 <= E[w f^2 e^{-tw}]:

      A tail  <= L phi(T)^{L-1} E[(1 + T w) e^{-Tw}],
      B1 tail <= L phi(T)^{L-1} E[f^2 (1 + T w) e^{-Tw}],
      B2 tail <= L (L-1) phi(T)^{L-2} E[f^2 (1 + T w) e^{-Tw} / w].

On the complex balls where `acb.integral` bounds the error, the integrand is replaced by a ball
around 0 of radius its proved bound: |e^{-tw}| = e^{-Re(t) w} <= e^{-t_r w} for the smallest real
part t_r on the ball, so each inner factor is at most its value at t_r (and |f| <= (1 + f^2) / 2).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from flint import acb, arb

from . import kernels
from .arb import ball, ipow, outward, precision, real_upper
from .arb import exact_array as arb_array

# re-exported: the claims import `outward` from here, gradient_scalars_enclosure the others
__all__ = ["FixedQuery", "Moments", "arb_array", "ball", "ipow", "outward", "real_upper"]

PRECISION_BITS = 64
INNER_RELATIVE = 2.0**-40  # the inner integrals enter phi^(L-1): their error is amplified by L
OUTER_RELATIVE = 2.0**-30
G_HALF_WIDTH = 14.0  # the inner range beyond the shifted Gaussians' centres (tail < 1e-42)
V_LO = -30.0
CUTOFF = 250.0  # e^{-CUTOFF}: where e^{-tw} is dropped from the inner integrals (bounded)
IM_MAX = 1.5  # < pi / 2: the outer integrand's strip of holomorphy used
# What one L costs (A_L and B_L enclosed), for the claims' work estimates: 2-3 s on a 2-core machine
# whatever the scenario's size (measured at q <= 30), counted as 4.
SECONDS_PER_L = 4.0


@dataclass(frozen=True)
class Moments:
    """Balls (python-flint `arb`) that contain A_L(q) and B_L(q)."""

    A: arb
    B: arb


def _gauss_tail(c: float) -> arb:
    """4 (c phi_N(c) + Q(c)) >= int_c^inf 4 u^2 phi_N(u) du, for c >= 1."""
    c = arb(c)
    phi = (-c * c / 2).exp() / (2 * arb.pi()).sqrt()
    return 4 * (c * phi + (c / arb(2).sqrt()).erfc() / 2)


class _Inner:
    """The inner Gaussian integrals I_{k,j}(t) = int phi_N(g - k sqrt q) f(g)^j e^{-t w(g)} dg."""

    def __init__(self, q: arb):
        self.q = q
        self.rq = q.sqrt()
        rq = math.sqrt(float(q.mid()))
        self.lo, self.hi = -rq - G_HALF_WIDTH, 2 * rq + G_HALF_WIDTH
        self._root_2pi = (2 * arb.pi()).sqrt()

    def __call__(self, t: acb, k: int, j: int, abs_f: bool = False) -> acb:
        """I_{k,j}(t) for Re t >= 0 (with |f| bounded by (1 + f^2) / 2 when abs_f), its tails
        included.

        A ball t is integrated at its centre t_0 and widened by |t - t_0| sup |dI/dt| over the ball
        (integrating a ball-valued integrand to a relative tolerance takes ~10x longer). With
        t_r <= Re t on the ball, |w e^{-tw}| <= w e^{-t_r w},
        w phi_N(g - k sqrt q) = phi_N(g - (k + 1) sqrt q) e^{kq} and |f|^j <= 1 + f^2 (j <= 2):
        sup |dI/dt| <= e^{kq} (I_{k+1,0}(t_r) + I_{k+1,2}(t_r)).
        """
        centre = t.mid()
        radius = abs(t - centre).upper()
        value = self._at(centre, k, j, abs_f)
        if radius == 0:
            return value
        # the bound at t_r = 0, e^{kq} (2 + k^2 q) (f has mean k sqrt q, variance 1 there), costs
        # nothing and suffices unless e^{-tw} is small (large t): then the bound at t_r, two more
        # integrals
        slope = (self.q * k).exp() * (2 + k * k * self.q)
        if not radius * slope <= abs(value).lower() * 2.0**-48:
            t_r = acb(max(0.0, float(t.real.lower())))
            slope = (self.q * k).exp() * (
                real_upper(self._at(t_r, k + 1, 0, False))
                + real_upper(self._at(t_r, k + 1, 2, False))
            )
        return value + ball(radius * slope)

    def _at(self, t: acb, k: int, j: int, abs_f: bool) -> acb:
        s = self.rq * k
        rq, half_q, root = self.rq, self.q / 2, self._root_2pi

        def integrand(g, _analytic):  # entire in g: the analytic flag needs no check
            d = g - s
            val = (-d * d / 2 - t * (rq * g - half_q).exp()).exp() / root
            if abs_f:
                return val * (1 + (g - rq) ** 2) / 2
            return val * (g - rq) ** j if j else val

        b = abs(k - 1) * float(self.rq.mid()) + 1e-12
        c_lo = float((s - self.lo).lower())
        tail = _gauss_tail(c_lo) * (1 + b) ** 2 * (2 if j == 2 or abs_f else 1)
        # Right end: where Re(t) w >= CUTOFF the integrand is below e^{-CUTOFF} phi_N (1 + f^2), so
        # beyond g_X the integral is at most e^{-CUTOFF} (2 + (k - 1)^2 q). Stopping there also
        # keeps acb.integral away from the complex g where |e^{-tw}| explodes
        # (it would need ever finer pieces).
        hi = self.hi
        t_re = float(t.real.lower())
        g_x = (
            (math.log(CUTOFF / t_re) + float(half_q.mid())) / float(rq.mid())
            if t_re > 0 and rq > 0
            else math.inf
        )
        if g_x < hi:
            hi = g_x
            tail += (-arb(CUTOFF)).exp() * (2 + (1 + b) ** 2)
        else:
            tail += (
                _gauss_tail(float((self.hi - s).lower()))
                * (1 + b) ** 2
                * (2 if j == 2 or abs_f else 1)
            )
        val = (
            acb.integral(integrand, self.lo, hi, rel_tol=INNER_RELATIVE, abs_tol=2.0**-160)
            if hi > self.lo
            else acb(0)
        )
        return val + ball(tail)


def moments(q, L: int) -> Moments:
    """Balls containing A_L(q) and B_L(q) (module docstring), for L >= 1 and q >= 0 a float or a
    ball (python-flint `arb`, every point of which is >= 0)."""
    q = arb(q)
    if not (q.is_finite() and q >= 0) or L < 1:
        raise ValueError(f"moments need q >= 0 finite and L >= 1; got q = {q}, L = {L!r}")
    if L == 1:  # p_1 = 1: A = 1, B = E (g - sqrt q)^2 = 1 + q
        return Moments(arb(1), 1 + q)
    with precision(PRECISION_BITS):
        return _moments(q, L)


def _moments(qa: arb, L: int) -> Moments:
    I = _Inner(qa)
    ell = arb(L).log()
    q = float(qa.mid())
    rq = math.sqrt(q)
    n1, n2 = L - 1, L - 2
    v_hi = math.log(L) + q / 2 + 12.0 * rq + 10.0

    def t_of(v):
        return (v - ell).exp()

    def bound_at(v):
        """(e^{2 Re v}, t_r) on the ball v: the smallest real part t_r of t = e^v / L there."""
        im = abs(v.imag).upper()
        re = v.real
        tr = max(0.0, float(((re - ell).exp() * arb(im).cos()).lower()))
        return (2 * re).exp().upper(), acb(tr)

    def outer_ab(v, analytic):
        """e^{2v} (I_{2,0} + i I_{2,2}) phi^{L-1}: the A and B1 integrands as real and imaginary
        parts."""
        if analytic:
            im = v.imag
            if not (im < IM_MAX and im > -IM_MAX):
                return acb("nan")
            e2, tr = bound_at(v)
            phi = ipow(real_upper(I(tr, 0, 0)), n1)
            return ball(arb(e2) * (real_upper(I(tr, 2, 0)) + real_upper(I(tr, 2, 2))) * phi)
        t = t_of(v)
        phi = ipow(I(t, 0, 0), n1)
        return (2 * v).exp() * (I(t, 2, 0) + acb(0, 1) * I(t, 2, 2)) * phi

    def outer_b2(v, analytic):
        """e^{2v} I_{1,1}^2 phi^{L-2}: the B2 integrand."""
        if analytic:
            im = v.imag
            if not (im < IM_MAX and im > -IM_MAX):
                return acb("nan")
            e2, tr = bound_at(v)
            phi = ipow(real_upper(I(tr, 0, 0)), n2)
            return ball(arb(e2) * real_upper(I(tr, 1, 1, abs_f=True)) ** 2 * phi)
        t = t_of(v)
        phi = ipow(I(t, 0, 0), n2)
        return (2 * v).exp() * I(t, 1, 1) ** 2 * phi

    ab = acb.integral(outer_ab, V_LO, v_hi, rel_tol=OUTER_RELATIVE)
    b2 = acb.integral(outer_b2, V_LO, v_hi, rel_tol=OUTER_RELATIVE)
    # tails of the outer integrals (module docstring); in v the integrals carry e^{2v} / L^2
    # (dt = t dv)
    low = (1 + qa) * (2 * arb(V_LO)).exp() / 2
    # upper bounds only: each inner value's ball may reach below 0
    # (arb's power of such a ball is nan)
    T = acb(arb(v_hi - math.log(L)).exp())
    up = lambda k, j: real_upper(I(T, k, j))
    phi_T, Ta = up(0, 0), T.real
    tail_a = L * ipow(phi_T, n1) * (phi_T + Ta * up(1, 0))
    tail_b1 = L * ipow(phi_T, n1) * (up(0, 2) + Ta * up(1, 2))
    tail_b2 = L * (L - 1) * ipow(phi_T, n2) * (qa.exp() * up(-1, 2) + Ta * up(0, 2))
    e_q = qa.exp()
    A = ab.real * e_q / L + ball(low * e_q / L + tail_a.upper()).real
    B1 = ab.imag * e_q / L + ball(low * e_q / L + tail_b1.upper()).real
    B2 = b2.real * (L - 1) / L + ball(low * (L - 1) / L + tail_b2.upper()).real
    return Moments(A, B1 + B2)


@dataclass(frozen=True)
class FixedQuery:
    """Balls containing the exact finite-L bias E err (one per output coordinate) and E|err|^2 at
    one query, for the scenario's float inputs taken as exact numbers."""

    bias: list
    mse: arb


@functools.lru_cache(maxsize=256)
def cached_moments(q_key: tuple, L: int) -> Moments:
    """`moments` memoised by the exact ball of q (its centre and radius as floats) and L: the test
    suite and the claim's profiles reuse the default scenario's query."""
    mid, rad = q_key
    return moments(arb(mid, rad), L)


def fixed_query(Gamma, U, V, z, L: int) -> FixedQuery:
    """The exact fixed-query bias and mean squared error at prompt length L, enclosed: the emitted
    kernels selfnormalised_bias and selfnormalised_mse evaluated in ball arithmetic on
    A_L(q), B_L(q) (module docstring), with a = U z, q = a^T Gamma a, tr(V Gamma V^T) and
    rho = |V Gamma a|^2 / q computed in ball arithmetic from the inputs."""
    with precision(PRECISION_BITS):
        G, Ua, Va = arb_array(Gamma), arb_array(U), arb_array(V)
        a = Ua.dot(arb_array(z))[:, None]
        Ga = G.dot(a)
        q = a[:, 0].dot(Ga[:, 0])
        VGa = Va.dot(Ga)[:, 0]
        trace = sum(Va.dot(G).dot(Va.T)[i, i] for i in range(Va.shape[0]))
        if q.is_exact() and q == 0:  # Gamma a = 0: p_i = 1/L, A = B and the rho term is 0
            m = cached_moments((0.0, 0.0), L)
            rho = arb(0)
        else:
            if not q > 0:  # a ball that reaches below 0: q >= 0 (Gamma is PSD)
                half = arb(q.upper()) / 2
                q = arb(half.mid(), half.upper())
            m = cached_moments((float(q.mid()), float(q.rad())), L)
            rho = sum(v * v for v in VGa) / q
        bias = [b for b in kernels.selfnormalised_bias(G, Va, a, m.A)[:, 0]]
        return FixedQuery(bias, kernels.selfnormalised_mse(trace, rho, m.A, m.B))
