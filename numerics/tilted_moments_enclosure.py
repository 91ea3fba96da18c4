"""Proved enclosures of the d = 1 tilted moments of Assumption 3.3 by Arb ball arithmetic.

The claim asm-3.3 checks its closed forms (derivations/tilted_moments.py) in d = 1 on the
scenario's first coordinates against nested float quadrature (`quadrature_1d` in
numerics/tilted_moments.py). This module encloses the same quantities a second time, with certainty,
from the definition and nothing of the closed forms: tokens z' ~ N(m, gamma) (gamma >= 0),
queries z ~ N(0, s) (s > 0), a = u z, tilt power c in {1, 2}, orders p, q in {0, 4, 8} (even,
so |z'|^p = z'^p and |z|^q = z^q: no absolute value enters), and

    M_pq^(c) = E_z[ E_z'[ z'^p e^{c a z'} ] / (E_z' e^{a z'})^c  z^q ].

Gaussian reduction of the inner expectation. With Z(a) = E e^{a z'} = e^{a m + gamma a^2 / 2},
completing the square gives e^{c a x} phi_{m, gamma}(x) = Z(c a) phi_{m + c gamma a, gamma}(x), so

    E_z'[z'^p e^{c a z'}] / Z(a)^c = e^{kappa gamma a^2} P_p(m + c gamma a),  kappa = (c^2 - c) / 2,

since Z(c a) / Z(a)^c = e^{(c^2 - c) gamma a^2 / 2}, with P_p(mu) = E x^p for x ~ N(mu, gamma),
computed by the recurrence P_0 = 1, P_1 = mu, P_k = mu P_{k-1} + (k - 1) gamma P_{k-2} (Stein's
identity E[y f(y)] = gamma E f'(y) for y = x - mu), evaluated in ball arithmetic at every point
where the outer integrand is needed (the polynomial in z is never written out).

The outer integral is one-dimensional: M_pq^(c) = int f(z) dz with

    f(z) = e^{-z^2 / (2s) + kappa gamma u^2 z^2} P_p(m + c gamma u z) z^q / sqrt(2 pi s),

and |f(z)| carries the Gaussian factor e^{-beta z^2 / 2}, beta = 1/s - 2 kappa gamma u^2.

Finiteness. For c = 1, kappa = 0 and beta = 1/s > 0: always finite. For c = 2, kappa = 1: finite
iff beta > 0, i.e. lambda = u^2 gamma s < 1/2. When beta <= 0 (then gamma u^2 > 0, so gamma > 0),
f(z) >= e^{|beta| z^2 / 2} gamma^{p/2} z^q / sqrt(2 pi s) (P_p(mu) = E x^p >= (E x^2)^{p/2} >=
gamma^{p/2} by Jensen, p even), which is not integrable: the moment is infinite and `moment`
returns None, never a ball. The test is exact (fractions of the inputs' decimals): no rounding
decides it.

Segment and tails (no truncation). `acb.integral` returns a ball containing int_{-R}^{R} f
(Gauss-Legendre with an error bound from |f| on complex ellipses; f is entire, so its `analytic`
flag needs no test). Both tails |z| > R >= 1 are bounded:

- |P_p(mu)| = |E x^p| <= E|x|^p <= 2^{p-1} (|mu|^p + gamma^{p/2} E|y|^p), y ~ N(0, 1),
  E|y|^p = (p - 1)!! (convexity of t^p, p >= 2 even); for |z| >= 1, |mu| <= (|m| + c gamma |u|) |z|
  and 1 <= |z|^p, hence |P_p| <= C_p |z|^p with
  C_p = 2^{p-1} ((|m| + c gamma |u|)^p + gamma^{p/2} (p - 1)!!) (C_0 = 1), and
  |f(z)| <= C_p |z|^n e^{-beta z^2 / 2} / sqrt(2 pi s), n = p + q;
- I_n(R) = int_R^inf z^n e^{-beta z^2/2} dz: integrating z^{n-1} (z e^{-beta z^2/2}) by parts,
  I_n(R) = R^{n-1} e^{-beta R^2/2} / beta + (n - 1)/beta int_R^inf z^{n-2} e^{-beta z^2/2} dz,
  and the last integral is at most I_n(R) / R^2 (z >= R); so, when beta R^2 > n - 1,
  I_n(R) <= R^{n-1} e^{-beta R^2/2} / (beta - max(n - 1, 0) / R^2) (for n = 0 that term is <= 0);
- the moment lies in the segment's ball widened by 2 C_p I_n(R) / sqrt(2 pi s) (both tails).

R starts where e^{-beta R^2/2} is about 2^-100 and grows until that bound is below 2^-80 of the
segment's value (or is exactly 0: gamma = m = 0, p > 0, where f = 0). The inputs are taken as the
decimals their repr writes (arb parses them at PRECISION_BITS into balls of radius ~2^-128), the
same numbers the claim's closed forms take (sp.Rational(repr(x))): the ball contains the moment at
those exact inputs.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import acb, arb

from .arb.context import precision

ORDERS = (0, 4, 8)
POWERS = (1, 2)
PRECISION_BITS = 128
RELATIVE_TOLERANCE = 2.0**-90  # acb.integral's goal on the segment (its ball is proved either way)
TAIL_SHARE = 2.0**-80  # the tails' bound relative to the segment's value
START_BITS = 100  # the first R: e^{-beta R^2 / 2} ~ 2^-START_BITS beyond the peak
MAX_WIDENINGS = 40


def _decimal(x) -> str:
    """The decimal a float's repr writes (the claim's closed forms read the same string)."""
    return repr(float(x))


def is_finite(c: int, gamma, u, sigma_q) -> bool:
    """Whether M_pq^(c) is finite (module docstring): beta = 1/s - 2 kappa gamma u^2 > 0, decided
    exactly on the inputs' decimals (the same for every p, q)."""
    if c not in POWERS:
        raise ValueError(f"tilt power c = {c!r} is not one of {POWERS}")
    g, uu, s = (Fraction(_decimal(x)) for x in (gamma, u, sigma_q))
    kappa = Fraction(c * c - c, 2)
    return 1 > 2 * kappa * g * uu * uu * s


