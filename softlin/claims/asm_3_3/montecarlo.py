"""asm-3.3's Monte Carlo steps: the closed forms against importance-sampled means (Catoni's test
with the derived estimator variance where it is derived, z-tests with Bonferroni for the order-8
entries; only where the estimator has finite variance), and the negative
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

BLOCK = 100  # draws per block mean of the proven-level test (proven_check)
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


SECOND_MOMENT_SOURCE = (
    "Var Y_pq = E[(Y w)^2] - M_pq^2 under the null, E[(Y w)^2] in closed form for Gaussian tokens "
    "(derivations/tilted_moments.importance_second_moment: the proposal's weight reduced to a "
    "Gaussian of precision beta = 2 - 1/W^2 and the tilt exponent 2c^2/beta - c, both proved in "
    "the tilted-moment proofs; the Gaussian polynomial moment by the proved Stein recursion), "
    "exact rational arithmetic on the scenario's decimals, evaluated to 30 digits and rounded up"
)
ORDER_8_WHY = (
    "the order-8 entries (p or q = 8) are judged by this normal test: their estimator's second "
    "moment needs degree-16 Gaussian moments, which importance_second_moment does not derive: "
    "no variance bound that does not come from the sample"
)


def second_moments(tables, me, ce, Ue, Se, rank: int) -> dict:
    """{(c, i, j): E[(Y_pq w)^2]} (exact SymPy, sp.oo where it diverges) for the entries whose
    second moment is derived (p, q in POWER_ORDERS) and whose closed form is finite: the variances
    behind the proven-level decision and the controls' planned power. `rank` is the dimension of
    the token noise the sampler draws (GaussianLaw.root's columns), r in the weight W^(d + r)."""
    return {
        (c, i, j): tm.importance_second_moment(
            tm.ORDERS[i], tm.ORDERS[j], c, me, ce, Ue, Se, nt.WIDEN, rank
        )
        for c in tm.POWERS
        for i in range(3)
        for j in range(3)
        if tm.ORDERS[i] in POWER_ORDERS
        and tm.ORDERS[j] in POWER_ORDERS
        and tables[c][i][j] != sp.oo
    }


def variance_bound(second, mean) -> float:
    """An upper bound on Var Y = E[(Y w)^2] - M^2 under H0: E Y = M, as a float: the exact value
    evaluated to 30 significant digits (SymPy's evalf, which raises the working precision until they
    hold), raised by 1e-12 relatively; 0 when it is <= 0 (E Y^2 < (E Y)^2 is impossible, so the null
    is then judged exactly: the sample must equal M up to rounding, judge.catoni_test)."""
    value = sp.N(second - mean**2, 30)
    return float(value) * (1 + 1e-12) if value > 0 else 0.0


def montecarlo_check(
    label, law, log_normaliser, tables, U, Sq, lam, n, rng, seconds, expect_refuted=False
) -> tuple[Findings, dict]:
    """The closed forms against importance-sampled means, as two decisions on the same draws.

    `montecarlo/closed-forms`: the entries whose estimator's second moment E[(Y w)^2] is derived
    (`seconds`, orders p, q in {0, 4}: 8 entries over both tilt powers), by Catoni's test
    (judge.catoni_test) on block means of BLOCK draws with Var Y_pq = E[(Y w)^2] - M_pq^2 under
    the null (divided by BLOCK), a proven level (proven_check).
    `montecarlo/order-8-closed-forms`: the other tested entries (an order 8 among p, q), by z-tests
    with Bonferroni, a nominal level (ORDER_8_WHY). A derived entry whose second moment diverges
    joins the nominal decision. The checks with the nominal test's largest |z| (and the Monte Carlo
    c = 1 table) as quantities, and the means and standard errors {c: (mean, se)} that the negative
    controls judge."""
    details, results, proven, nominal = [], {}, [], []
    powers = []
    for c in tm.POWERS:
        if not nt.variance_finite(lam, c):
            details.append(f"c = {c}: estimator variance infinite (lambda = {lam:.3g}), not tested")
            continue
        powers.append(c)
        for i in range(3):
            for j in range(3):
                if tables[c][i][j] == sp.oo:
                    continue
                second = seconds.get((c, i, j), sp.oo)
                (proven if second != sp.oo else nominal).append((c, i, j))
    block = BLOCK if n % BLOCK == 0 else 1
    samples = np.empty((n // block, len(proven)))
    for c in powers:
        keep = tuple((i, j) for cc, i, j in proven if cc == c)
        first = next((k for k, e in enumerate(proven) if e[0] == c), 0)
        # `proven` is ordered by c: this power's columns are contiguous, a view written in place
        out = samples[:, first : first + len(keep)]
        results[c] = nt.monte_carlo(
            law, log_normaliser, U, Sq, c, n, rng, keep=keep, out=out, block=block
        )
    found = Findings([], {"mc_max_abs_z": None})
    found.checks.append(proven_check(label, tables, seconds, proven, samples, n, block, details))
    del samples
    found.checks.append(nominal_check(label, tables, results, nominal, n, details))
    found.quantities["mc_max_abs_z"] = found.checks[-1].value if nominal else None
    if 1 in results:
        found.quantities["mc_M_pq"] = results[1][0].tolist()
    return found, results


def _entry(c, i, j) -> str:
    return f"(c, p, q) = ({c}, {tm.ORDERS[i]}, {tm.ORDERS[j]})"


def proven_check(label, tables, seconds, entries, samples, n, block, details) -> judge.Check:
    """Catoni's test of the derived-variance entries (montecarlo_check), on the means of n / block
    consecutive blocks of `block` draws: iid with mean M_pq and variance Var Y_pq / block exactly,
    so the level stays proven, and the radius sqrt(2 (v / b) l / (n / b - 2 l)) =
    sqrt(2 v l / (n - 2 l b)) is the per-draw test's within 1 % while n >= 200 l b (b = 100,
    l ~ 17: n >= 3.4 x 10^5; 0.8 % at quick's 2 x 10^5); the estimator's bisection runs over
    b times fewer values."""
    name = f"{label}: Monte Carlo against the closed forms of orders 0 and 4 (proven level)"
    if not entries:
        reason = "no entry of orders 0 and 4 testable: " + ("; ".join(details) or "none finite")
        return judge.verdict(
            name,
            "montecarlo",
            id="montecarlo/closed-forms",
            unit="ratio",
            value=math.nan,
            bound=1.0,
            rule="value <= bound",
            detail=reason,
            tier="statistical",
            false_alarm=levels.proven(
                check_false_alarm(), f"{levels.CATONI}; the variance bound: {SECOND_MOMENT_SOURCE}"
            ),
            undecided=reason,
        )
    prediction = [float(tables[c][i][j]) for c, i, j in entries]
    variance = [variance_bound(seconds[e], tables[e[0]][e[1]][e[2]]) / block for e in entries]
    return judge.catoni_test(
        name,
        id="montecarlo/closed-forms",
        samples=samples,
        prediction=prediction,
        variance=judge.ProvenVariance(
            variance, SECOND_MOMENT_SOURCE + f"; divided by the block size {block}"
        ),
        alpha=check_false_alarm(),
        detail=f"{n} pairs (z, z') per tilt power, importance-weighted Y_pq at "
        + ", ".join(_entry(*e) for e in entries)
        + f"; Catoni's test on the means of {n // block} blocks of {block} consecutive pairs "
        "(iid, variance Var Y_pq / block)",
    )


def nominal_check(label, tables, results, entries, n, details) -> judge.Check:
    """The z-tests of the entries without a derived variance (montecarlo_check)."""
    name = f"{label}: Monte Carlo against the closed forms with an order 8 (nominal level)"
    if not entries:
        return judge.z_test(
            name,
            id="montecarlo/order-8-closed-forms",
            z=[],
            alpha=check_false_alarm(),
            assumption=levels.NORMAL_MEAN,
            detail="; ".join(details) or "nothing testable",
            undecided="no entry testable: " + ("; ".join(details) or "nothing testable"),
        )
    z_crit = z_critical(check_false_alarm(), len(entries))
    scores = []
    for c, i, j in entries:
        mean, se = results[c]
        scores.append(z_score(mean[i, j], se[i, j], float(tables[c][i][j]), z_crit))
    text = details + [
        f"{n} pairs (z, z') per tilt power; largest |z| over {len(entries)} entries (an entry "
        "without spread beyond rounding is judged exactly, its score z_crit x its distance in "
        f"rounding allowances); Bonferroni, normal approximation; {ORDER_8_WHY}"
    ]
    return judge.z_test(
        name,
        id="montecarlo/order-8-closed-forms",
        z=scores,
        alpha=check_false_alarm(),
        tests=len(entries),
        sided=2,
        assumption=levels.NORMAL_MEAN,
        detail="; ".join(text),
        detectable=montecarlo_detectable(tables, results, z_crit, entries),
    )


def montecarlo_detectable(tables, results, z_crit, entries):
    """The check's resolution (base.Check.detectable): the smallest relative slip of a closed form
    that its z-test detects with power 0.999, over the tested `entries` (c, i, j). An entry judged
    exactly (no spread beyond rounding, `z_score`) resolves slips beyond its rounding allowance
    1e3 ROUNDOFF."""
    eps = []
    for c, i, j in entries:
        mean, se = results[c]
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


def control_findings(wrong_forms, tables, mc_results, seconds, n) -> Findings:
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
    sd = {}
    for c, i, j in tested:
        second = seconds.get((c, i, j), sp.oo)
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
