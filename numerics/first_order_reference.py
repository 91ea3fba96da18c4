"""tr C1(z), the first-order coefficient of a general token law, by brute force (an algorithm): the
independent route the emitted kernels of numerics/first_order.py are checked against.

For tokens z' from a law P and a query z, with a = U z, the weights w = e^{a^T z'} / E e^{a^T z'}
and the limit's mean m_a = E[w z'], the fixed-query error is, to first order,
(1/L) sum_i w_i V (z'_i - m_a) (the delta method on the self-normalised sum), so

    lim_L L E|T[mu_L](z) - T[mu](z)|^2 = tr C1(z) = E[w^2 |V (z' - m_a)|^2].

Nothing here uses the cumulant generating function Lambda, its gradient or its Hessian (the
closed form tr C1 = E w^2 [tr(V Hess Lambda(2a) V^T) + |V (grad Lambda(2a) - grad Lambda(a))|^2]
of derivations/fluctuations_product.py); the expectations are sums over a finite rule:

- Rademacher coordinates (z' = m + B x, x uniform on {-1, 1}^r): all 2^r sign patterns, exact;
- uniform coordinates of unit variance (x_j uniform on [-sqrt 3, sqrt 3]): the tensor
  Gauss-Legendre rule, NODES_UNIFORM per coordinate (e^{c x} on the interval: the rule's error
  falls like (e |c| sqrt 3 / (2 n))^(2 n), below 1e-15 for |c| <= 5);
- a Gaussian mixture: per component N(mu_k, G_k), the tensor Gauss-Hermite rule over its root,
  NODES_GAUSSIAN per coordinate (e^{c g} against the Gaussian: exact to the rule's degree in the
  Taylor series, below 1e-14 for |c| <= 3).

The mean m cancels in z' - m_a, and enters w only through a constant factor, so the sums run on
centred points (a product law's at m = 0, a mixture's about its overall mean): a spread far
below the mean (Gamma ~ 1e-25 about m ~ 0.5, a hunt draw) would otherwise lose its digits to
m + B x.
"""

from __future__ import annotations

import itertools

import numpy as np

from .quadrature import tensor_grid

NODES_UNIFORM = 40
NODES_GAUSSIAN = 40
MAX_POINTS = 2_000_000  # points of a rule, beyond which the route declines (`BeyondReach`)


class BeyondReach(ValueError):
    """The rule would need more than MAX_POINTS points (the rank is too large)."""


def _trace_c1(points: np.ndarray, weights: np.ndarray, a: np.ndarray, V: np.ndarray) -> float:
    """E[w^2 |V (z' - m_a)|^2] for z' on `points` (n, d) with probabilities `weights` (n,)."""
    s = points @ a
    ratio = np.exp(s - s.max())  # e^{a^T z'} up to a common factor
    ratio /= weights @ ratio  # w = e^{a^T z'} / E e^{a^T z'} at each point
    m_a = (weights * ratio) @ points
    dev = (points - m_a) @ V.T
    return float((weights * ratio * ratio) @ np.einsum("nk,nk->n", dev, dev))


def _check_size(nodes: int, r: int) -> None:
    if nodes**r > MAX_POINTS:
        raise BeyondReach(f"{nodes}^{r} points exceed {MAX_POINTS} (rank r = {r})")


def product_rule(kind: str, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Points x (n, r) and probabilities (n,) of the coordinates' law, `kind` 'rademacher' (exact)
    or 'uniform' (tensor Gauss-Legendre)."""
    if kind == "rademacher":
        _check_size(2, r)
        x = np.array(list(itertools.product((-1.0, 1.0), repeat=r))).reshape(-1, r)
        return x, np.full(len(x), 0.5**r)
    if kind == "uniform":
        _check_size(NODES_UNIFORM, r)
        t, p = np.polynomial.legendre.leggauss(NODES_UNIFORM)
        x1, p1 = np.sqrt(3.0) * t, p / 2.0
        grid = np.array(list(itertools.product(x1, repeat=r))).reshape(-1, r)
        prob = np.prod(np.array(list(itertools.product(p1, repeat=r))).reshape(-1, r), axis=1)
        return grid, prob
    raise ValueError(f"unknown product law {kind!r} (known: rademacher, uniform)")


def product_trace_c1(kind: str, mean, root, U, V, z) -> float:
    """tr C1(z) for z' = mean + root x, x iid `kind` of unit variance (module docstring)."""
    root = np.asarray(root, float)
    x, prob = product_rule(kind, root.shape[1])
    points = x @ root.T  # centred: the mean cancels (module docstring)
    return _trace_c1(
        points, prob, np.asarray(U, float) @ np.asarray(z, float), np.asarray(V, float)
    )


def mixture_trace_c1(weights, means, roots, U, V, z) -> float:
    """tr C1(z) for the Gaussian mixture sum_k weights_k N(means_k, roots_k roots_k^T)."""
    pts, probs = [], []
    centre = np.asarray(weights, float) @ np.asarray(means, float)  # the overall mean cancels
    for pi, mu, B in zip(weights, means, roots):
        B = np.asarray(B, float)
        offset = np.asarray(mu, float) - centre
        if B.shape[1] == 0:
            pts.append(offset[None, :]), probs.append(np.array([float(pi)]))
            continue
        _check_size(NODES_GAUSSIAN, B.shape[1])
        g, w = tensor_grid(NODES_GAUSSIAN, B.shape[1])
        pts.append(offset + g @ B.T), probs.append(float(pi) * w)
    a = np.asarray(U, float) @ np.asarray(z, float)
    return _trace_c1(np.concatenate(pts), np.concatenate(probs), a, np.asarray(V, float))
