"""The rate exponents of the output and gradient errors (props 3.1 and 3.4), from the emitted
kernels: kappa(lambda) the sharp exponent, min(1, 1/(2 lambda)) the naive one the controls refute,
rho(lambda) the remainder's (derivations/fluctuations_exponent.py)."""

from __future__ import annotations

import math

import numpy as np


def _lam(lam) -> float:
    lam = float(lam)
    if not (lam >= 0 and math.isfinite(lam)):
        raise ValueError(f"lambda = {lam!r} must be a finite number >= 0")
    return lam


def sharp_exponent(lam) -> float:
    """kappa(lambda) from the emitted kernel
    (derivations/fluctuations_exponent.sharp_exponent_piecewise)."""
    from ...numerics import kernels

    return float(kernels.sharp_exponent(np.float64(_lam(lam))))


def naive_exponent(lam) -> float:
    """min(1, 1/(2 lambda)) from the emitted kernel (the heuristic the controls refute)."""
    from ...numerics import kernels

    return float(kernels.naive_exponent(np.float64(_lam(lam))))


def remainder_exponent(lam) -> float:
    """rho(lambda) from the emitted kernel."""
    from ...numerics import kernels

    return float(kernels.remainder_exponent(np.float64(_lam(lam))))
