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


def intercept_factor(Ls) -> float:
    """[(X^T X)^{-1}]_00 for X rows (1, 1/L), equal draws and variance per L:
    Var(intercept) = f var / n."""
    X = np.column_stack([np.ones(len(Ls)), 1.0 / np.asarray(Ls, float)])
    return float(np.linalg.inv(X.T @ X)[0, 0])


def decide_upper(estimate: float, se: float, bound: float, z_c: float) -> bool | None:
    """Statement "true value <= bound": verified when the upper confidence bound clears it, refuted
    when the lower confidence bound exceeds it (evidence beyond the false alarm), else undecided."""
    if estimate + z_c * se <= bound:
        return True
    if estimate - z_c * se > bound:
        return False
    return None


def decide_positive(estimate: float, se: float, z_c: float) -> bool | None:
    """Statement "true value > 0": verified above z_c se, refuted below -z_c se, else undecided."""
    if estimate > z_c * se:
        return True
    if estimate < -z_c * se:
        return False
    return None
