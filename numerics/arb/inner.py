"""The inner-integral engine of the enclosures: the Gaussian integrals

    J_{k,h}(t) = E[w^k h(f) e^{-tw}]
               = e^{(k^2-k) q/2} int phi_N(g - k sqrt q) h(g - sqrt q) e^{-tw} dg

for the scores of softmax attention over Gaussian prompts (g a standard normal score,
f = g - sqrt q, w = e^{sqrt(q) g - q/2}, h a polynomial of degree <= 4 with exact coefficients,
lowest first), as balls, for t a complex ball with Re t >= 0; the shift
w^k phi_N(g) = phi_N(g - k sqrt q) e^{(k^2-k) q/2} moves each integrand's Gaussian to k sqrt q.

Segment: `acb.integral` (Gauss-Legendre with a proved error bound from the integrand's size on
complex ellipses; the integrand is entire in g) on [min(k sqrt q, g_1) - G, k sqrt q + G]
(G = G_HALF_WIDTH = 10, g_1 = (q/2 - log Re t) / sqrt q where t w = 1: at large t the mass lies
there; the majorants start at k sqrt q - 30 at the latest, MAJORANT_LEFT).

Tails, with u = g - k sqrt q, b = |k - 1| sqrt q, |u| >= c >= G >= 1 (c the distance of the
segment's end from k sqrt q, a ball rounded down to a float) and Re t >= 0 (so |e^{-tw}| <= 1):
|f| <= |u| + b <= (1 + b) |u|, so |h(f)| <= sum_i |h_i| (1 + b)^i |u|^i and each side's tail is at
most sum_i |h_i| (1 + b)^i M_i(c), M_i(c) = int_c^inf u^i phi_N(u) du = c^{i-1} phi_N(c)
+ (i - 1) M_{i-2}(c), M_0 = Q(c), M_1 = phi_N(c). Where Re(t) w >= CUTOFF (g >= g_x, g_x
computed in balls from a float t_r <= Re t and rounded up, so for every q in its ball) the
integrand is at most e^{-CUTOFF} phi_N(u) |h(f)|, and E|h(f)| <= sum_i |h_i| K(b) with
K(b) = E(1 + b + |u|)^4 <= (1+b)^4 + 4 (1+b)^3 + 6 (1+b)^2 + 8 (1+b) + 3 (E|u|^m <= 1, 1, 1, 2, 3
for m = 0..4; (|u| + b)^i <= (1 + b + |u|)^4 for i <= 4): the segment stops at g_x and
e^{-CUTOFF} sum |h_i| K(b) bounds the rest (stopping there also keeps `acb.integral` away from the
complex g where |e^{-tw}| explodes). The centred blocks (k = 1, h = f or x = f^2 - 1: E[w h] = 0)
are integrated as E[w h (e^{-tw} - 1)] (`expm1`, no cancellation at small t) while t w <= 1 at the
segment's right end (|e^{-tw} - 1| <= 2: the tails double).

A ball t is integrated at its centre t_0 and widened by |t - t_0| sup |J'|,
|J'(t)| = |E[w^{k+1} h e^{-tw}]| <= sum |h_i| E[w^{k+1} (1 + f^4) e^{-t_r w}] (|f|^i <= 1 + f^4,
t_r <= Re t), at t_r = 0 in closed form sum |h_i| e^{(k^2+k) q/2} (4 + 6 mu^2 + mu^4), mu = k sqrt q
(f ~ N(mu, 1) under w^{k+1}); t_r is the ball's lowest real part rounded down to a float.

Majorants: for m >= 0 (1 + f^4, 1, ...), E[w^k m(f) e^{-t_r w}] at a real t_r >= 0, rounded up, is
an upper bound of |E[w^k h e^{-tw}]| for every |h| <= m and Re t >= t_r; computed once per
(t_r, k, m) to MAJORANT_RELATIVE only (they bound errors and tails, never the value).
"""

from __future__ import annotations

import math

from flint import acb, arb

from .balls import ball, float_down, float_up, ipow, real_upper
from .tails import K, tail_moments

INNER_RELATIVE = 2.0**-30  # acb.integral's goal when the caller names none
MAJORANT_RELATIVE = 2.0**-10
G_HALF_WIDTH = 10.0  # each inner segment's half width around its Gaussian's centre (tails < 1e-19)
# The majorants' segments start further left: the outer tail above v_hi multiplies them by up to
# T^3 ~ e^{3 v_hi}, and e^{-tw} -> 1 to the left, so their tails must be far smaller (< 1e-190).
MAJORANT_LEFT = 30.0
CUTOFF = 250.0  # e^{-CUTOFF}: where e^{-tw} is dropped from the inner integrals (bounded)

# Polynomials in f, coefficients lowest first (exact: integers or binary floats such as 0.5).
ONE, F, X, F2 = (1,), (0, 1), (-1, 0, 1), (0, 0, 1)
BOUND = (1, 0, 0, 0, 1)  # 1 + f^4 >= |f|^i for i <= 4


def abs_sum(poly) -> int:
    """sum_i |h_i|: |h(f)| <= abs_sum(h) (1 + f^4) (module docstring)."""
    return sum(abs(c) for c in poly)


