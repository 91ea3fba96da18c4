"""prop-3.1 beyond Gaussian tokens: Rademacher, uniform and a two-component Gaussian
mixture with the scenario's mean and covariance. The decay of the L2(nu) error is
measured, and L x error is compared with the general-law first order E_nu tr C1(z),
tr C1 = E w^2 [tr(V Hess Lambda(2a) V^T) + |V (grad Lambda(2a) - grad Lambda(a))|^2]
(derivations/fluctuations_product.py, numerics/first_order.py). Those emitted kernels are checked at
fixed queries against a brute-force route that never uses Lambda (`kernel_checks`,
numerics/first_order_reference.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...numerics import (
    first_order,
    first_order_reference,
    fits,
    kernels,
    limits,
    montecarlo,
    query_average,
    significance,
)
from ...numerics.fits import linear_fit
from ...numerics.laws import MixtureLaw, RademacherLaw, UniformLaw, psd_root
from ...judge import kinds as judge, levels
from ...judge.check import check_false_alarm
from ...core.findings import Findings
from ..shared.exponents import remainder_exponent
from ...core.progress import sweep


@dataclass
class Law:
    """An affine image m + B x of a product law (x iid Rademacher or uniform with unit variance)."""

    base: object
    mean: np.ndarray
    root: np.ndarray
    name: str

    def sample(self, rng, shape):
        return self.mean + self.base.sample(rng, shape) @ self.root.T


def product_limit(kind, mean, root, U, V):
    """Z -> rows T[mu](z) = V (m + B l'(B^T U z)), the emitted product-law limit (B = root)."""
    f = kernels.rademacher_affine_limit if kind == "rademacher" else kernels.uniform_affine_limit
    return lambda Z: f(mean[:, None], root, U, V, np.atleast_2d(Z).T).T


def _law_coefficient(trace_fn, Sq, rng, n_draws: int) -> tuple[float, float, str]:
    """E_nu tr C1(z): tensor Gauss-Hermite (40 nodes per direction) when rank(Sigma_q) <= 2, else
    the mean over n_draws query draws (with its standard error)."""
    r = psd_root(Sq).shape[1]
    if r <= 2:
        return (
            query_average.gauss_hermite_average(trace_fn, Sq, 1.0, 40),
            0.0,
            "Gauss-Hermite over nu",
        )
    Z = query_average.draw_queries(rng, Sq, (n_draws,), 1.0).Z
    v = trace_fn(Z)
    return (
        float(v.mean()),
        float(v.std(ddof=1) / math.sqrt(v.size)),
        f"mean over {n_draws} query draws",
    )


def intercept_fit(Ls, values, stderrs) -> tuple[float, float, float]:
    """Weighted least squares of L x MSE = C + C'/L: (C, its standard error, chi2). The O(1/L^2)
    term is neglected (the chi2 against its degrees of freedom reports whether the model fits)."""
    L = np.asarray(Ls, dtype=float)
    fit = linear_fit(
        np.column_stack([np.ones_like(L), 1.0 / L]), L * np.asarray(values), L * np.asarray(stderrs)
    )
    return float(fit.coef[0]), float(math.sqrt(fit.cov[0, 0])), fit.chi2


# The kernels' tr C1 against the brute-force route: both are float64 sums of a few terms (the
# reference's rules err below 1e-14 at tilts |B^T a|_inf <= KERNEL_TILT_CAP). Measured: 8e-15 on
# the built-in scenario, 2.2e-9 for the mixture at a hunt draw with Gamma ~ 1e-25 and U ~ 1e12
# (its components' covariances Gamma - o o^T lose digits in floats); the slips it is there for move
# it by 1e-1 to 1e2 (catalogue margins 5e8 to 1e9 against 1e-9), so 1e-6 keeps five orders.
KERNEL_TOLERANCE = 1e-6
KERNEL_TILT_CAP = 2.5


def kernel_queries(Sq: np.ndarray, U: np.ndarray, root: np.ndarray) -> np.ndarray:
    """Queries at which tr C1 is checked: the principal axes of Sigma_q at one and three standard
    deviations (the tilt a = U z then far from symmetric in U, so a transposed U moves tr C1 by
    tens of per cent), each scaled down until its tilt |B^T U z|_inf is at most KERNEL_TILT_CAP
    (the reference's rules are exact to rounding there)."""
    vals, vecs = np.linalg.eigh(Sq)
    axes = [np.sqrt(max(v, 0.0)) * vecs[:, j] for j, v in enumerate(vals) if v > 0]
    out = []
    for axis in axes:
        for scale in (1.0, 3.0):
            z = scale * axis
            tilt = float(np.max(np.abs(root.T @ U @ z), initial=0.0))
            out.append(z * min(1.0, KERNEL_TILT_CAP / tilt) if tilt > 0 else z)
    return np.array(out).reshape(-1, Sq.shape[0])


def kernel_checks(laws: dict, reference: dict, Z: np.ndarray) -> list:
    """Per token law: the emitted tr C1(z) (`trace_fn`) against `reference[name](z)`, the brute
    force of numerics/first_order_reference.py, at the queries Z (tier numerical); kept unjudged
    where the reference's rule would be too large."""
    checks = []
    for name, (_, _, trace_fn) in laws.items():
        check_id = f"beyond/{name}/first-order-kernel"
        title = (
            f"{name} tokens: the emitted tr C1(z) equals E[w^2 |V (z' - m_a)|^2] summed over the "
            "law directly, at fixed queries"
        )
        if not len(Z):
            checks.append(
                judge.unjudged(title, "quadrature", "Sigma_q = 0: no query direction", id=check_id)
            )
            continue
        try:
            brute = np.array([reference[name](z) for z in Z])
        except first_order_reference.BeyondReach as exc:
            checks.append(judge.unjudged(title, "quadrature", str(exc), id=check_id))
            continue
        emitted = np.asarray(trace_fn(Z), dtype=float)
        errors = np.abs(emitted - brute) / np.maximum(np.abs(brute), 1e-300)
        checks.append(
            judge.agreement(
                title,
                "quadrature",
                id=check_id,
                error=float(np.max(errors)),
                tolerance=KERNEL_TOLERANCE,
                detail=f"at {len(Z)} queries (principal axes of Sigma_q at 1 and 3 sd, tilt "
                f"capped at {KERNEL_TILT_CAP}): emitted "
                + ", ".join(f"{v:.10g}" for v in emitted)
                + "; brute force "
                + ", ".join(f"{v:.10g}" for v in brute)
                + " (numerics/first_order_reference.py: no cumulant generating function)",
            )
        )
    return checks


def beyond_gaussians(s, budget, rng, lam_gauss: float) -> Findings:
    """Per token law: its checks, its quantities (keyed by the law) and its series (keyed by
    "<law> tokens")."""
    m, Gamma, U, V, Sq = s["mean"], s["cov"], s["U"], s["V"], s["query_cov"]
    root = psd_root(Gamma)
    r = root.shape[1]
    laws = {}
    if r:
        for base, kind in ((RademacherLaw(r), "rademacher"), (UniformLaw(r), "uniform")):
            laws[kind] = (
                Law(base, m, root, kind),
                product_limit(kind, m, root, U, V),
                lambda Z, kind=kind: first_order.product_trace_c1(kind, root, U, V, Z),
            )
        # A two-component mixture with the same mean and covariance as N(m, Gamma): m +- offset
        # along the top eigenvector, component covariance Gamma - offset offset^T.
        vals, vecs = np.linalg.eigh(Gamma)
        offset = vecs[:, -1] * math.sqrt(vals[-1] / 2)
        mix = MixtureLaw(
            [0.5, 0.5],
            np.stack([m + offset, m - offset]),
            np.stack([Gamma - np.outer(offset, offset)] * 2),
        )
        laws["mixture"] = (
            mix,
            lambda Z, mix=mix: limits.mixture_limit(mix, U, V, Z),
            lambda Z, mix=mix: first_order.mixture_trace_c1(mix, U, V, Z),
        )
    checks, quantities, series = [], {}, {}
    if r:
        reference = {
            kind: lambda z, kind=kind: first_order_reference.product_trace_c1(
                kind, m, root, U, V, z
            )
            for kind in ("rademacher", "uniform")
        }
        reference["mixture"] = lambda z: first_order_reference.mixture_trace_c1(
            mix.weights, mix.means, mix.roots, U, V, z
        )
        checks += kernel_checks(laws, reference, kernel_queries(Sq, U, root))
    n_laws = max(1, len(laws))
    zc_decay = significance.z_critical(check_false_alarm(), n_laws, sided=1)
    zc = significance.z_critical(check_false_alarm(), n_laws)
    for name, (law, limit_fn, trace_fn) in laws.items():
        mc = [
            montecarlo.averaged_mse(
                law, rng, budget.prompts, L, U, V, Sq, limit_fn, budget.queries_per_prompt, 1.0
            )
            for L in sweep(budget.Ls, f"prop-3.1: {name} tokens", weights=budget.Ls, item="L")
        ]
        means, ses = [x.mean for x in mc], [x.stderr for x in mc]
        fit = fits.loglog_fit(budget.Ls, means, ses)
        z = fit.slope / fit.stderr
        # three-way: decay shown (z above the critical value), growth shown (below minus it:
        # refuted), or neither (undecided: with few lengths or prompts a correct claim's decay can
        # fall short of the critical value, e.g. z = 4.6 against 5.19 at L = 4, 8, 200 prompts)
        # value z, passing at or above the critical value (decay shown); the judge leaves it
        # undecided within +- the critical value, and a failure is a significant growth
        checks.append(
            judge.verdict(
                f"{name} tokens (sub-Gaussian, same mean and covariance): the L2(nu) error decays",
                "montecarlo",
                id=f"beyond/{name}/decays",
                unit="z",
                value=z,
                bound=zc_decay,
                rule="value >= bound",
                detail=f"fitted slope {fit.slope:.4f} +- {fit.stderr:.4f} "
                f"(chi2 {fit.chi2:.2f} on {fit.dof} dof); one-sided z = slope / se = {z:.2f} "
                f"against {zc_decay:.2f} (false-alarm {check_false_alarm():g}, Bonferroni over "
                "the laws): decay shown above it, growth (refuted) below minus it, undecided "
                "between; L x MSE: " + ", ".join(f"{L * x:.4g}" for L, x in zip(budget.Ls, means)),
                false_alarm=levels.nominal(check_false_alarm(), levels.NORMAL_FIT),
                # a sign test: the smallest growth, relative to the measured decay, it refutes
                detectable=significance.resolution(fit.slope, fit.stderr, zc_decay),
                undecided=f"neither decay nor growth shown: |z| = {abs(z):.2f} < {zc_decay:.2f}"
                if -zc_decay <= z < zc_decay
                else "",
            )
        )
        quantities[name] = {
            "measured_slope": fit.slope,
            "measured_slope_stderr": fit.stderr,
            "chi2": fit.chi2,
            "mc_mse": means,
            "mc_mse_stderr": ses,
            "L_times_mse": [L * x for L, x in zip(budget.Ls, means)],
        }
        series[f"{name} tokens"] = {"L": list(budget.Ls), "rmse": [math.sqrt(x) for x in means]}
        if name == "mixture" and lam_gauss > 0.2:
            # The mixture's components have covariance <= Gamma: its remainder decays like the
            # Gaussian's, L^-rho with rho < 1 above lambda = 1/5, so the C + C'/L model below
            # does not apply.
            quantities[name]["first_order_check"] = (
                f"not run: lambda = {lam_gauss:.3g} > 1/5, the remainder decays as "
                f"L^-{remainder_exponent(lam_gauss):.3g}, slower than 1/L"
            )
            continue
        coef, coef_se, how = _law_coefficient(trace_fn, Sq, rng, budget.rb_queries)
        C, C_se, chi2 = intercept_fit(budget.Ls, means, ses)
        zi = (C - coef) / math.hypot(C_se, coef_se)
        checks.append(
            judge.z_test(
                f"{name} tokens: L x error -> E_nu tr C1(z) (first order of a general law: "
                "E w^2 [tr(V Hess Lambda(2a) V^T) + |V (grad Lambda(2a) - grad Lambda(a))|^2])",
                id=f"beyond/{name}/first-order",
                z=zi,
                alpha=check_false_alarm(),
                tests=n_laws,
                sided=2,
                assumption=levels.NORMAL_FIT,
                detail=f"weighted fit L x MSE = C + C'/L over the tested L: C = {C:.5g} +- "
                f"{C_se:.3g} (chi2 {chi2:.2f} on {len(budget.Ls) - 2} dof; the O(1/L^2) term is "
                f"neglected); first order {coef:.6g} ({how}); z = (C - first order) / "
                f"{math.hypot(C_se, coef_se):.3g} = {zi:.2f}",
                detectable=significance.resolution(coef, math.hypot(C_se, coef_se), zc),
            )
        )
        quantities[name].update(
            first_order_coefficient=coef, fitted_limit_of_L_times_mse=C, fitted_limit_stderr=C_se
        )
    return Findings(checks, quantities, series)
