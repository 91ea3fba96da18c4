"""First-order (1/L) mean squared error tr C1(z) at a batch of queries, for token laws beyond the
Gaussian (derivations/fluctuations.py, sections 1 and 5):

    tr C1(z) = E w^2 [ tr(V Hess Lambda(2a) V^T) + |V (grad Lambda(2a) - grad Lambda(a))|^2 ],
    E w^2 = e^{Lambda(2a) - 2 Lambda(a)},   a = U z,

- affine product laws z = m + B x (x iid Rademacher or uniform on [-sqrt3, sqrt3]): with b = B^T a
  and l the coordinate log-mgf, Lambda(2a) - 2 Lambda(a) = sum_j l(2 b_j) - 2 l(b_j),
  grad Lambda = m + B l'(b), Hess Lambda = B diag(l''(b)) B^T: the entrywise kernels (l', l'' and
  l(2.) - 2 l(.)) and their assembly over the coordinates (product_law_log_weight,
  product_law_trace_factor) are all emitted from derivations/fluctuations_product.py;
- Gaussian mixtures: the two moments of
  numerics/limits.mixture_bound_moments (E w^2 |V(z' - mu_a)|^2 is tr C1).

Rows are queries: Z is (n, d), the result (n,).
"""

from __future__ import annotations

import numpy as np

from . import kernels, limits


def product_trace_c1(
    kind: str, root: np.ndarray, U: np.ndarray, V: np.ndarray, Z: np.ndarray
) -> np.ndarray:
    """tr C1(z) for z' = m + root x, x iid `kind` ('rademacher' or 'uniform'); m does not enter."""
    if kind not in ("rademacher", "uniform"):
        raise ValueError(f"unknown product law {kind!r} (known: rademacher, uniform)")
    tilted_mean = (
        kernels.rademacher_tilted_mean if kind == "rademacher" else kernels.uniform_tilted_mean
    )
    coordinate_log_w2 = getattr(kernels, f"{kind}_log_weight_second_moment")
    curvature = getattr(kernels, f"{kind}_curvature")
    b = (np.atleast_2d(Z) @ U.T @ root).T  # (r, n): columns b = B^T a
    log_w2 = kernels.product_law_log_weight(coordinate_log_w2(b))[0]
    factor = kernels.product_law_trace_factor(
        curvature(2 * b), tilted_mean(2 * b) - tilted_mean(b), V @ root
    )[0]
    with np.errstate(over="ignore"):
        return np.exp(log_w2) * factor


def mixture_trace_c1(law, U: np.ndarray, V: np.ndarray, Z: np.ndarray) -> np.ndarray:
    return np.array([limits.mixture_bound_moments(law, U, V, z)[1] for z in np.atleast_2d(Z)])
