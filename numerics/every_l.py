"""A proof, for every integer L >= 2, that the exact fixed-query error of softmax attention over
Gaussian prompts lies below an explicit bound: Arb enclosures over boxes of L up to L_max, and a
tail lemma, itself proved in Arb, beyond.

**The quantity.** At a query z with a = U z, q = a^T Gamma a > 0 (numerics/selfnormalised.py),

    err(L) = E|T[mu_L](z) - T[mu](z)|^2 = tr A_L + rho (B_L - A_L) = (tr - rho) A_L + rho B_L,

tr = tr(V Gamma V^T), rho = |V Gamma a|^2 / q, and tr - rho = tr(V Gamma_perp V^T) >= 0
(Cauchy-Schwarz), so err is nondecreasing in A_L and in B_L (the emitted kernel
`selfnormalised_mse` computes it). With w = e^{sqrt(q) g - q/2} (E w = 1, E w^2 = e^q,
E[1/w] = e^q), f = g - sqrt q, phi(t) = E e^{-tw} (0 < phi <= 1, decreasing in t):

    A_L  = L      int_0^inf t E[w^2 e^{-tw}]     phi(t)^{L-1} dt,
    B1_L = L      int_0^inf t E[w^2 f^2 e^{-tw}] phi(t)^{L-1} dt,
    B2_L = L(L-1) int_0^inf t E[w f e^{-tw}]^2   phi(t)^{L-2} dt,     B_L = B1_L + B2_L.

L enters only as the prefactors and the exponent of phi. `moments_split` encloses A_L, B1_L, B2_L
at an integer L (the engine of numerics/gradient_scalars_enclosure.py: inner integrals with their
tails bounded, the outer integral by `acb.integral`, both outer tails bounded, never cut; B1 and B2
are its one- and two-block partitions of E[(sum_i w_i f_i)^2 / S^2]).

**Boxes.** Every integrand above is >= 0 (t > 0, the squares real) and phi^{L-1} decreases in L,
so for integers lo <= L <= hi (lo >= 2):

    A_L <= (hi / lo) A_lo,   B1_L <= (hi / lo) B1_lo,   B2_L <= hi (hi-1) / (lo (lo-1)) B2_lo,

and err(L) <= err_up(box) = selfnormalised_mse(tr, rho, A_up, B_up) with A_up, B_up the upper ends
of those balls: the enclosure of err over the box [lo, hi], L carried as that interval (through
the prefactors exactly, through the exponent by monotonicity). The bound eps_L^2 =
tp (4 e^q / L + L e^{-h(L)}), tp = tr + rho q, h(L) = (L-2)^2 / (8 (L-1) e^q) (the emitted
kernels expectation_bound_good_event and expectation_bound_bad_event) is bounded below on the box
by tp (good(hi) + (lo / hi) bad(hi)): 4 e^q / L decreases, and L e^{-h(L)} >= lo e^{-h(hi)} since
h' = (L-2) L / (8 (L-1)^2 e^q) >= 0 for L >= 2 (the derivative proved by SymPy in
softlin/claims/shared/every_l.py, `bound_monotone_proof`, whose check is undecided without it).
A box is proved when the upper end of err_up is below the lower end of that bound, both rounded
outward to the eight-digit floats the certificate's row keeps (a reader re-checks the same floats).
Every ball is rounded by Arb outward; the upper ends are taken with `.upper()` (rounded up), the
lower with `.lower()` (rounded down), and the floats from them rounded outward again.
Adaptive bisection: a box that is not proved is split at the geometric middle of its ends; its
lower half keeps its lo (no new enclosure), so every enclosure computed is the lo of a final box.
A box of one L that is not proved is refuted when the lower end of err(L)'s own ball exceeds the
upper end of the bound's (a counterexample), else undecided; a budget of enclosures and of
seconds ends the search undecided.

**Tail lemma** (L >= L_max). For 0 < s < 2 put t0 = s e^{-q}, kappa = 1 - s/2, lambda = kappa t0,
phi0 = e^{-lambda}. Then, for L >= 6:

1. phi(t) <= 1 - t + t^2 e^q / 2 <= e^{-t + t^2 e^q / 2} (e^{-x} <= 1 - x + x^2/2 for x >= 0),
   so phi(t) <= e^{-kappa t} for t <= t0, and phi(t) <= phi(t0) <= phi0 for t >= t0.
2. I1(n) = int t phi^n dt <= 1/(n kappa)^2 + phi0^{n-2} e^{2q}/4 (n >= 2): the first term from
   t <= t0; beyond, phi^n <= phi0^{n-2} phi^2 and int t phi^2 = E[1/(w1+w2)^2]
   <= E[1/(4 w1 w2)] = e^{2q}/4 (AM-GM). Likewise I3(n) = int t^3 phi^n dt
   <= 6/(n kappa)^4 + phi0^{n-4} 6 e^{4q}/256 (n >= 4; int t^3 phi^4 = 6 E[S_4^-4], S_4 >= 4
   (w1 w2 w3 w4)^{1/4}).
3. E[w^2 e^{-tw}] <= e^q, E[w^2 f^2 e^{-tw}] <= E[w^2 f^2] = e^q (1 + q), and, since E[w f] = 0
   and |e^{-tw} - 1| <= t w, |E[w f e^{-tw}]| <= t E[w^2 |f|] <= t e^q sqrt(1 + q). So
   (tr - rho) A_L + rho B1_L <= e^q tp L I1(L-1) and B2_L <= e^{2q} (1 + q) L (L-1) I3(L-2).
4. Hence err(L) <= C e^q tp / L^p as soon as G(L) <= 1, with
   G(L) = R1(x) + E1(L) + R2(x) + E2(L), x = 1/L, c' = rho e^q (1 + q) / (C tp):
       R1 = x^{1-p} / ((1-x)^2 C kappa^2),
       E1 = e^{2q} / (4 C) L^{p+1} phi0^{L-3},
       R2 = 6 c' x^{2-p} (1-x) / ((1-2x)^4 kappa^4),
       E2 = 6 c' e^{4q} / 256 L^{p+1} (L-1) phi0^{L-6}.
   R1, R2 are enclosed by Arb over the whole ball x in [0, 1/L_max] (every L >= L_max at once);
   L^{p+1} e^{-lambda L} and L^{p+1} (L-1) e^{-lambda L} decrease for L >= 1 + (p+2)/lambda
   (their log-derivatives are at most (p+1)/L + 1/(L-1) - lambda <= (p+2)/(L-1) - lambda), so for
   L_max >= max(6, 1 + (p+2)/lambda) E1, E2 are at most their values at L_max. If the upper
   end of the sum is <= 1, err(L) <= C e^q tp / L^p <= bound(L) for every L >= L_max (the
   bound's second term is >= 0). The bound itself has C = 4 and p = 1; `tail` searches s and
   L_max on a grid for the smallest L_max.

A bound lowered by a factor (`BoundForm.scale`) or with its rate exponent raised
(`BoundForm.exponent`, the first term 4 e^q / L^p) goes through the same procedure: the negative
controls of the claims.
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass, field

from flint import acb, arb

from . import gradient_scalars_enclosure as gse
from . import kernels
from . import selfnormalised_enclosure as se
from .arb.balls import exact_array, outward
from .arb.context import precision
from .arb.inner import ONE, F, Inner

PRECISION_BITS = se.PRECISION_BITS
OUTER_RELATIVE = 2.0**-24
# The search's budget: enclosures of (A, B1, B2) at a new L (each ~2-5 s on a loaded 2-core
# machine) and seconds; past either, the proof is undecided.
MAX_ENCLOSURES = 40
MAX_SECONDS = 300.0
# The tail lemma's grid: s (t0 = s e^-q) and L_max (geometric, up to TAIL_L_CAP).
TAIL_S = tuple(round(0.05 * i, 2) for i in range(1, 36))
TAIL_L_CAP = 10**7


@dataclass(frozen=True)
class Split:
    """Balls containing A_L, B1_L, B2_L at an integer L (module docstring)."""

    L: int
    A: arb
    B1: arb
    B2: arb


def moments_split(q: arb, L: int) -> Split:
    """A_L, B1_L, B2_L enclosed at an integer L >= 2 and q > 0 (a ball every point of which is >
    0), by the outer-integral engine of numerics/gradient_scalars_enclosure.py applied to
    E sum p^2 = E[N_{2,1} / S^2] and E(sum p f)^2 = E[N_{1,f}^2 / S^2], the latter split into its
    one-block (B1) and two-block (B2) partitions."""
    if not (q.is_finite() and q > 0) or L < 2:
        raise ValueError(f"moments_split needs q > 0 and L >= 2; got q = {q}, L = {L!r}")
    with precision(PRECISION_BITS):
        I = Inner(q)
        ell = arb(L).log()
        qf = float(q.mid())
        v_hi = math.log(L) + qf / 2 + 12.0 * math.sqrt(qf) + gse.V_HI_MARGIN
        tab_a = [(p, gse.piece_weight(p, L)) for p in gse.pieces([(1, 2, ((2, ONE),))], L)]
        pieces_b = gse.pieces([(1, 2, ((1, F), (1, F)))], L)
        tab_b1 = [(p, gse.piece_weight(p, L)) for p in pieces_b if len(p.blocks) == 1]
        tab_b2 = [(p, gse.piece_weight(p, L)) for p in pieces_b if len(p.blocks) == 2]
        nodes: dict = {}
        first = acb.integral(
            gse.outer_integrand(I, ell, L, [tab_a, tab_b1], nodes),
            se.V_LO,
            v_hi,
            rel_tol=OUTER_RELATIVE,
        )
        second = acb.integral(
            gse.outer_integrand(I, ell, L, [tab_b2], nodes), se.V_LO, v_hi, rel_tol=OUTER_RELATIVE
        )
        out = []
        for part, table in ((first.real, tab_a), (first.imag, tab_b1), (second.real, tab_b2)):
            tail = gse.low_tail(I, L, table) + gse.high_tail(I, L, v_hi, table)
            out.append(part + arb(0, tail.upper()))
        return Split(L, *out)


@functools.lru_cache(maxsize=512)
def cached_split(q_key: tuple, L: int) -> Split:
    """`moments_split` memoised by the exact ball of q (centre, radius as floats) and L."""
    mid, rad = q_key
    return moments_split(arb(mid, rad), L)


@dataclass(frozen=True)
class Query:
    """The query's invariants as balls, from the float inputs taken as exact numbers: q = a^T Gamma
    a, tr = tr(V Gamma V^T), rho = |V Gamma a|^2 / q, tp = tr + |V Gamma a|^2."""

    q: arb
    trace: arb
    rho: arb
    tp: arb

    @property
    def key(self) -> tuple:
        """(centre, radius) as floats of a ball that contains q: the centre rounded to a float
        moves it by at most one ulp, added to the radius, itself rounded up."""
        mid = float(self.q.mid())
        return (mid, math.nextafter(float(self.q.rad()), math.inf) + math.ulp(mid))


def query_invariants(Gamma, U, V, z, multiplier: int = 1) -> Query:
    """The invariants at the query, each of tr, rho, tp multiplied by the integer `multiplier`
    (prop-3.4's grad_V error is k times prop-3.1's error with V = I: multiplier k, V = I)."""
    with precision(PRECISION_BITS):
        G, Ua, Va = exact_array(Gamma), exact_array(U), exact_array(V)
        a = Ua.dot(exact_array(z))
        Ga = G.dot(a)
        q = a.dot(Ga)
        VGa = Va.dot(Ga)
        trace = sum(Va.dot(G).dot(Va.T)[i, i] for i in range(Va.shape[0]))
        if not q > 0:
            raise ValueError(f"the every-L proof needs a^T Gamma a > 0 at the query; got {q}")
        vga2 = sum(v * v for v in VGa)
        k = arb(int(multiplier))
        return Query(q, k * trace, k * vga2 / q, k * (trace + vga2))


@dataclass(frozen=True)
class BoundForm:
    """The bound proved: scale tp (4 e^q / L^exponent + L e^{-h(L)}), from the emitted kernels
    (scale 1, exponent 1: eps_L^2 of derivations/fluctuations_bound.py); a lowered scale or a
    raised exponent is a negative control."""

    scale: float = 1.0
    exponent: float = 1.0

    def _good(self, L: arb, q: arb) -> arb:
        good = kernels.expectation_bound_good_event(L, q)  # 4 e^q / L
        return good if self.exponent == 1.0 else good * L ** arb(1.0 - self.exponent)

    def lower(self, Q: Query, lo: int, hi: int) -> arb:
        """A ball whose lower end bounds the bound below on every integer of [lo, hi] (module
        docstring: the first term decreases, L e^{-h(L)} >= (lo / hi) hi e^{-h(hi)})."""
        H = arb(hi)
        bad = kernels.expectation_bound_bad_event(H, Q.q) * lo / hi
        return arb(self.scale) * Q.tp * (self._good(H, Q.q) + bad)

    def at(self, Q: Query, L: int) -> arb:
        """A ball containing the bound at L."""
        La = arb(L)
        return (
            arb(self.scale)
            * Q.tp
            * (self._good(La, Q.q) + kernels.expectation_bound_bad_event(La, Q.q))
        )


# ---------------------------------------------------------------------------------------------
# The tail lemma.


@dataclass(frozen=True)
class Tail:
    """The tail lemma's outcome: proved for every L >= threshold (None: no threshold up to the
    cap), with its parameter s and the upper end of G(L_max)."""

    threshold: int | None
    s: float | None
    g_upper: float | None
    statement: str

    def record(self) -> dict:
        return {
            "threshold": self.threshold,
            "s": self.s,
            "G_upper": self.g_upper,
            "statement": self.statement,
        }


def tail_bound(Q: Query, form: BoundForm, s: float, L_max: int) -> arb | None:
    """The upper end of G over L >= L_max (module docstring, step 4) as an exact ball, or None
    when the lemma's side conditions fail (kappa^2 C <= 0, L_max below its monotone range)."""
    C = arb(4.0 * form.scale)
    p = arb(form.exponent)
    e_q = Q.q.exp()
    t0 = arb(s) / e_q
    kappa = 1 - arb(s) / 2
    lam = kappa * t0
    if not (kappa > 0 and L_max >= 6 and arb(L_max) - 1 >= (p + 2) / lam):
        return None
    phi0 = (-lam).exp()
    x = arb(0.5 / L_max, 0.5 / L_max)  # every x in [0, 1/L_max]
    if form.exponent == 1.0:
        r1_x, r2_x = arb(1), x
    else:
        r1_x, r2_x = x ** (1 - p), x ** (2 - p)
    R1 = r1_x / ((1 - x) ** 2 * C * kappa**2)
    cprime = Q.rho * e_q * (1 + Q.q) / (C * Q.tp)
    R2 = 6 * cprime * r2_x * (1 - x) / ((1 - 2 * x) ** 4 * kappa**4)
    Lm = arb(L_max)
    E1 = e_q**2 / (4 * C) * Lm ** (p + 1) * phi0 ** arb(L_max - 3)
    E2 = 6 * cprime * e_q**4 / 256 * Lm ** (p + 1) * (Lm - 1) * phi0 ** arb(L_max - 6)
    total = R1 + R2 + E1 + E2
    return arb(total.upper()) if total.is_finite() else None


