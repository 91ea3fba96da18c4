"""thm-5.2, finite-prompt training (shared/icl.py's cached run): its limiting risk decreases in L
towards R_inf = 0, judged as the largest consecutive increase and the overall increase (last L
against first), each in standard errors, against the one-sided critical value (Bonferroni over
the consecutive pairs and the overall pair). A consistency check: R_L falls in L at any fixed
theta near the optimum, whatever the training did (the conclusion itself is judged in
conclusion.py). The overall change is a z as well, not a sign: a hunt draw (sigma ~ 1e-6,
alpha ~ 5e5, softlin hunt thm-5.2 --seed 11) had risks 1.28e-6, 1.76e-6, an increase of 2.5
standard errors, which the sign alone had counted as a failure."""

from __future__ import annotations

import math

from ...judge import kinds as judge
from ...judge import levels
from ...judge.check import check_false_alarm
from ...numerics import significance
from ...numerics.significance import z_critical


def risk_decrease_check(tr: dict):
    """The check on the training run `tr` (its L, risk and risk_stderr)."""
    # one-sided, Bonferroni over the consecutive pairs and the overall one, at the current
    # per-check false alarm
    pairs = max(1, len(tr["risk"]) - 1)
    z_pair = z_critical(check_false_alarm(), pairs + 1, sided=1)
    # each consecutive increase in standard errors (one-sided: an increase beyond z_pair refutes)
    increases = [
        (b - a) / math.hypot(sa, sb)
        for a, b, sa, sb in zip(
            tr["risk"], tr["risk"][1:], tr["risk_stderr"], tr["risk_stderr"][1:]
        )
    ]
    r, se = tr["risk"], tr["risk_stderr"]
    overall = (r[-1] - r[0]) / math.hypot(se[0], se[-1])
    return judge.verdict(
        "finite-prompt training: limiting risk decreases in L towards R_inf = 0",
        "montecarlo",
        id="training/risk-decreases",
        unit="values",
        # the largest consecutive increase and the overall increase, in standard errors
        value=[max(increases, default=-math.inf), overall],
        bound=[z_pair, z_pair],
        rule="value <= bound",
        # R_L falls in L at any fixed theta near the optimum, whatever the training did: the
        # conclusion is judged by training/endpoint-* and training/risk-decay, -limit
        tier="consistency",
        false_alarm=levels.nominal(check_false_alarm(), levels.NORMAL_MEAN),
        detail="[largest (risk(L_next) - risk(L)) / combined se, (risk(last L) - risk(first "
        "L)) / combined se] against the one-sided critical value; fresh evaluation sample per "
        "L; risks " + ", ".join(f"{x:.6g}" for x in tr["risk"]) + f"; no consecutive or "
        f"overall increase beyond {z_pair:.2f} standard errors (one-sided, false-alarm "
        f"{check_false_alarm():g} over the {pairs} pairs and the overall one, normal "
        "approximation)",
        # a sign test: the smallest increase between consecutive L, relative to the risk at the
        # smaller L, refuted (the easiest pair)
        detectable=significance.resolution(
            tr["risk"][:-1],
            [math.hypot(a, b) for a, b in zip(tr["risk_stderr"], tr["risk_stderr"][1:])],
            z_pair,
        ),
    )
