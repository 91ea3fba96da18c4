"""Question 5 of the limit claims' battery (claims/shared/limit_battery.py): Catoni's zero-mean
test of the
unbiased numerator Y = (1/L) sum_i e^{s_i - c} (V z_i - T(z)), and its power planned beforehand.

Per (L, query, output coordinate) one test at check_false_alarm() / (number of tests) (Bonferroni).
The test's variance is Var Y = Var X / L from the derived per-token moments
(numerics/numerator_moments.py), so its level needs no normal approximation
(numerics/robust_mean.py); its power against a wrong limit is bounded below from the same moments,
before any prompt is drawn.
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import montecarlo, robust_mean
from ...numerics.significance import z_critical
from ...judge.check import check_false_alarm


def numerator_tests(budget, queries: np.ndarray, k: int) -> int:
    """Tests of question 5 sharing check_false_alarm() (Bonferroni): one per
    (L, query, coordinate)."""
    return len(budget.Ls) * len(queries) * k


def numerator_power(subject, queries: np.ndarray, budget, trials: int | None = None) -> dict:
    """Power of question 5 against the subject's claimed limit (a battery.Subject, at a
    battery.Budget), bounded below from derived moments (module docstring); computed before any
    prompt is drawn. {"power", "delta", "z_crit"}."""
    limit = subject.claimed_kernel(queries)
    k = limit.shape[1]
    n = budget.trials if trials is None else trials
    per_test = check_false_alarm() / numerator_tests(budget, queries, k)
    z_crit = z_critical(check_false_alarm(), numerator_tests(budget, queries, k))
    best, power = 0.0, 0.0
    for z, t in zip(queries, limit):
        mean, var = subject.numerator_moments(z, t, subject.claimed_log_normaliser(z))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(var > 0, np.abs(mean) / np.sqrt(np.maximum(var, 0.0)), 0.0)
        best = max(best, float(np.max(ratio)) * math.sqrt(budget.trials * max(budget.Ls)))
        for mu, v in zip(mean, var):  # Var Y = Var X / L; the largest L has the most power
            power = max(
                power,
                robust_mean.power_lower_bound(n, float(v) / max(budget.Ls), float(mu), per_test),
            )
    return {"power": power, "delta": best, "z_crit": z_crit}


def numerator_ratio(
    centred: np.ndarray, num: np.ndarray, claimed: np.ndarray, variance: np.ndarray, per_test: float
) -> np.ndarray:
    """|theta_hat| / r per (query, coordinate) for the per-prompt statistics `centred`
    (trials, Q, k), Var Y = `variance` (Q, k). Coordinates where Y is deterministic up to rounding
    (V Gamma V^T = 0, see montecarlo.studentised_numerator) are judged exactly: 0 when the mean is
    rounding-sized, inf not."""
    degenerate, exact = montecarlo.rounding_degenerate(centred, num, claimed)
    if centred.shape[0] <= 2 * robust_mean.log_term(per_test):
        return np.where(degenerate, exact, 0.0)  # undecided: the caller says so
    safe_var = np.where(degenerate | ~(variance > 0), 1.0, variance)
    ratio, _ = robust_mean.zero_mean_test(np.where(degenerate, 0.0, centred), safe_var, per_test)
    return np.where(degenerate, exact, np.where(variance > 0, ratio, np.inf))
