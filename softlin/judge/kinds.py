"""Each kind of judgement a check makes, written once; every claim builds its checks here.

Every function returns a `Check` whose `passed` is its `rule` applied to its `value` and `bound`
(softlin/judge/rules.py), so the certificate alone lets a reader recompute the verdict. The kinds:

    verdict      the general form: a value, a bound and a rule, stated by the caller
    proofs       symbolic identities: the number proved equals the number stated
    exact        values compared exactly (rationals as strings, booleans, counts)
    agreement    a deterministic error within a derived tolerance (error <= tolerance)
    z_test       a z statistic against the normal critical value at a stated false alarm, one- or
                 two-sided, Bonferroni over `tests` (the critical value is computed here)
    t_test       the same with a Student-t critical value (dof degrees of freedom)
    exceedance   an exact binomial test that a high-probability bound fails at most as often as
                 its delta allows (its level a proven bound)
    catoni       a mean against its prediction by Catoni's M-estimator, with a variance bound that
                 comes from a proof or an enclosure (its level a proven finite-sample bound)
    containment  float values inside Arb balls (rounded outward, widened by the float route's
                 stated error); a ball that is not finite or wider than its stated relative width
                 is undecided
    control      a negative control: judged only when its planned power reaches POWER_TARGET; it
                 passes when its statistic reaches its critical value (the wrong formula refuted)
    unjudged     a check that could not be judged here, kept with its reason

A statistical check states its false alarm (softlin/judge/levels.py); the constants every claim
shares (the power target) are defined here once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..numerics import significance
from .check import Check, unjudged  # noqa: F401 - unjudged is one of the judge's kinds
from .levels import CATONI, EXACT_BINOMIAL, FalseAlarm, nominal, proven

# The power every planned control and every stated resolution (`detectable`) is computed for.
POWER_TARGET = 0.999


def verdict(
    name: str,
    kind: str,
    *,
    id: str,
    unit: str,
    value: Any,
    bound: Any,
    rule: str,
    detail: str = "",
    tier: str = "",
    detectable: float | None = None,
    false_alarm: FalseAlarm | None = None,
    undecided: str = "",
) -> Check:
    """A check from a value, a bound and a rule (the module docstring); `undecided` (a reason)
    leaves it undecided although the rule could decide, e.g. outside the regime it is valid in."""
    return Check(
        name,
        kind,
        None,
        value,
        bound,
        detail,
        tier,
        id=id,
        unit=unit,
        detectable=detectable,
        rule=rule,
        false_alarm=false_alarm,
        undecided=undecided,
    )


def proofs(label: str, proved: dict, *, id: str = "proofs") -> Check:
    """Symbolic identities (name -> an object with `.passed`): passes when every one reduced to
    exactly zero; value the number proved, bound the number stated. A solver's result put back
    into the equation it solved (`.back_substitution`, derivations/proof.py) proves nothing the
    claim states: it is not counted, but one that fails is a broken derivation and fails the
    check (it is subtracted from the value)."""
    back = [name for name, p in proved.items() if getattr(p, "back_substitution", False)]
    stated = {name: p for name, p in proved.items() if name not in back}
    failed = [name for name, p in proved.items() if not p.passed]
    broken = [name for name in back if name in failed]
    shown = f"; {len(back)} back-substitutions shown, not counted" if back else ""
    return verdict(
        f"symbolic proofs: {label}",
        "symbolic",
        id=id,
        unit="identities",
        value=sum(1 for p in stated.values() if p.passed) - len(broken),
        bound=len(stated),
        rule="value == bound",
        detail=f"{len(stated)} identities, each reduced to exactly zero (listed in "
        f"derivations.md){shown}"
        if not failed
        else "not proved: " + "; ".join(failed),
    )


def exact(name: str, kind: str, *, id: str, value: Any, expected: Any, detail: str = "", **kw):
    """Values compared exactly (rule value == bound): rationals written as strings, booleans."""
    return verdict(
        name,
        kind,
        id=id,
        unit="exact values",
        value=value,
        bound=expected,
        rule="value == bound",
        detail=detail,
        **kw,
    )


def agreement(
    name: str,
    kind: str,
    *,
    id: str,
    error: float,
    tolerance: float,
    unit: str = "relative error",
    detail: str = "",
    **kw,
) -> Check:
    """A deterministic error (non-negative: a distance between independent routes) within its
    derived tolerance: rule value <= bound."""
    return verdict(
        name,
        kind,
        id=id,
        unit=unit,
        value=error,
        bound=tolerance,
        rule="value <= bound",
        detail=detail,
        **kw,
    )


def _worst(z, sided: int) -> float:
    """The statistic a test is decided on: max |z| (two-sided) or max z (one-sided, rejecting
    above), NaN when any entry is not finite (so the check is undecided, never passed)."""
    values = [float(v) for v in (z if isinstance(z, (list, tuple)) else _flat(z))]
    if not values:
        return math.nan
    if any(not math.isfinite(v) for v in values):
        return math.nan
    return max(abs(v) for v in values) if sided == 2 else max(values)


def _flat(z) -> list:
    if hasattr(z, "ravel"):
        return z.ravel().tolist()
    return [z]


def z_test(
    name: str,
    *,
    id: str,
    z: Any,
    alpha: float,
    tests: int = 1,
    sided: int = 2,
    assumption: str,
    kind: str = "montecarlo",
    tier: str = "",
    detail: str = "",
    detectable: float | None = None,
    undecided: str = "",
) -> Check:
    """A z-test at false alarm `alpha` shared by Bonferroni over `tests` tests: two-sided
    (sided=2) passes when max |z| <= Phi^-1(1 - alpha / (2 tests)); one-sided (sided=1, z signed
    so that a slip makes it large) when max z <= Phi^-1(1 - alpha / tests). Its level is nominal:
    the statistic is normal only under `assumption`."""
    critical = significance.z_critical(alpha, tests, sided)
    return _critical_value_test(
        name,
        kind,
        id,
        z,
        critical,
        sided,
        alpha,
        tests,
        "",
        assumption,
        tier,
        detail,
        detectable,
        undecided,
    )


def t_test(
    name: str,
    *,
    id: str,
    t: Any,
    dof: int,
    alpha: float,
    assumption: str,
    tests: int = 1,
    sided: int = 2,
    kind: str = "montecarlo",
    tier: str = "",
    detail: str = "",
    detectable: float | None = None,
    undecided: str = "",
) -> Check:
    """A Student-t test with dof degrees of freedom (the critical value computed here), otherwise
    as z_test; its level is exact only under normal blocks (nominal)."""
    critical = significance.t_critical(alpha, dof, tests, sided)
    return _critical_value_test(
        name,
        kind,
        id,
        t,
        critical,
        sided,
        alpha,
        tests,
        f"Student t ({dof} dof), ",
        assumption,
        tier,
        detail,
        detectable,
        undecided,
    )


def _critical_value_test(
    name,
    kind,
    id,
    statistic,
    critical,
    sided,
    alpha,
    tests,
    law,
    assumption,
    tier,
    detail,
    detectable,
    undecided,
) -> Check:
    """The check of a z or t test once its critical value is known: max |statistic| (two-sided)
    or max statistic (one-sided) at most the critical value, at a nominal level under
    `assumption`; `law` names a statistic that is not normal ("Student t (47 dof), ")."""
    side = "two-sided" if sided == 2 else "one-sided (rejects above)"
    return verdict(
        name,
        kind,
        id=id,
        unit="|z|" if sided == 2 else "z",
        value=_worst(statistic, sided),
        bound=critical,
        rule="value <= bound",
        detail=(detail + "; " if detail else "")
        + f"{law}{side}, false alarm {alpha:g} over {tests} test{'s' if tests != 1 else ''}",
        tier=tier,
        detectable=detectable,
        false_alarm=nominal(alpha, assumption),
        undecided=undecided,
    )


def accepted_exceedances(draws: int, p: float, alpha: float) -> int:
    """The largest count of an event of probability at most p, in `draws` independent draws, that
    the exact one-sided binomial test at false alarm alpha accepts: its critical count (the
    smallest rejecting one) minus one. Written once: `exceedance` and any per-L table of counts
    take their bound from here."""
    return significance.binomial_critical_count(draws, p, alpha) - 1


def exceedance(
    name: str,
    *,
    id: str,
    count: int,
    draws: int,
    p: float,
    alpha: float,
    kind: str = "montecarlo",
    detail: str = "",
) -> Check:
    """The exact one-sided binomial test that an event of probability at most p (a bound's failure)
    happened `count` times in `draws` independent draws no more often than p allows at false alarm
    alpha: value the count, bound the largest count the test accepts (critical count - 1). Its
    level is a proven bound (exact binomial tail)."""
    return verdict(
        name,
        kind,
        id=id,
        unit="rejections",
        value=int(count),
        bound=accepted_exceedances(draws, p, alpha),
        rule="value <= bound",
        detail=(detail + "; " if detail else "")
        + f"exact binomial test of {count} in {draws} draws against p = {p:g}, false alarm "
        f"{alpha:g}",
        detectable=significance.binomial_detectable(draws, p, alpha, POWER_TARGET),
        false_alarm=proven(alpha, EXACT_BINOMIAL),
    )


@dataclass(frozen=True)
class ProvenVariance:
    """An upper bound on the variance of one sample under the null, per entry, and where it is
    proved (a derivation's proof, an Arb enclosure): the input Catoni's test rests on. Never an
    estimate from the sample being tested (that would make the level nominal again)."""

    values: Any
    source: str

    def __post_init__(self):
        if not self.source.strip():
            raise ValueError("a proven variance bound names the proof or enclosure it comes from")


def catoni_test(
    name: str,
    *,
    id: str,
    samples: Any,
    prediction: Any,
    variance: ProvenVariance,
    alpha: float,
    kind: str = "montecarlo",
    tier: str = "",
    detail: str = "",
    undecided: str = "",
) -> Check:
    """H0: E Y = prediction, entrywise, from n independent samples Y_j (axis 0 of `samples`, one
    column per entry) with Var Y <= v (`variance`, proved). Per entry, at level delta = alpha / k
    (k entries, Bonferroni) and l = log(2 / delta), Catoni's estimator theta_hat solves
    sum_j psi(alpha* (Y_j - theta)) = 0 with alpha* = sqrt(2 l (n - 2 l) / (n^2 v)), and

        P(|theta_hat - E Y| > r) <= delta,   r = sqrt(2 v l / (n - 2 l)),   n > 2 l

    (derivations/catoni.py: e^psi(x) <= 1 + x + x^2/2, Markov, the smaller root of the envelope),
    for any law with finite variance at most v: no normal approximation, the level is proven.
    Value the largest |theta_hat - prediction| / r, bound 1, rule value <= bound. Its resolution
    (`detectable`) is the smallest relative slip of a prediction whose planned power
    (robust_mean.power_lower_bound, a lower bound too) reaches POWER_TARGET: about
    (sqrt(2 l) + sqrt(2 log(1 / (1 - POWER_TARGET)))) sqrt(v / n) / |prediction|, a little above
    the normal test's (z + z_0.999) sqrt(v / n). Undecided (never passed) when n <= 2 l, a variance
    bound is not finite or a sample is not finite; an entry with v = 0 is judged exactly: its ratio
    is the largest |Y_j - prediction| in units of 1e3 roundoff of the prediction (at most 1 when
    every sample equals it up to rounding)."""
    from ..numerics import robust_mean

    y = np.asarray(samples, dtype=float)
    y = y.reshape(y.shape[0], -1)
    n, k = y.shape
    mu = np.broadcast_to(np.asarray(prediction, dtype=float).ravel(), (k,))
    v = np.broadcast_to(np.asarray(variance.values, dtype=float).ravel(), (k,))
    delta = alpha / k
    ell = robust_mean.log_term(delta)
    reasons = []
    if n <= 2 * ell:
        reasons.append(f"{n} samples <= 2 log(2 / delta) = {2 * ell:.3g}")
    if not np.all(np.isfinite(v)) or np.any(v < 0):
        reasons.append(f"a variance bound is not finite and >= 0: {v.tolist()}")
    if not np.all(np.isfinite(y)):
        reasons.append("a sample is not finite")
    ratios, radii = np.full(k, math.nan), np.full(k, math.nan)
    if not reasons:
        positive = v > 0
        if positive.any():
            r, rad = robust_mean.zero_mean_test(y[:, positive] - mu[positive], v[positive], delta)
            ratios[positive], radii[positive] = r, rad
        for j in np.flatnonzero(~positive):  # no spread: the mean is exact, up to rounding
            allowed = 1e3 * np.finfo(float).eps * max(abs(mu[j]), 1e-300)
            # distance in rounding allowances, finite so that a moved mean is refuted, not undecided
            ratios[j] = float(np.max(np.abs(y[:, j] - mu[j]))) / allowed
            radii[j] = 0.0
    slips = [
        robust_mean.detectable_mean(n, float(v[j]), delta, POWER_TARGET) / abs(mu[j])
        for j in range(k)
        if mu[j] != 0 and v[j] > 0 and math.isfinite(v[j])
    ]
    finite_slips = [s for s in slips if math.isfinite(s)]
    return verdict(
        name,
        kind,
        id=id,
        unit="ratio",
        value=float(np.max(ratios)) if not reasons else math.nan,
        bound=1.0,
        rule="value <= bound",
        detail=(detail + "; " if detail else "")
        + "Catoni's M-estimator against the prediction, largest |theta_hat - prediction| / r "
        f"over {k} entr{'ies' if k != 1 else 'y'} ({n} samples each), radius "
        f"r = sqrt(2 v l / (n - 2 l)) = {', '.join(f'{x:.4g}' for x in radii)} from the proven "
        f"variance bound v = {', '.join(f'{x:.8g}' for x in v)} ({variance.source}); proven "
        f"false alarm {alpha:g} over {k} test{'s' if k != 1 else ''}",
        tier=tier,
        detectable=min(finite_slips) if finite_slips else None,
        false_alarm=proven(alpha, f"{CATONI}; the variance bound: {variance.source}"),
        undecided="; ".join(reasons) or undecided,
    )


def ball_interval(ball, widen: float = 0.0, scale: float | None = None) -> list[float]:
    """An Arb ball (python-flint arb) widened by `widen` times `scale` (default: its midpoint's
    magnitude; a float route's stated error relative to it) in ball arithmetic, as the float
    interval [float_down, float_up] of the toolkit (numerics/arb/balls.py: each end rounded exactly
    away from the ball); [nan, nan] when the ball is not finite, so that containment is
    undecided."""
    from flint import arb

    from ..numerics.arb.balls import float_down, float_up

    if not ball.is_finite():
        return [math.nan, math.nan]
    size = abs(float(ball.mid())) if scale is None else scale
    widened = ball + arb(0, widen * size)
    return [float_down(widened), float_up(widened)]


def relative_width(ball, scale: float | None = None) -> float:
    """rad / scale of an Arb ball, scale its midpoint's magnitude by default (inf for a ball
    around 0 or not finite)."""
    if not ball.is_finite():
        return math.inf
    mid, rad = abs(float(ball.mid())), float(ball.rad())
    size = mid if scale is None else scale
    return rad / size if size > 0 else (0.0 if rad == 0 else math.inf)


def containment(
    name: str,
    *,
    id: str,
    values: list,
    balls: list,
    widen: float,
    max_relative_width: float,
    scales: list | None = None,
    kind: str = "quadrature",
    detail: str = "",
) -> Check:
    """Float values inside their Arb balls, each ball widened by `widen` times its scale (the
    float route's stated error; the scale is the ball's midpoint, or `scales` per entry where the
    error is relative to the size of the terms summed), rounded outward (rule value in bound,
    entrywise). A ball that is not finite or whose radius exceeds `max_relative_width` of its scale
    leaves the check undecided: an enclosure too wide to decide is never a pass."""
    if len(values) != len(balls) or (scales is not None and len(scales) != len(balls)):
        raise ValueError(f"containment {id}: {len(values)} values against {len(balls)} balls")
    per = [None] * len(balls) if scales is None else [float(x) for x in scales]
    widths = [relative_width(b, s) for b, s in zip(balls, per)]
    too_wide = [w for w in widths if not w <= max_relative_width]
    return verdict(
        name,
        kind,
        id=id,
        unit="values",
        value=[float(v) for v in values],
        bound=[ball_interval(b, widen, s) for b, s in zip(balls, per)],
        rule="value in bound",
        tier="enclosure",
        detail=(detail + "; " if detail else "")
        + f"balls widened by {widen:g} of their scale for the float route's error; largest "
        f"relative width {max(widths):.2g} (at most {max_relative_width:g})",
        undecided=f"a ball's relative width {max(too_wide):.3g} exceeds the stated "
        f"{max_relative_width:g}"
        if too_wide
        else "",
    )


def control(
    name: str,
    *,
    id: str,
    statistic: float,
    critical: float,
    power: float,
    tier: str,
    kind: str = "control",
    unit: str = "|z|",
    detail: str = "",
    false_alarm: FalseAlarm | None = None,
    undecided: str = "",
) -> Check:
    """A negative control: its wrong formula must be refuted, statistic >= critical (rule value >=
    bound). It is judged only when its power, planned before its data, reaches POWER_TARGET: an
    underpowered control is kept, not judged, with its power. `undecided` (a reason) when the
    refuting test itself could not decide."""
    if not (isinstance(power, (int, float)) and power >= POWER_TARGET):
        return unjudged(
            name,
            kind,
            f"planned power {power!r} below the target {POWER_TARGET}",
            tier=tier,
            value=statistic,
            bound=critical,
            detail=detail,
            id=id,
            unit=unit,
        )
    return verdict(
        name,
        kind,
        id=id,
        unit=unit,
        value=statistic,
        bound=critical,
        rule="value >= bound",
        tier=tier,
        detail=(detail + "; " if detail else "") + f"planned power {power:.6f}",
        false_alarm=false_alarm,
        undecided=undecided,
    )
