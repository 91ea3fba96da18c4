"""The judged checks of claim `authors-experiment` (docs/paper.md section 6, erratum 5), by model:
linear attention against its exact finite-L risk and optimum, softmax against the infinite-prompt
prediction, and the authors' data generator against the covariances it really produces. Each step
returns its Findings: its checks in the certificate's order and the quantities it reports.
Verdicts are three-way (claims/shared/risk_power.py, undecided_between).
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import authors_loss_variance, authors_sgd, finite_risk as fr, kernels, significance
from ...numerics.significance import chi2_critical, z_critical
from ..shared import risk_power as pw
from .exact import OMEGA_MAX, ratio_detectable
from .training import BATCH, LR
from ...judge.check import check_false_alarm
from ...judge import kinds as judge, levels
from ...core.findings import Findings

ANCHOR_LS = (1, 2)  # exact-anchor prompt lengths of the linear risk
ANCHOR_DRAWS = 40_000  # fresh prompts per anchor L (a few ms each at L <= 2)
# Theorem 4.3 at CPU scale: by the largest L the softmax risk must be within 10% of R*_inf (a
# stated eps: the theorem gives no L(eps), and the finite-L excess of softmax has no usable 1/L
# expansion here, since the SGD parameters have omega above the threshold where the softmax
# weights' second moment averaged over queries is finite; quantity
# softmax_omega_threshold_1_over_L).
EPS_RELATIVE = 0.10
# Optimisation tolerance of softmax SGD against its best parameters: the authors ran 300 000
# steps; ours stop early and the split of p = mu omega between mu and omega drifts slowly along a
# flat valley (the risk depends on the split only through the finite-L excess). Stated: 5% of
# R*_inf.
OPT_RELATIVE = 0.05
OPTIMUM_ROUNDING = 1e-9  # relative: exact risks computed in double precision from the same traces
LIMIT_RELATIVE = (
    1e-3  # |R*_(L = 1e6) - R*_inf| allowed, relative to the null risk (c*/L ~ 1e-5 there)
)


def _z(false_alarm: float, tests: int, sided: int = 2) -> float:
    return z_critical(false_alarm, tests, sided)


def _standardised(difference: float, se: float) -> float:
    """difference / se; NaN when se is not positive (a degenerate standard error: undecided)."""
    return float(difference) / float(se) if se > 0 else math.nan


# The Catoni tests' variance bound and where it is proved.
LOSS_VARIANCE_SOURCE = (
    "Var of linear attention's per-prompt loss (f - p abar)^2 + s2, E D^4 - (E D^2)^2 with "
    "E[D^j | beta, q] derived and proved (derivations/authors_experiment.py step 6, "
    "loss_variance_proofs; kernels authors_linear_loss_conditional_second and _fourth) and the "
    "outer expectation by a Gauss-Hermite rule exact for its degree, plus a rounding allowance "
    "(numerics/authors_loss_variance.py)"
)


def linear_risk_test(name, *, id, losses, exact, variance_of, Ls, z, se, detail) -> judge.Check:
    """Linear attention's Monte Carlo risks against their exact values at every L in `Ls`: Catoni's
    test (a proven level) on the per-prompt losses `losses[L]` with the proved variance
    `variance_of(L)` (numerics/authors_loss_variance.py), Bonferroni over the L inside the test;
    where that variance is out of reach (a dimension beyond its exact rule) the normal test on
    the given z and standard errors."""
    try:
        variances = [variance_of(L) for L in Ls]
    except authors_loss_variance.OutOfReach as why:
        return judge.z_test(
            name,
            id=id,
            z=[z[L] for L in Ls],
            alpha=check_false_alarm(),
            tests=len(Ls),
            sided=2,
            assumption=levels.NORMAL_MEAN,
            detail=detail + f"; the normal test: the loss variance is out of reach ({why})",
            detectable=significance.resolution(
                [exact[L] for L in Ls], [se[L] for L in Ls], _z(check_false_alarm(), len(Ls))
            ),
        )
    return judge.catoni_test(
        name,
        id=id,
        samples=np.column_stack([losses[L] for L in Ls]),
        prediction=[exact[L] for L in Ls],
        variance=judge.ProvenVariance(variances, LOSS_VARIANCE_SOURCE),
        alpha=check_false_alarm(),
        detail=detail,
    )


def linear_checks(s, C, params, risk, Sp, Sq, lin_risk, test_prompts: int, rng) -> Findings:
    """Linear attention: test risk = exact finite-L risk, exact anchors at L = 1, 2, SGD optimality
    (`test_prompts` per L). Quantities: the exact risk per L ("linear_exact_risk") and the exact
    optimum [p*_L, min risk] per L ("linear_exact_optimum")."""
    Ls, s2, tau = s["Ls"], s["s2"], s["tau"]
    nL = len(Ls)
    checks = []
    # Linear attention against its exact finite-L risk.
    exact = {L: float(lin_risk(Sp, Sq, *params["linear"][L], s2, tau, L)) for L in Ls}
    z_lin = {L: abs(risk["linear"][L][0] - exact[L]) / risk["linear"][L][1] for L in Ls}
    worst = max(Ls, key=lambda L: z_lin[L])
    checks.append(
        linear_risk_test(
            "linear attention: test risk = exact finite-L risk at the trained parameters, every L",
            id="linear/test-risk-exact",
            losses={L: C["per_L"][L]["losses"]["linear"] for L in Ls},
            exact=exact,
            variance_of=lambda L: authors_loss_variance.linear_loss_variance(
                Sp, Sq, *params["linear"][L], s2, tau, L
            ),
            Ls=Ls,
            z=z_lin,
            se={L: risk["linear"][L][1] for L in Ls},
            detail=f"largest |R_test - R_exact| / se over L (at L = {worst}: "
            f"{risk['linear'][worst][0]:.5g} vs {exact[worst]:.5g}); {test_prompts} test prompts "
            "per L, Bonferroni over the L",
        )
    )
    # Exact anchors at L = 1, 2, where finite-prompt terms (the L (L - 1) pairs, the 1/L diagonal)
    # are as large as the risk itself: the derived linear risk against fresh prompts at the
    # parameters trained at the smallest L.
    mu0, om0 = params["linear"][Ls[0]]
    anchor, anchor_losses = {}, {}
    for L in ANCHOR_LS:
        ev = authors_sgd.evaluate(
            {"linear": ("linear", mu0, om0)},
            s["Sigma"],
            s2,
            tau,
            L,
            "correct",
            ANCHOR_DRAWS,
            rng,
            keep=("linear",),
        )
        anchor[L] = (ev["risk"]["linear"], float(lin_risk(Sp, Sq, mu0, om0, s2, tau, L)))
        anchor_losses[L] = ev["losses"]["linear"]
    z_anchor = {L: abs(m[0] - e) / m[1] for L, (m, e) in anchor.items()}
    worst_a = max(ANCHOR_LS, key=lambda L: z_anchor[L])
    checks.append(
        linear_risk_test(
            "linear attention: exact finite-L risk at L = 1, 2 = Monte Carlo on fresh prompts",
            id="linear/anchors-l1-l2",
            losses=anchor_losses,
            exact={L: e for L, (_, e) in anchor.items()},
            variance_of=lambda L: authors_loss_variance.linear_loss_variance(
                Sp, Sq, mu0, om0, s2, tau, L
            ),
            Ls=list(ANCHOR_LS),
            z=z_anchor,
            se={L: m[1] for L, (m, _) in anchor.items()},
            detail=f"largest |R_mc - R_exact| / se at (mu, omega) = ({mu0:.6g}, {om0:.6g}) (at "
            f"L = {worst_a}), {ANCHOR_DRAWS} prompts per L, Bonferroni over the L",
        )
    )
    # Linear attention: SGD optimality against the exact finite-L optimum. Gap and minimum are both
    # exact (no sampling), so two slips of the optimum formula refute deterministically: a minimum
    # risk that is not the risk at its own p*, and an SGD end whose exact risk lies below the
    # "minimum".
    q_chi2 = chi2_critical(check_false_alarm(), 1, tests=nL)
    lin_min = {
        L: [
            float(v) for v in np.asarray(kernels.authors_linear_optimum(Sp, Sq, s2, tau, L)).ravel()
        ]
        for L in Ls
    }
    at_sgd = {
        L: float(kernels.authors_linear_risk(Sp, Sq, *params["linear"][L], s2, tau, L)) for L in Ls
    }
    at_opt = {
        L: float(kernels.authors_linear_risk(Sp, Sq, lin_min[L][0], 1.0, s2, tau, L)) for L in Ls
    }
    gap = {L: at_sgd[L] - lin_min[L][1] for L in Ls}
    # the null risk s2 + tau tr Sigma_q (the risk at p = 0): the size of the terms that cancel in R
    null = float(kernels.authors_linear_risk(Sp, Sq, 0.0, 1.0, s2, tau, Ls[0]))
    rounding = {
        L: OPTIMUM_ROUNDING * max(abs(at_sgd[L]), abs(lin_min[L][1]), abs(at_opt[L]), null)
        for L in Ls
    }
    inconsistent = [L for L in Ls if abs(at_opt[L] - lin_min[L][1]) > rounding[L]]
    below = [L for L in Ls if gap[L] < -rounding[L]]
    noise_floor = {L: LR * C["per_L"][L]["grad_cov_trace"]["linear"] / (4 * BATCH) for L in Ls}
    ratio = {L: gap[L] / (q_chi2 * noise_floor[L]) for L in Ls}
    worst = max(Ls, key=lambda L: ratio[L])
    # The optimum formula refuted (deterministic): the largest of |R(p*) - minimum| / rounding and
    # -(gap) / rounding, above 1 exactly when some L is inconsistent or below.
    refuted = bool(inconsistent or below)
    slips = [
        max(abs(at_opt[L] - lin_min[L][1]), -gap[L]) / rounding[L] if rounding[L] > 0 else math.inf
        for L in Ls
    ]
    slip = max((x for x in slips if not math.isnan(x)), default=math.nan)
    ratios = list(ratio.values())
    largest = max(ratios) if all(math.isfinite(r) for r in ratios) else math.nan
    checks.append(
        judge.verdict(
            "linear attention: SGD reached the exact finite-L optimum within the SGD noise floor, "
            "every L",
            "montecarlo",
            id="linear/sgd-optimum",
            unit="ratio",
            value=slip if refuted else largest,
            bound=1.0,
            rule="value <= bound",
            detail="value: largest (exact risk gap) / tolerance over L, or, when the exact "
            "optimum is not a minimum, the largest |R(p*) - minimum| or -(gap) over the rounding; "
            "refuted when the exact optimum is not a minimum: its risk differs from the exact risk "
            f"at its own p* (L = {inconsistent}) or the SGD end's exact risk lies below it "
            f"(L = {below}), beyond {OPTIMUM_ROUNDING:g} relative of the null risk "
            "s2 + tau tr Sigma_q or the risks (rounding); undecided (budget too small: SGD not "
            f"converged) when the gap is above its tolerance; tolerance = {q_chi2:.3g} x "
            "lr tr(C) / (4 batch): the mean excess of constant-step SGD at stationarity is "
            "lr tr(H P) / 2 = lr tr(C) / (4 batch) (Lyapunov equation, C = per-prompt gradient "
            f"covariance, measured at the end), and a chi2_1 excess exceeds {q_chi2:.3g} times its "
            f"mean with probability {check_false_alarm() / nL:.2g}; worst at L = {worst}: gap "
            f"{gap[worst]:.3g}, ratio {ratio[worst]:.3g}",
            detectable=ratio_detectable(
                [q_chi2 * noise_floor[L] for L in Ls], [lin_min[L][1] for L in Ls]
            ),
            false_alarm=levels.nominal(check_false_alarm(), pw.SGD_STATIONARY),
            undecided=""
            if refuted or not largest > 1.0
            else f"SGD not converged: the largest gap over its tolerance is {largest:.4g} > 1 "
            "(the step budget is too small)",
        )
    )
    return Findings(checks, {"linear_exact_risk": exact, "linear_exact_optimum": lin_min})


def softmax_checks(C, Ls, params, risk, Sp, Sq, s2, tau, R_star, inf_risk) -> Findings:
    """Softmax: the risk decreases with L, the best and the SGD parameters approach R*_inf, softmax
    and linear attention approach each other. Quantities: softmax minus linear per L
    ("softmax_minus_linear") and SGD minus best per L ("softmax_sgd_minus_best")."""
    checks = []
    # Softmax: approach to the infinite-prompt prediction. Verdicts are three-way (authors_power):
    # verified when the confidence bound clears the boundary, refuted only when the opposite bound
    # crosses it (evidence beyond the false alarm), undecided otherwise.
    Lmin, Lmax = Ls[0], Ls[-1]
    z1 = _z(check_false_alarm(), 1, sided=1)
    dec = risk["softmax"][Lmin][0] - risk["softmax"][Lmax][0]
    dec_se = math.hypot(risk["softmax"][Lmin][1], risk["softmax"][Lmax][1])
    checks.append(
        judge.z_test(
            "softmax: the final test risk decreases from the smallest to the largest L",
            id="softmax/risk-decreases",
            z=_standardised(-dec, dec_se),
            alpha=check_false_alarm(),
            tests=1,
            sided=1,
            assumption=levels.NORMAL_MEAN,
            detail=f"(R(L={Lmax}) - R(L={Lmin})) / se, R(L={Lmin}) - R(L={Lmax}) = {dec:.4g} +- "
            f"{dec_se:.2g} (independent test prompts); refuted above {z1:.3g}, verified only below "
            f"-{z1:.3g}, undecided between",
            undecided=pw.undecided_between(_standardised(-dec, dec_se), z1),
            # a sign test: the smallest increase from L_min to L_max, relative to R(L_min), refuted
            detectable=significance.resolution(risk["softmax"][Lmin][0], dec_se, z1),
        )
    )
    # SGD against the best softmax parameters: reported (an optimisation budget, not the paper's
    # statement).
    diffs = {L: C["per_L"][L]["difference"]["softmax - softmax_best"] for L in Ls}

    def approach(name):
        """R(L_max) - R*_inf by the exact control variate: mean(loss - infinite-prompt loss) on the
        test prompts plus the derived R_inf(p) - R*_inf at the model's own p = mu omega."""
        mu_, om_ = params[name][Lmax]
        ex_mean, ex_se = C["per_L"][Lmax]["excess_over_limit"][name]
        return ex_mean + float(inf_risk(Sp, Sq, mu_, om_, s2, tau)) - R_star, ex_se

    eps, opt_tol = EPS_RELATIVE * R_star, OPT_RELATIVE * R_star
    # Theorem 4.3 promises eps only for L >= L(eps). Whether L_max reaches it is read off the exact
    # route: the best exact softmax risk at L_max (|omega| <= OMEGA_MAX). Above the bound, no
    # parameters of the route meet it and the check is undecided, not refuted (e.g. d = 1,
    # Sigma = 0.5, noise 0: R*_inf = 0, so eps = 0, which no finite L meets).
    model = fr.Model(Sp, Sq, tau, s2)
    exact_best = fr.surface(model, Lmax, OMEGA_MAX).optimum()[2] - R_star
    # ...but a wrong R*_inf would also look like "L below L(eps)": the exact optimum at L = 1e6 must
    # sit at R*_inf, else the checks are refuted.
    limit, (limit_gap, null) = limit_check(model, R_star)
    limit_ok = all(c.passed for c in limit.checks)
    checks += limit.checks
    for name, label, bound in (
        (
            "softmax_best",
            f"softmax, best parameters: the risk at L = {Lmax} is within "
            f"{EPS_RELATIVE:.0%} of R*_inf",
            eps,
        ),
        (
            "softmax",
            f"softmax, SGD: the final test risk at L = {Lmax} is within {EPS_RELATIVE:.0%} + "
            f"{OPT_RELATIVE:.0%} (optimisation tolerance) of R*_inf",
            eps + opt_tol,
        ),
    ):
        est, se = approach(name)
        reached = exact_best <= bound
        check_id = (
            "softmax/r-star-approach-best"
            if name == "softmax_best"
            else "softmax/r-star-approach-sgd"
        )
        detail = (
            f"(R - R*_inf - tolerance) / se, R - R*_inf = {est:.5g} +- {se:.2g} (exact control "
            "variate: the infinite-prompt loss on the same prompts, its mean derived), tolerance "
            f"{bound:.5g}; R*_inf = {R_star:.6g} (derived); refuted only when the lower confidence "
            f"bound exceeds the tolerance, verified when the upper one "
            f"({est + z1 * se:.5g}) clears it; eps = {EPS_RELATIVE} R*_inf stated (Theorem 4.3 "
            "gives no L(eps))"
        )
        if not reached and not limit_ok:
            # the regime is not reached because R*_inf is not the limit: refuted by the exact route
            checks.append(
                judge.agreement(
                    label,
                    "quadrature",
                    id=check_id,
                    error=abs(limit_gap) / null,
                    tolerance=LIMIT_RELATIVE,
                    detail=f"refuted: the exact optimum at L = 1e6 is {limit_gap:.4g} from R*_inf, "
                    f"beyond {LIMIT_RELATIVE:g} x the null risk {null:.4g}: R*_inf is not the "
                    "limit (softmax/r-star-limit), and the exact best softmax excess at "
                    f"L = {Lmax} is {exact_best:.4g} > {bound:.4g}; value |min R_(1e6) - R*_inf| / "
                    f"null risk; Monte Carlo: {detail}",
                )
            )
            continue
        checks.append(
            judge.z_test(
                label,
                id=check_id,
                z=_standardised(est - bound, se),
                alpha=check_false_alarm(),
                tests=1,
                sided=1,
                assumption=levels.NORMAL_MEAN,
                detail=detail
                + (
                    ""
                    if reached
                    else f"; undecided: the exact best softmax excess at L = {Lmax} "
                    f"(|omega| <= {OMEGA_MAX:g}) is {exact_best:.4g} > {bound:.4g}, so "
                    f"L = {Lmax} is below L(eps) or the optimum lies beyond the exact route's reach"
                ),
                detectable=significance.resolution(R_star, se, z1),
                undecided=pw.undecided_between(_standardised(est - bound, se), z1)
                if reached
                else f"L = {Lmax} is below L(eps) or the optimum lies beyond the exact route's "
                f"reach (the exact best softmax excess {exact_best:.4g} > {bound:.4g})",
            )
        )
    # Softmax and linear approach each other.
    sl = {L: C["per_L"][L]["difference"]["softmax - linear"] for L in Ls}
    shrink_se = math.hypot(sl[Lmin][1], sl[Lmax][1])
    shrink = abs(sl[Lmin][0]) - abs(sl[Lmax][0])
    checks.append(
        judge.z_test(
            "softmax and linear attention approach each other: |R_soft - R_lin| shrinks from the "
            "smallest to the largest L",
            id="approach/softmax-linear",
            z=_standardised(-shrink, shrink_se),
            alpha=check_false_alarm(),
            tests=1,
            sided=1,
            assumption=levels.NORMAL_MEAN,
            detail=f"(|R_soft - R_lin|(L={Lmax}) - |R_soft - R_lin|(L={Lmin})) / se; "
            f"R_soft - R_lin = {sl[Lmin][0]:.4g} +- {sl[Lmin][1]:.2g} at L = {Lmin}, "
            f"{sl[Lmax][0]:.4g} +- {sl[Lmax][1]:.2g} at L = {Lmax} (same test prompts for both "
            f"models); refuted above {z1:.3g}, verified only below -{z1:.3g}, undecided between",
            undecided=pw.undecided_between(_standardised(-shrink, shrink_se), z1),
            # a sign test: the smallest growth of |R_soft - R_lin|, relative to it at L_min, refuted
            detectable=significance.resolution(abs(sl[Lmin][0]), shrink_se, z1),
        )
    )
    return Findings(checks, {"softmax_minus_linear": sl, "softmax_sgd_minus_best": diffs})


