"""Averages over Gaussian queries z ~ nu = N(0, Sigma_q): the threshold eigenvalue,
importance-sampled query draws, and deterministic rules (a half-line trapezoid rule for a rank-one
query law, tensor Gauss-Hermite for rank <= 3).

Algorithms, not formulas (docs/design.md, "Layers"): every integrand they average comes from the
emitted kernels or from numerics/selfnormalised.py. The one number of the mathematics here is the
threshold lambda = lambda_max(Sigma_q^{1/2} U^T Gamma U Sigma_q^{1/2}): E_nu e^{(U z)^T Gamma (U z)}
is finite iff lambda < 1/2 (docs/paper.md, section 3). Tests:
tests/numerics/test_prop31_selfnormalised.py (Gauss-Hermite against Monte Carlo and closed forms,
the draws' weights unbiased).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def whitened_spectrum(Gamma, U, Sigma_q) -> np.ndarray:
    """Eigenvalues of M Sigma_q (M = U^T Gamma U), i.e. of S^T M S: real, >= 0, descending."""
    S = _root(Sigma_q)
    K = S.T @ U.T @ Gamma @ U @ S
    return np.sort(np.clip(np.linalg.eigvalsh((K + K.T) / 2), 0.0, None))[::-1]


def threshold_lambda(Gamma, U, Sigma_q) -> float:
    """lambda = lambda_max(Sigma_q^{1/2} U^T Gamma U Sigma_q^{1/2})
    = lambda_max(U^T Gamma U Sigma_q): the query average of e^{(U z)^T Gamma (U z)},
    z ~ N(0, Sigma_q), is finite iff lambda < 1/2. The one home of this number
    (prop-3.1, prop-3.4, asm-3.3, and the ICL tables with Gamma = Sigma_q = Sigma,
    U = A). Sigma_q = 0 (a point-mass query law: no direction to tilt) has an empty whitened
    spectrum: lambda = 0."""
    spectrum = whitened_spectrum(Gamma, U, Sigma_q)
    return float(spectrum[0]) if spectrum.size else 0.0


def _root(Sigma_q) -> np.ndarray:
    from .laws import psd_root

    return psd_root(np.asarray(Sigma_q, dtype=float))


def proposal_scale(lam: float, ell_max: float) -> float:
    """Variance inflation c of the query proposal N(0, c Sigma_q) for an L2(nu) average dominated by
    the queries with q = x* ln L (derivations/fluctuations.py): c = 1 when the plain average has a
    finite variance (lambda < 1/4), 1/(1 - 2 lambda) below the threshold, and ~ x* ln L / lambda at
    and above it (capped to [1, 16]). Any c >= 1 gives an unbiased, finite-variance estimate; c only
    moves where the queries are spent."""
    if lam < 0.25:
        return 1.0
    if lam < 0.5:
        return float(min(16.0, 1.0 / (1.0 - 2.0 * lam)))
    x_star = 2.0 * math.sqrt(max(lam, 0.5) / (max(lam, 0.5) + 4.0))
    return float(min(16.0, max(2.0, x_star * ell_max / lam)))


@dataclass
class QuerySample:
    """Queries z = S g, g ~ N(0, c I_r), with importance weights d nu / d nu' (mean 1 under nu')."""

    Z: np.ndarray
    weights: np.ndarray
    scale: float


def draw_queries(
    rng: np.random.Generator, Sigma_q, shape: tuple[int, ...], scale: float = 1.0
) -> QuerySample:
    """`shape` queries from N(0, scale Sigma_q) with weights
    phi(g) / phi_c(g) = c^{r/2} e^{-|g|^2 (1 - 1/c) / 2}."""
    if not (scale >= 1.0 and math.isfinite(scale)):
        raise ValueError(f"proposal scale = {scale!r} must be a finite number >= 1")
    S = _root(Sigma_q)
    r = S.shape[1]
    g = rng.standard_normal(tuple(shape) + (r,)) * math.sqrt(scale)
    Z = g @ S.T
    sq = np.sum(g * g, axis=-1)
    weights = scale ** (r / 2) * np.exp(-sq * (1.0 - 1.0 / scale) / 2)
    return QuerySample(Z, weights, scale)


def half_line_rule(lam: float, L: int, kappa: float, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes g >= 0 and log weights of the trapezoid rule for E_g f(g), g ~ N(0, 1), f even: the
    density doubled on the half line, the end node at g = 0 halved, up to q = lam g^2 = 2 lam
    (kappa ln L + 30) (the Gaussian weight beyond is below e^-30 L^-kappa)."""
    if not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lambda = {lam!r} must be a finite number > 0")
    q_max = 2 * lam * (kappa * math.log(L) + 30.0)
    gs = np.arange(0.0, math.sqrt(q_max / lam) + step, step)
    log_w = -(gs**2) / 2 + math.log(math.sqrt(2 / math.pi) * step)
    log_w[0] -= math.log(2.0)
    return gs, log_w


