"""thm-5.2, finite-prompt training (shared/icl.py's cached run): its limiting risk decreases in L
towards R_inf = 0, judged as the largest consecutive increase in standard errors against the
one-sided critical value (Bonferroni over the consecutive pairs) and the overall change, which must
not be positive. A consistency check: R_L falls in L at any fixed theta near the optimum, whatever
the training did (the conclusion itself is judged in conclusion.py)."""

from __future__ import annotations

import math

from ...judge import kinds as judge
from ...judge import levels
from ...judge.check import check_false_alarm
from ...numerics import significance
from ...numerics.significance import z_critical


def risk_decrease_check(tr: dict):
    """The check on the training run `tr` (its L, risk and risk_stderr)."""
    # one-sided, Bonferroni over the consecutive pairs, at the current per-check false alarm
    pairs = max(1, len(tr["risk"]) - 1)
    z_pair = z_critical(check_false_alarm(), pairs, sided=1)
    # each consecutive increase in standard errors (one-sided: an increase beyond z_pair refutes)
    increases = [
        (b - a) / math.hypot(sa, sb)
        for a, b, sa, sb in zip(
            tr["risk"], tr["risk"][1:], tr["risk_stderr"], tr["risk_stderr"][1:]
        )
    ]
    return judge.verdict(
        "finite-prompt training: limiting risk decreases in L towards R_inf = 0",
        "montecarlo",
        id="training/risk-decreases",
        unit="values",
        # the largest consecutive increase in standard errors, and the overall change
        # risk(last L) - risk(first L), which must not be positive
        value=[max(increases, default=-math.inf), tr["risk"][-1] - tr["risk"][0]],
        bound=[z_pair, 0.0],
        rule="value <= bound",
        # R_L falls in L at any fixed theta near the optimum, whatever the training did: the
        # conclusion is judged by training/endpoint-* and training/risk-decay, -limit
        tier="consistency",
        false_alarm=levels.nominal(check_false_alarm(), levels.NORMAL_MEAN),
        detail="[largest (risk(L_next) - risk(L)) / combined se, risk(last L) - risk(first "
        "L)] against [the one-sided critical value, 0]; fresh evaluation sample per "
        "L; risks " + ", ".join(f"{r:.6g}" for r in tr["risk"]) + f"; no consecutive "
        f"increase beyond {z_pair:.2f} standard errors (one-sided, false-alarm "
        f"{check_false_alarm():g} over the {pairs} pairs, normal approximation)",
        # a sign test: the smallest increase between consecutive L, relative to the risk at the
        # smaller L, refuted (the easiest pair)
        detectable=significance.resolution(
            tr["risk"][:-1],
            [math.hypot(a, b) for a, b in zip(tr["risk_stderr"], tr["risk_stderr"][1:])],
            z_pair,
        ),
    )
