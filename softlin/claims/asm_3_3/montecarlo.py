"""asm-3.3's Monte Carlo steps: the closed forms against importance-sampled means (z-tests,
Bonferroni over the tested entries, only where the estimator has finite variance), and the negative
controls, the slips a derivation would make, each judged on the same means with its power computed
beforehand from the derived variance of the estimator."""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ...derivations import tilted_moments as tm
from ...numerics import significance
from ...numerics import tilted_moments as nt
from ...numerics.montecarlo import ROUNDOFF
from ...numerics.significance import power_of_z, z_critical
from ...judge import kinds as judge, levels
from ...judge.check import check_false_alarm
from ...core.findings import Findings

POWER_ORDERS = (0, 4)  # entries whose estimator variance is derived (orders up to 2 x 4 = 8)


def z_score(mean: float, se: float, claimed: float, z_crit: float) -> float:
    """|mean - claimed| / se; where the weighted Y_pq has no spread beyond rounding (Y constant over
    every pair: |z'|^p = 0 when Gamma = 0 and m = 0) the mean is exact, but se = 0 would make the
    ratio inf whatever the closed form and refute a correct one. Such a mean is judged exactly,
    against its rounding allowance 1e3 ROUNDOFF max(|mean|, |claimed|): its score is
    z_crit |mean - claimed| / allowance, at most z_crit exactly when the mean equals the closed form
    up to rounding, beyond it (a refutation) when not (a finite number, so the judge decides it)."""
    if se > ROUNDOFF * abs(mean):
        return abs(mean - claimed) / se
    return exact_score(mean, claimed, z_crit)


def exact_score(mean: float, claimed: float, z_crit: float) -> float:
    """An exactly judged mean's score (z_score): z_crit times its distance from `claimed` in units
    of the rounding allowance 1e3 ROUNDOFF max(|mean|, |claimed|) (0 when both are 0)."""
    allowance = 1e3 * ROUNDOFF * max(abs(mean), abs(claimed))
    gap = abs(mean - claimed)
    if gap == 0:
        return 0.0
    return z_crit * gap / allowance if allowance > 0 else math.nan  # a NaN mean: undecided


def montecarlo_check(
    label, law, log_normaliser, tables, U, Sq, lam, n, rng, expect_refuted=False
) -> tuple[Findings, dict]:
    """z-tests of the closed forms against Monte Carlo from `law`; Bonferroni over tested
    entries. The check with its largest |z| (and the Monte Carlo c = 1 table) as quantities, and
    the Monte Carlo means and standard errors {c: (mean, se)} that the negative controls judge."""
    tested, details = 0, []
    results = {}
    for c in tm.POWERS:
        if not nt.variance_finite(lam, c):
            details.append(f"c = {c}: estimator variance infinite (lambda = {lam:.3g}), not tested")
            continue
        mean, se = nt.monte_carlo(law, log_normaliser, U, Sq, c, n, rng)
        results[c] = (mean, se)
        tested += sum(tables[c][i][j] != sp.oo for i in range(3) for j in range(3))
    name = f"{label}: Monte Carlo against the closed forms"
    if tested == 0:
        check = judge.z_test(
            name,
            id="montecarlo/closed-forms",
            z=[],
            alpha=check_false_alarm(),
            assumption=levels.NORMAL_MEAN,
            detail="; ".join(details) or "nothing testable",
            undecided="no entry testable: " + ("; ".join(details) or "nothing testable"),
        )
        return Findings([check], {"mc_max_abs_z": None}), results
    z_crit = z_critical(check_false_alarm(), tested)
    scores = []
    for c, (mean, se) in results.items():
        for i in range(3):
            for j in range(3):
                if tables[c][i][j] == sp.oo:
                    continue
                scores.append(z_score(mean[i, j], se[i, j], float(tables[c][i][j]), z_crit))
    details.append(
        f"{n} pairs (z, z') per tilt power; largest |z| over {tested} entries (an entry without "
        "spread beyond rounding is judged exactly, its score z_crit x its distance in rounding "
        "allowances); Bonferroni, normal approximation"
    )
    check = judge.z_test(
        name,
        id="montecarlo/closed-forms",
        z=scores,
        alpha=check_false_alarm(),
        tests=tested,
        sided=2,
        assumption=levels.NORMAL_MEAN,
        detail="; ".join(details),
        detectable=montecarlo_detectable(tables, results, z_crit),
    )
    found = Findings([check], {"mc_max_abs_z": check.value})
    if 1 in results:
        found.quantities["mc_M_pq"] = results[1][0].tolist()
    return found, results


