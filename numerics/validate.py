"""Input validation shared by numerics and claims: every bad value raises a ValueError that names
it."""

from __future__ import annotations

import math

import numpy as np

# Symmetry and semidefiniteness are judged relative to the matrix's own scale (its largest entry,
# its spectral norm): float round-off in a user's B B^T is ~1e-16 * |B|^2, so 1e-10 leaves a wide
# margin without admitting real asymmetry, at any scale (1e-12 and 1e12 alike).
RELATIVE_TOLERANCE = 1e-10
# Positive definite means condition number below 1e12: beyond it, inverses and Cholesky factors
# carry no correct digit in float64 (1e-16 * 1e12 relative error, amplified by the routes that use
# them).
DEFINITE_TOLERANCE = 1e-12
# Squares and products of scenario values appear in every route (covariances of tokens, scores
# z'^T U z, squared errors): a magnitude whose square overflows float64 (~1.3e154) would pass
# validation and turn into inf after work had started, so values are capped well below it.
MAX_MAGNITUDE = 1e100


class BeyondReach(ValueError):
    """A structural limit of a route that only the run meets
    (a finite-L flow leaving an exact table, a q beyond the exact quadrature's reach): reported like
    a rejected input (exit 2), and counted by `softlin hunt` outside the claim's computable region;
    not a verdict on the claim."""


def as_array(name: str, value, ndim: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} = {value!r} is not a numeric array") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf: {value!r}")
    if arr.size and float(np.max(np.abs(arr))) > MAX_MAGNITUDE:
        raise ValueError(
            f"{name} has an entry of magnitude {float(np.max(np.abs(arr))):.3g}, above "
            f"{MAX_MAGNITUDE:g} (its squares would overflow float64 during the run)"
        )
    return arr


def number(
    name: str,
    value,
    low: float = -MAX_MAGNITUDE,
    high: float = MAX_MAGNITUDE,
    open_low: bool = False,
    open_high: bool = False,
) -> float:
    """A real number (not a boolean) in [low, high] (ends open on request), else ValueError naming
    it."""
    ok = not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))
    x = float(value) if ok else math.nan
    inside = (
        math.isfinite(x)
        and (x > low if open_low else x >= low)
        and (x < high if open_high else x <= high)
    )
    if not inside:
        lo, hi = "(" if open_low else "[", ")" if open_high else "]"
        raise ValueError(f"{name} = {value!r} must be a number in {lo}{low:g}, {high:g}{hi}")
    return x


def vector(name: str, value, d: int | None = None) -> np.ndarray:
    arr = as_array(name, value, 1)
    if d is not None and arr.shape != (d,):
        raise ValueError(f"{name} must have length {d}, got {arr.shape[0]}")
    return arr


def matrix(name: str, value, shape: tuple[int | None, int | None] = (None, None)) -> np.ndarray:
    arr = as_array(name, value, 2)
    for axis, want in enumerate(shape):
        if want is not None and arr.shape[axis] != want:
            raise ValueError(
                f"{name} must have shape {tuple(s if s is not None else '*' for s in shape)}, "
                f"got {arr.shape}"
            )
    return arr


def covariance(name: str, value, d: int | None = None) -> np.ndarray:
    """A symmetric positive semidefinite d x d matrix (singular allowed), judged at its own scale:
    asymmetry beyond RELATIVE_TOLERANCE of the largest entry, or an eigenvalue below
    -RELATIVE_TOLERANCE times the spectral norm, is refused (an all-zero matrix is PSD)."""
    arr = matrix(name, value, (d, d) if d is not None else (None, None))
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    scale = float(np.max(np.abs(arr))) if arr.size else 0.0
    if np.max(np.abs(arr - arr.T), initial=0.0) > RELATIVE_TOLERANCE * scale:
        raise ValueError(f"{name} is not symmetric: {arr.tolist()}")
    sym = (arr + arr.T) / 2
    eig = np.linalg.eigvalsh(sym)
    norm = float(np.max(np.abs(eig), initial=0.0))
    if eig.size and float(eig[0]) < -RELATIVE_TOLERANCE * norm:
        raise ValueError(
            f"{name} is not positive semidefinite: eigenvalue {float(eig[0]):.3g} against a "
            f"spectral norm {norm:.3g}: {arr.tolist()}"
        )
    return sym


def positive_definite(name: str, value, d: int | None = None) -> np.ndarray:
    """A covariance (see `covariance`) whose smallest eigenvalue exceeds DEFINITE_TOLERANCE times
    its largest: invertible at its own scale."""
    S = covariance(name, value, d)
    eig = np.linalg.eigvalsh(S)
    largest = float(eig[-1]) if eig.size else 0.0
    if not largest > 0 or float(eig[0]) <= DEFINITE_TOLERANCE * largest:
        raise ValueError(
            f"{name} must be positive definite, but it is singular at its own scale: smallest "
            f"eigenvalue {float(eig[0]) if eig.size else 0.0:.3g}, largest {largest:.3g} "
            f"(ratio below {DEFINITE_TOLERANCE:g}): {S.tolist()}"
        )
    return S


def prompt_length(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} = {value!r} must be an integer >= 1")
    return int(value)


def integer(name: str, value, low: int = 0, high: int | None = None) -> int:
    """An integer (not a boolean) in [low, high], else ValueError naming it."""
    ok = not isinstance(value, bool) and isinstance(value, (int, np.integer))
    if not ok or value < low or (high is not None and value > high):
        where = f">= {low}" if high is None else f"in [{low}, {high}]"
        raise ValueError(f"{name} = {value!r} must be an integer {where}")
    return int(value)


def prompt_lengths(name: str, value, low: int = 1, at_least: int = 1) -> list[int]:
    """A strictly increasing list of at least `at_least` integers >= low (prompt lengths)."""
    ok = (
        isinstance(value, list)
        and len(value) >= at_least
        and all(not isinstance(L, bool) and isinstance(L, (int, np.integer)) for L in value)
    )
    if not ok or any(L < low for L in value) or sorted(set(value)) != value:
        count = "" if at_least == 1 else f"at least {at_least} "
        raise ValueError(
            f"{name} = {value!r} must be a strictly increasing list of {count}integers >= {low}"
        )
    return [int(L) for L in value]


def numbers(name: str, value, low: float = -MAX_MAGNITUDE, open_low: bool = False) -> list[float]:
    """A non-empty list of real numbers (not booleans), each above low (`number`)."""
    if not isinstance(value, list) or not value:
        raise ValueError(f"{name} = {value!r} must be a non-empty list of numbers")
    return [number(f"{name}[{i}]", x, low, open_low=open_low) for i, x in enumerate(value)]
