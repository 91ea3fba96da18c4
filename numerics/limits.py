"""Infinite-prompt limits T[mu](z) and the bound moments, in float64, from the emitted kernels.

Row convention here: queries Z have shape (n, d) and outputs (n, k); the kernels use columns.

Mixtures are an algorithm over the per-component kernels, not a formula of their own: by linearity
of the expectation, E_mu[f] = sum_k pi_k E_k[f] for mu = sum_k pi_k N(m_k, Gamma_k), so every
mixture quantity below is a pi-weighted sum of emitted component expressions, normalised in
log space (scipy.special.softmax / logsumexp subtract the largest logit). Tested against tensor
Gauss-Hermite quadrature of the mixture and against 40-digit mpmath quadrature (tests/numerics).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp, softmax

from . import kernels
from .laws import GaussianLaw, MixtureLaw


def gaussian_limit(
    m: np.ndarray, cov: np.ndarray, U: np.ndarray, V: np.ndarray, Z: np.ndarray
) -> np.ndarray:
    """Lemma 2.1: V (m + Gamma U z) for each row z of Z."""
    Z = np.atleast_2d(Z)
    return kernels.gaussian_limit(m[:, None], cov, U, V, Z.T).T


def mixture_limits_and_weights(law: MixtureLaw, U: np.ndarray, V: np.ndarray, Z: np.ndarray):
    """(alpha (K, n), component limits (K, n, k)): alpha = softmax_k of the emitted component logits
    log pi_k + m_k^T U z + (U z)^T Gamma_k (U z) / 2, the component limits V (m_k + Gamma_k U z)."""
    Z = np.atleast_2d(Z)
    logits = np.concatenate(
        [
            kernels.mixture_component_logit(lp, m[:, None], G, U, Z.T)
            for lp, m, G in zip(np.log(law.weights), law.means, law.covs)
        ],
        axis=0,
    )
    parts = np.stack(
        [kernels.gaussian_limit(m[:, None], G, U, V, Z.T).T for m, G in zip(law.means, law.covs)]
    )
    return softmax(logits, axis=0), parts


def mixture_limit(law: MixtureLaw, U: np.ndarray, V: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """T[mu](z) = sum_k alpha_k(z) V (m_k + Gamma_k U z) (the tilted mixture is the mixture of the
    tilted components with weights pi_k Z_k(a) / Z(a))."""
    alpha, parts = mixture_limits_and_weights(law, U, V, Z)
    return np.einsum("kn,knj->nj", alpha, parts)


def rademacher_limit(U: np.ndarray, V: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Exact limit for iid Rademacher coordinates: V tanh(U z)."""
    Z = np.atleast_2d(Z)
    return (V @ kernels.rademacher_tilted_mean(U @ Z.T)).T


def uniform_limit(U: np.ndarray, V: np.ndarray, Z: np.ndarray) -> np.ndarray:
    """Exact limit for iid uniform(-sqrt3, sqrt3) coordinates: V f(U z),
    f(a) = sqrt3 coth(sqrt3 a) - 1/a."""
    Z = np.atleast_2d(Z)
    return (V @ kernels.uniform_tilted_mean(U @ Z.T)).T


def gaussian_bound_moments(
    law: GaussianLaw, U: np.ndarray, V: np.ndarray, z: np.ndarray
) -> tuple[float, float]:
    """(E w^2, E w^2 ||V(z' - mu_a)||^2) at a = U z for Gaussian tokens
    (see derivations/concentration)."""
    a = (U @ z)[:, None]
    # E w^2 = e^{a^T Gamma a} overflows float64 for a^T Gamma a > ~709: inf, which makes the
    # deviation bound vacuous (its check says so), so the overflow is expected and not warned.
    with np.errstate(over="ignore", invalid="ignore"):
        log_w2 = float(kernels.log_weight_second_moment(law.cov, a)[0, 0])
        factor = float(kernels.numerator_second_moment_factor(law.cov, V, a)[0, 0])
        return float(np.exp(log_w2)), float(np.exp(log_w2) * factor)


def mixture_bound_moments(
    law: MixtureLaw, U: np.ndarray, V: np.ndarray, z: np.ndarray
) -> tuple[float, float]:
    """The same two moments for a Gaussian mixture (derivations/mixture.py, `bound_moment_proofs`):
    E w^2 = sum_k pi_k Z_k(2a) / Z(a)^2 and
    E w^2 ||V(z'-mu_a)||^2 = sum_k pi_k Z_k(2a) c_k / Z(a)^2, with the logits log pi_k + log Z_k(a),
    log pi_k + log Z_k(2a) and the factors c_k (the k-th component's centred second moment at tilt
    2a about mu_a) the emitted kernels; the sums over k are taken in log space (module
    docstring)."""
    zc = np.asarray(z, dtype=float)[:, None]
    comps = list(zip(np.log(law.weights), law.means, law.covs))
    logZ1 = np.array(
        [
            float(kernels.mixture_component_logit(lp, m[:, None], G, U, zc)[0, 0])
            for lp, m, G in comps
        ]
    )
    logZ2 = np.array(
        [
            float(kernels.mixture_component_second_logit(lp, m[:, None], G, U, zc)[0, 0])
            for lp, m, G in comps
        ]
    )
    log_norm = logsumexp(logZ1)
    mu = mixture_limit(law, U, np.eye(law.d), zc.T)[0][:, None]  # tilted mean, V = I
    centred = np.array(
        [
            float(kernels.mixture_component_second_centred(m[:, None], G, V, U, zc, mu)[0, 0])
            for _, m, G in comps
        ]
    )
    # inf where float64 overflows (as gaussian_bound_moments): a vacuous bound, said by its check
    with np.errstate(over="ignore", invalid="ignore"):
        w2 = float(np.exp(logsumexp(logZ2) - 2 * log_norm))
        num = float(np.sum(np.exp(logZ2 - 2 * log_norm) * centred))
    return w2, num
