"""Limits of sequences from a few terms: Richardson in 1/L and Aitken's delta-squared process.

Used where an exact route is evaluated at a few prompt lengths L and its limit L -> inf is judged:
Richardson where the remainder is a power series in 1/L (softlin/claims/prop_3_1/fixed.py,
softlin/claims/prop_3_4/exact.py), Aitken where it decays as L^-p with p unknown
(softlin/claims/finite_prompt_risk/exact.py).
"""

from __future__ import annotations

import numpy as np


def richardson(coarse, fine, ratio: int = 10):
    """The limit f of f(L) = f + c/L + c'/L^2 + ... from coarse = f(L) and fine = f(ratio L):
    (ratio fine - coarse) / (ratio - 1) = f - c' / (ratio L^2) + ..., the c/L term removed and the
    c'/L^2 term scaled by -1/ratio. Scalars or arrays (elementwise)."""
    return (ratio * fine - coarse) / (ratio - 1)


def aitken(F: np.ndarray) -> float:
    """Aitken's delta-squared limit of F_1, F_2, F_3 (for F_k = F + a r^k, exactly F)."""
    d1, d2 = F[1] - F[0], F[2] - F[1]
    return float(F[2] - d2 * d2 / (d2 - d1))
