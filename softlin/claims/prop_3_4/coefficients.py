"""prop-3.4's exact first-order (1/L) coefficients of both gradient errors, per query and averaged
over the query law nu = N(0, Sigma_q).

Per query (the emitted kernels of derivations/fluctuations.py and gradient_fluctuations.py):
lim L E||grad_V err||^2 = k e^q (tr Gamma + |Gamma U z|^2) and
lim L E||grad_U err||^2 = |z|^2 e^q F(Gamma U z), q = (U z)^T Gamma (U z). Averaged over nu, the
closed forms of derivations/gradient_fluctuations.py (finite iff lambda < 1/2), checked against a
quadrature or an importance-sampled Monte Carlo of the per-query coefficients.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from ...derivations import gradient_fluctuations as gf
from ...numerics import kernels, query_average, significance
from ...numerics.laws import psd_root
from ...judge import kinds as judge
from ...judge import levels
from ...judge.check import check_false_alarm
from ...core.findings import Findings
from .jacobians import rational_matrix


def per_query_polynomials(Z, U, V, cov):
    """The polynomial factors k (tr Gamma + |Gamma U z|^2) and |z|^2 F(Gamma U z) of the per-query
    1/L coefficients, for the rows of Z, from the emitted kernels (derivations/fluctuations.py with
    V = I for the first factor, derivations/gradient_fluctuations.py for F)."""
    d, k = cov.shape[0], V.shape[0]
    return (
        k * kernels.first_order_numerator(cov, np.eye(d), U, Z.T)[0],
        np.sum(Z * Z, axis=1) * kernels.gradient_U_fourth_moment(cov, V, U, Z.T)[0],
    )


def per_query_coefficients(Z, U, V, cov):
    """Exact per-query 1/L coefficients k e^q (tr Gamma + |Gamma U z|^2) and |z|^2 e^q F(Gamma U z),
    q = (U z)^T Gamma (U z) (the emitted log weight), for the rows of Z."""
    e_q = np.exp(kernels.first_order_log_weight(cov, U, Z.T)[0])
    return tuple(e_q * p for p in per_query_polynomials(Z, U, V, cov))


def query_average_checks(first_V, first_U, cov, U, V, Sq, lam, rng, budget, z_crit) -> Findings:
    """The closed-form first-order coefficients (det/trace) against the query average of the
    per-query coefficients, for every lambda. At and above the threshold both are infinite. Below
    it, with M = U^T Gamma U, the per-query coefficient is e^{z^T M z} poly(z): tensor Gauss-Hermite
    with the tilt folded in is exact for rank(Sigma_q) <= 3; otherwise importance sampling from
    N(0, Sigma_q / (1 - 2 lambda)), under which the weighted coefficient has every moment finite
    for lambda < 1/2 (the plain draw from nu has no fourth moment once lambda >= 1/8, so its z-test
    would not be sound)."""
    if first_V is None or first_U is None:
        return Findings(
            [
                judge.verdict(
                    "query average: first-order coefficients are infinite: "
                    "lambda_max(U^T Gamma U Sigma_q) >= 1/2",
                    "quadrature",
                    id="average/coefficients-infinite",
                    unit="norm",
                    value=lam,
                    bound=0.5 - 1e-12,
                    rule="value >= bound",
                    detail="the Gaussian integral E exp(z^T U^T Gamma U z) diverges exactly when "
                    "lambda >= 1/2; bound 1/2 less 1e-12 for the rounding of lambda",
                )
            ]
        )
    tilt = U.T @ cov @ U
    if psd_root(Sq).shape[1] <= 3:
        checks = []
        for i, (key, coef) in enumerate((("V", first_V), ("U", first_U))):

            def log_fn(Z, i=i):  # log of e^q poly_i(z), folded in logarithms near the threshold
                with np.errstate(divide="ignore"):
                    return (
                        np.log(per_query_polynomials(Z, U, V, cov)[i])
                        + kernels.first_order_log_weight(cov, U, Z.T)[0]
                    )

            gh = query_average.gauss_hermite_average(None, Sq, nodes=40, tilt=tilt, log_fn=log_fn)
            rel = abs(gh - coef) / abs(coef) if coef else abs(gh)  # Gamma = 0: both vanish
            checks.append(
                judge.agreement(
                    f"query average: exact lim L E||grad_{key} err||^2_(L2(nu)) vs Gauss-Hermite "
                    "over nu",
                    "quadrature",
                    id=f"average/grad-{key.lower()}-quadrature",
                    error=rel,
                    tolerance=1e-10,
                    detail=f"closed form {coef:.12g}, quadrature {gh:.12g} "
                    "(40 nodes per eigendirection of the whitened tilt, scale 1/(1 - 2 lambda_j): "
                    "exact for the folded polynomial)",
                )
            )
        return Findings(checks)
    n_q = budget.coefficient_queries
    scale = 1.0 / (1.0 - 2.0 * lam) if lam > 0 else 1.0
    sample = query_average.draw_queries(rng, Sq, (n_q,), scale)
    checks = []
    for key, coef, y in zip(
        ("V", "U"), (first_V, first_U), per_query_coefficients(sample.Z, U, V, cov)
    ):
        vals = sample.weights * y
        se = float(vals.std(ddof=1) / math.sqrt(vals.size))
        zval = abs(vals.mean() - coef) / (vals.std(ddof=1) / math.sqrt(vals.size))
        checks.append(
            judge.z_test(
                f"query average: exact lim L E||grad_{key} err||^2_(L2(nu)) vs Monte Carlo "
                "over queries",
                id=f"average/grad-{key.lower()}-montecarlo",
                z=float(zval),
                alpha=check_false_alarm(),
                assumption=levels.NORMAL_MEAN,
                detail=f"{n_q} queries from N(0, {scale:.4g} Sigma_q), importance-weighted, each "
                f"with its exact per-query coefficient: Monte Carlo {float(vals.mean()):.8g} +- "
                f"{se:.3g} against the closed form {coef:.8g}",
                detectable=significance.resolution(coef, se, z_crit),
            )
        )
    return Findings(checks)


def averaged_first_order(G, U, V, Sq) -> tuple:
    """(lim L E||grad_V err||^2_(L2(nu)), the same for grad_U), exact
    (derivations/gradient_fluctuations.py); None at and above the threshold, where they are
    infinite."""
    coefs = gf.query_averaged_coefficients(
        rational_matrix(G), rational_matrix(U), rational_matrix(V), rational_matrix(Sq)
    )
    return tuple(None if c == sp.oo else float(c) for c in coefs)