class Inner:
    """J_{k,h}(t) = E[w^k h(f) e^{-tw}] with its tails (module docstring)."""

    def __init__(self, q: arb):
        self.q, self.rq = q, q.sqrt()
        self.rqf = float(self.rq.mid())
        self.root = (2 * arb.pi()).sqrt()
        self._majorants: dict = {}

    def scale(self, k: int) -> arb:
        return (self.q * (k * k - k) / 2).exp()

    def _b(self, k: int) -> arb:
        return abs(k - 1) * self.rq

    def side_tail(self, k: int, poly, width: float) -> arb:
        """A bound of int_{|u| >= width} phi_N(u) |h(f)| du over one side (width >= 1)."""
        b1 = 1 + self._b(k)
        M = tail_moments(width)
        return sum((abs(c) * ipow(b1, i) * M[i] for i, c in enumerate(poly) if c), arb(0))

    def cutoff_start(self, t_re: float) -> float:
        """A float g_x with t_re w(g) >= CUTOFF for every g >= g_x and every q in the ball:
        g_x = (log(CUTOFF / t_re) + q/2) / sqrt q in ball arithmetic, rounded up (inf when the
        ball of sqrt q reaches 0, where w does not grow with g)."""
        if not self.rq > 0:
            return math.inf
        return float_up(((arb(CUTOFF) / arb(t_re)).log() + self.q / 2) / self.rq)

    def value(self, t: acb, k: int, poly, rel: float = INNER_RELATIVE) -> acb:
        return self.values(t, k, [poly], rel)[0]

    def values(self, t: acb, k: int, polys: list, rel: float = INNER_RELATIVE) -> list:
        """[J_{k,h}(t) for h in polys]: two per `acb.integral` (for real t, the real and imaginary
        parts of the integral of h_1 + i h_2), each widened over the ball t."""
        centre = t.mid()
        radius = abs(t - centre).upper()
        real = t.imag.is_exact() and t.imag == 0
        out = []
        for i in range(0, len(polys), 2 if real else 1):
            out += self._at(centre, k, polys[i : i + 2] if real else polys[i : i + 1], rel)
        if radius == 0:
            return out
        mu2 = self.q * k * k
        cheap = (self.q * (k * k + k) / 2).exp() * (4 + 6 * mu2 + mu2 * mu2)
        for i, (poly, value) in enumerate(zip(polys, out)):
            slope = abs_sum(poly) * cheap
            if not radius * slope <= abs(value).lower() * 2.0**-48:
                t_r = max(0.0, float_down(t.real))  # <= Re t on the ball
                slope = abs_sum(poly) * self.majorant(t_r, k + 1)
            out[i] = value + ball(radius * slope)
        return out

    def majorant(self, t_r: float, k: int, poly=BOUND) -> arb:
        """An upper bound of E[w^k m(f) e^{-t_r w}] (t_r >= 0 real, m >= 0: 1 + f^4 or 1)."""
        key = (t_r, k, poly)
        if key not in self._majorants:
            (val,) = self._at(acb(t_r), k, [poly], MAJORANT_RELATIVE, MAJORANT_LEFT)
            self._majorants[key] = real_upper(val)
        return self._majorants[key]

    def _at(self, t: acb, k: int, polys: list, rel: float, left=G_HALF_WIDTH) -> list:
        """J_{k,h}(t) at an exact t for one h, or for two (t real: packed as h_1 + i h_2); the
        segment starts `left` below the Gaussian's centre."""
        s = self.rq * k
        sf = k * self.rqf
        rq, half_q, root = self.rq, self.q / 2, self.root
        coefs = [[arb(c) for c in poly] for poly in polys]
        t_re = float_down(t.real)  # <= Re t: where Re(t) w >= CUTOFF, t_re w may not be
        # floats choose the segment only: its ends are exact floats, and the tails are bounded
        # from them in balls
        half_qf = float(half_q.mid())
        lo, hi = sf - left, sf + G_HALF_WIDTH
        if t_re > 0 and self.rqf > 0:  # reach G below g_1, where t w = 1 (large t: the mass)
            lo = min(lo, (half_qf - math.log(t_re)) / self.rqf - G_HALF_WIDTH)
        w_hi = math.exp(min(self.rqf * hi - half_qf, 700.0))
        centred = k == 1 and all(p in (F, X) for p in polys) and float(t.real.upper()) * w_hi <= 1.0

        def h(cs, f):
            out = acb(cs[-1])
            for c in reversed(cs[:-1]):
                out = out * f + c
            return out

        def integrand(g, _analytic):  # entire in g
            d = g - s
            w = (rq * g - half_q).exp()
            if centred:
                common = (-d * d / 2).exp() * (-t * w).expm1() / root
            else:
                common = (-d * d / 2 - t * w).exp() / root
            f = g - rq
            if len(coefs) == 1:
                return common * h(coefs[0], f)
            return common * (h(coefs[0], f) + acb(0, 1) * h(coefs[1], f))

        g_x = self.cutoff_start(t_re) if t_re > 0 and not centred else math.inf
        cut = g_x < hi
        if cut:
            hi = g_x
        val = acb.integral(integrand, lo, hi, rel_tol=rel, abs_tol=2.0**-200) if hi > lo else acb(0)
        parts = [val] if len(polys) == 1 else [acb(val.real), acb(val.imag)]
        out = []
        for poly, part in zip(polys, parts):
            double = 2 if centred else 1
            # the distances of the segment's ends from k sqrt q, rounded down: the tails' starts
            side = self.side_tail(k, poly, float_down(s - lo)) * double
            if cut:
                right = (-arb(CUTOFF)).exp() * abs_sum(poly) * K(self._b(k))
            else:
                right = self.side_tail(k, poly, float_down(hi - s)) * double
            out.append((part + ball(side + right)) * self.scale(k))
        return out
