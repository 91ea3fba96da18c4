"""Claim `prop-3.4`: gradient concentration, made exact (docs/paper.md section 3).

The paper: under Assumption 3.3,
E||grad_V T[mu_L] - grad_V T[mu]||^2_{L2(nu)} <= c1 sigma^6 ln L / L^(c2/sigma^2)
and the same for grad_U with sigma^12 ln^2 L. softlin derives, for Gaussian tokens and queries:
the Jacobians (derivations/jacobians.py), the exact 1/L coefficients at a fixed query and averaged
over nu (derivations/gradient_fluctuations.py; finite iff lambda < 1/2, lambda the largest
eigenvalue of Sigma_q^{1/2} U^T Gamma U Sigma_q^{1/2}), and the sharp exponent kappa(lambda) of the
output error (derivations/fluctuations_exponent.py), which the gradient errors share: their extra
factors are polynomial in the query and change only logarithms.

Norms are Frobenius norms of the Jacobians with column-major vec:
||grad_V err||^2 = k |zhat - mu_a|^2 and ||grad_U err||^2 = |z|^2 ||V (C_hat - Gamma)||_F^2.

Checks: symbolic proofs; limit Jacobians against exact differentiation of Lemma 2.1's formula;
finite-prompt Jacobians against 50-digit mpmath central differences (formula to 1e-25, float64
kernel to 1e-12 or its derived rounding bound, undecided beyond its reach); risk gradients against
finite differences (infinite prompt, and the Monte Carlo risk with common random numbers; to 1e-6
or their derived rounding allowance, undecided beyond reach: jacobians.py); Monte Carlo of the 1/L
coefficients (fixed query and query average: fit L E err^2 = A + B/L, z-test of A); log-log
slopes in three regimes (below, at and above the threshold, lambda set by rescaling Gamma) against
-kappa with a stated allowance for logarithms, and at the scenario's own lambda (regime
`scenario`: what a lambda sweep moves, by scaling U) against the exact finite-L slope over the
same L; a negative control (above the threshold a 1/L rate must be refuted: L E err^2 grows); the
paper's form fitted with explicit constants; erratum 1 (L = 1) for gradients.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ...derivations import catalogue
from ...numerics import (
    query_average,
    significance,
)
from ...numerics.selfnormalised import q_reach
from ...numerics.validate import BeyondReach, positive_definite
from ..shared import formulas as shown
from . import exact as ex
from .coefficients import averaged_first_order, per_query_coefficients, query_average_checks
from ...core import scenario as scen
from ...certio import precision_entry
from ...core import budgets
from ...judge.check import check_false_alarm, check_path
from ...core.claim import Claim, NEGATE
from ...core.finish import finish
from ...core.findings import Findings
from ...derivations import display
from ...core.hunt_space import Space, lambda_region
from ..shared.common import RATES_LAMBDAS, limit_setting, symbolic_check
from ...core.setting import Setting, setting_of
from .fixed_query import fixed_query_step
from .regimes import regime_step, scenario_regime_step
from ..shared.exponents import sharp_exponent
from ..shared.coordinates import deterministic_coordinates
from .jacobians import finite_jacobian_checks, limit_jacobian_check, risk_gradient_checks

ID = "prop-3.4"
TITLE = "Gradient concentration: exact 1/L coefficients and sharp rates for grad_V and grad_U"
# Maths between dollars is typeset on the pages (softlin/render/markup.py).
STATEMENT = (
    "$E||grad_V T[mu_L] - grad_V T[mu]||^2_{L^2(nu)} <= c_1 sigma^6 ln(L) / L^(c_2/sigma^2)$ and "
    "$E||grad_U T[mu_L] - grad_U T[mu]||^2_{L^2(nu)} <= c_1 sigma^12 ln(L)^2 / L^(c_2/sigma^2)$ "
    "($L >= 2$)."
)
HYPOTHESES = (
    "tokens $N(m, Gamma)$ with $Gamma = sigma^2 Gamma_0$, queries $nu = N(0, Sigma_q)$",
    "Assumption 3.3 (see asm-3.3); norms: Frobenius norms of the column-major Jacobians",
)
# Regimes of the slope check, as the value of lambda obtained by rescaling Gamma (sigma^2 Gamma0).
REGIMES = {"below": 0.25, "at": 0.5, "above": 1.5}


@dataclass(frozen=True)
class Budget:
    """What prop-3.4 spends at one profile (built by `budget`). Beyond the threshold the
    query-to-query spread dominates the error's variance, so the query averages' blocks favour
    queries.

    prompts: fixed-query Monte Carlo pilot prompts per L, and the fewest the plan may draw after it
        (exact.planned_prompts; and the prompts at L = 1 for erratum 1)
    blocks: independent blocks of each query-averaged Monte Carlo estimate (its standard error has
        blocks - 1 degrees of freedom)
    queries: importance-weighted queries per block
    block_prompts: prompts per query and block
    Ls: prompt lengths of the fixed-query and query-averaged sweeps
    rb_queries: query draws of the exact (Rao-Blackwellised) averages
    table_points: points of the exact route's spline tables
    ells: ln L of the exact asymptotic-exponent fits (with 3 points the fit drops its c1 / ln L
        term)
    coefficient_queries: query draws of the importance-sampled check of the closed-form
        coefficients (only when rank(Sigma_q) > 3, beyond Gauss-Hermite)
    """

    prompts: int
    blocks: int
    queries: int
    block_prompts: int
    Ls: tuple[int, ...]
    rb_queries: int
    table_points: int
    ells: tuple[float, ...]
    coefficient_queries: int


def budget(s: dict, profile: str) -> Budget:
    """The profile's fixed sizes; at standard the fixed-query prompts are the scenario's trials."""
    if profile == "quick":
        return Budget(
            prompts=600,
            blocks=48,
            queries=24,
            block_prompts=4,
            Ls=(16, 64, 256, 1024),
            rb_queries=4096,
            table_points=32,
            ells=(16.0, 32.0, 64.0),
            coefficient_queries=400_000,
        )
    if profile == "standard":
        return Budget(
            prompts=s["trials"],
            blocks=48,
            queries=24,
            block_prompts=4,
            Ls=(16, 64, 256, 1024, 2048),
            rb_queries=8192,
            table_points=32,
            ells=(16.0, 32.0, 64.0, 128.0),
            coefficient_queries=1_000_000,
        )
    return Budget(
        prompts=4000,
        blocks=96,
        queries=32,
        block_prompts=6,
        Ls=(16, 64, 256, 1024, 4096),
        rb_queries=16384,
        table_points=48,
        ells=(16.0, 32.0, 64.0, 128.0),
        coefficient_queries=4_000_000,
    )


def default_scenario() -> dict:
    """Anisotropic Gamma (eigenvalues 2.61, 0.39), non-symmetric U, a non-diagonal Sigma_q (so
    that where Sigma_q enters the averaged coefficients is seen), a query off the principal axes:
    lambda = lambda_max(U^T Gamma U Sigma_q) = 0.081 (< 1/8, so the query-average z-test is
    sound); at the query a^T Gamma a = 0.127 and |Gamma a|^2 = 0.332, so a^T Gamma a in place of
    |Gamma a|^2 moves the grad_V coefficient by 6.2% and U^T in place of U moves it by more (both
    far beyond the tolerance of the large-L anchor, ~1e-8)."""
    return {
        "d": 2,
        "mean": [0.0, 0.0],
        "cov": [[2.5, 0.5], [0.5, 0.5]],
        "U": [[0.17, 0.05], [-0.06, 0.12]],
        "V": [[1.0, 0.5], [0.0, 1.0]],
        "query_cov": [[1.5, -0.4], [-0.4, 0.6]],
        "query": [1.1, 0.7],
        "L": [16, 64, 256, 1024, 2048],
        "trials": 1500,
        "delta": 1e-3,
        "seed": 0,
    }


def setting(s: dict) -> Setting:
    """mu = N(mean, cov), the scenario's U and V, nu = N(0, query_cov) and its fixed query."""
    return limit_setting(s)


