"""Claim `mixture`: the large-prompt limit for Gaussian-mixture tokens (docs/paper.md section 6).

Statement: for mu = sum_k pi_k N(m_k, Gamma_k),
T[mu](z) = V sum_k alpha_k(z) (m_k + Gamma_k U z),
alpha = softmax_k(log pi_k + m_k^T U z + (Uz)^T Gamma_k (Uz)/2).

Checks: symbolic proofs (mixture tilt, batched logits); the battery on the scenario's mixture; a
degenerate positive check (iid Rademacher tokens are the equal-weight mixture of the 2^d point
masses (+-1, ..., +-1) with Gamma_k = 0, so the mixture limit must reproduce the exact two-point
expectation, enumerated at 40 digits); negative controls on the scenario's mixture tokens, each of
which the Monte Carlo route alone must refute with power >= 0.999 computed beforehand
(battery.control_check): (A) Lemma 2.1's affine formula with the mixture's mean and covariance
(the limit is not linear), (B) untilted weights alpha_k = pi_k, (C) logits without the quadratic
term (U z)^T Gamma_k (U z) / 2.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp
import mpmath as mp
from scipy.special import softmax

from ...derivations import catalogue, mixture as mixture_derivation, tilt
from ...numerics import limits, numerator_moments, quadrature
from ...numerics.laws import MixtureLaw
from ..shared import rationals as exact
from ...core import scenario as scen
from ...core import budgets
from ...judge import kinds as judge
from ...judge.check import Check
from ...core.claim import Claim
from ...core.finish import finish
from ...core.claim import Absent
from ...core.hunt_space import Space, mixture_region
from ..shared.limit_battery import Budget, Subject, control_findings, controls_miss_probability
from ..shared.limit_battery import mixture_rounding, run_battery
from ..shared.limit_battery import run_control
from ...core.findings import Findings
from ..shared.common import budget_for, limit_estimate, limit_setting, queries_for
from ..shared.common import symbolic_check
from ...core.setting import Setting, setting_of
from ..shared.gaussian_subject import gaussian_subject
from ...mathml import T_MU_Z, fenced, mathml_formula, mi, mo
from ..shared.references import reference_routes

ID = "mixture"
TITLE = "Gaussian-mixture tokens give a non-linear softmax limit"
# Maths between dollars is typeset on the pages (softlin/render/markup.py).
STATEMENT = (
    "For $mu = sum_k pi_k N(m_k, Gamma_k)$, "
    "$T_{U,V}[mu](z) = V sum_k alpha_k(z) (m_k + Gamma_k U z)$ "
    "with $alpha = softmax_k(log pi_k + m_k^T U z + (U z)^T Gamma_k (U z) / 2)$."
)
HYPOTHESES = (
    "tokens $z' ~ sum_k pi_k N(m_k, Gamma_k)$, $pi_k > 0$, $Gamma_k$ positive semidefinite",
    "finite prompts: $z_1, ..., z_L$ iid $~ mu$",
)
SCENARIO_KEYS = scen.COMMON_KEYS | {"mixture"}


def default_scenario() -> dict:
    """Two components in d = 2, the second with a singular covariance."""
    return {
        "d": 2,
        "mean": [0.0, 0.0],
        "cov": [[1.0, 0.0], [0.0, 1.0]],
        "U": [[0.8, 0.3], [-0.2, 0.6]],
        "V": [[1.0, 0.5], [0.0, 1.0]],
        "query_cov": [[1.5, -0.4], [-0.4, 0.6]],
        "L": [16, 64, 256, 1024],
        "trials": 2000,
        "delta": 1e-3,
        "seed": 0,
        "mixture": {
            "weights": [0.4, 0.6],
            "means": [[1.0, 0.5], [-0.8, 0.2]],
            "covs": [[[0.5, 0.1], [0.1, 0.3]], [[0.4, 0.0], [0.0, 0.0]]],
        },
    }


def mixture_subject(
    label: str, law, claimed: MixtureLaw, U, V, kernel=None, exact_kernel=False
) -> Subject:
    """Claimed limit: the mixture formula for `claimed`, tested against tokens drawn from `law`.
    `kernel` replaces the limit (a slip); with `exact_kernel` its float64 values also stand for the
    40-digit side (a control's limit has no derived exact form; that check does not judge
    controls)."""
    claimed_exact = lambda z: exact.mixture_limit(
        claimed.weights, claimed.means, claimed.covs, U, V, z
    )
    if kernel is not None and exact_kernel:
        claimed_exact = lambda z: [mp.mpf(float(x)) for x in kernel(z[None, :])[0]]
    kernel = kernel or (lambda Z: limits.mixture_limit(claimed, U, V, Z))
    ref_mp, ref_float, name = reference_routes(law, U, V)
    return Subject(
        label=label,
        law=law,
        claimed_kernel=kernel,
        claimed_exact=claimed_exact,
        claimed_moments=lambda z: limits.mixture_bound_moments(claimed, U, V, z),
        claimed_log_normaliser=lambda z: numerator_moments.mixture_log_normaliser(claimed, U @ z),
        reference_mp=ref_mp,
        reference_float=ref_float,
        reference_name=name,
        numerator_moments=lambda z, t, c: numerator_moments.moments(law, U, V, z, t, c),
        kernel_rounding=mixture_rounding(claimed, U, V),
    )


def slip_kernels(law: MixtureLaw, U, V) -> dict:
    """{name: (control id, kernel)} of the limits a derivation slip would produce: the same
    component limits V (m_k + Gamma_k U z), with untilted weights alpha = pi, or with logits log
    pi_k + m_k^T U z (quadratic term dropped). The id names the control's check, "control/<id>"."""

    def with_logits(logits_of):
        def kernel(Z):
            _, parts = limits.mixture_limits_and_weights(law, U, V, Z)
            return np.einsum(
                "kn,knj->nj", softmax(logits_of(np.atleast_2d(Z) @ U.T), axis=0), parts
            )

        return kernel

    log_pi = np.log(law.weights)[:, None]
    return {
        "untilted weights alpha_k = pi_k": (
            "untilted-weights",
            with_logits(lambda A: np.repeat(log_pi, len(A), axis=1)),
        ),
        "logits without (Uz)^T Gamma_k (Uz) / 2": (
            "logits-without-quadratic",
            with_logits(lambda A: log_pi + law.means @ A.T),
        ),
    }


