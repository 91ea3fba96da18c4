"""A validated enclosure of the solution of an autonomous ODE y' = f(y), y(0) in a box, on [0, T]:
Taylor polynomials computed in Arb and an a posteriori error bound through the logarithmic norm.

Why this route: for a gradient flow the Jacobian Df is symmetric, so its logarithmic 2-norm
mu_2(Df) = lambda_max(Df) is the exact growth rate of nearby solutions, and a bound on the error in
the 2-norm suffers no wrapping at all (an interval Taylor method propagates boxes and needs
Lohner's coordinate changes against it); near a curve of minimisers mu_2 is ~0 and the error stays
where the transient left it. Measured on thm-5.2's default scenario (docs/certificates.md,
"Enclosed flows"): 166 segments to T = 33.4, error radius 4.5e-28, 1.2 s of CPU.

On a segment [t_k, t_k + h] (time tau = t - t_k):

1. P(tau), a vector of polynomials of degree `order`, the Taylor polynomial of the solution
   through the centre c_k (Picard iteration on polynomials, P <- c_k + int_0^tau f(P), truncated;
   its coefficients then replaced by their midpoints: P is an exact approximation, nothing more);
2. the defect D = P' - f(P), a polynomial computed in ball arithmetic, and
   delta = sup_{[0, h]} ||D||_2 <= sqrt(sum_i (sum_j |D_ij| h^j)^2);
3. a tube: every point within rho (each coordinate) of P([0, h]) (P evaluated at the ball [0, h]),
   and mu >= the largest eigenvalue of the symmetric part of Df over the tube (`jacobian`, then
   `symmetric_upper_eigenvalue`);
4. the error e = y - P obeys D+||e|| <= mu ||e|| + delta while y stays in the tube (the mean-value
   form e' = (int_0^1 Df(P + s e) ds) e - D, and mu_2 is convex), so
   ||e(tau)|| <= r(tau) = e^{mu tau} r_k + delta (e^{mu tau} - 1) / mu  (delta tau when mu = 0);
   sup_{[0, h]} r < rho proves that y never leaves the tube on the segment (the first exit time
   would have ||e|| = rho), so the bound holds there. rho starts at twice the predicted error and
   doubles (at most four times) until it is proved;
5. the next centre is the midpoint of P(h) (a ball), its radius added to r_{k+1} = r(h).

The step h is chosen from the last two Taylor coefficients (so that their terms are ~`tolerance`),
rounded down to a multiple of 2^-16, so that every segment end t_k is an exact float. The
enclosure of y at any t of a segment is P(tau) +- r_sup (each coordinate), r_sup the bound over the
segment; `crossing` encloses the first time a non-increasing function of the state falls to a level.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from flint import arb, arb_poly

from .eigen import symmetric_upper_eigenvalue
from .jets import coefficient, jacobian

GRID = 2.0**-16  # segment lengths are multiples of this, so every t_k is an exact float


@dataclass
class Segment:
    t0: float
    h: float
    poly: list  # exact polynomials in tau = t - t0
    r0: arb  # error bound at t0 (2-norm)
    r_sup: arb  # error bound over the segment
    mu: arb  # logarithmic-norm bound over the tube
    delta: arb  # defect bound


@dataclass
class Tube:
    """The enclosure: segments covering [0, t_end], each a polynomial and an error radius."""

    segments: list = field(default_factory=list)
    failure: str = ""  # why the integration stopped before its goal ("" when it reached it)

    @property
    def t_end(self) -> float:
        s = self.segments[-1]
        return s.t0 + s.h

    def end_state(self) -> tuple[list, arb]:
        """(centre, r) at t_end: the centre an exact vector, r the 2-norm error bound."""
        s = self.segments[-1]
        balls = [p(arb(s.h)) for p in s.poly]
        return [arb(b.mid()) for b in balls], norm_upper([arb(b.rad()) for b in balls]) + _r_at(
            s, s.h
        )

    def box_at(self, t: float) -> list:
        """Balls containing y(t), t in [0, t_end] (a float)."""
        s = self._segment(t)
        tau = arb(t) - arb(s.t0)  # in balls: t - t0 in floats may round
        return widen([p(tau) for p in s.poly], s.r_sup)

    def box_over(self, k: int) -> list:
        """Balls containing y(t) for every t of segment k."""
        s = self.segments[k]
        tau = arb(s.h / 2, s.h / 2)
        return widen([p(tau) for p in s.poly], s.r_sup)

    def _segment(self, t: float) -> Segment:
        for s in self.segments:
            if s.t0 <= t <= s.t0 + s.h:
                return s
        raise ValueError(f"t = {t} is outside [0, {self.t_end}]")


def widen(balls, r: arb) -> list:
    """Each ball widened by r (a box containing the 2-norm ball of radius r around it)."""
    return [b + arb(0, r.upper()) for b in balls]


def _square(u: arb) -> arb:
    return u * u  # not u ** 2: python-flint's power goes through log and is nan at 0


def norm_upper(values) -> arb:
    """An upper bound of the 2-norm of a vector of balls, as an exact ball."""
    squares = sum((_square(arb(abs(v).upper())) for v in values), arb(0))
    return arb(arb(squares.upper()).sqrt().upper())


def _r_at(s: Segment, tau: float) -> arb:
    """The error bound r(tau) of step 4 (upper end, exact ball)."""
    return arb(_growth(s.r0, s.mu, s.delta, arb(tau)).upper())


def _growth(r0: arb, mu: arb, delta: arb, tau: arb) -> arb:
    m = arb(mu.upper())
    if m.is_zero():
        return r0 + delta * tau
    e = (m * tau).exp()
    return e * r0 + delta * (e - 1) / m


def taylor(f, centre: list, order: int) -> list:
    """Step 1: the Taylor polynomials through `centre` (exact midpoints)."""
    P = [arb_poly([c]) for c in centre]
    for m in range(order):
        F = f(P)
        P = [arb_poly([c]) + _truncate(Fi, m + 1).integral() for c, Fi in zip(centre, F)]
    return [arb_poly([arb(c.mid()) for c in p.coeffs()]) for p in P]


def _truncate(p, n: int):
    if not isinstance(p, arb_poly):
        return arb_poly([p])
    return arb_poly(p.coeffs()[:n])


def _step_size(poly: list, order: int, tolerance: float, h_max: float) -> float:
    h = h_max
    for j in (order, order - 1):
        size = max(abs(float(coefficient(p, j).mid())) for p in poly)
        if size > 0:
            h = min(h, 0.5 * (tolerance / size) ** (1.0 / j))
    return max(GRID, math.floor(h / GRID) * GRID)


def _defect(f, poly: list, h: float) -> arb:
    F = f(poly)
    hb = arb(h)
    sizes = []
    for p, Fi in zip(poly, F):
        D = p.derivative() - (Fi if isinstance(Fi, arb_poly) else arb_poly([Fi]))
        s, power = arb(0), arb(1)
        for c in D.coeffs():
            s += arb(abs(c).upper()) * power
            power *= hb
        sizes.append(s)
    return norm_upper(sizes)


def enclose(
    f,
    y0: list,
    done,
    *,
    order: int = 20,
    tolerance: float = 1e-24,
    h_max: float = 1.0,
    t_max: float = 1e4,
    max_segments: int = 5000,
    tube: Tube | None = None,
) -> Tube:
    """Enclose the solution of y' = f(y), y(0) in the balls y0, segment after segment until
    `done(tube)` is true (called after every segment), t_max or max_segments (then `failure` says
    so). `tube`: continue an enclosure already made. Call inside a `precision` block."""
    if tube is None or not tube.segments:
        tube = Tube()
        centre = [arb(b.mid()) for b in y0]
        r = norm_upper([arb(b.rad()) for b in y0])
        t = 0.0
    else:
        centre, r = tube.end_state()
        t = tube.t_end
    while True:
        if len(tube.segments) >= max_segments or t >= t_max:
            tube.failure = f"stopped at t = {t:.6g} after {len(tube.segments)} segments"
            return tube
        poly = taylor(f, centre, order)
        h = _step_size(poly, order, tolerance, h_max)
        segment = None
        for _ in range(12):  # halve h until the tube is proved
            segment = _prove_segment(f, poly, t, h, r)
            if segment is not None:
                break
            h = max(GRID, math.floor(h / 2 / GRID) * GRID)
        if segment is None:
            tube.failure = f"no segment could be proved at t = {t:.6g} (error bound {r})"
            return tube
        tube.segments.append(segment)
        t = segment.t0 + segment.h
        centre, r = tube.end_state()
        if not all(c.is_finite() for c in centre) or not r.is_finite():
            tube.failure = f"the enclosure is not finite at t = {t:.6g}"
            return tube
        if done(tube):
            return tube


def _prove_segment(f, poly, t0: float, h: float, r0: arb) -> Segment | None:
    """Steps 2-4 on [t0, t0 + h], or None when the tube cannot be proved at this h."""
    delta = _defect(f, poly, h)
    tau = arb(h / 2, h / 2)
    path = [p(tau) for p in poly]
    rho = 2 * arb((r0 + delta * h).upper())
    if rho.is_zero():
        rho = arb(2.0**-1000)
    for _ in range(5):
        mu = symmetric_upper_eigenvalue(jacobian(f, widen(path, rho)))
        if not mu.is_finite():
            return None
        sup = _sup_bound(r0, mu, delta, h)
        if sup < rho:
            return Segment(t0, h, poly, r0, sup, mu, delta)
        rho = 2 * sup
    return None


def _sup_bound(r0: arb, mu: arb, delta: arb, h: float) -> arb:
    """sup over [0, h] of r(tau): r' = mu r + delta has one sign, so r is monotone and its
    supremum is max(r(0), r(h))."""
    end, start = arb(_growth(r0, mu, delta, arb(h)).upper()), arb(r0.upper())
    return end if end > start else start


def crossing(tube: Tube, g, level: float, resolution: float) -> tuple[float, float] | None:
    """For g(y(t)) non-increasing in t (a risk along a gradient flow): [lo, hi] with g > level
    proved at lo (or lo = 0) and g <= level proved at hi, bisected until hi - lo <= resolution * hi;
    the first time g(y(t)) <= level lies in [lo, hi]. None when no time of the tube is proved at or
    below the level."""
    if g(tube.box_at(0.0)).upper() <= level:
        return 0.0, 0.0
    lo, hi = 0.0, None
    for k, s in enumerate(tube.segments):
        value = g(tube.box_over(k))
        if value.lower() > level:
            lo = s.t0 + s.h
        elif value.upper() <= level:
            hi = s.t0
            break
    if hi is None:
        end = tube.t_end
        if g(tube.box_at(end)).upper() <= level:
            hi = end
        else:
            return None
    while hi - lo > resolution * hi:
        mid = (lo + hi) / 2
        value = g(tube.box_at(mid))
        if value.lower() > level:
            lo = mid
        elif value.upper() <= level:
            hi = mid
        else:
            break  # the enclosure's width: no finer
    return lo, hi