def proofs_check():
    """The symbolic proofs of the Jacobians, the risk gradients and their 1/L fluctuations."""
    return symbolic_check(
        "Jacobians, risk gradients and their 1/L fluctuations",
        {
            **{p.statement: p for p in catalogue.gradient_proofs()},
            **{p.statement: p for p in catalogue.gradient_fluctuation_proofs()},
        },
    )


def run(
    setting: Setting | dict,
    profile: str,
    rng: np.random.Generator,
    *,
    jacobian_U=None,
    weighted_matrix=None,
    exponent=None,
) -> dict:
    """Verify Proposition 3.4 in `setting` (or a merged scenario). `jacobian_U` replaces the
    emitted finite-prompt J_U kernel; `weighted_matrix(zhat, C_hat)` replaces the matrix the
    U-Jacobian is built from in the Monte Carlo; `exponent(lambda)` the sharp exponent
    (sensitivity tests)."""
    setting = setting_of(CLAIM, setting)
    s, law, U, V, Sq = setting.scenario, setting.tokens, setting.U, setting.V, setting.queries.cov
    m, cov = law.mean, law.cov
    b = budget(s, profile)
    exponent = exponent or sharp_exponent  # the emitted kernel (claims/shared/exponents.py)
    # the scenario's query, else one drawn from nu (the first draw of the claim's stream)
    z0 = setting.query if setting.query is not None else setting.queries.sample(rng, ())
    fixed_query_reach(cov, U, z0, BeyondReach)
    lam = query_average.threshold_lambda(cov, U, Sq)
    kappa = exponent(lam)
    errors_fn = ex.gradient_errors_fn(U, V, cov, weighted_matrix)

    f = Findings([proofs_check(), limit_jacobian_check(m, cov, U, V, z0)])
    f.add(finite_jacobian_checks(rng, m, cov, U, V, z0, jacobian_U=jacobian_U))
    f.add(risk_gradient_checks(rng, m, cov, U, V, Sq))

    # Fixed query: closed-form 1/L coefficients (emitted kernels) against the exact route's anchors.
    coefV, coefU = (float(c[0]) for c in per_query_coefficients(z0[None, :], U, V, cov))
    # Query average below the threshold: the exact first-order coefficients.
    first_V, first_U = averaged_first_order(cov, U, V, Sq)
    # The certificate lists these first, then the regimes (filled below), then what the steps add.
    f.quantities.update(
        threshold_lambda=lam,
        exponent_V=kappa,
        exponent_U=kappa,
        first_order_coefficient_V=first_V,
        first_order_coefficient_U=first_U,
        fixed_query=np.asarray(z0).tolist(),
        fixed_query_coefficient_V=coefV,
        fixed_query_coefficient_U=coefU,
        regimes={},
    )
    # fixed query, the regimes and the scenario's own lambda
    n_tests = 2 * len(b.Ls) * (2 + len(REGIMES)) + 2
    f.add(fixed_query_step(setting, z0, (coefV, coefU), b, profile, rng, errors_fn, n_tests))

    z_crit = significance.z_critical(check_false_alarm())
    f.add(query_average_checks(first_V, first_U, cov, U, V, Sq, lam, rng, b, z_crit))

    # Regimes: rescale Gamma so that lambda takes the values of REGIMES; Monte Carlo = exact at
    # every L, slopes = exact finite-L slopes, exact asymptotic exponents = kappa(lambda).
    alphas = (check_false_alarm() / n_tests, check_false_alarm() / (2 * (len(REGIMES) + 1)))
    for name, target in REGIMES.items():
        regime = regime_step(setting, name, target, lam, b, rng, alphas, exponent, weighted_matrix)
        f.add(regime, quantities_under="regimes", series_under="regimes")

    # Erratum 1: the exact L = 1 errors against the paper's right side (0 at L = 1).
    f.add(ex.erratum_one(law, rng, cov, U, V, z0, b.prompts, errors_fn))

    # The scenario's own lambda (what `softlin sweep` moves by scaling U), drawn last so the
    # stream of the checks above does not depend on it.
    own = scenario_regime_step(setting, lam, kappa, (first_V, first_U), b, rng, alphas, errors_fn)
    f.add(own, quantities_under="regimes", series_under="regimes")

    formulas, mathml = shown.for_claim(ID)
    formulas.update(_sympy_formulas()[0])
    mathml.update(_sympy_formulas()[1])
    return finish(
        CLAIM,
        scen.for_certificate(s),
        profile,
        f,
        formulas=(formulas, mathml),
        precision=stated_precision(f.checks),
    )