def product_mixture(d: int, offset: float, variance: float) -> MixtureLaw:
    """Equal-weight mixture over the 2^d sign patterns: means offset * (+-1, ..., +-1),
    cov variance * I."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=d)))
    K = signs.shape[0]
    return MixtureLaw(
        np.full(K, 1.0 / K), offset * signs, np.repeat(variance * np.eye(d)[None], K, axis=0)
    )


def mixture_law(s: dict) -> MixtureLaw:
    table = s.get("mixture")
    if not table or not all(k in table for k in ("weights", "means", "covs")):
        raise ValueError("the mixture claim needs a [mixture] table with weights, means and covs")
    law = MixtureLaw(table["weights"], table["means"], table["covs"])
    if law.d != s["d"]:
        raise ValueError(f"mixture components have dimension {law.d} but d = {s['d']}")
    return law


def setting(s: dict) -> Setting:
    """mu = the [mixture] table's law (not N(mean, cov)), the scenario's U and V,
    nu = N(0, query_cov) or its fixed query."""
    return limit_setting(s, tokens=mixture_law(s))


def run(setting: Setting | dict, profile: str, rng: np.random.Generator, *, kernel=None) -> dict:
    """Verify the mixture limit in `setting` (or a merged scenario); `kernel` injects a wrong
    limit (tests)."""
    setting = setting_of(CLAIM, setting)
    s, law, U, V, d = setting.scenario, setting.tokens, setting.U, setting.V, setting.d
    budget = budget_for(s, profile)
    queries = queries_for(setting, budget, rng)
    f = Findings(
        [
            symbolic_check(
                "mixture tilt and Catoni's test",
                {
                    **{f"mixture: {p.statement}": p for p in catalogue.mixture_proofs()},
                    **{f"controls: {p.statement}": p for p in catalogue.control_proofs()},
                    **{f"numerator test: {p.statement}": p for p in catalogue.catoni_proofs()},
                },
            )
        ]
    )

    main = run_battery(
        mixture_subject("mixture scenario", law, law, U, V, kernel), queries, U, V, budget, rng
    )
    f.add(main.findings, series_under="main")
    f.add(Findings([degenerate_check(U, V, d, queries)]))
    controls = mixture_controls(law, U, V, queries, budget, rng)

    mean, cov = law.moments()
    linear = limits.gaussian_limit(mean, cov, U, V, queries)
    f.add(
        Findings(
            quantities={
                "components": int(law.weights.shape[0]),
                "queries": queries.tolist(),
                "kernel_vs_gauss_hermite_max_relative": main.findings.checks[1].value,
                "formula_vs_mpmath_max_abs": main.findings.checks[0].value,
                "nonlinearity_gap": float(np.max(np.abs(main.kernel - linear))),
                "L": list(budget.Ls),
                "mc_rmse": main.findings.series["rmse"],
                "mc_bound_first_query": main.findings.series["bound"],
            }
        )
    )
    f.add(controls)
    miss = controls_miss_probability(controls.quantities["controls"])
    f.add(Findings(quantities={"controls_miss_probability": miss}))
    if setting.query is not None:
        f.add(
            Findings(
                quantities={
                    "limit": main.kernel[0].tolist(),
                    "quadrature_limit": main.reference[0].tolist(),
                }
            )
        )
    shown = (formulas_latex(), formulas_mathml())
    return finish(CLAIM, scen.for_certificate(s), profile, f, formulas=shown)


def degenerate_check(U, V, d: int, queries: np.ndarray) -> Check:
    """The degenerate positive check: Rademacher = point-mass mixture; the exact limit is the
    two-point expectation, enumerated coordinate by coordinate at 40 digits
    (numerics/quadrature.py)."""
    point_masses = product_mixture(d, 1.0, 0.0)
    degenerate = limits.mixture_limit(point_masses, U, V, queries)
    rademacher = np.array(
        [
            [float(x) for x in quadrature.product_law_limit_mp("rademacher", U, V, z)]
            for z in queries
        ]
    )
    # Relative to the size of the summands V x, x in {+-1}^d (at most V's largest absolute row
    # sum), not to the limit alone: near a zero query the limit is a cancellation of terms of that
    # size, and the float sum's error is relative to them (a query law N(0, 1e-12) gave a limit of
    # 2.5e-7 and a relative gap of 4.8e-10 from rounding alone: softlin hunt mixture --seed 11).
    scale = max(float(np.max(np.abs(rademacher))), float(np.abs(V).sum(axis=1).max()), 1e-300)
    gap = float(np.max(np.abs(degenerate - rademacher)) / scale)
    return judge.agreement(
        "degenerate mixture: point masses at (+-1, ..., +-1) give the exact Rademacher limit",
        "quadrature",
        id="degenerate/rademacher-limit",
        error=gap,
        tolerance=1e-12,
        detail=f"iid Rademacher tokens are the equal-weight mixture of {2**d} point masses; "
        "gap between the mixture limit and the 40-digit two-point enumeration, relative to the "
        "largest of the limit and the summands |V x| (V's largest absolute row sum)",
    )


def mixture_controls(
    law: MixtureLaw, U, V, queries: np.ndarray, budget: Budget, rng: np.random.Generator
) -> Findings:
    """The negative controls of the module docstring on the scenario's mixture tokens, through the
    battery at budgets sized beforehand for their power: Lemma 2.1's affine formula with the
    mixture's moments, then the slipped weights (slip_kernels)."""
    mean, cov = law.moments()
    affine = gaussian_subject("control (mixture tokens, affine formula)", law, mean, cov, U, V)
    controls = {
        "affine formula with matched moments": (
            "affine-matched-moments",
            run_control(affine, queries, U, V, budget, rng),
        )
    }
    for name, (key, wrong) in slip_kernels(law, U, V).items():
        control = mixture_subject(f"control ({name})", law, law, U, V, wrong, exact_kernel=True)
        controls[name] = (key, run_control(control, queries, U, V, budget, rng))
    return control_findings(
        {name: (f"mixture tokens, {name}", key, result) for name, (key, result) in controls.items()}
    )


