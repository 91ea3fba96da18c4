"""Weighted least squares on log-log data: the decay exponent of a Monte Carlo error curve.

Given estimates y_j of E|err|^2 at prompt lengths L_j with standard errors s_j, the log-log points
(ln L_j, ln y_j) carry standard errors s_j / y_j (delta method). The fit ln y = c - kappa ln L is
weighted by (y_j / s_j)^2; `slope` is kappa (positive for a decaying error) and `stderr` its
standard error from the weights (not rescaled by the residuals: the weights are the Monte Carlo
variances, and `chi2` against its degrees of freedom says whether the power law fits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class LogLogFit:
    slope: float        # kappa in E|err|^2 ~ L^-kappa
    stderr: float
    intercept: float
    chi2: float
    dof: int


def loglog_fit(Ls, values, stderrs=None) -> LogLogFit:
    """Weighted fit of ln(values) = intercept - slope ln(L). Without stderrs, unit weights."""
    L = np.asarray(Ls, dtype=float)
    y = np.asarray(values, dtype=float)
    if L.shape != y.shape or L.ndim != 1 or L.size < 2:
        raise ValueError(f"need matching 1-D arrays of at least 2 points, got L {L.shape} and values {y.shape}")
    if np.any(L <= 0) or np.any(y <= 0) or not np.all(np.isfinite(y)):
        raise ValueError(f"log-log fit needs positive finite L and values, got L = {L.tolist()}, values = {y.tolist()}")
    if stderrs is None:
        w = np.ones_like(y)
    else:
        s = np.asarray(stderrs, dtype=float)
        if s.shape != y.shape or np.any(s <= 0) or not np.all(np.isfinite(s)):
            raise ValueError(f"standard errors must be positive and finite, got {np.asarray(stderrs).tolist()}")
        w = (y / s) ** 2
    x, ly = np.log(L), np.log(y)
    X = np.column_stack([np.ones_like(x), -x])
    WX = X * w[:, None]
    cov = np.linalg.inv(X.T @ WX)
    beta = cov @ (WX.T @ ly)
    resid = ly - X @ beta
    chi2 = float(np.sum(w * resid**2))
    return LogLogFit(float(beta[1]), float(math.sqrt(cov[1, 1])), float(beta[0]), chi2, int(L.size - 2))