def gauss_hermite_average(
    fn, Sigma_q, scale: float = 1.0, nodes: int = 40, tilt=None, log_fn=None
) -> float:
    """E_{z ~ N(0, Sigma_q)} fn(Z) by tensor Gauss-Hermite in whitened coordinates
    (z = S g, rank(Sigma_q) <= 3), with nodes for N(0, c_j) along each direction j and the weight
    ratio phi(g_j) / phi_{c_j}(g_j) = c_j^{1/2} e^{-g_j^2 (1 - 1/c_j) / 2} folded into the
    integrand.

    Without `tilt`, every direction has c_j = `scale`. With `tilt = M`
    (fn(z) = e^{z^T M z} poly(z), as the first-order kernels are, M = U^T Gamma U), the rule works
    in the eigenbasis of K = S^T M S, eigenvalues lambda_j < 1/2, with
    c_j = 1/(1 - 2 lambda_j) (1 where lambda_j <= 0): the folded integrand is then exactly poly(z)
    along every direction, so the rule is exact for a polynomial of degree < 2 nodes, however close
    lambda_max is to 1/2 (one common scale resolves only the top direction). Returns inf when
    lambda_max >= 1/2 (the integral diverges). `fn` maps (n, d) -> (n,); for a positive integrand
    whose factors over- and underflow separately near the threshold, pass `log_fn` (its logarithm)
    instead, and fn = None: the fold is then done in logarithms."""
    from .quadrature import tensor_grid

    S = _root(Sigma_q)
    r = S.shape[1]
    if r > 3:
        raise ValueError(f"Gauss-Hermite query average supports rank(query_cov) <= 3, got {r}")
    if r == 0:  # Sigma_q = 0: the average is the integrand at z = 0 (given as fn or as log_fn)
        zero = np.zeros((1, S.shape[0]))
        return float(fn(zero)[0]) if fn is not None else float(np.exp(log_fn(zero)[0]))
    if tilt is None:
        R, scales = S, np.full(r, float(scale))
    else:
        if log_fn is None:  # near the threshold e^{z^T M z} overflows at nodes that carry real mass
            raise ValueError("gauss_hermite_average with `tilt` needs the integrand as `log_fn`")
        K = S.T @ np.asarray(tilt, dtype=float) @ S
        lam, Q = np.linalg.eigh((K + K.T) / 2)
        if lam.max() >= 0.5:
            return math.inf
        R, scales = S @ Q, 1.0 / (1.0 - 2.0 * np.clip(lam, 0.0, None))
    grid, weights = tensor_grid(nodes, r)
    grid = grid * np.sqrt(scales)
    log_ratio = np.sum(0.5 * np.log(scales) - grid * grid * (1.0 - 1.0 / scales) / 2, axis=1)
    node_weight = weights * np.exp(log_ratio)
    if log_fn is not None:
        return float(np.sum(weights * np.exp(log_ratio + log_fn(grid @ R.T))))
    with np.errstate(over="ignore", invalid="ignore"):
        values = fn(grid @ R.T)
        # The two factors of the folded integrand can under- and overflow separately at outer nodes
        # (e^{-1600} times e^{+1600}), where the product is bounded by the polynomial part times a
        # node weight below 1e-300: those nodes contribute 0, not 0 * inf = nan. A value that is
        # infinite at a node of positive weight is a divergent integral and stays inf.
        terms = np.where(node_weight > 0, node_weight * values, 0.0)
    return float(np.sum(terms))
