"""Per-token moments of the unbiased-numerator statistic of the limit claims, under a token law.

For a query z with tilt a = U z, a claimed limit t (k values) and a fixed shift c, the claims'
Monte Carlo test averages X = e^{a^T z' - c} (V z' - t) over tokens z' ~ mu. Its mean and its
coordinatewise second moment follow from the law's tilt (E e^{b^T z'} g(z') = Z(b) E_b g, E_b the
tilted law at b):

    E X     = exp(log Z(a) - c)      (V mean_a - t),
    E X^2   = exp(log Z(2a) - 2c)    E_2a[(V z' - t)^2]                 (coordinatewise),

E_b[(V z' - t)^2] = diag(V Cov_b V^T) + (V mean_b - t)^2 being the emitted `output_second_moment`.
Per law (an algorithm over emitted kernels):

- Gaussian N(m, Gamma): log Z, mean_b = m + Gamma b and the second moment are the derived kernels.
- Gaussian mixture: linearity over the components, E[.] = sum_k pi_k E_k[.].
- iid Rademacher / uniform(-sqrt3, sqrt3) coordinates: log Z(b) = sum_j l(b_j), mean_b = l'(b),
  Cov_b = diag(l''(b)) with the emitted log-mgf, tilted-mean and curvature kernels; the second
  moment is then `output_second_moment` at zero tilt with that mean and covariance.

`moments` returns (E X, Var X), each (k,), from which the claims compute, before drawing any
prompt, the power of their studentised test against a wrong limit t.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from . import kernels
from .laws import GaussianLaw, MixtureLaw, RademacherLaw, UniformLaw

_PRODUCT = {
    "rademacher": (
        kernels.rademacher_log_mgf,
        kernels.rademacher_tilted_mean,
        kernels.rademacher_curvature,
    ),
    "uniform": (kernels.uniform_log_mgf, kernels.uniform_tilted_mean, kernels.uniform_curvature),
}


def _gaussian_terms(m, G, V, a, t):
    """(log Z(a), E_a[V z'], log Z(2a), E_2a[(V z' - t)^2]) for one Gaussian component."""
    col = a[:, None]
    log_z1 = float(kernels.gaussian_log_normaliser(m[:, None], G, col)[0, 0])
    log_z2 = float(kernels.gaussian_log_normaliser(m[:, None], G, 2 * col)[0, 0])
    mean1 = kernels.gaussian_limit(m[:, None], G, np.eye(len(m)), V, col)[:, 0]
    second = kernels.output_second_moment(m[:, None], G, V, 2 * col, t[:, None])[:, 0]
    return log_z1, mean1, log_z2, second


def moments(
    law, U: np.ndarray, V: np.ndarray, z: np.ndarray, t: np.ndarray, c: float
) -> tuple[np.ndarray, np.ndarray]:
    """(E X, Var X) per output coordinate for tokens from `law` (see the module docstring).
    Where float64 cannot hold them (log Z(2a) - 2c above ~709, or a tilt whose square overflows)
    they come out inf or NaN, without a warning: the callers treat a non-finite Var X as beyond
    their test's reach."""
    with np.errstate(over="ignore", invalid="ignore"):
        return _moments(law, U, V, z, t, c)


def _moments(law, U, V, z, t, c) -> tuple[np.ndarray, np.ndarray]:
    a, t = U @ np.asarray(z, dtype=float), np.asarray(t, dtype=float)
    if isinstance(law, GaussianLaw):
        log_z1, mean1, log_z2, second = _gaussian_terms(law.mean, law.cov, V, a, t)
        first = np.exp(log_z1 - c) * (mean1 - t)
        raw = np.exp(log_z2 - 2 * c) * second
    elif isinstance(law, MixtureLaw):
        terms = [_gaussian_terms(m, G, V, a, t) for m, G in zip(law.means, law.covs)]
        log_pi = np.log(law.weights)
        first = sum(np.exp(lp + tm[0] - c) * (tm[1] - t) for lp, tm in zip(log_pi, terms))
        raw = sum(np.exp(lp + tm[2] - 2 * c) * tm[3] for lp, tm in zip(log_pi, terms))
    elif isinstance(law, (RademacherLaw, UniformLaw)):
        log_mgf, tilted_mean, curvature = _PRODUCT[law.name]
        d = len(a)
        log_z1, log_z2 = float(np.sum(log_mgf(a))), float(np.sum(log_mgf(2 * a)))
        first = np.exp(log_z1 - c) * (V @ tilted_mean(a) - t)
        mean2, var2 = tilted_mean(2 * a), curvature(2 * a)
        second = kernels.output_second_moment(
            mean2[:, None], np.diag(var2), V, np.zeros((d, 1)), t[:, None]
        )[:, 0]
        raw = np.exp(log_z2 - 2 * c) * second
    else:
        raise ValueError(f"no numerator moments for token law {law!r}")
    return np.asarray(first, dtype=float), np.asarray(raw - first**2, dtype=float)


def mixture_log_normaliser(law: MixtureLaw, a: np.ndarray) -> float:
    """log E e^{a^T z'} of a mixture: logsumexp_k(log pi_k + log Z_k(a)) (linearity)."""
    return float(
        logsumexp(
            [
                np.log(w) + float(kernels.gaussian_log_normaliser(m[:, None], G, a[:, None])[0, 0])
                for w, m, G in zip(law.weights, law.means, law.covs)
            ]
        )
    )
