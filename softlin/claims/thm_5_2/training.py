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


def risk_decrease_check(tr: dict, eps: float):
    """The check on the training run `tr` (its L, risk, risk_stderr and inf_final_risk). Its
    premise, theta near the optimum, is taken to hold where the infinite-prompt training at the
    same horizon has reached risk eps (the scenario's largest); elsewhere (a start far above the
    paper's alpha range that the horizon does not bring in: softlin hunt thm-5.2 --seed 23, alpha
    1024, risks 6.5e6 then 1.3e7 against R_inf 6.1e9) the check is kept, not judged."""
    name = "finite-prompt training: limiting risk decreases in L towards R_inf = 0"
    if not tr["inf_final_risk"] <= eps:
        return judge.unjudged(
            name,
            "montecarlo",
            f"the infinite-prompt training's risk at the horizon, {tr['inf_final_risk']:.4g}, is "
            f"above eps = {eps:g}: the trained points are not near the optimum, where R_L falls "
            "in L",
            tier="consistency",
            id="training/risk-decreases",
            unit="values",
            rule="value <= bound",
        )
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
        name,
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