def _moments_recurrence(mu, gamma, p: int):
    """E x^p for x ~ N(mu, gamma) by P_k = mu P_{k-1} + (k - 1) gamma P_{k-2} (Stein's identity)."""
    prev, cur = type(mu)(1), mu
    if p == 0:
        return prev
    for k in range(2, p + 1):
        prev, cur = cur, mu * cur + (k - 1) * gamma * prev
    return cur


def _double_factorial_odd(p: int) -> int:
    """(p - 1)!! = E|y|^p for y ~ N(0, 1) and p even."""
    return math.prod(range(p - 1, 0, -2))


def tail_bound(R: arb, n: int, beta_lo: arb, C_p: arb, root: arb) -> arb:
    """Both tails |z| > R (module docstring): 2 C_p I_n(R) / sqrt(2 pi s), an upper bound."""
    denominator = beta_lo - max(n - 1, 0) / (R * R)
    if not denominator > 0:
        return arb("inf")
    I_n = R ** (n - 1) * (-beta_lo * R * R / 2).exp() / denominator
    return arb((2 * C_p * I_n / root).upper())


def moment(p: int, q: int, c: int, m, gamma, u, sigma_q) -> arb | None:
    """A ball containing M_pq^(c) in d = 1 (module docstring), or None when the moment is infinite.
    Inputs are floats (taken as the decimals their repr writes); p, q even >= 0, c in {1, 2}."""
    if p < 0 or q < 0 or p % 2 or q % 2:
        raise ValueError(
            f"orders p = {p!r}, q = {q!r} must be even and >= 0 (|.|^p is then a polynomial)"
        )
    if not float(sigma_q) > 0 or not float(gamma) >= 0:
        raise ValueError(
            f"need sigma_q > 0 and gamma >= 0; got sigma_q = {sigma_q}, gamma = {gamma}"
        )
    if not is_finite(c, gamma, u, sigma_q):
        return None
    with precision(PRECISION_BITS):
        return _moment(p, q, c, *(arb(_decimal(x)) for x in (m, gamma, u, sigma_q)))


def _moment(p: int, q: int, c: int, m: arb, g: arb, u: arb, s: arb) -> arb:
    kappa = (c * c - c) // 2
    root = (2 * arb.pi() * s).sqrt()
    quadratic = -1 / (2 * s) + kappa * g * u * u  # the exponent's z^2 coefficient: -beta / 2
    shift = c * g * u  # tilted mean m + c gamma u z

    def integrand(z, _analytic):  # entire in z: no analytic test needed
        mu = m + shift * z
        value = (quadratic * z * z).exp() * _moments_recurrence(mu, g, p) / root
        return value * z**q if q else value

    n = p + q
    beta = -2 * quadratic
    beta_lo = arb(beta.lower())
    if not beta_lo > 0:  # is_finite said beta > 0 exactly: only a ball straddling 0 lands here
        raise ValueError(f"beta = {beta} too close to 0 to enclose (lambda at the finiteness edge)")
    C_p = (
        arb(1)
        if p == 0
        else (
            2 ** (p - 1)
            * ((abs(m) + c * g * abs(u)) ** p + g ** (p // 2) * _double_factorial_odd(p))
        )
    )
    # first R: e^{-beta R^2 / 2} ~ 2^-START_BITS beyond the polynomial's peak at z^2 ~ n / beta
    b = float(beta_lo)
    R = max(1.0, math.sqrt(n / b) + math.sqrt(2 * START_BITS * math.log(2) / b))
    for _ in range(MAX_WIDENINGS):
        Ra = arb(R)
        tail = tail_bound(Ra, n, beta_lo, C_p, root)
        segment = acb.integral(integrand, -R, R, rel_tol=RELATIVE_TOLERANCE, abs_tol=2.0**-300).real
        if tail == 0 or tail <= TAIL_SHARE * arb(abs(segment).lower()):
            return segment + arb(0, tail.upper())
        R *= 1.25
    raise ValueError(
        f"no R up to {R:.3g} made the tails small against the segment (p = {p}, q = {q}, c = {c})"
    )


def table(c: int, m, gamma, u, sigma_q) -> list[list[arb | None]]:
    """3 x 3 balls (None where infinite): rows p = 0, 4, 8; columns q = 0, 4, 8."""
    return [[moment(p, q, c, m, gamma, u, sigma_q) for q in ORDERS] for p in ORDERS]