def tail(Q: Query, form: BoundForm, cap: int = TAIL_L_CAP) -> Tail:
    """The smallest L_max on a geometric grid (ratio ~1.1, from 6 to `cap`) at which the tail
    lemma holds for some s of TAIL_S."""
    statement = (
        f"for every integer L >= L_max: E|err|^2 <= {4 * form.scale:g} e^q tp / L^{form.exponent:g}"
        " <= the bound (tail lemma of numerics/every_l.py: phi(t) <= e^{-kappa t} below t0 = s e^-q"
        ", the inner factors bounded by their t = 0 moments, the rational terms enclosed over "
        "x = 1/L in [0, 1/L_max], the exponential ones decreasing from L_max)"
    )
    with precision(PRECISION_BITS):
        grid = sorted({int(round(6 * 1.1**k)) for k in range(400) if 6 * 1.1**k <= cap})
        for L_max in grid:
            for s in TAIL_S:
                g = tail_bound(Q, form, s, L_max)
                if g is not None and g <= 1:
                    return Tail(L_max, s, outward(g)[1], statement)
    return Tail(None, None, None, statement + f"; no L_max <= {cap} found")


# ---------------------------------------------------------------------------------------------
# The boxes and the proof.


@dataclass
class Proof:
    """The outcome of `prove`: `status` "proved", "refuted" or "undecided" (with `reason`); the box
    table, rows [L_lo, L_hi, error_upper, bound_lower] in order of L (floats of eight significant
    digits rounded outward: error_upper up, bound_lower down), every box proved (error_upper <
    bound_lower) but, when the search stopped without a proof, its last box, not proved; the tail;
    the counterexample (L, error_lower, bound_upper) if refuted; the cost."""

    status: str
    reason: str
    boxes: list = field(default_factory=list)
    tail: Tail | None = None
    counterexample: tuple | None = None
    enclosures: int = 0
    seconds: float = 0.0
    L_range: tuple = ()

    @property
    def parts_required(self) -> int:
        """The parts of the statement: each box of the table and the tail lemma."""
        return len(self.boxes) + 1

    @property
    def parts_proved(self) -> int:
        proved_boxes = sum(1 for r in self.boxes if r[2] < r[3])
        return proved_boxes + (1 if self.tail is not None and self.tail.threshold else 0)

    def max_ratio(self) -> float:
        """The largest error_upper / bound_lower over the boxes and the tail's G (rounded up): when
        proved, err(L) <= max_ratio x bound(L) for every L >= 2 (a certified slack)."""
        ratios = [math.nextafter(r[2] / r[3], math.inf) for r in self.boxes if r[3] > 0]
        if self.tail is not None and self.tail.g_upper is not None:
            ratios.append(self.tail.g_upper)
        return max(ratios) if ratios else math.nan