def limit_check(model, R_star: float) -> tuple[Findings, tuple[float, float]]:
    """R*_inf, the headline prediction, judged on both sides whatever the Monte Carlo says: the
    exact finite-L optimum at L = 1e6 (|omega| <= OMEGA_MAX) must lie within LIMIT_RELATIVE of the
    null risk tau tr Sigma_q + s2 from it. (The approach checks are one-sided: a larger R*_inf
    lowers their estimate and raises their tolerance.) Returns the check's Findings and, for the
    approach checks, (min R_(1e6) - R*_inf, the null risk)."""
    null = model.tau * float(np.trace(model.Sigma_q)) + model.s2
    limit_gap = fr.RiskSurface(model, 10**6, OMEGA_MAX).optimum()[2] - R_star
    check = judge.agreement(
        "softmax: R*_inf (derived) is the limit of the exact finite-L optimum: "
        "|min R_(L = 1e6) - R*_inf| within the stated tolerance, relative to the null risk",
        "quadrature",
        id="softmax/r-star-limit",
        error=abs(limit_gap) / null,
        tolerance=LIMIT_RELATIVE,
        detail=f"min R_(L = 1e6) = {limit_gap + R_star:.8g} by the exact finite-L route "
        f"(|omega| <= {OMEGA_MAX:g}) against R*_inf = {R_star:.8g} from the derived "
        f"infinite-prompt optimum; null risk tau tr Sigma_q + s2 = {null:.6g}; two-sided",
    )
    return Findings([check]), (limit_gap, null)