# check id -> (why its value's digits below the eighth are rounding, the stated absolute error)
ROUNDING_LEVEL_VALUES = {
    "anchors/large-l": (
        "the relative difference of the Richardson limits from the closed-form coefficients, at "
        "the quadrature's rounding level (~1e-12; 0 at the built-in scenario)",
        1e-11,
    ),
    "risk-gradient/finite": (
        "a central-difference error at rounding level: "
        "float64 rounding over the step, ~1e-16 / h with h ~ 1e-6, i.e. ~1e-10",
        1e-8,
    ),
    "anchors/grad-u-definition": (
        "a difference between the definition's Gauss-Hermite route and the exact route at "
        "their truncation and rounding level: it moved by 3.7e-6 under another BLAS kernel",
        1e-5,
    ),
    "jacobians/finite-kernels": (
        "|kernel - central difference| / tol_e at rounding level: the kernel's float64 "
        "rounding is at most B_e <= tol_e / 4 per entry (jacobians.moment_rounding), so "
        "another BLAS kernel moves the ratio by at most 1/4 (it moved 2.2e-4 -> 1.1e-4)",
        0.25,
    ),
}


# Check bounds computed from numbers at rounding level (check id -> (why, absolute error)).
ROUNDING_LEVEL_BOUNDS = {
    "anchors/large-l": (
        "1e-9 plus a tenth of the change between two Richardson extrapolations of L x the exact "
        "error at L = 1e5, 1e6, 1e7 (~1e-11 relative): that change carries the quadrature's "
        "rounding, and it moved 1.0095870e-9 -> 1.0095872e-9 under another BLAS kernel",
        1e-13,
    ),
}