def _row(lo: int, hi: int, err_up: arb, bound_lo: arb) -> list:
    """[lo, hi, upper end of err_up, lower end of bound_lo], the floats rounded outward to eight
    digits (a certificate's precision), inf / -inf when a ball is not finite."""
    eu = outward(err_up)[1] if err_up.is_finite() else math.inf
    bl = outward(bound_lo)[0] if bound_lo.is_finite() else -math.inf
    return [lo, hi, eu, bl]


def prove(
    Gamma,
    U,
    V,
    z,
    form: BoundForm = BoundForm(),
    *,
    search_hi: int | None = None,
    max_enclosures: int = MAX_ENCLOSURES,
    max_seconds: float = MAX_SECONDS,
    multiplier: int = 1,
) -> Proof:
    """err(L) <= bound(L) for every integer L >= 2 at the query z (module docstring): the tail
    lemma first, then boxes over [2, L_max - 1]. When no tail threshold exists the boxes still run
    over [2, search_hi] (if given) to look for a counterexample; the outcome is then refuted or
    undecided, never proved. A box is proved on the rounded floats of its row (error_upper <
    bound_lower), so a reader's re-check of the table decides as the proof did. `multiplier`
    scales both sides (query_invariants)."""
    start = time.perf_counter()
    Q = query_invariants(Gamma, U, V, z, multiplier)
    tl = tail(Q, form)
    hi_end = tl.threshold - 1 if tl.threshold else search_hi
    proof = Proof("undecided", "", tail=tl)
    no_tail = f"no tail threshold L_max <= {TAIL_L_CAP}: the tail lemma does not hold"
    if hi_end is None or hi_end < 2:
        if tl.threshold:
            proof.status, proof.L_range = "proved", (2, tl.threshold)
        else:
            proof.reason = no_tail
        proof.seconds = time.perf_counter() - start
        return proof
    proof.L_range = (2, hi_end)
    seen: set = set()
    stack = [(2, hi_end)]
    with precision(PRECISION_BITS):
        while stack:
            lo, hi = stack.pop()
            if lo not in seen:
                elapsed = time.perf_counter() - start
                if len(seen) >= max_enclosures or elapsed > max_seconds:
                    proof.reason = (
                        f"budget exhausted ({len(seen)} enclosures of at most {max_enclosures}, "
                        f"{elapsed:.0f} s of at most {max_seconds:g}) with the box [{lo}, {hi}] "
                        "undecided"
                    )
                    break
                seen.add(lo)
            m = cached_split(Q.key, lo)
            row = _row(lo, hi, box_upper(Q, m, lo, hi), form.lower(Q, lo, hi))
            if row[2] < row[3]:
                proof.boxes.append(row)
                continue
            if lo == hi:
                proof.boxes.append(row)
                exact = kernels.selfnormalised_mse(Q.trace, Q.rho, m.A, m.B1 + m.B2)
                bound_ball = form.at(Q, lo)
                if exact > bound_ball:
                    err_lo, b_up = outward(exact)[0], outward(bound_ball)[1]
                    proof.status = "refuted"
                    proof.counterexample = (lo, err_lo, b_up)
                    proof.reason = (
                        f"at L = {lo} the exact error's ball lies above the bound's: "
                        f"{err_lo:.8g} > {b_up:.8g}"
                    )
                else:
                    proof.reason = f"at L = {lo} the balls of the error and the bound overlap"
                break
            mid = min(hi - 1, max(lo, math.isqrt(lo * hi)))
            stack.append((mid + 1, hi))
            stack.append((lo, mid))
        else:
            if tl.threshold:
                proof.status, proof.L_range = "proved", (2, tl.threshold)
            else:
                proof.reason = f"every box of [2, {hi_end}] proved, but {no_tail}"
    proof.enclosures = len(seen)
    proof.seconds = time.perf_counter() - start
    return proof