# The correct-data control's plan: its standard errors bounded from the pilot with probability
# >= 1 - PLAN_BETA (significance.pilot_se_bound), judged from power judge.POWER_TARGET.
PLAN_BETA = 1e-3


def correct_data_control(z_w: dict, z_L: float, exact_a: dict, wrong: dict, pilot: dict):
    """The authors' trained linear model, tested on the authors' data, must refute the exact risk
    under the correct covariances (the wrong formula for that data): refuted when some L has
    |MC - wrong| / se >= z_L. Its power, planned from the pilot: per L the effect |exact_a - wrong|
    (both exact) over the pilot's bound on the run's se, and the control refutes when any L does, so
    the power is at least the largest per-L power; below judge.POWER_TARGET it is not judged."""
    Ls = list(z_w)
    per_L = {}
    for L in Ls:
        se = significance.pilot_se_bound(
            pilot["se"][L], pilot["prompts"], pilot["test"], PLAN_BETA / len(Ls)
        )
        per_L[L] = significance.power(exact_a[L] - wrong[L], se, z_L)
    best = max(Ls, key=lambda L: per_L[L])
    planned = per_L[best]
    largest = [z_w[L] for L in Ls]
    return judge.control(
        "control: on the authors' data the correct-data exact linear risk is refuted",
        id="control/correct-data-risk",
        statistic=max(largest) if all(math.isfinite(x) for x in largest) else math.nan,
        critical=z_L,
        power=planned,
        tier="statistical",
        unit="|z|",
        detail="largest |MC - correct-data exact risk| / se over L; power planned from a pilot of "
        f"{pilot['prompts']} prompts per L on its own streams: {planned:.6f} (at L = {best}, exact "
        f"risks {exact_a[best]:.5g} on the authors' covariances against {wrong[best]:.5g})",
    )


