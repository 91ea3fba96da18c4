"""Power and budget design for the z-tests of `authors-experiment` and `finite-prompt-risk`.

Every statistical check here is a z-test of an estimate with standard error se against a critical
value z_c (false alarm alpha per check, Bonferroni inside a check). For a true effect Delta (the
distance between the truth and the boundary the check must cross), the probability of a decision:

    one-sided   P = Phi(Delta / se - z_c)
    two-sided   P = Phi(Delta / se - z_c) + Phi(-Delta / se - z_c)

and the number of draws that gives P >= target with per-draw variance var and a design factor f
(se^2 = f var / n; f = 1 for a mean, [(X^T X)^{-1}]_00 per L for a least-squares intercept) is

    n = ceil(f var ((z_c + z_target) / Delta)^2),   z_target = Phi^{-1}(target).

The family-wise false alarm of a claim is at most the sum of its checks' false alarms (Bonferroni).
These are algorithms (normal approximation), computed before the Monte Carlo run they size; the
z-test primitives live in numerics/significance.py.
"""

from __future__ import annotations

import numpy as np

# The level of the SGD noise-floor tolerances (linear/sgd-optimum, sgd-long/*): nominal.
SGD_STATIONARY = (
    "constant-step SGD at stationarity: the end's fluctuation about the optimum is Gaussian with "
    "the stationary covariance (Lyapunov equation, gradient covariance measured), so its excess "
    "risk (quadratic term) exceeds the chi2_1 quantile times its mean, and its linear term the "
    "normal critical value times its standard deviation, with at most the stated tail "
    "probabilities (asymptotic: small steps, stationarity reached)"
)


def intercept_factor(Ls) -> float:
    """[(X^T X)^{-1}]_00 for X rows (1, 1/L), equal draws and variance per L:
    Var(intercept) = f var / n."""
    X = np.column_stack([np.ones(len(Ls)), 1.0 / np.asarray(Ls, float)])
    return float(np.linalg.inv(X.T @ X)[0, 0])


def undecided_between(statistic: float, z_c: float) -> str:
    """The three-way verdict of a one-sided z-test (statistic signed so that a slip makes it large,
    judged `value <= bound` against z_c): refuted above z_c; verified only below -z_c, where the
    confidence bound clears the statement's boundary; between them undecided: the reason, "" outside
    that band (the rule then decides)."""
    if -z_c <= statistic <= z_c:
        return (
            f"the statistic {statistic:.4g} lies within +-{z_c:.4g}: the confidence bound does not "
            "clear the boundary (not verified) and the opposite one does not cross it (not refuted)"
        )
    return ""