def stated_precision(checks) -> list[dict]:
    """Numbers whose digits below the eighth are rounding (certio.precision_entry)."""
    return [
        precision_entry(f"{check_path(ID, c)}.{field}", why, abs=error)
        for field, table in (("value", ROUNDING_LEVEL_VALUES), ("bound", ROUNDING_LEVEL_BOUNDS))
        for check_id, (why, error) in table.items()
        for c in checks
        if c.id == check_id
    ]


def _sympy_formulas() -> tuple[dict, dict]:
    """The derived Jacobians (LaTeX and MathML, both printed by SymPy)."""
    from ...derivations import jacobians
    from ...mathml import fenced, mathml_formula, mi, mo

    def kron(
        expr,
    ):  # SymPy's MathML printer has no Kronecker product: join its factors with an o-times
        if isinstance(expr, sp.MatAdd):
            terms = [kron(t) for t in expr.args]
            return [p for j, t in enumerate(terms) for p in ([mo("+")] if j else []) + t]
        parts = []
        for j, arg in enumerate(expr.args):
            parts += ([mo("\u2297")] if j else []) + [
                fenced(arg) if isinstance(arg, (sp.MatMul, sp.MatAdd)) else arg
            ]
        return parts

    f = jacobians.finite_symbols()
    JU, JV = jacobians.limit_jacobians(f)
    FU, FV = jacobians.finite_jacobians(f)
    latex = {
        "J_U_limit": r"J_U = " + sp.latex(JU),
        "J_V_limit": r"J_V = " + sp.latex(JV),
        "J_U_finite": r"J_U(T[\mu_L]) = " + sp.latex(FU),
        "J_V_finite": r"J_V(T[\mu_L]) = " + sp.latex(FV),
    }
    mathml = {
        "J_U_limit": mathml_formula(mi("J_U"), mo("="), *kron(JU)),
        "J_V_limit": mathml_formula(mi("J_V"), mo("="), *kron(JV)),
        "J_U_finite": mathml_formula(mi("J_U(T[\u03bc_L])"), mo("="), *kron(FU)),
        "J_V_finite": mathml_formula(mi("J_V(T[\u03bc_L])"), mo("="), *kron(FV)),
    }
    return latex, mathml


