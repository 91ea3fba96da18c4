"""The Gaussian formula of Lemma 2.1 as a claimed limit of the limit battery
(shared/limit_battery.py, `Subject`): lemma-2.1 judges it on Gaussian tokens and against its
slips; mixture judges it on mixture tokens as a negative control (the affine formula with the
mixture's mean and covariance, which a non-linear limit must refute).

For mu = N(m, Gamma) the claimed limit is T[mu](z) = V (m + Gamma U z), its 40-digit form the same
formula in exact rationals (shared/rationals.py), its bound moments those of the tilted law
N(m + Gamma U z, Gamma) (numerics/limits.py), its log-normaliser log Z(U z) =
m^T U z + (U z)^T Gamma (U z) / 2 (the emitted kernel).
"""

from __future__ import annotations

from ...numerics import kernels, limits, numerator_moments
from ...numerics.laws import GaussianLaw
from . import rationals as exact
from .limit_battery import Subject, gaussian_rounding
from .references import reference_routes


def gaussian_subject(label: str, law, m, cov, U, V, kernel=None, slip=None) -> Subject:
    """Claimed limit: the Gaussian formula for N(m, cov), tested against tokens drawn from `law`.

    `kernel` replaces the emitted kernel (sensitivity tests inject plausible wrong formulas);
    `slip = (m', Gamma', U')` evaluates the derived formula, kernel and 40-digit form alike,
    at wrong parameters (a control: the slip's limit is V (m' + Gamma' U' z), the tokens still
    from `law`)."""
    claimed_law = GaussianLaw(m, cov)
    fm, fcov, fU = slip if slip is not None else (m, cov, U)
    kernel = kernel or (lambda Z: limits.gaussian_limit(fm, fcov, fU, V, Z))
    ref_mp, ref_float, name = reference_routes(law, U, V)
    return Subject(
        label=label,
        law=law,
        claimed_kernel=kernel,
        claimed_exact=lambda z: exact.gaussian_limit(fm, fcov, fU, V, z),
        claimed_moments=lambda z: limits.gaussian_bound_moments(claimed_law, U, V, z),
        claimed_log_normaliser=lambda z: float(
            kernels.gaussian_log_normaliser(m[:, None], cov, (U @ z)[:, None])[0, 0]
        ),
        reference_mp=ref_mp,
        reference_float=ref_float,
        reference_name=name,
        numerator_moments=lambda z, t, c: numerator_moments.moments(law, U, V, z, t, c),
        kernel_rounding=gaussian_rounding(fm, fcov, fU, V),
    )
