"""Independent routes to T[mu](z): high-precision mpmath quadrature and tensor Gauss-Hermite.

mpmath route (any d, Gaussian and mixture): with z' = m + B g and a = U z, rotate g so that B^T a
lies along the first axis (g is rotation invariant); only that coordinate feels the tilt, so

    E[e^{a^T z'} z'] / E[e^{a^T z'}] = m + Gamma a * r(t) / t,   t = sqrt(a^T Gamma a),
    r(t) = int g e^{t g} phi(g) dg / int e^{t g} phi(g) dg   (two 1-D integrals, by mpmath.quad).

This uses only rotation invariance, not the lemma (which says r(t) = t). In d = 1 it is the direct
integral. Working precision: `dps` digits (default 40), so agreement to 1e-25 is meaningful.

Gauss-Hermite route (rank(Gamma) <= 3, float64): probabilists' Hermite nodes in each of the r
directions of B (B B^T = Gamma), weights exp(a^T z') shifted by their maximum. With n nodes the
rule is exact for polynomials of degree 2n - 1; exp(t g) is entire, and its truncation error decays
like t^{2n} / (2n)!, below 1e-16 for n = 60 and |t| <= 6.

`gauss_hermite` and `tensor_grid` are the one home of that rule for every Gauss-Hermite
quadrature in softlin (E f(g), g ~ N(0, I_dim)).
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from .laws import GaussianLaw, MixtureLaw, psd_root

DEFAULT_DPS = 40
DEFAULT_NODES = 60


def gauss_hermite(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes x and weights w with sum_i w_i f(x_i) ~ E f(g), g ~ N(0, 1): probabilists' Hermite
    (weight e^{-x^2/2}), the weights divided by int e^{-x^2/2} dx = sqrt(2 pi), so they sum to 1 up
    to rounding; exact for polynomials of degree <= 2 nodes - 1."""
    x, w = hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    return x, w


