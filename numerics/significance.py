"""Normal z-tests: critical values, power and sample sizes, in one place.

Every statistical check in softlin is a z-test (a studentised mean, a fitted coefficient, a
log-log slope) judged at a stated false-alarm probability alpha, often shared by Bonferroni over
`tests` tests. With Z ~ N(0, 1) under the null:

- critical value: z_c = Phi^{-1}(1 - alpha / (sided * tests)), sided = 2 for |Z| > z_c, 1 for
  Z > z_c;
- power against a true standardised effect delta = |effect| / se:
  P(|Z + delta| > z_c) = Phi(delta - z_c) + Phi(-delta - z_c) (two-sided), Phi(delta - z_c)
  (one-sided);
- draws for power `target` (one tail, variance `variance` per draw, `factor` for a fitted
  coefficient whose variance is factor * variance / n): n = factor variance
  ((z_c + z_target) / effect)^2 with z_target = Phi^{-1}(target).

- resolution: a prediction P off by a relative slip eps shifts the statistic by eps |P| / se, so the
  smallest slip detected with power `target` is eps = (z_c + z_target) se / |P| (the far tail of a
  two-sided test only adds power); over several points tested together, the smallest over them.

The exact binomial test of an exceedance probability (the high-probability bounds) has its p-value,
critical count and detectable exceedance probability here too, and a chi-square test (a sum of
squared standardised terms, a Gaussian quadratic form) its critical value.

Planned power from a pilot (a negative control's power must be known before its data): a pilot of
n_p iid blocks, drawn on its own stream, gives a standard error se_p; the true standard error of
the run's mean over n blocks, sigma / sqrt(n), is then at most se_p sqrt(n_p / n) f with probability
>= 1 - beta, f = sqrt((n_p - 1) / chi2_{n_p - 1}(beta)) the upper confidence factor of a normal
sample's standard deviation (`pilot_se_bound`); symmetrically, the standard deviation of a normal
sample with dof degrees of freedom is at most sigma g, g = sqrt(chi2_dof(1 - beta) / dof), with
probability >= 1 - beta (`sd_upper_factor`). A test that misses only if one of m standard normal
tails beyond a margin happens has power at least 1 - m Phi(-margin) (`union_bound_power`). A
one-sided Student-t test with dof degrees of freedom that rejects when (estimate - claim) / se <
-t_c, against a true standardised effect delta = (claim - truth) / se, has power P(T' < -t_c), T'
noncentral t with noncentrality -delta (`t_power`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats


def z_critical(false_alarm: float, tests: int = 1, sided: int = 2) -> float:
    """Critical value of one of `tests` z-tests sharing `false_alarm` (Bonferroni)."""
    if not 0 < false_alarm < 1 or tests < 1 or sided not in (1, 2):
        raise ValueError(
            f"z_critical needs 0 < false_alarm < 1, tests >= 1, sided in (1, 2); got "
            f"{false_alarm}, {tests}, {sided}"
        )
    return float(stats.norm.isf(false_alarm / (sided * tests)))


def t_critical(false_alarm: float, dof: int, tests: int = 1, sided: int = 2) -> float:
    """Critical value of one of `tests` Student-t tests with `dof` degrees of freedom sharing
    `false_alarm` (Bonferroni): for a mean studentised by its own sample standard deviation over
    dof + 1 iid normal blocks, where the normal z_c would understate the tail (t_47 beyond 5.62 has
    probability 1.0e-6, N(0, 1) 1.9e-8)."""
    if dof < 1:
        raise ValueError(f"t_critical needs dof >= 1; got {dof}")
    z_critical(false_alarm, tests, sided)  # the same argument checks
    return float(stats.t(dof).isf(false_alarm / (sided * tests)))


def chi2_critical(false_alarm: float, dof: int, tests: int = 1) -> float:
    """Critical value of one of `tests` chi-square tests with `dof` degrees of freedom sharing
    `false_alarm` (Bonferroni): the chi2_dof quantile exceeded with probability false_alarm / tests
    (for dof = 1, the square of the two-sided z_critical)."""
    if dof < 1:
        raise ValueError(f"chi2_critical needs dof >= 1; got {dof}")
    z_critical(false_alarm, tests, 1)  # the same argument checks
    return float(stats.chi2(dof).isf(false_alarm / tests))


def z_quantile(probability: float) -> float:
    """Phi^{-1}(probability): the standardised effect beyond z_c that gives power `probability`."""
    return float(stats.norm.ppf(probability))


def power_of_z(delta: float, z_c: float, sided: int = 2) -> float:
    """Power of a z-test with critical value z_c against a standardised effect delta >= 0."""
    delta = abs(delta)
    p = float(stats.norm.cdf(delta - z_c))
    return p + (float(stats.norm.cdf(-delta - z_c)) if sided == 2 else 0.0)


def power_one_sided(delta: float, z_c: float) -> float:
    """Phi(delta - z_c): the power of a one-sided z-test with critical value z_c against a signed
    standardised effect delta in its rejecting direction (below the false alarm when delta < 0;
    power_of_z takes |delta|)."""
    return float(stats.norm.cdf(delta - z_c))


def union_bound_power(margin: float, tails: int) -> float:
    """A lower bound of the power of a test that misses only if one of `tails` events happens, each
    a standard normal beyond `margin` (module docstring): max(0, 1 - tails Phi(-margin))."""
    return max(0.0, 1.0 - tails * float(stats.norm.cdf(-margin)))


def power(effect: float, se: float, z_c: float, sided: int = 2) -> float:
    """Probability that a z-test with critical value z_c and standard error se detects `effect`."""
    if se <= 0 or not math.isfinite(se):
        return float("nan")
    return power_of_z(abs(effect) / se, z_c, sided)


def detectable_relative(prediction, se, z_c: float, target: float = 0.999) -> float:
    """The smallest relative slip eps (the prediction P replaced by (1 + eps) P) that a z-test with
    critical value z_c and standard error se detects with probability >= target: (z_c + z_target) se
    / |P|; with arrays (points tested together), the smallest over the points, which alone detects
    it. inf when every prediction is 0 (no relative slip moves it)."""
    P, s = np.broadcast_arrays(
        np.abs(np.asarray(prediction, dtype=float)), np.asarray(se, dtype=float)
    )
    if np.any(~np.isfinite(s)) or np.any(s < 0):
        raise ValueError(f"detectable_relative needs finite standard errors >= 0; got {s}")
    with np.errstate(divide="ignore"):
        eps = np.where(P > 0, (z_c + z_quantile(target)) * s / np.where(P > 0, P, 1.0), np.inf)
    return float(np.min(eps))


def resolution(prediction, se, z_c: float, allowance=0.0) -> float | None:
    """A statistical check's `detectable` (softlin.core.claim.Check): detectable_relative over the
    points with a finite prediction, standard error and allowance. `allowance` (absolute, per point)
    is what the statistic subtracts from |estimate - prediction| before dividing by se: a slip must
    exceed it too, which adds allowance / |prediction|. None when no point is left
    (an undecided or vacuous check), z_c is not finite, or no relative slip moves the predictions
    (all 0)."""
    P, s, a = np.broadcast_arrays(
        *(np.asarray(x, dtype=float) for x in (prediction, se, allowance))
    )
    ok = np.isfinite(P) & np.isfinite(s) & np.isfinite(a) & (s >= 0)
    if not np.any(ok) or not math.isfinite(z_c):
        return None
    eps = detectable_relative(P[ok], s[ok] + a[ok] / (z_c + z_quantile(0.999)), z_c)
    return eps if math.isfinite(eps) else None


def detectable_lowering(bound, truth, se, z_c: float, target: float = 0.999) -> float:
    """For a one-sided test that truth <= bound (rejecting when (estimate - bound) / se > z_c, the
    estimate ~ N(truth, se^2)): the smallest relative lowering eps of the bound, bound -> (1 - eps)
    bound, that it detects with probability >= target, 1 - (truth - (z_c + z_target) se) / bound,
    the smallest over the points (in [0, 1]; 1 when no lowering short of zero is detected). This is
    the bound's slack: a bound 4x above the truth leaves every lowering below ~75% undetected."""
    B, T, s = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (bound, truth, se)))
    ok = np.isfinite(B) & (B > 0) & np.isfinite(T) & np.isfinite(s)
    if not np.any(ok):
        return 1.0
    eps = 1.0 - (T[ok] - (z_c + z_quantile(target)) * s[ok]) / B[ok]
    return float(np.clip(np.min(eps), 0.0, 1.0))