def montecarlo_detectable(tables, results, z_crit):
    """The check's resolution (base.Check.detectable): the smallest relative slip of a closed form
    that its z-test detects with power 0.999, over the tested entries. An entry judged exactly (no
    spread beyond rounding, `z_score`) resolves slips beyond its rounding allowance 1e3 ROUNDOFF."""
    eps = []
    for c, (mean, se) in results.items():
        for i in range(3):
            for j in range(3):
                if tables[c][i][j] == sp.oo:
                    continue
                P, m, s = float(tables[c][i][j]), float(mean[i, j]), float(se[i, j])
                if not (math.isfinite(P) and math.isfinite(m) and math.isfinite(s)) or P == 0:
                    continue
                eps.append(
                    significance.detectable_relative(P, s, z_crit)
                    if s > ROUNDOFF * abs(m)
                    else 1e3 * ROUNDOFF * max(abs(m), abs(P)) / abs(P)
                )
    return min(eps) if eps else None


def tested_entries(tables, mc_results) -> list:
    return [
        (c, i, j)
        for c in mc_results
        for i in range(3)
        for j in range(3)
        if tables[c][i][j] != sp.oo
    ]


def control_findings(wrong_forms, tables, mc_results, me, ce, Ue, Se, n, lam) -> Findings:
    """Each slip's tables against the scenario's Monte Carlo (the same z-test as the main check);
    passes when the z-test rejects the slip. Its power, before the data: the estimator's variance
    Var_pq = E[(Y w)^2] - M_pq^2 from the derived second moment,
    delta = |M - M_slip| / sqrt(Var / n), power >= max over entries of
    Phi(delta - z_crit) + Phi(-delta - z_crit). The checks, and a summary per slip as the
    quantity `controls`."""
    tested = tested_entries(tables, mc_results)
    if not tested:
        return Findings(quantities={"controls": {}})
    z_crit = z_critical(check_false_alarm(), len(tested))
    rank = int(np.linalg.matrix_rank(np.array(ce, dtype=float), tol=1e-10))
    sd = {}
    for c, i, j in tested:
        p, q = tm.ORDERS[i], tm.ORDERS[j]
        if p in POWER_ORDERS and q in POWER_ORDERS:
            second = tm.importance_second_moment(p, q, c, me, ce, Ue, Se, nt.WIDEN, rank)
            if second != sp.oo:
                sd[c, i, j] = math.sqrt(max(float(second - tables[c][i][j] ** 2), 0.0) / n)
    checks, summaries = [], {}
    for name, (key, form) in wrong_forms.items():
        best, worst_z = 0.0, 0.0
        for c, i, j in tested:
            if tm.ORDERS[i] not in POWER_ORDERS or tm.ORDERS[j] not in POWER_ORDERS:
                continue  # judged where the power is derived (cheaper closed forms)
            wrong = form(tm.ORDERS[i], tm.ORDERS[j], c)
            if wrong == sp.oo:
                continue
            if (c, i, j) in sd and sd[c, i, j] > 0:
                best = max(best, abs(float(tables[c][i][j] - wrong)) / sd[c, i, j])
            mean, se = mc_results[c]
            z = (
                abs(mean[i, j] - float(wrong)) / se[i, j]
                if se[i, j] > 0
                else exact_score(mean[i, j], float(wrong), z_crit)
            )
            worst_z = max(worst_z, z)
        power = power_of_z(best, z_crit)
        refuted = worst_z >= z_crit  # the control's rule (judge.control: value >= bound)
        summaries[name] = {
            "refuted_by": ["montecarlo"] if refuted else [],
            "statistical": refuted,
            "power": power,
            "delta": best,
            "max_abs_z": worst_z,
            "miss_probability": 1.0 - power,
        }
        label = f"negative control ({name}): the Monte Carlo route must refute the slip"
        detail = (
            "largest |z| of the scenario's Monte Carlo against the slip's closed forms "
            f"{worst_z:.3g} (critical {z_crit:.3g}, {len(tested)} entries); power computed "
            f"beforehand from the derived estimator variance: {power:.6f} (delta = {best:.3g})"
        )
        # judged by the plan, never by the sample (judge.control): a lucky refutation at low power
        # is no evidence
        checks.append(
            judge.control(
                label,
                id=f"control/{key}",
                statistic=worst_z,
                critical=z_crit,
                power=power,
                tier="statistical",
                detail=detail,
            )
        )
    return Findings(checks, {"controls": summaries})
