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
class LinearFit:
    coef: np.ndarray  # c in y ~ X c
    cov: (
        np.ndarray
    )  # covariance of c: (X^T W X)^{-1}, W = diag(1 / s^2) (unit weights: (X^T X)^{-1})
    chi2: float  # sum_j w_j (y_j - X_j c)^2
    dof: int  # n - number of columns


def linear_fit(X, y, stderrs=None) -> LinearFit:
    """Least squares y ~ X c, the one home for every fit in softlin. With standard errors s_j,
    weighted by the inverse variances w_j = 1 / s_j^2, and the covariance (X^T W X)^{-1} is *not*
    rescaled by the residuals (the s_j are Monte Carlo or quadrature errors: chi2 against dof says
    whether the model fits). Without, ordinary least squares (unit weights)."""
    X = np.atleast_2d(np.asarray(X, dtype=float))
    y = np.asarray(y, dtype=float)
    if X.ndim != 2 or X.shape[0] != y.shape[0] or y.ndim != 1 or X.shape[0] < X.shape[1]:
        raise ValueError(
            f"need X of shape (n, p) with n >= p and y of shape (n,), got {X.shape} and {y.shape}"
        )
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ValueError("least squares needs finite data")
    if stderrs is None:
        w = np.ones_like(y)
    else:
        s = np.asarray(stderrs, dtype=float)
        if s.shape != y.shape or np.any(s <= 0) or not np.all(np.isfinite(s)):
            raise ValueError(f"standard errors must be positive and finite, got {s.tolist()}")
        w = 1.0 / s**2
    WX = X * w[:, None]
    cov = np.linalg.inv(X.T @ WX)
    coef = cov @ (WX.T @ y)
    resid = y - X @ coef
    return LinearFit(coef, cov, float(np.sum(w * resid**2)), int(X.shape[0] - X.shape[1]))


@dataclass(frozen=True)
class LogLogFit:
    slope: float  # kappa in E|err|^2 ~ L^-kappa
    stderr: float
    intercept: float
    chi2: float
    dof: int


def loglog_slope_design(Ls, relative_stderrs) -> tuple[np.ndarray, float]:
    """Before or beside any data: for points ln y_j with standard errors r_j (relative errors of
    y_j), the weights c with fitted slope = c @ ln y (the slope is linear in the log values), and
    the slope's standard error sqrt([(X^T W X)^{-1}]_11), W = diag(1 / r_j^2), X rows (1, -ln L_j),
    as `loglog_fit`."""
    x = np.log(np.asarray(Ls, dtype=float))
    X = np.column_stack([np.ones_like(x), -x])
    w = 1.0 / np.asarray(relative_stderrs, dtype=float) ** 2
    cov = np.linalg.inv(X.T @ (X * w[:, None]))
    return (cov @ (X * w[:, None]).T)[1], float(math.sqrt(cov[1, 1]))


def loglog_fit(Ls, values, stderrs=None) -> LogLogFit:
    """Weighted fit of ln(values) = intercept - slope ln(L). Without stderrs, unit weights."""
    L = np.asarray(Ls, dtype=float)
    y = np.asarray(values, dtype=float)
    if L.shape != y.shape or L.ndim != 1 or L.size < 2:
        raise ValueError(
            f"need matching 1-D arrays of at least 2 points, got L {L.shape} and values {y.shape}"
        )
    if np.any(L <= 0) or np.any(y <= 0) or not np.all(np.isfinite(y)):
        raise ValueError(
            f"log-log fit needs positive finite L and values, got L = {L.tolist()}, "
            f"values = {y.tolist()}"
        )
    if stderrs is not None:
        s = np.asarray(stderrs, dtype=float)
        if s.shape != y.shape or np.any(s <= 0) or not np.all(np.isfinite(s)):
            raise ValueError(
                f"standard errors must be positive and finite, got {np.asarray(stderrs).tolist()}"
            )
    # ln y_j carries the standard error s_j / y_j (delta method)
    fit = linear_fit(
        np.column_stack([np.ones_like(L), -np.log(L)]),
        np.log(y),
        None if stderrs is None else s / y,
    )
    return LogLogFit(
        float(fit.coef[1]), float(math.sqrt(fit.cov[1, 1])), float(fit.coef[0]), fit.chi2, fit.dof
    )
