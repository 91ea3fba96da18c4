"""Limits of sequences from a few terms: Aitken's delta-squared process.

Used where an exact route is evaluated at a few prompt lengths L and its limit L -> inf is judged
(softlin/claims/finite_prompt/exact.py).
"""

from __future__ import annotations

import numpy as np


def aitken(F: np.ndarray) -> float:
    """Aitken's delta-squared limit of F_1, F_2, F_3 (for F_k = F + a r^k, exactly F)."""
    d1, d2 = F[1] - F[0], F[2] - F[1]
    return float(F[2] - d2 * d2 / (d2 - d1))