def pilot_se_bound(pilot_se: float, pilot_blocks: int, blocks: int, beta: float = 1e-3) -> float:
    """An upper bound, holding with probability >= 1 - beta, of the true standard error
    sigma / sqrt(blocks) of a mean over `blocks` iid blocks, from the standard error `pilot_se` of
    `pilot_blocks` blocks of the same law (the module docstring: the chi-square bound on a normal
    sample's standard deviation)."""
    if pilot_blocks < 2 or blocks < 1 or not 0 < beta < 1:
        raise ValueError(
            f"pilot_se_bound needs pilot_blocks >= 2, blocks >= 1, 0 < beta < 1; got "
            f"{pilot_blocks}, {blocks}, {beta}"
        )
    dof = pilot_blocks - 1
    factor = math.sqrt(dof / float(stats.chi2.ppf(beta, dof)))
    return pilot_se * math.sqrt(pilot_blocks / blocks) * factor


def sd_upper_factor(beta: float, dof: int) -> float:
    """g with P(s <= g sigma) = 1 - beta for the standard deviation s of a normal sample with dof
    degrees of freedom, g = sqrt(chi2_dof(1 - beta) / dof) (module docstring): a sample's estimated
    standard errors are at most g times the true ones with that probability."""
    return math.sqrt(float(stats.chi2.ppf(1 - beta, dof)) / dof)


