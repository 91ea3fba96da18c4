"""Input validation shared by numerics and claims: every bad value raises a ValueError that names it."""

from __future__ import annotations

import numpy as np

# Symmetry and PSD are judged relative to the matrix's scale: float round-off in a user's
# B B^T is ~1e-16 * |B|^2, so 1e-10 leaves a wide margin without admitting real asymmetry.
RELATIVE_TOLERANCE = 1e-10


def as_array(name: str, value, ndim: int | None = None) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} = {value!r} is not a numeric array") from exc
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s), got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or inf: {value!r}")
    return arr


def vector(name: str, value, d: int | None = None) -> np.ndarray:
    arr = as_array(name, value, 1)
    if d is not None and arr.shape != (d,):
        raise ValueError(f"{name} must have length {d}, got {arr.shape[0]}")
    return arr


def matrix(name: str, value, shape: tuple[int | None, int | None] = (None, None)) -> np.ndarray:
    arr = as_array(name, value, 2)
    for axis, want in enumerate(shape):
        if want is not None and arr.shape[axis] != want:
            raise ValueError(f"{name} must have shape {tuple(s if s is not None else '*' for s in shape)}, "
                             f"got {arr.shape}")
    return arr


def covariance(name: str, value, d: int | None = None) -> np.ndarray:
    """A symmetric positive semidefinite d x d matrix (singular allowed)."""
    arr = matrix(name, value, (d, d) if d is not None else (None, None))
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be square, got shape {arr.shape}")
    scale = max(1.0, float(np.max(np.abs(arr))))
    if np.max(np.abs(arr - arr.T)) > RELATIVE_TOLERANCE * scale:
        raise ValueError(f"{name} is not symmetric: {arr.tolist()}")
    lowest = float(np.min(np.linalg.eigvalsh((arr + arr.T) / 2)))
    if lowest < -RELATIVE_TOLERANCE * scale:
        raise ValueError(f"{name} is not positive semidefinite (smallest eigenvalue {lowest:.3g}): {arr.tolist()}")
    return (arr + arr.T) / 2


def prompt_length(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} = {value!r} must be an integer >= 1")
    return int(value)
