"""Independent routes to the true limit of a token law (what the claimed formulas are judged by).

Gaussian and mixture laws: mpmath 1-D quadrature at 40 digits and tensor Gauss-Hermite in float64
(numerics/quadrature.py). Rademacher and uniform controls: exact coordinatewise limits (two-point
sum / mpmath quadrature at 40 digits, and the closed forms derived in derivations/controls.py).
"""

from __future__ import annotations

from ...numerics import limits, quadrature
from ...numerics.laws import GaussianLaw, MixtureLaw, RademacherLaw, UniformLaw


def reference_routes(law, U, V):
    """(mp route z -> k values, float route Z -> (n, k), description)."""
    if isinstance(law, GaussianLaw):
        return (
            lambda z: quadrature.gaussian_limit_mp(law.mean, law.cov, U, V, z),
            lambda Z: quadrature.gauss_hermite_limit(law, U, V, Z),
            "quadrature of the Gaussian law (1-D mpmath / tensor Gauss-Hermite)",
        )
    if isinstance(law, MixtureLaw):
        return (
            lambda z: quadrature.mixture_limit_mp(law, U, V, z),
            lambda Z: quadrature.mixture_gauss_hermite_limit(law, U, V, Z),
            "quadrature of the mixture law (1-D mpmath / tensor Gauss-Hermite)",
        )
    if isinstance(law, RademacherLaw):
        return (
            lambda z: quadrature.product_law_limit_mp("rademacher", U, V, z),
            lambda Z: limits.rademacher_limit(U, V, Z),
            "exact Rademacher limit V tanh(U z)",
        )
    if isinstance(law, UniformLaw):
        return (
            lambda z: quadrature.product_law_limit_mp("uniform", U, V, z),
            lambda Z: limits.uniform_limit(U, V, Z),
            "exact uniform limit V (sqrt3 coth(sqrt3 U z) - 1/(U z))",
        )
    raise ValueError(f"no reference route for token law {law!r}")
