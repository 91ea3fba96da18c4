"""The check battery shared by the limit claims (`lemma-2.1`, `mixture`) and their controls.

A `Subject` pairs a token law (what prompts are drawn from, and an independent route to its true
limit) with a *claimed* limit (the derived formula, its float64 kernel, and the second moments that
the deviation bound needs). The battery asks four questions that can each fail:

1. quadrature, 30 digits: the claimed formula, evaluated exactly then to 40 digits, against mpmath
   quadrature of the law at 40 digits; |difference| <= 1e-25 (both sides carry ~40 digits, so the
   budget is 15 digits of margin, not a fitted tolerance). Reach: an absolute tolerance needs
   digits in proportion to the output's size and the squared tilt; above 1e10 both sides carry
   30 + log10(size) digits, and beyond quadrature.DPS_CAP the check is not judged, naming the size
   (formula_check).
2. quadrature, float64: the emitted kernel against the law's float64 route (tensor Gauss-Hermite, or
   the exact closed form for the controls); relative difference <= 1e-12. Reach: the rule's error is
   bounded (numerics/quadrature.py: 2 r P(Poisson(t^2/2) >= n - 1) at tilt t, plus its logits'
   rounding and the eigenvalues its root drops), and the queries where that bound exceeds 1e-13 of
   the output come from the mpmath route; where the kernel's own float64 rounding bound exceeds a
   tenth of 1e-12 the check is not judged, naming it (kernel_check).
3. Monte Carlo, bound: for each L and query, the fraction of prompts with
   ||T[mu_L](z) - T(z)|| > eps_L(delta) must be compatible with probability <= delta. Exact binomial
   test, total false-alarm probability 1e-6 split evenly (Bonferroni) over the (L, query) pairs.
   Reach: eps_L needs E w^2 = e^{a^T Gamma a} finite in float64 (a^T Gamma a below ~709) and L
   beyond the denominator's tail; elsewhere the bound is vacuous, and with no informative pair the
   check is undecided.
4. Monte Carlo, decrease: the mean squared error decreases in L; each consecutive pair by a
   one-sided z-test at the same false-alarm budget. A significant increase refutes; a decrease that
   is not significant is undecided (budget too small). Reach: squared errors finite in float64
   (outputs below ~1e154); beyond, undecided.
5. Monte Carlo, unbiased numerator: for any constant c, Y = (1/L) sum_i e^{s_i - c} (V z_i - T(z))
   has mean (E e^{s - c}) (T_true(z) - T(z)), which is zero exactly when the claimed limit T is the
   true one, at every L (no asymptotic bias). Catoni's estimator of E Y over the prompts, per
   (L, query, output coordinate), against its non-asymptotic radius r (derivations/catoni.py,
   numerics/robust_mean.py), false-alarm 1e-6 in total (Bonferroni). Its level needs no normal
   approximation, only Var Y = Var X / L, which is derived (numerics/numerator_moments.py): the
   studentised mean would rely on normality in 1e-8 tails, which the heavy-tailed weights
   e^{s} at strong tilts and small budgets do not have (a correct formula can reach |z| = 5.39 >
   5.36 at 200 prompts; tests/test_hunt.py keeps that scenario). The studentised z is still recorded
   (series `numerator_z`) as a diagnostic. This is the sharp test: it resolves limit errors of
   order sd(Y) sqrt(2 log(2/delta) / n). Reach: Var X finite in float64 (for a Gaussian, Var X
   carries e^{a^T Gamma a}, so a^T Gamma a below ~709); the tests beyond it are left out, and with
   none left the check is undecided, naming the largest Var X.

The bound eps_L(delta) is the emitted kernel `deviation_bound` (derived and proved in
derivations/deviation.py: Chebyshev on the numerator, Maurer's lower tail on the denominator).

Negative controls. A control is a wrong limit (a plausible slip, or the right formula applied to the
wrong law) run through the same battery. It counts only when the *statistical* route, question 5,
refutes it by itself; the 40-digit and float64 comparisons refute every different closed form and
prove nothing about the Monte Carlo test's power. Before any prompt is drawn, the power of question
5 against the control is bounded below from the derived per-token mean and variance of its
statistic (numerics/numerator_moments.py) by Catoni's bound (numerics/robust_mean.power_lower_bound,
non-asymptotic), and the control is refuted with at least the largest of these over (L, query,
coordinate); `delta` = sqrt(n L) |E X| / sd(X), the studentised mean's noncentrality, is recorded
too. A control whose planned power is below REQUIRED_POWER is not judged (kept with `judged: false`
and its power as the reason, out of the verdict), whatever its sample says. `sized_for_power` raises
a control's number of prompts beforehand (at most CONTROL_BUDGET_CAP times the profile's) until that
power is reached: the budget follows from derived variances, never from the data it judges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

import mpmath as mp
import numpy as np

from ...numerics import kernels, limits, montecarlo, quadrature, robust_mean, sampling
from ...numerics import significance
from ...numerics.laws import GaussianLaw, MixtureLaw
from ...numerics.significance import z_critical
from ...judge import kinds as judge, levels
from ...judge.check import check_false_alarm, Check
from ...core.findings import Findings
from .limit_numerator import numerator_power, numerator_ratio, numerator_tests
from ...core.progress import sweep

DIGITS_TOLERANCE = 1e-25
FLOAT_RELATIVE_TOLERANCE = 1e-12
REQUIRED_POWER = judge.POWER_TARGET
CONTROL_BUDGET_CAP = 16
NUMERATOR_CHECK = "E[e^(s-c) (V z' - T(z))] = 0 at every L (Monte Carlo)"
NUMERATOR_ID = "battery/numerator-zero-mean"
# A squared error of rounding size, relative to (1 + |T(z)|^2): float64 outputs are exact to ~1e-15
ROUNDING_MSE = 1e-24


@dataclass
class Subject:
    label: str
    law: object  # .sample(rng, shape)
    claimed_kernel: Callable[[np.ndarray], np.ndarray]  # Z (n, d) -> (n, k)
    claimed_exact: Callable[[np.ndarray], list]  # z (d,) -> k values at >= 40 digits
    claimed_moments: Callable[[np.ndarray], tuple]  # z -> (E w^2, E w^2 ||V(z'-mu_a)||^2)
    claimed_log_normaliser: Callable[[np.ndarray], float]  # z -> log E e^{z'^T U z} (fixed shift c)
    reference_mp: Callable[[np.ndarray], list]  # z -> k mpf values (independent route)
    reference_float: Callable[[np.ndarray], np.ndarray]  # Z -> (n, k) (independent route)
    reference_name: str
    # (z, t, c) -> (E X, Var X) per coordinate for X = e^{a^T z' - c}(V z' - t), z' from `law`
    # (numerics/numerator_moments.moments); used to compute the power of question 5 beforehand.
    numerator_moments: Callable | None = None
    # (queries (Q, d), L) -> (E|T[mu_L](z) - T[mu](z)|^2 per query (Q,), or None beyond the exact
    # route's reach): the exact finite-L mean squared error of the token law, computed without
    # the claimed limit
    exact_mse: Callable | None = None
    # Z (n, d) -> (n,): a bound on the float64 rounding of `claimed_kernel` (gaussian_rounding,
    # mixture_rounding), the reach of question 2; None: not bounded
    kernel_rounding: Callable | None = None


@dataclass(frozen=True)
class Budget:
    """What a limit claim (lemma-2.1, mixture) spends at a profile (common.budget_for)."""

    Ls: tuple[int, ...]
    """prompt lengths of the Monte Carlo sweep"""
    trials: int
    """prompts drawn per prompt length (a control's are raised by sized_for_power)"""
    delta: float
    """the failure probability of the bound eps_L(delta) (the scenario's)"""
    queries: int
    """queries every check is made at: the scenario's one, or draws from nu = N(0, query_cov)"""


@dataclass(frozen=True)
class Battery:
    """One subject through the battery: its findings (the checks in order; as series, the Monte
    Carlo sweep) and what the claims read besides."""

    findings: Findings
    kernel: np.ndarray  # the claimed limit's float64 kernel at the queries, (Q, k)
    reference: np.ndarray  # the law's own float64 route at the queries, (Q, k)
    power: dict | None  # question 5's power, computed before the Monte Carlo (numerator_power)
    trials: int  # prompts per L it was run with (a control's, sized for power)


TERM_SCALE_SEED, TERM_SCALE_TOKENS = 20240, 4096


def deviation_bound(L: int, delta: float, weight_m2: float, numerator_m2: float) -> float:
    """eps_L(delta), the emitted kernel (math.inf when vacuous)."""
    return float(kernels.deviation_bound(L, delta, weight_m2, numerator_m2))


def formula_check(subject: Subject, queries: np.ndarray) -> Findings:
    """Question 1: the derived formula against the law's own 40-digit quadrature at every query.

    Reach: the tolerance is absolute, so both sides carry more digits where the output's terms
    or the tilt are large (quadrature.mp_digits: 40 up to size 1e10, then 30 + log10(size), the
    claimed side exact.py's, the difference taken at 30 + log10 of the larger value); above the
    quadrature's DPS_CAP digits the check is not judged, naming the size that exceeded it."""
    worst = mp.mpf(0)
    for z in queries:
        try:
            reference = subject.reference_mp(z)
        except quadrature.OutOfReach as beyond:
            return Findings([formula_unjudged(subject, f"at query {np.round(z, 3)}: {beyond}")])
        claimed = subject.claimed_exact(z)
        size = max([abs(mp.mpf(x)) for x in list(claimed) + list(reference)] + [mp.mpf(1)])
        dps = 40 if size <= 10**10 else 30 + int(mp.ceil(mp.log10(size)))
        with mp.workdps(dps):
            worst = max([worst] + [abs(mp.mpf(c) - r) for c, r in zip(claimed, reference)])
    value = float(worst)
    return Findings(
        [
            judge.agreement(
                FORMULA_CHECK.format(subject.label, subject.reference_name),
                "quadrature",
                id="battery/limit-40-digits",
                error=value,
                tolerance=DIGITS_TOLERANCE,
                unit="absolute error",
                detail=f"max |formula - quadrature| over {len(queries)} queries; tolerance leaves "
                "15 of 40 digits",
            )
        ]
    )


FORMULA_CHECK = "{}: derived formula at 40 digits vs {} (mpmath, 40 digits)"


def formula_unjudged(subject: Subject, reason: str) -> Check:
    return judge.unjudged(
        FORMULA_CHECK.format(subject.label, subject.reference_name),
        "quadrature",
        reason,
        bound=DIGITS_TOLERANCE,
        id="battery/limit-40-digits",
        unit="absolute error",
    )


def term_scale(law, V) -> float:
    """sqrt(E ||V z'||^2) of one token's output, from a fixed sample (its own seed: the
    claim's stream is untouched): the size of the terms a quadrature of the output adds up,
    so of its rounding."""
    Z = law.sample(np.random.default_rng(TERM_SCALE_SEED), (TERM_SCALE_TOKENS,))
    return float(np.sqrt(np.mean(np.sum((Z @ np.asarray(V, float).T) ** 2, axis=1))))


def kernel_check(
    subject: Subject, kernel: np.ndarray, reference: np.ndarray, V, queries=None, refined=None
) -> Findings:
    """Question 2: the claimed limit's float64 kernel against the law's own float64 route, both
    evaluated at the queries by the caller. Relative to the larger of max |reference| and the size
    of a token's output (term_scale): a limit near 0 (e.g. U = 0 and a centred law: the limit is
    E V z = 0) is a sum of terms of that size, and its rounding is relative to them, not to the
    near-0 result.

    Reach: the reference route refines the queries beyond the Gauss-Hermite rule's reach (a tilt
    t = ||B^T U z|| above ~5.3 at 60 nodes, large logits, dropped eigenvalues: the bound of
    numerics/quadrature.py) with the mpmath route; `refined` (bool per query) says which. A query
    neither reaches is NaN and left out (none left: not judged). The kernel's own float64 rounding
    at the `queries` (`subject.kernel_rounding`: the componentwise bound gamma_n |V| (|m| + |Gamma|
    |U| |z|), and the logits' for a mixture) must stay at most a tenth of the tolerance relative to
    the scale: beyond, float64 cannot resolve 1e-12 at this scenario, and the check is not judged,
    naming the bound."""
    size = term_scale(subject.law, V)
    name = f"{subject.label}: float64 kernel vs {subject.reference_name} (float64)"
    reached = np.all(np.isfinite(reference), axis=1)
    with np.errstate(over="ignore", invalid="ignore"):
        scale = max(float(np.max(np.abs(reference[reached]), initial=0.0)), size, 1e-8)
        rounding = 0.0
        if subject.kernel_rounding is not None and queries is not None:
            rounding = float(np.max(subject.kernel_rounding(np.atleast_2d(queries)))) / scale
        value = float(np.max(np.abs(kernel[reached] - reference[reached]), initial=0.0) / scale)
    why = None
    if not reached.any():
        why = "no query within the reach of the reference route (nor of its mpmath refinement)"
    elif not rounding <= FLOAT_RELATIVE_TOLERANCE / 10:
        why = (
            f"the kernel's float64 rounding is bounded by {rounding:.3g} of the scale {scale:.3g} "
            f"here, above a tenth of the tolerance {FLOAT_RELATIVE_TOLERANCE:g}"
        )
    if why is not None:
        return Findings(
            [
                judge.unjudged(
                    name,
                    "quadrature",
                    why,
                    bound=FLOAT_RELATIVE_TOLERANCE,
                    id="battery/kernel-float64",
                    unit="relative error",
                )
            ]
        )
    if not np.all(np.isfinite(kernel[reached])):
        value = math.inf
    notes = ""
    if refined is not None and np.any(refined):
        notes += (
            f"; {int(np.sum(refined))} of {len(refined)} queries beyond the Gauss-Hermite rule's "
            "reach taken from the mpmath route"
        )
    if not reached.all():
        notes += f"; {int(np.sum(~reached))} queries beyond both routes' reach left out"
    return Findings(
        [
            judge.agreement(
                name,
                "quadrature",
                id="battery/kernel-float64",
                error=value,
                tolerance=FLOAT_RELATIVE_TOLERANCE,
                detail=f"max |kernel - reference| / max(max |reference|, sqrt(E ||V z'||^2) = "
                f"{size:.3g}) over the queries" + notes,
            )
        ]
    )


def gaussian_rounding(m, cov, U, V) -> Callable:
    """Z -> (n,): the componentwise bound gamma_n |V| (|m| + |Gamma| (|U| |z|)) on the float64
    rounding of V (m + Gamma U z), n = 3 d + 2 products and sums along the chain, gamma_n = n u
    (Higham, the bound of a matrix-vector product), its largest output coordinate."""
    m, cov, U, V = (np.asarray(x, float) for x in (m, cov, U, V))
    gamma = (3 * len(m) + 2) * quadrature.UNIT_ROUNDOFF

    def bound(Z):
        with np.errstate(over="ignore", invalid="ignore"):
            terms = np.abs(m)[None, :] + np.abs(np.atleast_2d(Z)) @ np.abs(U).T @ np.abs(cov).T
            return gamma * np.max(terms @ np.abs(V).T, axis=1)

    return bound


def mixture_rounding(law, U, V) -> Callable:
    """Z -> (n,): the float64 rounding of the mixture kernel: each component's gaussian_rounding,
    plus what the logits' rounding e_k = gamma_n (|log pi_k| + |a|^T |m_k| + |a|^T |Gamma_k| |a| /
    2) (|a| = |U| |z|) moves: a softmax moves by d alpha_k = alpha_k (d l_k - sum_j alpha_j d l_j),
    so the output by at most 2 max_k e_k sum_k alpha_k ||T_k - T||_inf (T_k the components'
    limits; 0 when one component carries all the weight)."""
    U, V = np.asarray(U, float), np.asarray(V, float)
    parts = [gaussian_rounding(m, G, U, V) for m, G in zip(law.means, law.covs)]
    gamma = (3 * law.d + 3) * quadrature.UNIT_ROUNDOFF

    def bound(Z):
        Z = np.atleast_2d(Z)
        with np.errstate(over="ignore", invalid="ignore"):
            A = np.abs(Z) @ np.abs(U).T
            logit = [
                gamma * (abs(np.log(w)) + A @ np.abs(m) + np.einsum("ni,ij,nj->n", A, np.abs(G), A))
                for w, m, G in zip(law.weights, law.means, law.covs)
            ]
            alpha, limits_k = limits.mixture_limits_and_weights(law, U, V, Z)  # (K, n), (K, n, k)
            limit = np.einsum("kn,knj->nj", alpha, limits_k)
            spread = np.sum(alpha * np.max(np.abs(limits_k - limit[None]), axis=2), axis=0)
            total = np.max([p(Z) for p in parts], axis=0) + 2 * np.max(logit, axis=0) * spread
        return np.where(np.isfinite(total), total, np.inf)

    return bound


def montecarlo_checks(
    subject: Subject, queries: np.ndarray, U, V, budget: Budget, rng: np.random.Generator
) -> Findings:
    limit = subject.claimed_kernel(queries)  # (Q, k)
    moments = [subject.claimed_moments(z) for z in queries]
    n_tests = len(budget.Ls) * len(queries)
    alpha = check_false_alarm() / n_tests
    shifts = np.array([subject.claimed_log_normaliser(z) for z in queries])
    # Var X per (query, coordinate) under the claimed limit: Catoni's variance (Var Y = Var X / L)
    var_x = np.array(
        [subject.numerator_moments(z, t, c)[1] for z, t, c in zip(queries, limit, shifts)]
    )
    per_test = check_false_alarm() / numerator_tests(budget, queries, limit.shape[1])
    series = {
        "L": [],
        "rmse": [],
        "mse": [],
        "mse_stderr": [],
        "bound": [],
        "quantile": [],
        "exceed": [],
        "numerator_z": [],
        "numerator_catoni": [],
    }
    if subject.exact_mse is not None:
        series["exact_mse"] = []
    rejected, informative, worst_freq = [], 0, 0.0
    # Beyond float64 at strong tilts (Var X = E e^{2(s-c)} |V z' - T|^2 ~ e^{a^T Gamma a}, squared
    # errors of huge outputs) values overflow to inf: expected, and each check below treats a
    # non-finite value as beyond its reach (undecided, with the reason), so no warning is printed.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for L in sweep(budget.Ls, f"{subject.label}: Monte Carlo", weights=budget.Ls, item="L"):
            acc = sampling.sampled_accumulator(
                subject.law, rng, budget.trials, L, U, V, queries, shifts
            )
            out = acc.result()
            err = np.linalg.norm(out - limit[None, :, :], axis=2)  # (trials, Q)
            centred = (
                acc.fixed_num - limit[None, :, :] * acc.fixed_den[..., None]
            ) / L  # (trials, Q, k)
            z_num = montecarlo.studentised_numerator(
                centred, acc.fixed_num / L, limit[None, :, :] * acc.fixed_den[..., None] / L
            )
            series["numerator_z"].append(z_num.tolist())
            series["numerator_catoni"].append(
                numerator_ratio(
                    centred,
                    acc.fixed_num / L,
                    limit[None, :, :] * acc.fixed_den[..., None] / L,
                    var_x / L,
                    per_test,
                ).tolist()
            )
            if not np.all(np.isfinite(err)):
                raise FloatingPointError(
                    f"non-finite finite-prompt output at L = {L} ({subject.label})"
                )
            sq = np.mean(err**2, axis=1)  # averaged over queries
            bounds = [deviation_bound(L, budget.delta, w2, num) for w2, num in moments]
            counts = [int(np.sum(err[:, q] > bounds[q])) for q in range(len(queries))]
            for q, (b, c) in enumerate(zip(bounds, counts)):
                if math.isfinite(b):
                    informative += 1
                    worst_freq = max(worst_freq, c / budget.trials)
                    if significance.binomial_p_value(c, budget.trials, budget.delta) < alpha:
                        rejected.append((L, q, c))
            series["L"].append(L)
            series["mse"].append(float(sq.mean()))
            series["mse_stderr"].append(
                float(sq.std(ddof=1) / math.sqrt(budget.trials)) if budget.trials > 1 else math.inf
            )
            series["rmse"].append(float(math.sqrt(sq.mean())))
            if subject.exact_mse is not None:
                exact_sq = subject.exact_mse(queries, L)
                series["exact_mse"].append(None if exact_sq is None else float(np.mean(exact_sq)))
            series["bound"].append(bounds[0])
            series["quantile"].append(float(np.quantile(err[:, 0], 1 - budget.delta)))
            series["exceed"].append(counts)
    if rejected:
        detail = (
            "binomial test rejected P(error > eps_L) <= delta at (L, query, count) = "
            f"{rejected[:4]}"
        )
    else:
        detail = f"{informative} informative (L, query) pairs, none rejected"
    checks = [
        judge.verdict(
            f"{subject.label}: P(||T[mu_L] - T|| > eps_L(delta)) <= delta (Monte Carlo)",
            "montecarlo",
            id="battery/high-probability-bound",
            unit="rejections",
            value=len(rejected),
            bound=0,
            rule="value <= bound",
            detail=f"{detail}; value: the (L, query) pairs whose exact binomial test rejected, "
            f"each at false alarm {alpha:.3g} (Bonferroni: {check_false_alarm():g} over "
            f"{n_tests} tests); {budget.trials} prompts per L; largest exceedance frequency "
            f"{worst_freq:.3g} against delta = {budget.delta:g}",
            detectable=binomial_detectable(budget, alpha) if informative else None,
            false_alarm=levels.proven(check_false_alarm(), levels.EXACT_BINOMIAL),
            undecided=""
            if informative
            else "every bound was vacuous (L too small for the denominator tail)",
        )
    ]
    # Mean squared error decreasing in L.
    z_alpha = z_critical(check_false_alarm(), max(1, len(budget.Ls) - 1), sided=1)
    zs = []
    for j in range(len(budget.Ls) - 1):
        se = math.hypot(series["mse_stderr"][j], series["mse_stderr"][j + 1])
        zs.append((series["mse"][j] - series["mse"][j + 1]) / se if se > 0 else math.inf)
    # beyond float64's reach (a squared error or its spread overflowed) the statistic is NaN:
    # the judge leaves the check undecided
    smallest = min(zs) if zs and all(math.isfinite(z) for z in zs) else math.nan
    decrease_name = f"{subject.label}: mean squared error decreases in L (Monte Carlo)"
    if len(budget.Ls) < 2:
        # one prompt length: nothing to compare (a NaN here had left every such run undecided)
        checks.append(
            judge.unjudged(
                decrease_name,
                "montecarlo",
                f"one prompt length (L = {list(budget.Ls)}): no decrease to test",
                tier="consistency",
                id="battery/mse-decreases",
                unit="z",
                rule="value >= bound",
            )
        )
    else:
        checks.append(mse_decrease_check(decrease_name, smallest, z_alpha))
    if subject.exact_mse is not None:
        checks.append(
            exact_mse_check(subject, series, budget, float(np.max(np.sum(limit**2, axis=1))))
        )
    # Unbiased numerator (Catoni: |theta_hat| / r > 1 rejects).
    # Reach: Catoni's radius needs Var X finite; where float64 cannot hold it (log Var X above
    # ~709, i.e. a^T Gamma a beyond ~709 for a Gaussian) or a prompt's statistic overflowed, that
    # (query, coordinate) is left out (the Bonferroni level is unchanged: conservative); none left
    # is undecided, naming the largest such Var X.
    ratios = np.array(series["numerator_catoni"])  # (nL, Q, k)
    with np.errstate(invalid="ignore"):
        reach = np.isfinite(ratios) & np.isfinite(var_x)[None, :, :]
    worst = float(np.max(ratios[reach])) if reach.any() else None
    decided = budget.trials > 2 * robust_mean.log_term(per_test) and reach.any()
    beyond = ""
    if not reach.all():
        beyond = (
            f"; {int(np.sum(~reach))} of {ratios.size} tests beyond the test's reach (Var X not "
            f"finite in float64, largest {float(np.nanmax(np.abs(var_x), initial=0.0)):.3g})"
        )
    z_diag = np.abs(np.array(series["numerator_z"], dtype=float))
    z_diag = float(np.max(z_diag[np.isfinite(z_diag)], initial=0.0))
    checks.append(
        judge.verdict(
            f"{subject.label}: {NUMERATOR_CHECK}",
            "montecarlo",
            id=NUMERATOR_ID,
            unit="ratio",
            value=math.nan if worst is None else worst,
            bound=1.0,
            rule="value <= bound",
            detail=f"largest |theta_hat| / r of Catoni's estimator over {int(np.sum(reach))} "
            "(L, query, coordinate) tests, radius from the derived variance; "
            f"false-alarm {check_false_alarm():g} in total (Bonferroni), "
            "non-asymptotic (no normal approximation); largest studentised |z| "
            f"{z_diag:.3g} (diagnostic)" + beyond,
            detectable=numerator_detectable(limit, var_x, budget, per_test) if decided else None,
            false_alarm=levels.proven(check_false_alarm(), levels.CATONI),
            undecided=""
            if decided
            else (
                "no test within reach"
                if not reach.any()
                else f"{budget.trials} prompts <= 2 log(2/delta)"
            ),
        )
    )
    return Findings(checks, series=series)


def binomial_detectable(budget: Budget, alpha: float) -> float:
    """Check.detectable of the high-probability bound: the smallest relative excess p1 / delta - 1
    of the exceedance probability that one exact binomial test (n = trials, level alpha per test)
    detects with power 0.999; every (L, query) test has the same n, delta and alpha, so it is also
    the smallest over them."""
    return (
        significance.binomial_detectable(budget.trials, budget.delta, alpha, REQUIRED_POWER)
        / budget.delta
        - 1.0
    )


def numerator_detectable(
    limit: np.ndarray, var_x: np.ndarray, budget: Budget, per_test: float
) -> float | None:
    """Check.detectable of the numerator test. Its statistic has mean E[e^(s-c)] (T_true(z) - T(z)),
    with E[e^(s-c)] = 1 when c is the log-normaliser of the token law (the claimed one, for the
    battery's subject), so a relative slip eps of the claimed limit T(z) shifts the mean of
    coordinate k by eps |T_k(z)|. Catoni's test (n = trials, Var Y = Var X / L, level per_test)
    detects a mean m with power >= 0.999 (its planned-power bound, robust_mean.power_lower_bound)
    from m = c_n sqrt(Var Y), c_n found by bisection at Var Y = 1 (the bound is scale-free);
    the smallest eps over (L, query, coordinate), at the largest L. None when no coordinate has a
    non-zero limit and a positive variance."""
    n = budget.trials
    power = lambda m: robust_mean.power_lower_bound(n, 1.0, m, per_test)
    lo = hi = float(kernels.catoni_radius(n, 1.0, robust_mean.log_term(per_test)))
    hi += 1.0 / float(
        kernels.catoni_scale(n, 1.0, robust_mean.log_term(per_test))
    )  # the bound's reach
    if power(hi) < REQUIRED_POWER:
        return None
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if power(mid) >= REQUIRED_POWER else (mid, hi)
    size = np.abs(np.asarray(limit, float))
    var_y = np.asarray(var_x, float) / max(budget.Ls)
    keep = (size > 0) & (var_y > 0) & np.isfinite(size) & np.isfinite(var_y)
    if not keep.any():
        return None
    return float(np.min(hi * np.sqrt(var_y[keep]) / size[keep]))


def mse_decrease_check(name: str, smallest: float, z_alpha: float):
    """The consistency check that the mean squared error decreases in L: the smallest z-score of
    MSE(L_j) - MSE(L_j+1) over consecutive L against the one-sided critical value (Bonferroni over
    the pairs); below -bound refutes, between is undecided, NaN (beyond float64) undecided."""
    return judge.verdict(
        name,
        "montecarlo",
        id="battery/mse-decreases",
        unit="z",
        value=smallest,
        bound=z_alpha,
        rule="value >= bound",
        detail="smallest z-score of MSE(L_j) - MSE(L_j+1) over consecutive L; one-sided, "
        f"false-alarm {check_false_alarm():g} in total; below -bound refutes, between "
        "is undecided",
        tier="consistency",
        false_alarm=levels.nominal(check_false_alarm(), levels.NORMAL_MEAN),
        undecided="the decrease is within noise (-bound <= smallest z < bound)"
        if -z_alpha <= smallest < z_alpha
        else "",
    )


def exact_mse_check(subject: Subject, series: dict, budget: Budget, limit_size2: float) -> Check:
    """The Monte Carlo mean squared error about the claimed limit against the exact finite-L MSE
    about the true one, at every L where the exact route reaches every query. A wrong limit adds its
    squared distance (which the decrease in L, where it cancels, cannot see); a wrong sampler or
    kernel moves it too. Two-sided z per L, Bonferroni over the judged L. A point-mass law has no
    spread (standard error 0): its MSE is judged exactly instead, against rounding of the limit's
    size (`limit_size2`, the largest |T(z)|^2), never divided by 0."""
    judged = [j for j, e in enumerate(series["exact_mse"]) if e is not None]
    name = f"{subject.label}: Monte Carlo MSE equals the exact finite-L MSE at every L"
    if not judged:
        return judge.unjudged(
            name,
            "montecarlo",
            "no L at which the exact route reaches every query",
            tier="statistical",
            id="battery/mse-exact",
            unit="|z|",
        )
    zc = z_critical(check_false_alarm(), len(judged))
    rounding = ROUNDING_MSE * (1.0 + limit_size2)

    def z(j):
        # A point mass has no spread: its standard error is floored at rounding / zc, so that
        # |z| <= zc says |diff| <= rounding, and the statistic stays a finite number.
        diff, se = series["mse"][j] - series["exact_mse"][j], series["mse_stderr"][j]
        return diff / se if se > 0 else diff * zc / rounding

    zs = [z(j) for j in judged]
    # resolution: a relative slip of the exact MSE; an L judged exactly (no spread) resolves
    # its rounding
    eps = [
        significance.detectable_relative(series["exact_mse"][j], series["mse_stderr"][j], zc)
        if series["mse_stderr"][j] > 0
        else float(rounding / abs(series["exact_mse"][j]))
        for j in judged
        if series["exact_mse"][j] != 0
        and math.isfinite(series["exact_mse"][j])
        and math.isfinite(series["mse_stderr"][j])
    ]
    return judge.z_test(
        name,
        id="battery/mse-exact",
        z=zs,
        alpha=check_false_alarm(),
        tests=len(judged),
        assumption=levels.NORMAL_MEAN,
        detail="largest |z| of (mean over prompts and queries of |T[mu_L](z) - claimed T(z)|^2 - "
        "exact E|T[mu_L](z) - T[mu](z)|^2 (quadrature of A_L, B_L)) / standard error, "
        f"at L = {[budget.Ls[j] for j in judged]}; {budget.trials} prompts per L (a mean of "
        f"{budget.trials} squared errors: skewed, its level measured about 1.3 times nominal at "
        "quick, docs/certificates.md)",
        detectable=min(eps) if eps else None,
    )


def sized_for_power(subject: Subject, queries: np.ndarray, budget: Budget) -> Budget:
    """The profile's budget, with more prompts when needed for question 5 to refute the subject's
    limit with probability >= REQUIRED_POWER (the planned power bound; capped). The smallest such
    number of prompts is found by doubling then bisection (the bound grows with n)."""
    power = lambda n: numerator_power(subject, queries, budget, n)["power"]
    if power(budget.trials) >= REQUIRED_POWER:
        return budget
    cap = CONTROL_BUDGET_CAP * budget.trials
    lo, hi = budget.trials, budget.trials
    while hi < cap and power(hi) < REQUIRED_POWER:
        lo, hi = hi, min(2 * hi, cap)
    while hi - lo > max(1, lo // 64):  # within 1.6 % of the smallest sufficient n
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power(mid) >= REQUIRED_POWER else (mid, hi)
    return replace(budget, trials=hi)


def run_control(
    subject: Subject, queries: np.ndarray, U, V, budget: Budget, rng: np.random.Generator
) -> Battery:
    """A negative control: the battery at the budget sized beforehand for REQUIRED_POWER."""
    return run_battery(subject, queries, U, V, sized_for_power(subject, queries, budget), rng)


def run_battery(
    subject: Subject, queries: np.ndarray, U, V, budget: Budget, rng: np.random.Generator
) -> Battery:
    """All five questions for one subject: their checks, the Monte Carlo series, and the data
    behind them (and the power of question 5, computed before the Monte Carlo, when the subject
    gives its moments)."""
    power = numerator_power(subject, queries, budget) if subject.numerator_moments else None
    kernel = subject.claimed_kernel(queries)
    reference = subject.reference_float(queries)
    found = formula_check(subject, queries)
    refined = (
        quadrature.refined_rows(subject.law, U, V, queries)
        if isinstance(subject.law, (GaussianLaw, MixtureLaw))
        else None
    )
    found.add(kernel_check(subject, kernel, reference, V, queries, refined))
    found.add(montecarlo_checks(subject, queries, U, V, budget, rng))
    return Battery(found, kernel, reference, power, budget.trials)


def refuting_routes(result: Battery) -> list[str]:
    """The kinds of the checks that refuted a battery, numerator test named
    (e.g. "montecarlo:numerator")."""
    return [
        f"{c.kind}:numerator" if c.id == NUMERATOR_ID else c.kind
        for c in result.findings.checks
        if c.passed is False
    ]


def control_summary(result: Battery) -> dict:
    """What a control certificate records: the refuting routes, whether the statistical route was
    among them, its power computed beforehand and the miss probability 1 - power, and whether the
    control was judged at all (`judged`: its power reached REQUIRED_POWER)."""
    power = result.power["power"] if result.power else None
    routes = refuting_routes(result)
    return {
        "refuted_by": routes,
        "statistical": "montecarlo:numerator" in routes,
        "power": power,
        "trials": result.trials,
        "delta": result.power["delta"] if result.power else None,
        "miss_probability": None if power is None else 1.0 - power,
        "judged": power is not None and power >= REQUIRED_POWER,
    }


def control_findings(controls: dict[str, tuple[str, str, Battery]]) -> Findings:
    """Negative controls through the battery, {name: (label, key, result)}: a check each
    (control_check), in order; their summaries as the quantity "controls" and their Monte Carlo
    series as the series "controls", by name."""
    return Findings(
        [control_check(result, label, key) for label, key, result in controls.values()],
        {"controls": {name: control_summary(result) for name, (*_, result) in controls.items()}},
        {"controls": {name: result.findings.series for name, (*_, result) in controls.items()}},
    )


def controls_miss_probability(summaries: dict) -> float:
    """The union bound on a judged control missing its wrong formula: the sum of 1 - power over
    the controls (the certificate's top-level false_alarm covers the statistical checks)."""
    return sum(v["miss_probability"] or 0.0 for v in summaries.values())


def control_check(result: Battery, label: str, key: str) -> Check:
    """A negative control passes when the statistical route refuted the wrong limit by itself;
    refutation by the exact comparisons alone does not count, and a control that is not refuted
    fails. A control whose power, computed from derived moments before any sample is judged,
    is below REQUIRED_POWER at this scenario and budget (for instance U^T = U when d = 1:
    the slip is no slip) is not judged: kept with `judged: false` and its power as the reason,
    out of the verdict, instead of leaving the verdict to chance. `key` names the control in its id
    ("control/<key>")."""
    summary = control_summary(result)
    power = summary["power"]
    name = f"negative control {label}: the Monte Carlo route must refute the wrong limit"
    if not summary["judged"]:
        why = (
            "no planned power (the scenario has no derived numerator moments)"
            if power is None
            else f"planned power {power:.6f} below {REQUIRED_POWER} at this scenario and budget "
            f"(delta = {summary['delta']:.3g})"
        )
        return judge.unjudged(
            name,
            "control",
            why,
            tier="statistical",
            bound=REQUIRED_POWER,
            id=f"control/{key}",
            unit="power",
        )
    numerator = next(c for c in result.findings.checks if c.id == NUMERATOR_ID)
    return judge.control(
        name,
        id=f"control/{key}",
        statistic=numerator.value,
        critical=numerator.bound,
        power=power,
        tier="statistical",
        unit="ratio",
        detail=f"value: the numerator test's largest Catoni ratio |theta_hat| / r, which must "
        f"exceed 1 (the wrong limit refuted by the Monte Carlo route itself); refuted by: "
        f"{', '.join(summary['refuted_by']) or 'nothing'}; power computed beforehand from "
        f"derived moments (delta = {summary['delta']:.3g})",
        undecided=numerator.reason if numerator.passed is None else "",
    )
