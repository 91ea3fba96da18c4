"""Sums in log space without SciPy's per-call overhead (an algorithm).

`logsumexp(a)` is log sum_i e^{a_i} for a 1-D real array with the arithmetic of
`scipy.special.logsumexp` (SciPy >= 1.15), so the two agree bit for bit: with M = max a and m the
number of entries equal to M, the others' terms are summed apart,

    log sum_i e^{a_i} = M + log m + log1p(s / m),    s = sum_{a_i < M} e^{a_i - M},

which keeps the digits of a sum dominated by one term. SciPy's version goes through its array-API
layer, about 60 us a call on 400 entries against 5 here; the exact finite-L risk's tables call it
about 50 000 times a run (numerics/selfnormalised.py). Anything else (an empty array, a maximum that
is not finite) is left to SciPy.

`exp_or_zero(x)` is e^x for log-space values relative to a maximum, with e^x below e^-700 (1e-304)
taken as 0: NumPy's exp is about 60 times slower on an argument whose result is subnormal and
about 10 times slower below -745, where the quadratures' (v, g) matrices put most of their entries.
`expm1_neg(x)` is expm1(-x) with x capped at 40 for the same reason: expm1(-x) is -1 to the last
bit once x > 40 (e^-40 < 2^-57), and the cap spares NumPy's slow path where e^-x underflows.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp as _scipy_logsumexp


def logsumexp(a) -> float:
    """log sum_i e^{a_i} of a 1-D real array (module docstring)."""
    a = np.asarray(a, dtype=float)
    if a.ndim != 1 or a.size == 0:
        return float(_scipy_logsumexp(a))
    top = float(np.max(a))
    if not math.isfinite(top):
        return float(_scipy_logsumexp(a))
    at_top = a == top
    count = float(np.count_nonzero(at_top))
    s = float(np.sum(np.exp(np.where(at_top, -np.inf, a) - top)))
    return float(np.log1p(s / count) + np.log(count) + top)


# e^x below e^EXP_FLOOR is taken as 0 by exp_or_zero: 1e-304, far below any sum's rounding
EXP_FLOOR = -700.0


def exp_or_zero(x) -> np.ndarray:
    """e^x elementwise, 0 where x < EXP_FLOOR (module docstring); NaN stays NaN."""
    x = np.asarray(x, dtype=float)
    out = np.maximum(x, EXP_FLOOR)
    np.exp(out, out=out)
    out *= x >= EXP_FLOOR  # in place: 1.6 ms against 2.6 for out[x < floor] = 0 on 680 000 entries
    return out


# expm1(-x) is -1 to the last bit beyond this (e^-40 < 2^-57): expm1_neg caps x there
EXPM1_CAP = 40.0


def expm1_neg(x) -> np.ndarray:
    """expm1(-x) elementwise, x capped at EXPM1_CAP (module docstring): the same bits as
    np.expm1(-x) for every x; NaN stays NaN."""
    return np.expm1(-np.minimum(np.asarray(x, dtype=float), EXPM1_CAP))
