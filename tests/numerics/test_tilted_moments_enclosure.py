"""Arb enclosures of the d = 1 tilted moments (numerics/tilted_moments_enclosure.py): they contain
exact values (U = 0) and an independent 40-digit mpmath quadrature, they are narrow, they say
"infinite" exactly beyond lambda = 1/2, and the claim's check built on them refutes slipped closed
forms."""

import math
from fractions import Fraction

import mpmath as mp
import pytest
import sympy as sp
from flint import arb

from softlin.core import scenario
from softlin.claims.asm_3_3 import claim as asm33, enclosure
from softlin.core.claim import claim_rng
from softlin.derivations import tilted_moments as tm
from softlin.numerics import tilted_moments_enclosure as te
from softlin.numerics.arb.context import precision
from ..checks import check

ORDERS = te.ORDERS
SCENARIO_D1 = (0.1, 1.0, 0.2, 1.0)  # asm-3.3's default scenario, first coordinates: m, gamma, u, s
NARROW = 1e-25  # relative width every ball here stays below (measured 1e-27)


def _contains(ball: arb, exact) -> bool:
    """Whether the ball contains an exact rational or a 40-digit mpf (parsed at 200 bits, radius
    ~1e-60, far below the ball's)."""
    with precision(200):
        if isinstance(exact, Fraction):
            value = arb(exact.numerator) / arb(exact.denominator)
        else:
            value = arb(mp.nstr(exact, 45, strip_zeros=False))
        return bool(ball.contains(value))