def generator_checks(Au, Ls, Sp, Sq, s2, tau, risk, lin_risk, inf_opt, pilot: dict) -> Findings:
    """The authors' generator (erratum 5): its linear risk is the exact risk under the covariances
    it produces; two controls. `pilot` = {"se": {L: se}, "prompts": n, "test": n_test}: the pilot's
    standard errors of the linear risk (training.pilot_linear_se). Quantity: "authors_generator",
    what the generator's run gives (its covariances, infinite-prompt prediction, risks and
    parameters, and those parameters' risks on correct data)."""
    z_L = _z(check_false_alarm(), len(Ls))
    checks = []
    Sp_a, Sq_a = Au["covariances"]
    p_star_a, R_star_a = inf_opt(Sp_a, Sq_a, s2, tau)
    risk_a = {
        m: {L: Au["per_L"][L]["risk"][m] for L in Ls} for m in ("softmax", "linear", "softmax_best")
    }
    params_a = {
        m: {L: Au["per_L"][L]["params"][m] for L in Ls}
        for m in ("softmax", "linear", "softmax_best")
    }
    exact_a = {L: float(lin_risk(Sp_a, Sq_a, *params_a["linear"][L], s2, tau, L)) for L in Ls}
    z_a = {L: abs(risk_a["linear"][L][0] - exact_a[L]) / risk_a["linear"][L][1] for L in Ls}
    worst = max(Ls, key=lambda L: z_a[L])
    checks.append(
        linear_risk_test(
            "authors' generator: linear risk = exact risk under "
            "(Sigma_p, Sigma_q) = (R Sigma R^T, I), every L",
            id="generator/linear-exact",
            losses={L: Au["per_L"][L]["losses"]["linear"] for L in Ls},
            exact=exact_a,
            variance_of=lambda L: authors_loss_variance.linear_loss_variance(
                Sp_a, Sq_a, *params_a["linear"][L], s2, tau, L
            ),
            Ls=list(Ls),
            z=z_a,
            se={L: risk_a["linear"][L][1] for L in Ls},
            detail="the discrepancy is fully explained by the covariances the generator produces; "
            f"largest |R_test - R_exact| / se over L (at L = {worst}), Bonferroni over the L",
        )
    )
    wrong = {L: float(lin_risk(Sp, Sq, *params_a["linear"][L], s2, tau, L)) for L in Ls}
    z_w = {L: abs(risk_a["linear"][L][0] - wrong[L]) / risk_a["linear"][L][1] for L in Ls}
    checks.append(correct_data_control(z_w, z_L, exact_a, wrong, pilot))
    delta = {
        m: {
            L: [risk_a[m][L][0] - risk[m][L][0], math.hypot(risk_a[m][L][1], risk[m][L][1])]
            for L in Ls
        }
        for m in ("softmax", "linear")
    }
    z_delta = min(abs(v[0]) / v[1] for m in delta for v in delta[m].values())
    # No planned power (the two SGD endpoints' risks have no derived difference to plan from): it
    # refutes (passes) beyond the critical value and is undecided, never failed, within noise. A
    # check that cannot fail is tier consistency: it shows the generator matters, it guards nothing.
    checks.append(
        judge.verdict(
            "control: the authors' generator changes the final risk beyond noise, every L and both "
            "attentions",
            "control",
            id="control/generator-changes-risk",
            unit="|z|",
            value=z_delta,
            bound=z_L,
            rule="value >= bound",
            tier="consistency",
            detail="smallest |R_authors - R_correct| / se over L and models (independent runs); "
            "no planned power, so undecided (never failed) when some difference is within noise",
            undecided=""
            if z_delta > z_L
            else f"not refuted: {z_delta:.4g} is not above the critical value {z_L:.4g}",
        )
    )
    generator = {
        "prompt_covariance": Sp_a,
        "query_covariance": Sq_a,
        "infinite_prompt_risk": R_star_a,
        "infinite_prompt_optimum_product": p_star_a,
        "softmax_risk": risk_a["softmax"],
        "linear_risk": risk_a["linear"],
        "softmax_best_risk": risk_a["softmax_best"],
        "linear_exact_risk": exact_a,
        "softmax_minus_linear": {L: Au["per_L"][L]["difference"]["softmax - linear"] for L in Ls},
        "trained_params": params_a,
        "risk_difference_authors_minus_correct": delta,
        "trained_params_on_correct_data": {
            m: {L: Au["per_L"][L]["on_correct_data"][m] for L in Ls} for m in ("softmax", "linear")
        },
    }
    return Findings(checks, {"authors_generator": generator})