def formulas_latex() -> dict:
    """LaTeX of the derived component pieces its page shows, printed by SymPy with the component
    index shown."""
    sym = mixture_derivation.component_symbols(k=sp.Symbol("k"), n=1)
    d = sym["m"].shape[0]
    rename = {
        sym["m"]: sp.MatrixSymbol("m_k", d, 1),
        sym["Gamma"]: sp.MatrixSymbol(r"\Gamma_k", d, d),
        sym["log_pi"]: sp.Symbol(r"\log\pi_k"),
    }
    mean = mixture_derivation.component_mean_batched(sym).xreplace(rename)
    # log pi_k is printed on its own: inside the 1 x 1 matrix expression SymPy shows it times
    # an identity.
    rest = tilt.log_normaliser_gamma(sym).xreplace(rename).subs(sym["a"], sym["U"] * sym["z"])
    return {
        "limit": r"T[\mu](z) = \sum_k \alpha_k(z)\, " + sp.latex(mean),
        "weights": r"\alpha_k(z) \propto \exp\Big(\log\pi_{k} + " + sp.latex(rest) + r"\Big)",
    }


def formulas_mathml() -> dict:
    """The same formulas as presentation MathML (SymPy's printer; the component symbols are renamed
    m_k, Gamma_k, log(pi_k), which that printer shows with subscripts and Greek letters)."""
    sym = mixture_derivation.component_symbols(k=sp.Symbol("k"), n=1)
    d = sym["m"].shape[0]
    rename = {
        sym["m"]: sp.MatrixSymbol("m_k", d, 1),
        sym["Gamma"]: sp.MatrixSymbol("Gamma_k", d, d),
        sym["log_pi"]: sp.log(sp.Symbol("pi_k", positive=True)),
    }
    mean = mixture_derivation.component_mean_batched(sym).xreplace(rename)
    rest = tilt.log_normaliser_gamma(sym).xreplace(rename).subs(sym["a"], sym["U"] * sym["z"])
    alpha = "<mrow><msub><mi>&#945;</mi><mi>k</mi></msub>" + fenced(mi("z")) + "</mrow>"
    return {
        "limit": mathml_formula(
            T_MU_Z, mo("="), "<munder><mo>&#8721;</mo><mi>k</mi></munder>", alpha, mean
        ),
        "weights": mathml_formula(
            alpha,
            mo("\u221d"),
            mi("exp"),
            fenced(sp.log(sp.Symbol("pi_k", positive=True)), mo("+"), rest),
        ),
    }