def _gaussian_moment(mean: Fraction, var: Fraction, p: int) -> Fraction:
    """E x^p for x ~ N(mean, var), p even, by the binomial sum with E y^k = (k - 1)!! (not the
    module's recurrence); var^(k/2) is rational because only even k enter."""
    return sum(
        Fraction(math.comb(p, k)) * mean ** (p - k) * var ** (k // 2) * _odd_double_factorial(k)
        for k in range(0, p + 1, 2)
    )


def _odd_double_factorial(k: int) -> int:
    """(k - 1)!! = E y^k for y ~ N(0, 1), k even."""
    return math.prod(range(k - 1, 0, -2))


@pytest.mark.parametrize("m, gamma, s", [(0.0, 1.0, 1.0), (0.3, 0.5, 1.7)])
def test_u_zero_gives_products_of_gaussian_moments_exactly(m, gamma, s):
    """U = 0: no tilt, M_pq = E z'^p E z^q, exactly (the paper's 1, 3, 105 in the first case)."""
    F = lambda x: Fraction(repr(x))
    for c in te.POWERS:
        balls = te.table(c, m, gamma, 0.0, s)
        for i, p in enumerate(ORDERS):
            for j, q in enumerate(ORDERS):
                exact = _gaussian_moment(F(m), F(gamma), p) * _gaussian_moment(Fraction(0), F(s), q)
                assert _contains(balls[i][j], exact), (c, p, q, balls[i][j], exact)
                assert not _contains(balls[i][j], exact * (1 + Fraction(1, 10**20)))
    assert te.table(1, 0.0, 1.0, 0.0, 1.0)[2][2].contains(11025)


def test_short_segments_keep_the_exact_value_through_their_tail_bounds(monkeypatch):
    """With R started low and the tails allowed 1e-3 of the value, the tails' bound is most of the
    ball's radius: the exact U = 0 values stay inside (the bound is included and holds where it
    matters), the ball is not wider than 1e-2 relative (the bound is not vacuous), and without the
    tails the segment's ball alone would miss the value (it is what this test guards)."""
    monkeypatch.setattr(te, "START_BITS", 4)
    monkeypatch.setattr(te, "TAIL_SHARE", 1e-3)
    F = lambda x: Fraction(repr(x))
    m, gamma, s = 0.3, 0.5, 1.7
    for i, p in enumerate(ORDERS):
        for j, q in enumerate(ORDERS):
            ball = te.moment(p, q, 1, m, gamma, 0.0, s)
            exact = _gaussian_moment(F(m), F(gamma), p) * _gaussian_moment(Fraction(0), F(s), q)
            assert _contains(ball, exact), (p, q, ball, exact)
            # wider than any segment's own ball (<= 1e-25): the tails' bound is in the radius
            assert 1e-12 * float(ball.mid()) < float(ball.rad()) < 1e-2 * float(ball.mid())


def _reduced_mpmath(p, q, c, m, g, u, s):
    """M_pq^(c) by mpmath at 40 digits: the outer integral by mp.quad (split at 0 and +-8), the
    inner ratio from its parts E_{N(m + c g a, g)} x^p (binomial sum) and Z(c a) / Z(a)^c, each
    normaliser written out as exp(a m + g a^2 / 2) (not the module's reduced exponent)."""
    # the decimals, as the closed forms and the module read them (mpf(0.1) is the binary float)
    m, g, u, s = (mp.mpf(repr(x) if isinstance(x, float) else x) for x in (m, g, u, s))
    E_y = lambda k: mp.mpf(_odd_double_factorial(k))

    def outer(z):
        a = u * z
        mu = m + c * g * a
        moment = mp.fsum(
            math.comb(p, k) * mu ** (p - k) * g ** (k // 2) * E_y(k) for k in range(0, p + 1, 2)
        )
        ratio = mp.exp(c * a * m + c * c * g * a * a / 2) / mp.exp(a * m + g * a * a / 2) ** c
        return ratio * moment * z**q * mp.exp(-z * z / (2 * s)) / mp.sqrt(2 * mp.pi * s)

    return mp.quad(outer, [-mp.inf, -8, 0, 8, mp.inf])


@pytest.mark.parametrize(
    "p, q, c, inputs",
    [
        (4, 4, 2, SCENARIO_D1),
        (8, 8, 2, SCENARIO_D1),
        (8, 0, 1, SCENARIO_D1),
        (4, 8, 2, ("-1.2", "2.5", "0.3", "0.7")),  # lambda = 0.1575: a strong tilt
        (8, 4, 2, ("0.37", "0.83", "0.61", "1.3")),  # lambda = 0.40: near the edge, heavy tails
    ],
)
def test_the_ball_contains_a_40_digit_mpmath_quadrature(p, q, c, inputs):
    with mp.workdps(40):
        reference = _reduced_mpmath(p, q, c, *inputs)
    ball = te.moment(p, q, c, *(float(x) for x in inputs))
    assert _contains(ball, reference), (ball, reference)
    assert float(ball.rad()) <= NARROW * abs(float(ball.mid()))


def test_the_gaussian_tilt_of_the_inner_expectation_by_quadrature():
    """The reduction the module and the reference above share: E_z'[z'^p e^{t z'}] / Z(a)^c for
    t = c a against mp.quad over z' itself (the integral behind the definition), at one a per c."""
    m, g = mp.mpf("0.1"), mp.mpf("1.0")
    with mp.workdps(30):
        for c, a in ((1, mp.mpf("0.7")), (2, mp.mpf("-1.3"))):
            density = lambda x: mp.exp(-((x - m) ** 2) / (2 * g)) / mp.sqrt(2 * mp.pi * g)
            Z = mp.quad(lambda x: mp.exp(a * x) * density(x), [-mp.inf, m + a * g, mp.inf])
            for p in ORDERS:
                peak = m + c * a * g
                tilted = lambda x: x**p * mp.exp(c * a * x) * density(x)
                direct = mp.quad(tilted, [-mp.inf, peak, mp.inf]) / Z**c
                mu = m + c * g * a
                reduced = mp.exp((c * c - c) * g * a * a / 2) * mp.fsum(
                    math.comb(p, k) * mu ** (p - k) * g ** (k // 2) * _odd_double_factorial(k)
                    for k in range(0, p + 1, 2)
                )
                assert abs(direct / reduced - 1) < mp.mpf(10) ** -25, (c, p, direct, reduced)


def test_balls_on_the_scenario_are_narrow():
    for c in te.POWERS:
        for row in te.table(c, *SCENARIO_D1):
            for ball in row:
                assert ball is not None and 0 < float(ball.rad()) <= NARROW * abs(float(ball.mid()))


def test_infinite_exactly_beyond_lambda_one_half():
    """c = 2 is infinite iff u^2 gamma s >= 1/2, decided on the decimals: at exactly 1/2 (u = 1,
    gamma = 0.5, s = 1) no ball; just below it a finite, narrow one; c = 1 always finite."""
    assert te.moment(0, 0, 2, 0.1, 0.5, 1.0, 1.0) is None
    assert te.moment(4, 8, 2, 0.1, 0.5, 1.1, 1.0) is None
    assert te.is_finite(2, 0.5, 0.9999, 1.0) and not te.is_finite(2, 0.5, 1.0, 1.0)
    near = te.moment(0, 0, 2, 0.0, 0.5, 0.99, 1.0)  # beta = 1 - 0.9801 = 0.0199: 1/sqrt(beta)
    with mp.workdps(45):
        reference = 1 / mp.sqrt(mp.mpf("0.0199"))
    assert near is not None and _contains(near, reference)
    assert float(near.rad()) <= NARROW * float(near.mid())
    assert te.moment(8, 8, 1, 0.1, 0.5, 5.0, 1.0) is not None
    with pytest.raises(ValueError, match="even"):
        te.moment(3, 0, 1, *SCENARIO_D1)


@pytest.mark.parametrize(
    "n, beta, R", [(0, 1.0, 1.0), (4, 0.92, 3.0), (16, 0.08, 20.0), (16, 1.0, 4.5)]
)
def test_the_tail_bound_bounds_the_tail_and_is_not_vacuous(n, beta, R):
    """I_n(R) = int_R^inf z^n e^{-beta z^2/2} dz (mpmath) against the module's bound with C_p = 1
    and sqrt(2 pi s) = 1, which covers both tails: at least twice I_n(R), and within a factor 3 of
    it once beta R^2 is well beyond n - 1 (near n - 1 the bound approaches its pole)."""
    with mp.workdps(30):
        exact = 2 * mp.quad(lambda z: z**n * mp.exp(-beta * z * z / 2), [R, R + 10, mp.inf])
    bound = te.tail_bound(arb(R), n, arb(beta), arb(1), arb(1))
    assert float(bound.lower()) >= float(exact)
    if beta * R * R > 2 * n:
        assert float(bound.upper()) <= 3 * float(exact)


def _d1_tables(closed_form, inputs=SCENARIO_D1):
    R = lambda x: sp.Matrix([[sp.Rational(repr(x))]])
    return asm33.closed_form_tables(closed_form, *(R(x) for x in inputs))


def _enclosure(tables, *inputs):
    """asm-3.3's enclosure step: its one check and its quantities."""
    found = enclosure.enclosure_check(tables, *inputs)
    return found.checks[0], found.quantities


def _outside(check) -> float:
    """The largest distance of a value outside its interval (the ball widened by the float
    allowance), relative to the value: 0 when every value is inside."""
    return max(
        max(lo - v, v - hi, 0.0) / max(abs(v), 1e-300)
        for v, (lo, hi) in zip(check.value, check.bound)
    )


def test_the_claim_check_passes_the_closed_forms_and_refutes_their_slips():
    right, q = _enclosure(_d1_tables(tm.tilted_moment), *SCENARIO_D1)
    assert right.passed is True and right.tier == "enclosure"
    assert right.id == "closed-form/enclosure"
    assert right.rule == "value in bound" and _outside(right) == 0.0
    assert q["M_pq_d1_enclosure_max_relative_width_log10"] < math.log10(NARROW)
    for key in ("M_pq_d1_enclosure", "M_pq_c2_d1_enclosure"):
        for row in q[key]:
            assert len(row) == 3 and all(lo < hi for lo, hi in row)
    # the claim's controls' slips, in d = 1: the tilted mean shift forgotten; Z(a)^c not divided out
    for slip in (dict(shift=0), dict(kappa=None)):

        def slipped(p, qq, c, *args, slip=slip):
            if "kappa" in slip:
                return tm.tilted_moment(p, qq, c, *args, kappa=sp.Rational(c * c, 2))
            return tm.tilted_moment(p, qq, c, *args, **slip)

        wrong, _ = _enclosure(_d1_tables(slipped), *SCENARIO_D1)
        assert wrong.passed is False and _outside(wrong) > 1e-4, (slip, _outside(wrong))
    # one entry off by 1e-12 relative: far inside the quadrature check's 1e-9 tolerance, refuted
    tables = _d1_tables(tm.tilted_moment)
    tables[2][1][2] = tables[2][1][2] * (1 + sp.Rational(1, 10**12))
    nudged, _ = _enclosure(tables, *SCENARIO_D1)
    assert nudged.passed is False and 5e-13 < _outside(nudged) < 2e-12


def test_the_claim_check_on_divergence_and_exact_zeros():
    """Beyond lambda = 1/2 both sides infinite agree (no ball written); a finite closed form there,
    or an infinite one inside, is refuted. Gamma = m = 0: entries p > 0 are exactly 0, enclosed
    around 0, and 1e-9 there is refuted."""
    beyond = (0.1, 0.5, 1.2, 1.0)
    right, q = _enclosure(_d1_tables(tm.tilted_moment, beyond), *beyond)
    assert right.passed is True and all(v is None for row in q["M_pq_c2_d1_enclosure"] for v in row)
    wrong = _d1_tables(tm.tilted_moment, beyond)
    wrong[2][0][0] = sp.Integer(7)
    assert _enclosure(wrong, *beyond)[0].passed is False
    inside = _d1_tables(tm.tilted_moment)
    inside[2][0][0] = sp.oo
    assert _enclosure(inside, *SCENARIO_D1)[0].passed is False
    zero = (0.0, 0.0, 0.0, 1.5)
    tables = _d1_tables(tm.tilted_moment, zero)
    assert tables[1][1][0] == 0
    ok, q = _enclosure(tables, *zero)
    lo, hi = q["M_pq_d1_enclosure"][1][0]
    assert ok.passed is True and lo <= 0 <= hi
    tables[1][1][0] = sp.Rational(1, 10**9)
    assert _enclosure(tables, *zero)[0].passed is False


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
def test_through_the_claim_the_certificate_holds_the_enclosure(monkeypatch):
    """The claim run writes the new check, passed, and the balls, which contain the d = 1 closed
    forms. On the default scenario's first coordinates as a d = 1 scenario (the same enclosed
    moments; its d = 2 SymPy tables would cost 15 s) and with the Monte Carlo cut to 20 000 pairs:
    only the enclosure is asserted here (~7 s)."""
    monkeypatch.setitem(asm33.BUDGETS, "quick", asm33.Budget(mc_samples=20_000))
    user = {"d": 1, "mean": [0.1], "cov": [[1.0]], "U": [[0.2]], "V": [[1.0]], "query_cov": [[1.0]]}
    s = scenario.merge(asm33.default_scenario(), user, asm33.CLAIM.scenario_keys)
    cert = asm33.run(s, "quick", claim_rng(s["seed"], "asm-3.3"))
    enc = check(cert, "closed-form/enclosure")
    assert enc["passed"] is True and enc["tier"] == "enclosure", enc
    q = cert["quantities"]
    closed = _d1_tables(tm.tilted_moment)
    for c, key in ((1, "M_pq_d1_enclosure"), (2, "M_pq_c2_d1_enclosure")):
        for i in range(3):
            for j in range(3):
                lo, hi = q[key][i][j]
                assert lo <= float(closed[c][i][j]) <= hi
    assert q["M_pq_d1_enclosure_max_relative_width_log10"] < math.log10(NARROW)