REACH_L = 2  # the smallest L >= 2 at which the fixed query's exact route runs (its anchors)


# The query-averaged route's reach in lambda (its regime `scenario`, at the scenario's own lambda,
# exact.averaged): its exact averages tabulate the scalars up to the largest q = a^T Gamma a of
# at least 4096 queries (rb_queries, every profile) drawn from N(0, c Sigma_q) with c >= 2 at
# lambda >= 1/2 (query_average.proposal_scale), and the tables hold up to
# selfnormalised.q_reach(16) (16 the smallest L of every profile). Such a query has
# q >= c lambda g^2, g ~ N(0, 1) along the top eigenvector of Sigma_q^(1/2) U^T Gamma U
# Sigma_q^(1/2), so all 4096 stay within reach with probability at most
# P(|g| <= x)^4096, x^2 = q_reach / (2 lambda); that is below 1e-9 once x <= X_ALL_WITHIN
# (P(|g| <= x) = 1e-9^(1/4096)). Above LAMBDA_REACH = q_reach(16) / (2 X_ALL_WITHIN^2) ~ 23 the
# run would end in BeyondReach after minutes, and far above it (lambda ~ 1e198: U ~ 1e99 with U z
# in Gamma's kernel) the regimes' rescaled Gamma = (target / lambda) Gamma underflowed the errors
# to 0 and the log-log fit raised (a crash, exit 3): validation refuses it before any work.
REACH_QUERIES, REACH_MIN_L, REACH_MISS = 4096, 16, 1e-9
X_ALL_WITHIN = significance.z_critical(1.0 - REACH_MISS ** (1.0 / REACH_QUERIES), 1, sided=2)
LAMBDA_REACH = q_reach(REACH_MIN_L) / (2.0 * X_ALL_WITHIN**2)


def lambda_reach(lam: float) -> None:
    """Refuse a lambda beyond LAMBDA_REACH (the comment above) with one line naming it."""
    if not lam <= LAMBDA_REACH:
        raise ValueError(
            f"lambda_max(U^T Gamma U Sigma_q) = {lam:.4g} is beyond the query-averaged exact "
            f"route's reach lambda <= {LAMBDA_REACH:.3g} (its tables hold for q <= "
            f"{q_reach(REACH_MIN_L):g}, and above that lambda one of its {REACH_QUERIES} queries "
            f"exceeds it with probability > 1 - {REACH_MISS:g}): lower the scale of U, cov or "
            "query_cov"
        )


