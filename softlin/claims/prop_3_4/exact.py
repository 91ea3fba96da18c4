"""Claim `prop-3.4`, exact finite-L route: the gradient errors of Gaussian prompts at every L.

numerics/selfnormalised_gradients.py computes E||grad_V T[mu_L] - grad_V T[mu]||^2 and the same for
grad_U exactly (quadrature in the prompt) at a fixed query, and over nu by importance-weighted query
draws. This module judges, as prop-3.1 does for the outputs:

- anchors: at L = 1 the errors are k (tr Gamma + |Gamma a|^2) and |z|^2 ||V Gamma||_F^2
  (closed forms); at L = 2 the partition quadrature against a direct tensor Gauss-Hermite rule
  over (g1, g2); at L = 10^5, 10^6 (Richardson in 1/L) the closed-form 1/L coefficients of
  derivations/gradient_fluctuations.py;
- Monte Carlo = exact at every L (fixed query and L2(nu), per regime), fitted log-log slope = exact
  finite-L slope, and the exact error's asymptotic exponent (d = 1 reduction, L up to e^64 / e^128)
  = the sharp exponent kappa(lambda); the naive exponent and a 1/L rate above the threshold
  are refuted.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ...numerics import fits, gradients, kernels, limits, query_average
from ...numerics.extrapolation import richardson
from ...numerics.quadrature import tensor_grid
from ...numerics.fits import linear_fit
from ...numerics import selfnormalised_gradients as sg
from ...numerics import significance
from ...numerics.significance import t_critical
from ...judge import kinds as judge
from ...judge import levels
from ...judge.check import check_false_alarm
from ...core.findings import Findings
from ..shared.exponents import naive_exponent
from .definition_anchor import definition_anchor_check
from ...core.progress import progress

# Asymptotic-exponent tolerance, fixed before running: the 4-term expansion's omitted
# O(1/ln^2 L) term moves the fitted exponent by < 0.01 at ln L >= 16 for the laws here
# (development runs at ln L up to 128 for lambda = 1/4, 1/2, 3/2); the allowance is below a quarter
# of the naive exponent's separation.
EXPONENT_TOL = 0.025


ANCHOR_ASYMPTOTIC = 1e-2  # the large-L anchor is judged when e^{2q} <= this x its smallest L (1e5)


def _rel(a, b) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


def _two_token_scalars(q: float, nodes: int = 80) -> dict:
    """The scalars S of numerics/selfnormalised_gradients.py at L = 2 by tensor Gauss-Hermite
    in (g1, g2)."""
    points, W = tensor_grid(nodes, 2)
    g1, g2 = points[:, 0], points[:, 1]
    rq = math.sqrt(q)
    p1 = 0.5 * (1 + np.tanh(rq * (g1 - g2) / 2))
    p2 = 1 - p1
    f1, f2 = g1 - rq, g2 - rq
    gbar = p1 * g1 + p2 * g2
    A = p1**2 + p2**2
    alpha = p1 * (g1 - gbar) ** 2 + p2 * (g2 - gbar) ** 2 - 1
    H = p1**2 * (g1 - gbar) ** 2 + p2**2 * (g2 - gbar) ** 2
    vals = {
        "A": A,
        "B": (p1 * f1 + p2 * f2) ** 2,
        "aa": alpha**2,
        "aA": alpha * A,
        "AA": A**2,
        "A3": p1**3 + p2**3,
        "H": H,
    }
    return {k: float(np.sum(W * v)) for k, v in vals.items()}


def anchor_checks(
    Gamma, U, V, z, coef_V: float, coef_U: float, m=None, definition: bool = True
) -> Findings:
    """The L = 1, L = 2 (scalars), large-L and (with `definition`) L = 2, 3 definition anchors."""
    k = V.shape[0]
    eV1, eU1 = sg.exact_errors(Gamma, U, V, z, 1)
    cV1 = float(
        kernels.gradient_V_error_one_token(Gamma, V, U, z[:, None])[0, 0]
    )  # derivations/fluctuations_one_token.py
    cU1 = float(kernels.gradient_U_error_one_token(Gamma, V, z[:, None])[0, 0])
    worst1 = max(_rel(eV1, cV1), _rel(eU1, cU1))
    checks = [
        judge.agreement(
            "L = 1 anchor: exact quadrature of both gradient errors = k (tr Gamma + |Gamma a|^2) "
            "and |z|^2 ||V Gamma||_F^2",
            "quadrature",
            id="anchors/l1",
            error=worst1,
            tolerance=1e-10,
            detail=f"relative; quadrature {eV1:.12g}, {eU1:.12g} against {cV1:.12g}, {cU1:.12g} "
            "(one token: zhat = z_1 and C_hat = 0); trapezoid rules converge geometrically "
            "(~1e-14 measured)",
        )
    ]
    geo = sg.geometry(Gamma, U, V, z[None, :])
    # the direct rule's own accuracy falls as the tilt q sharpens the weights: 80 nodes give
    # 1.8e-9 at q = 3 and 7.9e-7 at q = 5 (beyond the anchor's 1e-9), 240 nodes 2e-13 at both:
    # 240 beyond q = 1
    q0 = float(geo.q[0])
    S_gh = {n: np.array([v]) for n, v in _two_token_scalars(q0, 80 if q0 <= 1.0 else 240).items()}
    # Beyond q ~ 6 the 240-node rule itself falls short of the tolerance (measured: 160 and 240
    # nodes differ by 8e-11, 5e-8, 4e-6, 7e-4 at q = 5, 8, 12, 23, and a hunt draw at q = 23,
    # `softlin hunt prop-3.4 --seed 202`, had refuted a correct partition quadrature by 3e-5):
    # its difference from 160 nodes, an upper estimate of its own error, sets the reach.
    rule_gap = 0.0
    if q0 > 1.0:
        coarse = _two_token_scalars(q0, 160)
        rule_gap = max(_rel(coarse[n], S_gh[n][0]) for n in sg.NAMES)
    S_pq = {n: np.array([v]) for n, v in sg.scalars(float(geo.q[0]), 2).items()}
    worst2 = max(_rel(S_pq[n][0], S_gh[n][0]) for n in sg.NAMES)
    eV2, eU2 = sg.errors(S_pq, geo, k)
    checks.append(
        judge.agreement(
            "L = 2 anchor: partition quadrature of every scalar (E alpha^2, E alpha A, E A^2, "
            "E sum p^3, E H, A, B) = direct 80 x 80 Gauss-Hermite over (g1, g2)",
            "quadrature",
            id="anchors/l2",
            error=worst2,
            tolerance=1e-9,
            detail=f"max relative difference; q = {float(geo.q[0]):.4g}; errors at L = 2: grad_V "
            f"{float(eV2[0]):.6g}, grad_U {float(eU2[0]):.6g}; smooth integrands, both "
            "rules ~1e-13",
            undecided=""
            if rule_gap <= 1e-9
            else f"beyond the direct Gauss-Hermite rule's reach at q = {q0:.4g}: its 160- and "
            f"240-node values differ by {rule_gap:.2g} relative, above the tolerance 1e-9",
        )
    )
    # Richardson in 1/L on (1e6, 1e7) removes c/L; the c'/L^2 left (relative e^{2q} / L^2, large for
    # large q: at q ~ 3 a correct coefficient misses a fixed tolerance such as 1e-6) is bounded by
    # the change of the extrapolation against (1e5, 1e6), divided by 100 (it scales as 1/L^2), with
    # a factor 10 of margin, plus 1e-9 for the quadrature (~1e-12 relative, x 10 / 9 by Richardson).
    X = [np.array(sg.exact_errors(Gamma, U, V, z, L)) * L for L in (10**5, 10**6, 10**7)]
    lim, lim_lo = richardson(X[1], X[2]), richardson(X[0], X[1])
    tol = (
        max(
            10 * abs(lim[i] - lim_lo[i]) / 100 / max(abs(c), 1e-300)
            for i, c in enumerate((coef_V, coef_U))
        )
        + 1e-9
    )
    worst = max(_rel(lim[0], coef_V), _rel(lim[1], coef_U))
    # The 1/L^2 model of the remainder needs e^{2q} small against the smallest L used (1e5);
    # at q = 5 the exact values are not yet asymptotic at 1e7 (a correct coefficient is 3.5% off):
    # undecided.
    # compared in logs: e^(2q) overflows float64 for q > ~354, a valid tilt (issue 41)
    asymptotic = 2 * q0 <= math.log(ANCHOR_ASYMPTOTIC * 1e5)
    checks.append(
        judge.agreement(
            "large-L anchor: lim L x exact error (quadrature at L = 1e5, 1e6, 1e7, Richardson) = "
            "the closed-form 1/L coefficients of grad_V and grad_U at the fixed query",
            "quadrature",
            id="anchors/large-l",
            error=worst,
            tolerance=tol,
            detail=f"limits {lim[0]:.10g}, {lim[1]:.10g} against {coef_V:.10g}, {coef_U:.10g}; "
            "tolerance: the Richardson change between (1e5, 1e6) and (1e6, 1e7) / 10, + 1e-9 "
            "(quadrature)",
            undecided=""
            if asymptotic
            else f"e^(2q) = e^{2 * q0:.4g} > {ANCHOR_ASYMPTOTIC:g} x 1e5: the exact "
            "values are not in their 1/L^2 regime at these L",
        )
    )
    # the whole grad_U error at L = 2, 3 from its definition, independent of the display kernel
    if definition:
        checks.append(
            definition_anchor_check(
                Gamma,
                U,
                V,
                np.zeros(len(z)) if m is None else m,
                z,
                lambda L: sg.exact_errors(Gamma, U, V, z, L)[1],
            )
        )
    return Findings(checks)


# The grad_U slip the fixed-query Monte Carlo is planned to refute (relative, in E||grad_U err||^2,
# at power POWER_TARGET), and the tokens (prompts x L) it may spend per L on that plan: enough for
# the short prompts, where a prompt is cheap (the default scenario needs ~23 000 prompts at L = 16,
# ~17 000 at L = 64: 0.4 and 1.1 million tokens).
PLANNED_SLIP = 0.10
PLAN_TOKENS = 1_500_000


def planned_prompts(pilot: np.ndarray, z_c: float, L: int, floor: int) -> int:
    """Prompts n with (z_c + z_power) sd / sqrt(n) <= PLANNED_SLIP mean for the grad_U error, from
    a pilot's coefficient of variation sd / mean (a separate draw, then discarded, so the count does
    not depend on the sample it is used on), at least `floor` and at most PLAN_TOKENS / L."""
    mean = float(np.mean(pilot))
    if not (mean > 0 and pilot.size > 1):
        return floor
    cv = float(np.std(pilot, ddof=1)) / mean
    z_power = significance.z_quantile(judge.POWER_TARGET)
    need = math.ceil(((z_c + z_power) * cv / PLANNED_SLIP) ** 2)
    return int(max(floor, min(need, PLAN_TOKENS // L)))


def fixed_query_montecarlo(
    law, rng, Gamma, U, V, z, Ls, prompts, errors_fn, n_tests: int
) -> Findings:
    """Monte Carlo of both gradient errors at the fixed query against their exact finite-L values:
    the checks, and the series (per L: Monte Carlo, standard error, exact, for each gradient).
    At each L a pilot of `prompts` prompts plans the count (`planned_prompts`) so that a
    PLANNED_SLIP relative slip in E||grad_U err||^2 is refuted with power POWER_TARGET where
    PLAN_TOKENS allows (the short L)."""
    mu = limits.gaussian_limit(law.mean, Gamma, U, np.eye(len(z)), z[None, :])
    series = {"L": list(Ls), "V": [], "V_se": [], "U": [], "U_se": [], "V_exact": [], "U_exact": []}
    series["prompts"] = []
    zs = []
    zc = significance.z_critical(check_false_alarm(), n_tests)
    # the planned sample from its own child stream: the pilots consume the claim's stream as the
    # fixed sweep always did, so every later draw stays that of the seed
    planned_rng = rng.spawn(1)[0]
    for L in Ls:
        progress(f"prop-3.4: fixed query, L = {L}")
        _, pilot = errors_fn(law, rng, prompts, L, z[None, :], mu)
        n = planned_prompts(pilot[:, 0], zc, L, prompts)
        series["prompts"].append(n)
        eV, eU = errors_fn(law, planned_rng, n, L, z[None, :], mu)
        exV, exU = sg.exact_errors(Gamma, U, V, z, L)
        for key, e, ex in (("V", eV[:, 0], exV), ("U", eU[:, 0], exU)):
            m, se = float(e.mean()), float(e.std(ddof=1) / math.sqrt(e.size))
            series[key].append(m), series[key + "_se"].append(se), series[key + "_exact"].append(ex)
            if se > 0:
                zs.append((key, L, (m - ex) / se))
            else:
                # every draw equal (e.g. Gamma = 0: the error is exactly 0): judged exactly, up to
                # rounding
                zs.append((key, L, 0.0 if abs(m - ex) <= 1e-12 * max(1.0, abs(ex)) else math.inf))
    checks = []
    for key in ("V", "U"):
        zz = [z_ for k_, _, z_ in zs if k_ == key]
        # this check's share of the claim's Bonferroni budget: its len(Ls) z-tests of n_tests
        checks.append(
            judge.z_test(
                f"fixed query: Monte Carlo E||grad_{key} err||^2 = exact finite-L value at every L",
                id=f"fixed/grad-{key.lower()}-montecarlo",
                z=zz,
                alpha=check_false_alarm() * len(zz) / n_tests,
                tests=len(zz),
                assumption=levels.NORMAL_MEAN,
                detail="prompts per L (planned from a pilot of "
                f"{prompts} for a {PLANNED_SLIP:.0%} grad_U slip at power {judge.POWER_TARGET}, "
                f"at most {PLAN_TOKENS:,} tokens per L): "
                + ", ".join(f"L = {L}: {n}" for L, n in zip(Ls, series["prompts"]))
                + "; per-L z: "
                + ", ".join(f"{v:.2f}" for v in zz)
                + f"; the claim's false alarm {check_false_alarm():g} shared over its {n_tests} "
                "z-tests (Bonferroni)",
                detectable=significance.resolution(series[key + "_exact"], series[key + "_se"], zc),
            )
        )
    return Findings(checks, series=series)


def averaged(law, rng, Gamma, U, V, Sq, Ls, budget, errors_fn, lam, label) -> dict:
    """Query-averaged Monte Carlo (blocks of importance-weighted queries x prompts, iid block means)
    and the exact average over rb draws of the same proposal."""
    c = min(6.0, query_average.proposal_scale(lam, math.log(max(Ls))))
    d = Gamma.shape[0]
    mc = {"V": [], "V_se": [], "U": [], "U_se": []}
    for L in Ls:
        progress(f"prop-3.4 {label}: query average, L = {L}")
        bV, bU = [], []
        for _ in range(budget.blocks):
            sample = query_average.draw_queries(rng, Sq, (budget.queries,), c)
            mus = limits.gaussian_limit(law.mean, Gamma, U, np.eye(d), sample.Z)
            eV, eU = errors_fn(law, rng, budget.block_prompts, L, sample.Z, mus)
            bV.append(float(np.mean(eV * sample.weights[None])))
            bU.append(float(np.mean(eU * sample.weights[None])))
        for key, vals in (("V", bV), ("U", bU)):
            mc[key].append(float(np.mean(vals)))
            mc[key + "_se"].append(float(np.std(vals, ddof=1) / math.sqrt(len(vals))))
    progress(f"prop-3.4 {label}: exact averages")
    sample = query_average.draw_queries(rng, Sq, (budget.rb_queries,), c)
    geo = sg.geometry(Gamma, U, V, sample.Z)
    ex = {"V": [], "U": [], "V_vals": [], "U_vals": []}
    for tab in sg.tables(Ls, float(np.max(geo.q)), budget.table_points):
        eV, eU = sg.errors(tab.scalars(geo.q), geo, V.shape[0])
        for key, e in (("V", eV), ("U", eU)):
            vals = sample.weights * e
            ex[key].append(float(vals.mean())), ex[key + "_vals"].append(vals)
    out = {
        "L": list(Ls),
        "scale": c,
        "mc": mc,
        "exact": {k: ex[k] for k in ("V", "U")},
        "blocks": budget.blocks,
    }
    for key in ("V", "U"):
        vals = np.array(ex[key + "_vals"])
        out[key + "_exact_se"] = (vals.std(axis=1, ddof=1) / math.sqrt(vals.shape[1])).tolist()
        fit = fits.loglog_fit(Ls, mc[key], mc[key + "_se"])
        pred = fits.loglog_fit(
            Ls, ex[key], np.asarray(mc[key + "_se"]) / np.asarray(mc[key]) * np.asarray(ex[key])
        )
        coeffs, _ = fits.loglog_slope_design(Ls, np.asarray(mc[key + "_se"]) / np.asarray(mc[key]))
        rel = vals / vals.mean(axis=1, keepdims=True)
        out[key + "_fit"] = fit
        out[key + "_pred"] = pred.slope
        out[key + "_pred_se"] = float(
            math.sqrt(max(0.0, coeffs @ np.cov(rel) @ coeffs / rel.shape[1]))
        )
    return out


# Relative error of the log-spline tables (32 points in sqrt(q)), allowed for deterministically.
# Measured on the exact averages at the regimes' lambda = 0.5 and 0.7 (4000 proposal queries,
# L = 16..1024): 32 points against 128 move E||grad_V err||^2 by 1.5e-5 and E||grad_U err||^2 by
# 3.3e-5 at most, so 1e-3 holds with a margin of 30. (A single scalar at an upper quantile of q errs
# by up to 2e-3, but those queries' weights are small.) The tables' storage and reconstruction are
# checked against the direct quadrature in tests/numerics/test_selfnormalised_gradients.py.
TABLE_RELATIVE_ERROR = 1e-3


def averaged_checks(label, av, alpha_per_L, alpha_slope, prefix: str) -> Findings:
    """The query-averaged Monte Carlo against the exact averages. Its standard errors come from
    `blocks` iid block means, so the critical values are Student's t with blocks - 1 degrees of
    freedom: exact for the per-L means up to the exact side's standard error (from many more draws;
    Welch's degrees of freedom are at least the smaller, so the smaller is conservative), and the
    same for the slope, whose weights are those estimated standard errors (approximate)."""
    checks = []
    dof = av["blocks"] - 1
    for key in ("V", "U"):
        mc, se, ex, exs = (
            av["mc"][key],
            av["mc"][key + "_se"],
            av["exact"][key],
            av[key + "_exact_se"],
        )
        zs = [
            max(0.0, abs(m - e) - TABLE_RELATIVE_ERROR * e) / math.hypot(s1, s2)
            for m, e, s1, s2 in zip(mc, ex, se, exs)
        ]
        zc = t_critical(alpha_per_L, dof)
        checks.append(
            judge.t_test(
                f"{label}: Monte Carlo E||grad_{key} err||^2_(L2(nu)) = exact finite-L value "
                "at every L",
                id=f"{prefix}/grad-{key.lower()}-montecarlo",
                t=zs,
                dof=dof,
                # alpha_per_L at each of the len(Ls) L values: the check's false alarm is their sum
                alpha=alpha_per_L * len(zs),
                tests=len(zs),
                assumption=levels.STUDENT_T,
                detail="z = (|MC - exact| - 1e-3 exact) / combined se (1e-3: table "
                f"interpolation); proposal N(0, {av['scale']:.3g} Sigma_q); per-L z: "
                + ", ".join(f"{z:.2f}" for z in zs)
                + f"; false alarm {alpha_per_L:.2g} at each L",
                detectable=significance.resolution(
                    ex, np.hypot(se, exs), zc, TABLE_RELATIVE_ERROR * np.abs(ex)
                ),
            )
        )
        fit, pred, pse = av[key + "_fit"], av[key + "_pred"], av[key + "_pred_se"]
        z = (fit.slope - pred) / math.hypot(fit.stderr, pse)
        zc = t_critical(alpha_slope, dof)
        checks.append(
            judge.t_test(
                f"{label}: fitted log-log slope of grad_{key} = exact finite-L slope over "
                "the tested L",
                id=f"{prefix}/grad-{key.lower()}-slope",
                t=z,
                dof=dof,
                alpha=alpha_slope,
                assumption=levels.STUDENT_T,
                detail=f"t = (measured - exact slope) / combined se: slope measured "
                f"{-fit.slope:.4f} +- {fit.stderr:.4f} (chi2 {fit.chi2:.2f} on {fit.dof} dof), "
                f"exact {-pred:.4f} +- {pse:.4f}; the standard errors from the block means "
                "(approximate weights)",
                detectable=significance.resolution(pred, math.hypot(fit.stderr, pse), zc),
            )
        )
    return Findings(checks)


def asymptotic_exponents(lam: float, ells, kappa: float, label: str, prefix: str) -> Findings:
    """Fit ln F = c0 - kappa l + p ln l + c1 / l (4 points or more: least squares; 3: without c1)
    to the exact d = 1 query averages F_V, F_U (numerics/selfnormalised_gradients.scalar_average)
    at l = ln L: the checks, and the fits as quantities asymptotic_fit_V and asymptotic_fit_U."""
    logs = [
        sg.scalar_average(lam, int(round(math.exp(e))), kappa)
        for e in ells
        if progress(f"prop-3.4 {label}: exact asymptotics, ln L = {e:g}") or True
    ]
    ell = np.array([math.log(round(math.exp(e))) for e in ells])
    cols = [np.ones_like(ell), -ell, np.log(ell)] + ([1 / ell] if len(ells) >= 4 else [])
    X = np.column_stack(cols)
    naive = naive_exponent(lam)
    checks, out = [], {}
    for j, key in enumerate(("V", "U")):
        y = np.array([lg[j] for lg in logs])
        c = linear_fit(X, y).coef
        out[f"asymptotic_fit_{key}"] = {
            "kappa": float(c[1]),
            "log_power": float(c[2]),
            "ells": ell.tolist(),
            "log_values": y.tolist(),
        }
        dev = abs(c[1] - kappa)
        checks.append(
            judge.agreement(
                f"{label}: exact grad_{key} error decays as L^-kappa, kappa = {kappa:.4f} "
                f"(quadrature to L = e^{max(ells):g})",
                "quadrature",
                id=f"{prefix}/grad-{key.lower()}-kappa",
                error=float(dev),
                tolerance=EXPONENT_TOL,
                unit="exponent",
                detail="|fitted kappa - predicted|, against the tolerance fixed beforehand; fit of "
                f"ln F at ln L = {', '.join(f'{e:.3g}' for e in ell)}: kappa {c[1]:.5f} "
                f"(predicted {kappa:.5f}), log power {c[2]:.3f}; naive exponent {naive:.4f}",
            )
        )
        if abs(naive - kappa) > 2 * EXPONENT_TOL:
            checks.append(
                judge.verdict(
                    f"{label}: the naive exponent min(1, 1/(2 lambda)) = {naive:.4f} is excluded "
                    f"for grad_{key}",
                    "control",
                    id=f"{prefix}/grad-{key.lower()}-naive-excluded",
                    unit="exponent",
                    value=float(abs(c[1] - naive)),
                    bound=EXPONENT_TOL,
                    rule="value >= bound",
                    tier="consistency",
                    detail=f"|fitted kappa - naive| = {abs(c[1] - naive):.3g} against "
                    f"{EXPONENT_TOL}",
                )
            )
    return Findings(checks, out)


# The pilot that plans the 1/L control's power: a third of the blocks, on the regime's own child
# stream; the planned standard error holds with probability >= 1 - PLAN_BETA (significance).
PILOT_FRACTION = 3
PLAN_BETA = 1e-3


def pilot_budget(budget):
    """The budget (claim.Budget) of the pilot that plans the 1/L control: 1/PILOT_FRACTION of the
    blocks and of the exact side's draws."""
    return replace(
        budget,
        blocks=max(8, budget.blocks // PILOT_FRACTION),
        rb_queries=max(512, budget.rb_queries // PILOT_FRACTION),
    )


def one_over_L_power(pilot: dict, blocks: int, t_c: float) -> tuple[float, str]:
    """Planned power of the 1/L control from a pilot run (`averaged` at `pilot_budget`):
    per gradient, the truth's rate bounded above by the pilot's exact rate + z_{1 - beta}
    se (closer to the claimed 1), the run's slope standard error bounded above by
    significance.pilot_se_bound (beta over the L values), and the power of the one-sided t-test
    at that effect; the control needs both refuted, so its power is at least 1 - the sum of the
    misses (the plan holds with probability >= 1 - 4 PLAN_BETA: a rate bound and a standard-error
    bound per gradient)."""
    misses, parts = 0.0, []
    beta = PLAN_BETA / len(pilot["L"])
    z_beta = significance.z_quantile(1 - PLAN_BETA)
    for key in ("V", "U"):
        rate = pilot[key + "_pred"] + z_beta * pilot[key + "_pred_se"]
        se = significance.pilot_se_bound(pilot[key + "_fit"].stderr, pilot["blocks"], blocks, beta)
        p = significance.t_power((1.0 - rate) / se, t_c, blocks - 1)
        misses += 1.0 - p
        parts.append(f"grad_{key}: rate <= {rate:.3f}, se <= {se:.3g}, power {p:.6f}")
    return max(0.0, 1.0 - misses), "; ".join(parts)


def one_over_L_control(av, pilot, lam, prefix: str) -> judge.Check:
    """Above the threshold a claimed 1/L rate must be refuted by the Monte Carlo fit
    (grad_V and grad_U); the fit's standard errors come from the block means: Student t with
    blocks - 1 dof. Judged only when its power, planned from the pilot before the run's data are
    used, reaches judge.POWER_TARGET (judge.control). Its statistic is the smaller of the two
    (1 - measured rate) / se, which must reach the one-sided critical value."""
    zc = t_critical(check_false_alarm(), av["blocks"] - 1, sided=1)
    planned, plan = one_over_L_power(pilot, av["blocks"], zc)
    zs = {key: (av[key + "_fit"].slope - 1.0) / av[key + "_fit"].stderr for key in ("V", "U")}
    name = (
        f"negative control (lambda = {lam:.3g}): a claimed 1/L rate for both gradients is refuted "
        "by Monte Carlo"
    )
    detail = (
        "z = (measured rate - 1) / se: "
        + ", ".join(f"grad_{k} {v:.1f}" for k, v in zs.items())
        + f"; one-sided at false-alarm {check_false_alarm():g} each (Student t, {av['blocks'] - 1} "
        f"dof, critical {-zc:.3g}); power planned from a pilot of {pilot['blocks']} blocks on its "
        f"own stream: {plan}"
    )
    # both gradients refute 1/L when the smaller of -z_V, -z_U reaches the critical value
    return judge.control(
        name,
        id=f"{prefix}/control-one-over-l",
        statistic=float(min(-z for z in zs.values())),
        critical=zc,
        power=planned,
        tier="statistical",
        unit="z",
        detail=detail,
    )


# The witness's Catoni variance and where it is proved.
WITNESS_VARIANCE_SOURCE = (
    "Var over prompts of the L = 1 grad_V error k |z_1 - mu_a|^2, k^2 (2 tr(Gamma^2) + "
    "4 (U z)^T Gamma^3 (U z)), proved for Gaussian tokens (derivations/gradient_fluctuations.py, "
    "one_token_variance_proofs; kernel gradient_V_error_one_token_variance)"
)


def erratum_one(law, rng, Gamma, U, V, z, prompts, errors_fn) -> Findings:
    """At L = 1 the exact errors are closed forms while the paper's right side is 0: a positive one
    witnesses the erratum for its gradient. Judged: the Monte Carlo grad_V error at L = 1 equals
    the exact value, by Catoni's test with the proved per-prompt variance
    k^2 (2 tr(Gamma^2) + 4 (U z)^T Gamma^3 (U z)) (a proven level; refuted beyond its radius);
    then verified when some exact error is positive, undecided when both are 0 (no witness on this
    scenario). One positive error suffices: the query 0 makes the grad_U error
    |z|^2 ||V Gamma||_F^2 vanish on a correct claim; the grad_V error is positive whenever
    Gamma != 0, so the undecided case needs Gamma = 0, which validation rejects. The check, and
    erratum 1 with the exact and Monte Carlo values as its witness."""
    eV1, eU1 = sg.exact_errors(Gamma, U, V, z, 1)
    mu = limits.gaussian_limit(law.mean, Gamma, U, np.eye(len(z)), z[None, :])
    mV, mU = errors_fn(law, rng, prompts, 1, z[None, :], mu)
    # derivations/gradient_fluctuations.py: the per-prompt variance, proved (not estimated)
    variance = float(kernels.gradient_V_error_one_token_variance(Gamma, V, U, z[:, None])[0, 0])

    def witness_check(undecided: str = "") -> judge.Check:
        return judge.catoni_test(
            "erratum 1 witness: at L = 1 an exact gradient error exceeds the paper's right side c1 "
            "sigma^p ln(1)^j = 0",
            id="erratum-1/witness",
            samples=mV[:, 0],
            prediction=eV1,
            variance=judge.ProvenVariance(variance, WITNESS_VARIANCE_SOURCE),
            alpha=check_false_alarm(),
            kind="quadrature",
            tier="statistical",
            detail=f"exact (quadrature = closed form, see the L = 1 anchor) grad_V {eV1:.6g}, "
            f"grad_U {eU1:.6g} against the paper's 0; Monte Carlo grad_V at L = 1 "
            f"{float(mV.mean()):.6g} over {mV.shape[0]} prompts",
            undecided=undecided,
        )

    witness = witness_check()
    # a witness needs a positive exact error besides: without one (and no refutation) undecided
    if not (eV1 > 0 or eU1 > 0) and witness.passed:
        witness = witness_check("both exact errors are 0 here: no witness on this scenario")
    erratum = {
        "id": 1,
        "title": "Proposition 3.4 as displayed fails at L = 1: ln(1) = 0 makes the right side 0",
        "witness": {
            "L": 1,
            "grad_V_error_exact": eV1,
            "grad_U_error_exact": eU1,
            "grad_V_error_monte_carlo": float(mV.mean()),
            "paper_bound": 0.0,
        },
        "fix": "state the bound for L >= 2 (the suite checks L >= 2)",
    }
    return Findings([witness], errata=[erratum])


def gradient_errors_fn(U, V, Gamma, weighted_matrix=None):
    """errors(law, rng, P, L, queries, mus) -> (k |zhat - mu_a|^2, |z|^2 ||V (C - Gamma)||_F^2),
    (P, Q) each.

    An algorithm, not a formula: the squared Frobenius norms of J_V(zhat) - J_V(mu_a) =
    (zhat - mu_a)^T kron I_k and J_U(C_hat) - J_U(Gamma) = z^T kron V (C_hat - Gamma)
    (the emitted Jacobians of derivations/jacobians.py), evaluated for every prompt and query at
    once; tests/claims/test_prop34_error_norms.py checks them against the emitted Jacobian kernels
    one sample at a time."""
    k = V.shape[0]

    def fn(law, rng, P, L, queries, mus):
        zhat, Chat = gradients.sampled_weighted_moments(law, rng, P, L, U, queries, mus)
        if weighted_matrix is not None:
            Chat = weighted_matrix(zhat, Chat)
        errV = k * np.sum((zhat - mus[None]) ** 2, axis=2)
        D = np.einsum("ki,pqij->pqkj", V, Chat - Gamma)
        return errV, np.sum(queries**2, axis=1)[None, :] * np.sum(D**2, axis=(2, 3))

    return fn
