"""numerics/significance.py: the z-test primitives every statistical check relies on.

Checked against identities that do not share its code: a test's size is its false alarm (power
against a zero effect), textbook critical values, a simulated rejection rate, and the minimality of
the sample size it plans. And it is their one home: no module of softlin/claims imports
scipy.stats (the allowed exceptions say why).
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, strategies as st

from softlin.numerics import significance as sig


def test_textbook_critical_values():
    # 1.95996... and 1.64485... are the 97.5% and 95% normal quantiles found in any table.
    assert sig.z_critical(0.05) == pytest.approx(1.959963984540054, rel=1e-12)
    assert sig.z_critical(0.05, sided=1) == pytest.approx(1.6448536269514722, rel=1e-12)
    assert sig.z_critical(0.05, tests=5) == pytest.approx(sig.z_critical(0.01), rel=1e-12)


@given(alpha=st.floats(1e-9, 0.4), tests=st.integers(1, 500), sided=st.sampled_from([1, 2]))
def test_a_test_at_zero_effect_rejects_with_its_false_alarm(alpha, tests, sided):
    """Size = false alarm / tests, for each sidedness: a one-sided critical value used as two-sided
    (or the reverse) doubles or halves it."""
    z_c = sig.z_critical(alpha, tests, sided)
    assert sig.power_of_z(0.0, z_c, sided) == pytest.approx(alpha / tests, rel=1e-9)


def test_power_matches_a_simulated_rejection_rate():
    rng = np.random.default_rng(20261201)
    z_c, delta, n = sig.z_critical(0.01), 2.5, 200_000
    rejected = np.mean(np.abs(rng.normal(delta, 1.0, n)) > z_c)
    p = sig.power_of_z(delta, z_c)
    # binomial standard error; 5.3 sigma is a two-sided false alarm of about 1e-7
    assert abs(rejected - p) <= 5.3 * math.sqrt(p * (1 - p) / n)


@given(
    effect=st.floats(0.01, 5.0),
    variance=st.floats(0.1, 50.0),
    factor=st.floats(0.2, 3.0),
    target=st.sampled_from([0.9, 0.99, 0.999]),
)
def test_planned_draws_are_the_smallest_reaching_the_power_target(effect, variance, factor, target):
    z_c = sig.z_critical(1e-6)
    n = sig.draws_for_power(effect, variance, z_c, target, factor)
    se = lambda m: math.sqrt(factor * variance / m)  # noqa: E731
    assert sig.power(effect, se(n), z_c, sided=1) >= target - 1e-12
    if n > 2:
        assert sig.power(effect, se(n - 1), z_c, sided=1) < target


def test_bad_arguments_are_refused():
    for args in [(0.0,), (1.0,), (0.05, 0), (0.05, 1, 3)]:
        with pytest.raises(ValueError):
            sig.z_critical(*args)
    assert math.isnan(sig.power(1.0, 0.0, 2.0))


@given(n=st.integers(200, 50_000), p=st.floats(1e-4, 0.05), alpha=st.floats(1e-9, 1e-2))
def test_binomial_critical_count_is_the_smallest_rejecting_count_and_detectable_has_the_power(
    n, p, alpha
):
    """P(Bin(n, p) >= c) < alpha <= P(Bin(n, p) >= c - 1); the detectable p1 reaches power 0.999 and
    a p1 1 % smaller does not (or p1 is p itself)."""
    from scipy import stats

    c = sig.binomial_critical_count(n, p, alpha)
    assert stats.binom.sf(c - 1, n, p) < alpha
    assert c == 0 or stats.binom.sf(c - 2, n, p) >= alpha
    p1 = sig.binomial_detectable(n, p, alpha)
    assert p1 >= p and stats.binom.sf(c - 1, n, p1) >= 0.999
    assert p1 <= p * 1.0001 or stats.binom.sf(c - 1, n, 0.99 * p1) < 0.999


@given(prediction=st.floats(0.01, 100.0), se=st.floats(1e-4, 1.0), z_c=st.floats(1.5, 6.0))
def test_the_detectable_relative_slip_is_the_smallest_with_power_0999(prediction, se, z_c):
    """At the stated slip the z-test's power is 0.999 (its far tail only adds); 10% below it,
    less."""
    eps = sig.detectable_relative(prediction, se, z_c)
    assert sig.power(eps * prediction, se, z_c) >= 0.999 - 1e-9
    assert sig.power(0.9 * eps * prediction, se, z_c) < 0.999


def test_points_tested_together_detect_what_the_most_sensitive_one_detects():
    z_q = sig.z_quantile(0.999)
    eps = sig.detectable_relative([1.0, 10.0, -4.0], [0.1, 0.1, 0.1], 5.0)
    assert eps == pytest.approx((5.0 + z_q) * 0.1 / 10.0)
    assert sig.detectable_relative([0.0, 0.0], [0.1, 0.2], 5.0) == float("inf")
    with pytest.raises(ValueError, match="finite"):
        sig.detectable_relative(1.0, float("nan"), 5.0)


@given(
    truth=st.floats(0.1, 10.0),
    slack=st.floats(1.2, 100.0),
    se=st.floats(1e-4, 0.01),
    z_c=st.floats(2.0, 6.0),
)
def test_the_detectable_lowering_of_a_bound_is_its_slack_seen_with_power_0999(
    truth, slack, se, z_c
):
    """Lowered by the stated fraction, the bound sits where the one-sided test rejects with power
    0.999; lowered by less, it rejects less often. A bound `slack` times the truth leaves every
    lowering below about 1 - 1/slack undetected."""
    bound = slack * truth
    eps = sig.detectable_lowering(bound, truth, se, z_c)
    power = lambda lowered: float(sig.stats.norm.sf(z_c - (truth - lowered) / se))
    assert power((1 - eps) * bound) >= 0.999 - 1e-9 or eps == 1.0
    assert eps == 1.0 or power((1 - 0.99 * eps) * bound) < 0.999
    assert eps >= 1 - 1 / slack - 1e-12


def test_the_pilot_bound_covers_the_true_standard_error_at_its_confidence():
    """Simulated: pilots of 8 normal blocks (sd 1); the true standard error of 48 blocks,
    1 / sqrt(48), exceeds the pilot's bound at beta = 0.05 in 5% of the pilots (binomial,
    5.3 sigma), and a bound without the chi-square factor (sqrt(n_p / n) alone) misses it far more
    often."""
    rng = np.random.default_rng(20261204)
    pilots, beta, true_se = 20_000, 0.05, 1 / math.sqrt(48)
    pilot = rng.standard_normal((pilots, 8)).std(axis=1, ddof=1) / math.sqrt(8)
    bound = np.array([sig.pilot_se_bound(s, 8, 48, beta) for s in pilot])
    missed = float(np.mean(true_se > bound))
    assert abs(missed - beta) <= 5.3 * math.sqrt(beta * (1 - beta) / pilots)
    assert float(np.mean(true_se > pilot * math.sqrt(8 / 48))) > 0.3


def test_t_power_is_the_size_at_zero_effect_and_a_simulated_rate_elsewhere():
    t_c = sig.t_critical(1e-2, 11, sided=1)
    assert sig.t_power(0.0, t_c, 11) == pytest.approx(1e-2, rel=1e-9)
    rng = np.random.default_rng(7)
    blocks, delta, n = 12, 3.0, 100_000
    x = rng.standard_normal((n, blocks)) - delta  # true mean -delta se below the claim 0
    t = x.mean(axis=1) / (x.std(axis=1, ddof=1) / math.sqrt(blocks))
    # the effect in units of the mean's true standard error, 1 / sqrt(blocks)
    p = sig.t_power(delta * math.sqrt(blocks), t_c, blocks - 1)
    rejected = float(np.mean(t < -t_c))
    assert abs(rejected - p) <= 5.3 * math.sqrt(p * (1 - p) / n)


def test_chi2_critical_is_the_textbook_quantile_and_the_squared_two_sided_z_for_one_dof():
    # 3.84146 and 11.0705 are the 95% quantiles of chi2_1 and chi2_5 in any table.
    assert sig.chi2_critical(0.05, 1) == pytest.approx(3.841458820694124, rel=1e-12)
    assert sig.chi2_critical(0.05, 5) == pytest.approx(11.070497693516351, rel=1e-12)
    for alpha, tests in [(1e-6, 1), (1e-6, 40), (0.01, 3)]:
        z = sig.z_critical(alpha, tests, sided=2)
        assert sig.chi2_critical(alpha, 1, tests) == pytest.approx(z * z, rel=1e-10)
    for args in [(0.0, 1), (0.05, 0), (0.05, 1, 0)]:
        with pytest.raises(ValueError):
            sig.chi2_critical(*args)


def test_the_sd_upper_factor_bounds_a_normal_sample_sd_at_its_confidence():
    """Simulated: samples of 8 normal draws (sd 1, 7 degrees of freedom); the sample standard
    deviation exceeds the factor in beta = 5% of the samples (binomial, 5.3 sigma)."""
    rng = np.random.default_rng(20261205)
    samples, beta = 40_000, 0.05
    sd = rng.standard_normal((samples, 8)).std(axis=1, ddof=1)
    above = float(np.mean(sd > sig.sd_upper_factor(beta, 7)))
    assert abs(above - beta) <= 5.3 * math.sqrt(beta * (1 - beta) / samples)


def test_one_sided_power_keeps_the_sign_of_the_effect():
    z_c = sig.z_critical(1e-3, sided=1)
    assert sig.power_one_sided(0.0, z_c) == pytest.approx(1e-3, rel=1e-9)
    assert sig.power_one_sided(2.0, z_c) == sig.power_of_z(2.0, z_c, sided=1)
    assert sig.power_one_sided(-2.0, z_c) < 1e-3 < sig.power_of_z(-2.0, z_c, sided=1)


def test_the_union_bound_power_misses_at_most_each_tail_once():
    """k two-sided components at the critical value of k tests: the misses' union bound is the
    false alarm, and a margin that never clears gives power 0, not a negative number."""
    k, alpha = 4, 1e-3
    margin = sig.z_critical(alpha, k, sided=2)
    assert sig.union_bound_power(margin, 2 * k) == pytest.approx(1 - alpha, rel=1e-12)
    assert sig.union_bound_power(math.inf, 2 * k) == 1.0
    assert sig.union_bound_power(-math.inf, 2 * k) == 0.0


# ---- one home: the claims take critical values and power from this module, never scipy.stats ----

CLAIMS = Path(__file__).resolve().parents[2] / "softlin" / "claims"
# Modules of softlin/claims allowed to import scipy.stats, with the reason.
STATS_ALLOWED = {
    "finite_prompt_risk/claim.py": "the chi-square density of Q = |z|^2 in a quadrature route "
    "(quadrature_first_order), no critical value or power",
}


def imports_scipy_stats(source: str) -> bool:
    """Whether the source imports scipy.stats (or anything from it), or reads it from scipy."""
    tree = ast.parse(source)
    scipy_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "scipy.stats" or alias.name.startswith("scipy.stats."):
                    return True
                if alias.name == "scipy":
                    scipy_names.add(alias.asname or "scipy")
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module == "scipy.stats" or node.module.startswith("scipy.stats."):
                return True
            if node.module == "scipy" and any(a.name == "stats" for a in node.names):
                return True
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "stats"
        and isinstance(node.value, ast.Name)
        and node.value.id in scipy_names
        for node in ast.walk(tree)
    )


def test_no_claim_module_imports_scipy_stats():
    """Critical values, power and p-values have one home, this module: a claim computing its own
    with scipy.stats is reported (the allowed modules say why they need it)."""
    found = {
        path.relative_to(CLAIMS).as_posix()
        for path in CLAIMS.rglob("*.py")
        if imports_scipy_stats(path.read_text())
    }
    assert found == set(STATS_ALLOWED), sorted(found ^ set(STATS_ALLOWED))


def test_the_scipy_stats_scan_sees_each_spelling():
    """Negative control: every way of reaching scipy.stats is seen; other scipy modules are not."""
    for source in (
        "from scipy import stats\n",
        "from scipy import integrate, stats as st\n",
        "import scipy.stats\n",
        "import scipy.stats as st\n",
        "from scipy.stats import norm\n",
        "import scipy\nscipy.stats.norm.isf(0.1)\n",
        "def f():\n    from scipy.stats import chi2\n",
    ):
        assert imports_scipy_stats(source), source
    for source in ("from scipy import integrate\n", "import scipy.special\n", "stats = 1\n"):
        assert not imports_scipy_stats(source), source