# The run's work, measured with benchmarks/bench_estimates.py (CPU time, one BLAS thread, proofs
# uncached, a load average ~10) at standard for trials = 200, 4000 and 16000: 10.9, 13.8 and 17.7 s,
# a slope of 4.3e-4 s per trial, i.e. 2.0e-8 s per unit of its four sweeps (a tenth of the model's
# SECONDS_PER_UNIT: the batched sampler), and 10.8 s at no trials; quick (two queries in place of
# four, sweeps of 0.03 s) 8.7 s. So 6.4 s of proof groups and 1.1 s per query of reference limits
# (Gauss-Hermite, the 40-digit degenerate check).
# Recalibrated (core/budgets.py): 10.2 s at quick, 14.6 s at standard, 29.8 s at trials =
# 16000: the sweeps 2.4 times slower than at the calibration above, the proofs and limits not:
# 7.2 s, 1.25 s per query and 4.8e-8 s per unit.
FIXED_SECONDS = 7.2
SECONDS_PER_QUERY = 1.25
SWEEP_SECONDS_PER_UNIT = 4.8e-8


def work_estimate(s: dict, profile: str) -> budgets.Estimate:
    budgets.max_d(
        "mixture",
        s["d"],
        budgets.MIXTURE_MAX_D,
        "its degenerate check sums over the 2^d Rademacher point masses",
    )
    for j, cov in enumerate((s.get("mixture") or {}).get("covs") or []):
        r = budgets.rank(cov)
        if r > budgets.GAUSS_HERMITE_MAX_RANK:
            raise ValueError(
                f"mixture.covs[{j}] has rank {r}: the Gauss-Hermite route supports rank <= "
                f"{budgets.GAUSS_HERMITE_MAX_RANK}"
            )
    mixture_law(s)  # validates the [mixture] table
    return limit_estimate(
        "mixture", s, profile, 4, FIXED_SECONDS, SECONDS_PER_QUERY, SWEEP_SECONDS_PER_UNIT
    )


CLAIM = Claim(
    ID,
    TITLE,
    STATEMENT,
    HYPOTHESES,
    run,
    default_scenario,
    SCENARIO_KEYS,
    estimate=work_estimate,
    keys=scen.common_key_docs(
        mean="accepted; not the mixture's (the tokens follow [mixture])",
        cov="accepted; not the mixture's (the tokens follow [mixture])",
    )
    + (
        scen.Key("mixture", "weights", "K positive numbers summing to 1", "component weights pi_k"),
        scen.Key("mixture", "means", "K x d matrix", "component means m_k"),
        scen.Key(
            "mixture", "covs", "K PSD d x d matrices, rank <= 3", "component covariances Gamma_k"
        ),
    ),
    rests_on=("lemma-2.1",),
    display=Absent("its run typesets the component pieces from derivations/mixture.py"),
    setting=setting,
    figure="main",
    hunt=Space(
        ".hunt_strategies:mixture_scenarios",
        mixture_region,
        3,
        regions=("1 component(s)", "2 component(s)", "3 component(s)"),
        draws_outside=False,
    ),
)