def box_upper(Q: Query, m: Split, lo: int, hi: int) -> arb:
    """A ball whose upper end bounds err(L) for every integer L in [lo, hi] (module docstring),
    from the enclosures at lo."""
    up = lambda x: arb(x.upper())  # noqa: E731 - one line, local
    A = up(m.A) * hi / lo
    B = up(m.B1) * hi / lo + up(m.B2) * (hi * (hi - 1)) / (lo * (lo - 1))
    return kernels.selfnormalised_mse(Q.trace, Q.rho, up(A), up(B))


def recheck_rows(rows) -> list:
    """Rows [L_lo, L_hi, ...] as integer pairs, checked to cover [2, L_hi of the last] without gap
    or overlap (for readers of a certificate's table)."""
    pairs = [(int(r[0]), int(r[1])) for r in rows]
    if not pairs or pairs[0][0] != 2:
        raise ValueError("the box table does not start at L = 2")
    for (a, b), (c, d) in zip(pairs, pairs[1:]):
        if c != b + 1 or a > b or c > d:
            raise ValueError(f"boxes [{a}, {b}] and [{c}, {d}] leave a gap or overlap")
    return pairs


__all__ = [
    "BoundForm",
    "Proof",
    "Query",
    "Split",
    "Tail",
    "box_upper",
    "cached_split",
    "moments_split",
    "prove",
    "query_invariants",
    "recheck_rows",
    "tail",
    "tail_bound",
]