def tensor_grid(nodes: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The product rule of `gauss_hermite` over g ~ N(0, I_dim): points (nodes^dim, dim) in
    itertools.product order (last coordinate fastest) and weights (nodes^dim,), each the product of
    its coordinates' weights taken left to right."""
    x, w = gauss_hermite(nodes)
    points = np.array(list(itertools.product(x, repeat=dim)))
    weights = np.prod(np.array(list(itertools.product(w, repeat=dim))), axis=1)
    return points, weights


def _mp_matrix(x) -> mp.matrix:
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return mp.matrix([[mp.mpf(float(v)) for v in row] for row in arr])


def _tilt_integrals(t: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """(int e^{t g} phi, int g e^{t g} phi) by quadrature, split at the tilted mode t."""
    phi = lambda g: mp.exp(t * g - g * g / 2) / mp.sqrt(2 * mp.pi)
    points = [-mp.inf, t, mp.inf]
    return mp.quad(phi, points), mp.quad(lambda g: g * phi(g), points)


def _component_terms(m, G, a) -> tuple[mp.mpf, mp.matrix]:
    """(log E e^{a^T z'} as computed by quadrature, E[z' e^{a^T z'}] / E e^{a^T z'}) for N(m, G)."""
    Ga = G * a
    t2 = (a.T * Ga)[0, 0]
    shift = (a.T * m)[0, 0]
    if t2 <= 0:
        return shift, m
    t = mp.sqrt(t2)
    I0, I1 = _tilt_integrals(t)
    return shift + mp.log(I0), m + Ga * (I1 / I0 / t)


def gaussian_limit_mp(m, cov, U, V, z, dps: int = DEFAULT_DPS) -> list:
    """T[N(m, cov)](z) by 1-D quadrature at `dps` digits: a list of k mpf values."""
    with mp.workdps(dps):
        mm, G, Um, Vm, zm = (
            _mp_matrix(np.reshape(m, (-1, 1))),
            _mp_matrix(cov),
            _mp_matrix(U),
            _mp_matrix(V),
            _mp_matrix(np.reshape(z, (-1, 1))),
        )
        _, mean = _component_terms(mm, G, Um * zm)
        out = Vm * mean
        return [out[i, 0] for i in range(out.rows)]


def mixture_limit_mp(law: MixtureLaw, U, V, z, dps: int = DEFAULT_DPS) -> list:
    with mp.workdps(dps):
        Um, Vm, zm = _mp_matrix(U), _mp_matrix(V), _mp_matrix(np.reshape(z, (-1, 1)))
        a = Um * zm
        logs, means = [], []
        for w, m, G in zip(law.weights, law.means, law.covs):
            log_norm, mean = _component_terms(_mp_matrix(np.reshape(m, (-1, 1))), _mp_matrix(G), a)
            logs.append(mp.log(mp.mpf(float(w))) + log_norm)
            means.append(mean)
        top = max(logs)
        weights = [mp.exp(l - top) for l in logs]
        total = mp.fsum(weights)
        mean = sum(
            (mean * (w / total) for w, mean in zip(weights[1:], means[1:])),
            means[0] * (weights[0] / total),
        )
        out = Vm * mean
        return [out[i, 0] for i in range(out.rows)]


def product_law_limit_mp(kind: str, U, V, z, dps: int = DEFAULT_DPS) -> list:
    """Exact limits of the iid controls, coordinate by coordinate: Rademacher by the two-point sum,
    uniform(-sqrt3, sqrt3) by mpmath quadrature."""
    with mp.workdps(dps):
        Um, Vm, zm = _mp_matrix(U), _mp_matrix(V), _mp_matrix(np.reshape(z, (-1, 1)))
        a = Um * zm
        f = mp.matrix(a.rows, 1)
        for j in range(a.rows):
            aj = a[j, 0]
            if kind == "rademacher":
                f[j, 0] = (mp.exp(aj) - mp.exp(-aj)) / (mp.exp(aj) + mp.exp(-aj))
            elif kind == "uniform":
                c = mp.sqrt(3)
                f[j, 0] = mp.quad(lambda x: x * mp.exp(aj * x), [-c, c]) / mp.quad(
                    lambda x: mp.exp(aj * x), [-c, c]
                )
            else:
                raise ValueError(f"unknown product law {kind!r}")
        out = Vm * f
        return [out[i, 0] for i in range(out.rows)]


def _gauss_hermite_terms(m: np.ndarray, root: np.ndarray, A: np.ndarray, nodes: int):
    """For tilts A (n, d): log E e^{a^T z'} and the tilted mean (n, d) by tensor Gauss-Hermite."""
    r = root.shape[1]
    if r > 3:
        raise ValueError(f"the Gauss-Hermite route supports rank(Gamma) <= 3, got rank {r}")
    if r == 0:
        return A @ m, np.broadcast_to(m, A.shape).copy()
    grid, w = tensor_grid(nodes, r)  # (N, r), (N,)
    log_w = np.log(w)
    points = m + grid @ root.T  # (N, d)
    logits = A @ points.T + log_w  # (n, N)
    top = logits.max(axis=1, keepdims=True)
    weights = np.exp(logits - top)
    total = weights.sum(axis=1, keepdims=True)
    return (np.log(total) + top)[:, 0], (weights @ points) / total


def gauss_hermite_limit(law: GaussianLaw, U, V, Z, nodes: int = DEFAULT_NODES) -> np.ndarray:
    """T[N(m, Gamma)](z) for rows z of Z (n, d), by tensor Gauss-Hermite. Returns (n, k)."""
    Z = np.atleast_2d(Z)
    _, mean = _gauss_hermite_terms(law.mean, law.root, Z @ U.T, nodes)
    return mean @ V.T


def mixture_gauss_hermite_limit(law: MixtureLaw, U, V, Z, nodes: int = DEFAULT_NODES) -> np.ndarray:
    Z = np.atleast_2d(Z)
    A = Z @ U.T
    logs, means = [], []
    for w, m, G in zip(law.weights, law.means, law.covs):
        log_norm, mean = _gauss_hermite_terms(m, psd_root(G), A, nodes)
        logs.append(np.log(w) + log_norm)
        means.append(mean)
    logs = np.array(logs)  # (K, n)
    weights = np.exp(logs - logs.max(axis=0))
    weights /= weights.sum(axis=0)
    return np.einsum("kn,knd->nd", weights, np.array(means)) @ V.T