def fixed_query_reach(cov, U, z0, error=ValueError) -> None:
    """The fixed query's exact finite-L gradient errors are quadratures in q = a^T Gamma a
    (a = U z0; numerics/gradient_scalars.py, on the step rules of numerics/selfnormalised.py),
    whose grid grows like q and whose accuracy holds up to selfnormalised.q_reach(L), as
    prop-3.1's. A q beyond the reach at L = REACH_L (the smallest reach of any L the route runs
    at; L = 1 is exact) raises `error`: a scenario's own query is refused on validation, a drawn
    one is BeyondReach, met by the run; never a crash or a wrong number (U ~ 1e12 gave numpy's
    ValueError on a 1e25-point grid)."""
    z0 = np.asarray(z0, float)
    a = np.asarray(U, float) @ z0
    q, reach = float(a @ np.asarray(cov, float) @ a), q_reach(REACH_L)
    if not q <= reach:
        raise error(
            f"at the fixed query z = {np.round(z0, 6).tolist()}, q = a^T Gamma a = {q:.4g} "
            f"(a = U z) is beyond the exact finite-L route's reach q <= {reach:g} at "
            f"L = {REACH_L}: lower the scale of U, cov or query"
        )


def validate(scenario: dict) -> dict:
    """The common scenario checks, plus prop-3.4's own: a positive definite query covariance, a
    non-zero tilt lambda_max(U^T Gamma U Sigma_q) > 0 (the regimes rescale Gamma to reach their
    lambda; Gamma = 0 cannot be rescaled), and V Gamma V^T != 0: otherwise V z_i = V m for every
    token, so
    grad_U T = sum_i w_i (V z_i)(z_i - zbar)^T (x) z = V m (sum_i w_i (z_i - zbar))^T (x) z = 0
    at every L and in the limit; grad_U's error is exactly 0 and its rate, a log-log slope, has
    nothing to fit (log 0 at every L: no finite point)."""
    s = scen.common(scenario)
    if np.all(deterministic_coordinates(s["cov"], s["V"])):
        raise ValueError(
            "V Gamma V^T = 0, so every token's output is V m and grad_U T[mu_L] = grad_U T[mu] = 0 "
            "exactly at every L (grad_U's rate has nothing to measure); give V a row outside the "
            "kernel of Gamma"
        )
    positive_definite("query_cov (prop-3.4 needs an invertible one)", s["query_cov"])
    lam = query_average.threshold_lambda(s["cov"], s["U"], s["query_cov"])
    if not lam > 1e-12:
        raise ValueError(
            "prop-3.4 needs lambda_max(U^T Gamma U Sigma_q) > 0 (its regimes rescale Gamma), "
            f"got {lam:g}"
        )
    if s.get("query") is not None:
        fixed_query_reach(s["cov"], s["U"], s["query"])
    lambda_reach(lam)
    return s


# The estimate's parts, measured on its runs (benchmarks/profile_verify.py prop-3.4, one BLAS
# thread, load ~1; quick with the proof cache off, standard with it on): the Jacobian and proof
# step 13.1 s quick and 18.0 s standard (FIXED_SECONDS between them); the grad_V and grad_U
# enclosures 20.7 s over 4 L and 29.4 s over 5 L; the every-L proof 5.1 s. The sweeps, against
# the work model's 32.2 s (quick) and 78.4 s (standard): SWEEP_RATE, prop-3.4's own rate as a
# fraction of the model's, 0.23 since the exact tables share their matrices across L
# (benchmarks/bench_estimates.py prop-3.4, proof cache off, speed 0.92: 41.7 s of CPU at quick
# and 60.9 s at standard, so 7.3 s and 17.7 s for the sweeps at speed 1).
FIXED_SECONDS = 16.0
ENCLOSURE_SECONDS_PER_L = 5.5
EVERY_L_PROOF_SECONDS = 5.0
SWEEP_RATE = 0.23


