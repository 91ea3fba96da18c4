"""The judge's rules: `passed` is the rule applied to value and bound, and nothing that is not a
finite number is ever a pass (softlin/judge/rules.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, strategies as st

from softlin.judge import kinds
from softlin.judge.rules import RULES, decide

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
non_finite = st.sampled_from([math.nan, math.inf, -math.inf, "nan", "inf", "-inf"])


@given(finite, finite)
def test_each_comparison_rule_is_its_inequality(v, b):
    assert decide("value <= bound", v, b).passed is (v <= b)
    assert decide("value >= bound", v, b).passed is (v >= b)
    assert decide("|value| <= bound", v, b).passed is (abs(v) <= b)


@given(st.sampled_from(RULES[:3]), non_finite, finite, st.booleans())
def test_a_non_finite_value_or_bound_is_never_a_pass(rule, bad, good, bad_is_value):
    v, b = (bad, good) if bad_is_value else (good, bad)
    d = decide(rule, v, b)
    assert d.passed is None and "non-finite" in d.reason


@given(st.lists(finite, min_size=1, max_size=6), finite)
def test_lists_are_judged_entrywise_and_pass_only_when_every_entry_does(values, b):
    assert decide("value <= bound", values, b).passed is all(v <= b for v in values)
    d = decide("value <= bound", [*values, math.nan], b)
    assert d.passed is None


def test_a_nan_inside_a_ball_or_an_empty_interval_is_undecided():
    assert decide("value in bound", 1.0, [0.0, 2.0]).passed is True
    assert decide("value in bound", 3.0, [0.0, 2.0]).passed is False
    assert decide("value in bound", 1.0, [math.nan, math.nan]).passed is None
    assert decide("value in bound", math.nan, [0.0, 2.0]).passed is None
    assert decide("value in bound", 1.0, [2.0, 0.0]).passed is None
    assert decide("value in bound", [1.0, 5.0], [[0.0, 2.0], [4.0, 6.0]]).passed is True
    assert decide("value in bound", [1.0, 5.0], [[0.0, 2.0], [5.5, 6.0]]).passed is False


def test_shapes_that_differ_and_booleans_are_not_numbers():
    assert decide("value <= bound", [1.0, 2.0], [3.0]).passed is None
    assert decide("value <= bound", True, 1).passed is None
    assert decide("value == bound", ["1/3", True], ["1/3", True]).passed is True
    assert decide("value == bound", ["1/3"], ["1/4"]).passed is False
    with pytest.raises(ValueError, match="rule"):
        decide("value < bound", 1, 2)


def test_a_judge_built_check_never_takes_a_callers_verdict():
    c = kinds.agreement("x", "quadrature", id="x", error=math.nan, tolerance=1e-3)
    assert c.passed is None and "non-finite" in c.reason
    c = kinds.agreement("x", "quadrature", id="x", error=2e-3, tolerance=1e-3)
    assert c.passed is False
    with pytest.raises(ValueError, match="computed"):
        kinds.Check("x", "quadrature", True, 1.0, 2.0, rule="value <= bound", id="x")


def test_a_statistical_check_states_its_false_alarm_and_its_critical_value_is_computed():
    c = kinds.z_test("z", id="z", z=[1.0, -4.0], alpha=1e-6, tests=2, assumption="normal")
    assert c.value == 4.0 and c.passed is True and c.false_alarm.kind == "nominal"
    assert c.bound == pytest.approx(5.0263, abs=1e-4)  # Phi^-1(1 - 1e-6 / 4), from tables
    c = kinds.z_test("z", id="z", z=[1.0, math.nan], alpha=1e-6, assumption="normal")
    assert c.passed is None
    with pytest.raises(ValueError, match="false alarm"):
        kinds.verdict(
            "s", "montecarlo", id="s", unit="|z|", value=1, bound=2, rule="value <= bound"
        )


def test_an_exceedance_count_is_an_exact_binomial_test_with_a_proven_level():
    ok = kinds.exceedance("e", id="e", count=0, draws=1000, p=1e-3, alpha=1e-6)
    bad = kinds.exceedance("e", id="e", count=40, draws=1000, p=1e-3, alpha=1e-6)
    assert ok.passed is True and bad.passed is False and ok.false_alarm.kind == "bound"


def test_the_exceedance_test_accepts_exactly_the_counts_below_its_critical_count():
    """The critical count c is the smallest with P(Bin(n, p) >= c) < alpha, found here by walking
    the binomial tail (scipy's sf, not the judge's isf): c - 1 exceedances pass, c fail, so the
    test's false alarm is P(Bin >= c) < alpha and not the looser P(Bin >= c + 1)."""
    from scipy import stats

    for n, p, alpha in ((1000, 1e-3, 1e-6), (400, 0.05, 1e-4), (5000, 0.01, 1e-6)):
        c = 0
        while stats.binom.sf(c - 1, n, p) >= alpha:
            c += 1
        below = kinds.exceedance("e", id="e", count=c - 1, draws=n, p=p, alpha=alpha)
        at = kinds.exceedance("e", id="e", count=c, draws=n, p=p, alpha=alpha)
        assert below.passed is True and at.passed is False, (n, p, alpha, c)


def test_a_ball_that_is_not_finite_or_too_wide_leaves_containment_undecided():
    flint = pytest.importorskip("flint")
    good = flint.arb(1.0, 1e-12)
    c = kinds.containment(
        "c", id="c", values=[1.0], balls=[good], widen=0.0, max_relative_width=1e-6
    )
    assert c.passed is True
    nan_ball = flint.arb("nan")
    c = kinds.containment(
        "c", id="c", values=[1.0], balls=[nan_ball], widen=0, max_relative_width=1
    )
    assert c.passed is None
    wide = flint.arb(1.0, 0.5)
    c = kinds.containment("c", id="c", values=[1.0], balls=[wide], widen=0, max_relative_width=0.1)
    assert c.passed is None and "width" in c.reason
    c = kinds.containment("c", id="c", values=[1.1], balls=[good], widen=0, max_relative_width=1)
    assert c.passed is False


def test_an_underpowered_control_is_not_judged_and_a_powered_one_must_refute():
    weak = kinds.control("c", id="c", statistic=9.0, critical=5.0, power=0.5, tier="statistical")
    assert weak.judged is False
    strong = kinds.control("c", id="c", statistic=4.0, critical=5.0, power=1.0, tier="statistical")
    assert strong.passed is False