def t_power(delta: float, t_c: float, dof: int) -> float:
    """Power of the one-sided Student-t test rejecting below -t_c against a true standardised effect
    delta >= 0 in the rejecting direction: P(T' < -t_c), T' noncentral t (dof, -delta)."""
    if not math.isfinite(delta):
        return 1.0 if delta > 0 else 0.0
    return float(stats.nct.cdf(-t_c, dof, -delta))


def draws_for_power(
    effect: float, variance: float, z_c: float, target: float, factor: float = 1.0
) -> int:
    """Smallest n with power(effect, sqrt(factor variance / n), z_c) >= target (one tail)."""
    return max(2, math.ceil(factor * variance * ((z_c + z_quantile(target)) / abs(effect)) ** 2))


def binomial_p_value(exceedances: int, n: int, p: float) -> float:
    """P(Bin(n, p) >= exceedances): small when the observed frequency is too high for p."""
    return float(stats.binom.sf(exceedances - 1, n, p))


def binomial_critical_count(n: int, p: float, false_alarm: float) -> int:
    """The smallest count c with P(Bin(n, p) >= c) < false_alarm: the one-sided exact binomial test
    of "the exceedance probability is at most p" rejects from c exceedances in n draws."""
    return int(stats.binom.isf(false_alarm, n, p)) + 1


def binomial_detectable(n: int, p: float, false_alarm: float, target: float = 0.999) -> float:
    """The smallest exceedance probability p1 >= p that the exact binomial test
    (at `false_alarm`, n draws) rejects with probability >= target: P(Bin(n, p1) >= c) >= target,
    c = binomial_critical_count. The power grows with p1, so a bisection on p1 finds it."""
    c = binomial_critical_count(n, p, false_alarm)
    lo, hi = p, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if stats.binom.sf(c - 1, n, mid) >= target else (mid, hi)
    return hi