def work_estimate(s: dict, profile: str) -> budgets.Estimate:
    budgets.max_d(
        "prop-3.4", s["d"], budgets.SYMBOLIC_MAX_D, "the Jacobians are checked in exact arithmetic"
    )
    positive_definite("query_cov (prop-3.4 needs an invertible one)", s["query_cov"])
    b = budget(s, profile)
    d = s["d"]
    ls = float(sum(b.Ls))
    per_token = d * d  # weighted second moments
    # the pilot, then at most PLAN_TOKENS tokens (or the pilot's count) per L on the plan
    fixed = (b.prompts * ls + sum(max(ex.PLAN_TOKENS, b.prompts * L) for L in b.Ls)) * per_token
    # + 1: the query average at the scenario's own lambda; the pilots of the 1/L controls
    # (above 1/2)
    pilots = sum(1 for lam in REGIMES.values() if lam > 0.5) * ex.pilot_budget(b).blocks / b.blocks
    averaged = len(REGIMES) + 1 + 1 + pilots
    averaged *= b.blocks * b.block_prompts * ls * b.queries * per_token
    memory = max(b.prompts, b.block_prompts * b.queries) * (d * d + d + 2) * 8 * 4
    source = f"trials = {s['trials']}" if profile == "standard" else f"the {profile} budget"
    enclosed = len(b.Ls) * ENCLOSURE_SECONDS_PER_L + (
        EVERY_L_PROOF_SECONDS if profile != "quick" else 0.0
    )
    return budgets.Estimate(
        "prop-3.4",
        SWEEP_RATE * (fixed + averaged),
        memory,
        f"{source}: a fixed-query sweep of {b.prompts} prompts and query averages over "
        f"L = {list(b.Ls)}",
        fixed=FIXED_SECONDS + enclosed,
    )


# What a sweep's summary copies from each point (softlin/sweep/summary.py): the rates at the
# scenario's own lambda (its regime `scenario`, the one a lambda sweep moves) as decay rates (the
# certificate's regime slopes are log-log slopes, negative), grad U's with the suffix _U; and what
# the phase diagram draws from a lambda sweep (render/sweep_figure.py).
SWEEP_FIELDS = {
    "lambda_max": "threshold_lambda",
    "exponent": "exponent_V",
    "naive_exponent": ("regimes", "scenario", "naive_exponent"),
    **{
        f"{name}{suffix}{tail}": ("regimes", "scenario", f"{source}_{key}{tail}")
        + (() if tail else (NEGATE,))
        for key, suffix in (("V", ""), ("U", "_U"))
        for name, source in (("measured_slope", "slope"), ("exact_slope", "exact_slope"))
        for tail in ("", "_stderr")
    },
    "first_order_coefficient_V": "first_order_coefficient_V",
    "first_order_coefficient_U": "first_order_coefficient_U",
}
SWEEP_SERIES = (
    (
        "grad_V",
        "measured_slope",
        "measured_slope_stderr",
        "exact_slope",
        "first_order_coefficient_V",
        "C1",
        "D",
    ),
    (
        "grad_U",
        "measured_slope_U",
        "measured_slope_U_stderr",
        "exact_slope_U",
        "first_order_coefficient_U",
        "C2",
        "v",
    ),
)

CLAIM = Claim(
    ID,
    TITLE,
    STATEMENT,
    HYPOTHESES,
    run,
    default_scenario,
    scen.COMMON_KEYS,
    validate=validate,
    setting=setting,
    estimate=work_estimate,
    keys=scen.common_key_docs(
        query_cov="Sigma_q of the queries, positive definite",
        L="accepted; not used (the claim's own prompt lengths, 16 to 2048 at standard)",
        trials="fixed-query prompts per L, read at `standard`",
        query="the fixed query z of the fixed-query checks",
        delta="accepted; not used (no high-probability bound is checked here)",
    ),
    paper="Proposition 3.4",
    rests_on=("lemma-2.1", "asm-3.3"),
    display=display.prop34,
    figure="regimes",
    hunt=Space(
        ".hunt_strategies:rate_scenarios",
        lambda_region,
        24,
        regions=("lambda < 1/2", "lambda >= 1/2"),
    ),
    sweep_fields=SWEEP_FIELDS,
    sweep_series=SWEEP_SERIES,
    # the gradients' rates over the lambdas of prop-3.1's `rates`
    sweeps={
        "rates-gradients": {
            "seed": 0,
            "profile": "quick",
            "max_minutes": 30,
            "axes": {"lambda": list(RATES_LAMBDAS)},
        }
    },
)
