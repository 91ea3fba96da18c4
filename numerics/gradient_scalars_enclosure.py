"""Proved enclosures of the grad_U scalars S_aa, S_aA, S_AA, S_A3, S_H at (q, L) by Arb balls.

numerics/gradient_scalars.py computes, in floats, the scalars of the exact Jacobian errors
(numerics/selfnormalised_gradients.py): with p = softmax of L iid N(0, q) scores, g_i the
standardised scores, f = g - sqrt q, x = f^2 - 1, w = e^{sqrt(q) g - q/2}, S = sum_i w_i,

    S_aa = E alpha^2, S_aA = E alpha A, S_AA = E A^2, S_A3 = E sum p^3, S_H = E H,
    alpha = sum p x - (sum p f)^2,  A = sum p^2,  H = sum p_i^2 (f_i - sum p f)^2.

This module computes them a second time, with certainty, by the route of
numerics/selfnormalised_enclosure.py (A_L, B_L) generalised to products of sums.

**Expansions, independent of the float route's table.** Each sum_i p_i^k h(f_i) is N_{k,h} / S^k
with N_{k,h} = sum_i w_i^k h(f_i); `expansions` multiplies these out from the definitions above
(alpha^2 = N_X^2 / S^2 - 2 N_X N_F^2 / S^3 + N_F^4 / S^4, ...), so a slip in the float route's
TERMS is not shared. Each term c E[prod_j N_{k_j,h_j} / S^n] is, with
1/S^n = int_0^inf t^{n-1} e^{-tS} dt / (n-1)! and the product expanded over set partitions pi of
its factors (indices equal within a block, distinct across blocks; numerics/gradient_scalars.py),

    c / (n-1)! sum_pi L^(|pi|) int_0^inf t^{n-1} prod_{B in pi} J_B(t) phi(t)^{L-|pi|} dt,

J_B(t) = E[w^{k_B} h_B(f) e^{-tw}] (k_B the sum of the block's k_j, h_B the product of its
polynomials, degree <= 4), phi = J_{0,1}, L^(b) the falling factorial (a partition with more
blocks than L has L^(b) = 0 and is left out; phi^0 = 1). L = 1 needs no special case.

**Inner integrals** J_{k,h}(t) = E[w^k h(f) e^{-tw}]: numerics/arb/inner.py (`Inner`, the engine
of every enclosure), each with its tails bounded, widened over a ball t, and majorants
E[w^k m(f) e^{-t_r w}] >= |J_{k,h}(t)| for |h| <= m, Re t >= t_r.

**Outer integral** in v = log(t L) (t^{n-1} dt = e^{nv} / L^n dv), holomorphic for |Im v| < pi/2
where Re t > 0: on [V_LO, v_hi] by `acb.integral`; on its complex balls each integrand is replaced
by a ball of radius sum |weight| e^{n Re v} prod_B (sum |h_B,i|) E[w^{k_B} (1 + f^4) e^{-t_r w}]
phi(t_r)^{L-b} (|phi(t)| <= phi(Re t) <= phi(t_r)). Tails, never cut:

- below V_LO (t < t_0 = e^{V_LO} / L): phi <= 1 and |J_B| <= E[w^{k_B} |h_B|]
  <= sum |h_B,i| e^{(k^2-k) q/2} K(|k_B - 1| sqrt q), so the tail is at most
  |c| / n! L^(b) t_0^n prod_B of these;
- above v_hi (t > T, T a float <= e^{v_hi} / L, computed in balls and rounded down:
  numerics/arb/tails.py): phi and every E[w^k |h| e^{-tw}] decrease in t, so all factors but the
  first block's are bounded at T, and
  int_T^inf t^{n-1} E[w^k m e^{-tw}] dt = (n-1)! sum_{j<n} T^j / j! E[w^{k-n+j} m e^{-Tw}]
  (m = (1 + f^4) sum |h_i| >= |h|; negative powers of w are integrable against the Gaussian).

Precision: phi enters as phi^{L-b}, so it is integrated to PHI_RELATIVE; the other blocks to
the engine's INNER_RELATIVE; the bounds (majorants) only to its MAJORANT_RELATIVE.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from flint import acb, arb

from . import kernels
from . import selfnormalised_enclosure as se
from .arb.balls import ball, exact_array, float_down, ipow, memoised_by_ball
from .arb.context import precision
from .arb.inner import F, F2, ONE, X, Inner, abs_sum
from .arb.tails import K, tail_start
from .gradient_scalars import partitions
from .selfnormalised_gradients import DISPLAY_SCALARS

NAMES = ("aa", "aA", "AA", "A3", "H")
PHI_RELATIVE = 2.0**-38
OUTER_RELATIVE = 2.0**-24
V_HI_MARGIN = 10.0  # the outer segment ends at v_hi = log L + q/2 + 12 sqrt q + V_HI_MARGIN
# What one L costs (the five scalars enclosed), for the claims' work estimates: 3.4-3.8 s of CPU at
# q = 0.127, L = 16..2048 (8.5-9.5 s wall on a 2-core machine under load 10), counted as 5.
SECONDS_PER_L = 5.0

# ---------------------------------------------------------------------------------------------
# Expansions from the definitions.


def _sum(k: int, poly) -> list:
    """sum_i p_i^k h(f_i) = N_{k,h} / S^k as [(coefficient, n, factors)]."""
    return [(1, k, ((k, tuple(poly)),))]


def _mul(x: list, y: list) -> list:
    return [(a * b, n + m, fa + fb) for a, n, fa in x for b, m, fb in y]


def _scale(c: int, x: list) -> list:
    return [(c * a, n, fa) for a, n, fa in x]


def expansions() -> dict:
    """{name: [(coefficient, n, factors (k, poly))]}: each scalar as a signed sum of
    E[prod_j N_{k_j,h_j} / S^n], multiplied out from its definition (module docstring)."""
    fbar = _sum(1, F)
    alpha = _sum(1, X) + _scale(-1, _mul(fbar, fbar))
    A = _sum(2, ONE)
    H = _sum(2, F2) + _scale(-2, _mul(fbar, _sum(2, F))) + _mul(_mul(fbar, fbar), A)
    return {
        "aa": _mul(alpha, alpha),
        "aA": _mul(alpha, A),
        "AA": _mul(A, A),
        "A3": _sum(3, ONE),
        "H": H,
    }


def _polymul(a, b) -> tuple:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return tuple(out)


@dataclass(frozen=True)
class Piece:
    """weight * int e^{nv} prod_B J_B phi^{L-b} dv (t = e^v / L): weight = c / (n-1)! L^(b) / L^n
    summed over the terms and partitions that give the same n and blocks."""

    n: int
    blocks: tuple  # ((k, poly), ...)
    coefficient: object  # a Fraction: sum of c / (n-1)! over the merged terms


def pieces(terms: list, L: int) -> list:
    from fractions import Fraction

    merged: dict = {}
    for c, n, factors in terms:
        for part in partitions(list(range(len(factors)))):
            if len(part) > L:
                continue
            blocks = []
            for block in part:
                k, poly = 0, (1,)
                for j in block:
                    k += factors[j][0]
                    poly = _polymul(poly, factors[j][1])
                if len(poly) > 5:
                    raise ValueError(f"a block of degree {len(poly) - 1} > 4: bounds assume <= 4")
                blocks.append((k, poly))
            key = (n, tuple(sorted(blocks)))
            merged[key] = merged.get(key, 0) + Fraction(c, math.factorial(n - 1))
    return [Piece(n, blocks, c) for (n, blocks), c in merged.items() if c != 0]


def _falling(L: int, b: int) -> int:
    out = 1
    for i in range(b):
        out *= L - i
    return out


def piece_weight(p: Piece, L: int) -> arb:
    c = p.coefficient
    return arb(c.numerator) * _falling(L, len(p.blocks)) / (arb(c.denominator) * ipow(arb(L), p.n))


# ---------------------------------------------------------------------------------------------
# Outer integrals.


def scalars(q, L: int) -> dict:
    """{name: ball (python-flint arb)} containing S_aa, S_aA, S_AA, S_A3, S_H at (q, L), for L >= 1
    and q > 0 a float or a ball every point of which is > 0."""
    q = arb(q)
    if not (q.is_finite() and q > 0) or L < 1:
        raise ValueError(f"the scalars need q > 0 finite and L >= 1; got q = {q}, L = {L!r}")
    with precision(se.PRECISION_BITS):
        return _scalars(q, L)


@memoised_by_ball()
def ball_scalars(q: arb, L: int) -> dict:
    """`scalars` memoised by the exact ball q and L, the ball handed on as it is (the dict is
    shared: copy it before changing it)."""
    return scalars(q, L)


def cached_scalars(q_key: tuple, L: int) -> dict:
    """The older form of `ball_scalars`: q as the ball of centre and radius the floats
    q_key = (mid, rad)."""
    mid, rad = q_key
    return ball_scalars(arb(mid, rad), L)


def _scalars(qa: arb, L: int) -> dict:
    I = Inner(qa)
    ell = arb(L).log()
    q = float(qa.mid())
    rq = math.sqrt(q)
    v_hi = math.log(L) + q / 2 + 12.0 * rq + V_HI_MARGIN
    exp = expansions()
    nodes: dict = {}  # exact v -> inner values, shared by the three outer integrals
    table = {name: [(p, piece_weight(p, L)) for p in pieces(exp[name], L)] for name in NAMES}
    out = {}
    for first, second in (("aa", "H"), ("aA", "AA"), ("A3", None)):
        names = (first,) if second is None else (first, second)
        integral = acb.integral(
            outer_integrand(I, ell, L, [table[n] for n in names], nodes),
            se.V_LO,
            v_hi,
            rel_tol=OUTER_RELATIVE,
        )
        parts = (integral.real, integral.imag)
        for name, part in zip(names, parts):
            tail = low_tail(I, L, table[name]) + high_tail(I, L, v_hi, table[name])
            out[name] = part + arb(0, tail.upper())
    return out


def outer_integrand(I: Inner, ell: arb, L: int, tables: list, nodes: dict):
    def exact(v) -> list:
        t = (v - ell).exp()
        key = (v.real.mid().man_exp(), v.real.rad().man_exp(), v.imag.mid().man_exp())
        cache = nodes.setdefault(key, {})
        if "phi" not in cache:
            cache["phi"] = I.value(t, 0, ONE, PHI_RELATIVE)
        phi = cache["phi"]
        missing: dict = {}
        for table in tables:
            for p, _ in table:
                for k, poly in p.blocks:
                    if (k, poly) not in cache and poly not in missing.setdefault(k, []):
                        missing[k].append(poly)
        for k, polys in missing.items():
            for poly, value in zip(polys, I.values(t, k, polys)):
                cache[k, poly] = value
        sums = []
        for table in tables:
            total = acb(0)
            for p, weight in table:
                term = weight * (p.n * v).exp() * ipow(phi, L - len(p.blocks))
                for k, poly in p.blocks:
                    term = term * cache[k, poly]
                total += term
            sums.append(total.real)
        return sums

    def bound(v) -> arb:
        im = abs(v.imag).upper()
        re = v.real
        t_r = max(0.0, float_down((re - ell).exp() * arb(im).cos()))
        phi = I.majorant(t_r, 0, ONE)
        total = arb(0)
        for table in tables:
            for p, weight in table:
                term = abs(weight) * arb((p.n * re).exp().upper()) * ipow(phi, L - len(p.blocks))
                for k, poly in p.blocks:
                    term = term * abs_sum(poly) * I.majorant(t_r, k)
                total += term
        return total

    def integrand(v, analytic):
        if analytic:
            im = v.imag
            if not (im < se.IM_MAX and im > -se.IM_MAX):
                return acb("nan")
            return ball(bound(v))
        sums = exact(v)
        return acb(sums[0], sums[1] if len(sums) > 1 else 0)

    return integrand


def low_tail(I: Inner, L: int, table: list) -> arb:
    t0 = arb(se.V_LO).exp() / L
    total = arb(0)
    for p, weight in table:
        term = abs(weight) * ipow(arb(L), p.n) * ipow(t0, p.n) / p.n
        for k, poly in p.blocks:
            term = term * abs_sum(poly) * I.scale(k) * K(abs(k - 1) * I.rq)
        total += term
    return total


def high_tail(I: Inner, L: int, v_hi: float, table: list) -> arb:
    T = tail_start(v_hi, L)  # <= e^{v_hi} / L: its ball rounded down
    Ta = arb(T)
    phi = I.majorant(T, 0, ONE)
    total = arb(0)
    for p, weight in table:
        (k1, poly1), rest = p.blocks[0], p.blocks[1:]
        # weight carries 1 / (n-1)! and 1 / L^n (t^{n-1} dt = t^n dv); the t-integral gives (n-1)!
        term = abs(weight) * ipow(arb(L), p.n) * math.factorial(p.n - 1)
        term = term * ipow(phi, L - len(p.blocks))
        for k, poly in rest:
            term = term * abs_sum(poly) * I.majorant(T, k)
        first = sum(
            (ipow(Ta, j) / math.factorial(j) * I.majorant(T, k1 - p.n + j) for j in range(p.n)),
            arb(0),
        )
        total += term * abs_sum(poly1) * first
    return total


# ---------------------------------------------------------------------------------------------
# The fixed-query grad_U error.


def fixed_query_grad_u(Gamma, U, V, z, L: int) -> arb:
    """A ball containing the exact E||grad_U err||^2 at one query and prompt length L: the emitted
    kernel `gradient_U_error_display` (the float route's too) evaluated in ball arithmetic on the
    query's invariants, computed in balls from the float inputs taken as exact numbers, S_A from
    numerics/selfnormalised_enclosure.py and the other scalars from `scalars` (q must be > 0: the
    scalars' route divides by sqrt q)."""
    with precision(se.PRECISION_BITS):
        G, Ua, Va, za = (exact_array(x) for x in (Gamma, U, V, z))
        a = Ua.dot(za)
        c = G.dot(a)
        q = a.dot(c)
        if not q > 0:
            raise ValueError(f"the grad_U enclosure needs a^T Gamma a > 0, got {q}")
        e = c / q.sqrt()
        M = Va.T.dot(Va)
        d = len(e)
        P = G - e[:, None] * e[None, :]
        Me, MP = M.dot(e), M.dot(P)
        eMe, ee = e.dot(Me), e.dot(e)
        eMPe = e.dot(MP.dot(e))
        trP = sum(P[i, i] for i in range(d))
        trMP = sum(MP[i, i] for i in range(d))
        trPMP = sum(P.dot(MP)[i, i] for i in range(d))
        S = dict(ball_scalars(q, L))  # the ball of q itself: it contains the exact q
        S["A"] = se.ball_moments(q, L).A
        return kernels.gradient_U_error_display(
            za.dot(za), eMe, ee, eMPe, trP, trMP, trPMP, *(S[n] for n in DISPLAY_SCALARS)
        )
