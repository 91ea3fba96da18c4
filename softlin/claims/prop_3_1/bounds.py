"""prop-3.1, explicit bounds: the high-probability and in-expectation bounds
(every constant explicit), the paper's form c1 sigma^6 ln L / L^(c2 / sigma^2) with c1 from the
proven in-expectation bound, and erratum 1 (the display fails at L = 1)."""

from __future__ import annotations

import functools
import math

import numpy as np

from ...numerics import kernels, limits, montecarlo, query_average, selfnormalised, significance
from ...numerics.significance import binomial_detectable
from ...numerics.laws import GaussianLaw, psd_root
from ...judge import kinds as judge, levels
from ...judge.check import check_false_alarm
from ...core.findings import Findings
from ...core.progress import sweep
from ...derivations import fluctuations_bound, fluctuations_one_token
from ..shared.limit_battery import deviation_bound
from ..shared.common import subgaussian_sigma
from .fixed import FixedQueryRun


def expectation_bound(L: int, trace_plus: np.ndarray, q: np.ndarray) -> np.ndarray:
    """eps_L^2(z) of derivations/fluctuations_bound.py (L >= 2), from the emitted factor."""
    with np.errstate(over="ignore"):
        return trace_plus * kernels.expectation_bound_factor(L, q)


# The bound eps_L^2(z) is evaluated by the emitted kernels in floats (a few roundings of 1e-16
# each): the ball must clear it by this relative margin for the comparison to be a proof.
BOUND_FLOAT_MARGIN = 1e-12


def expectation_bound_enclosed(Ls, bounds, fixed_quantities: dict) -> judge.Check:
    """ "The in-expectation bound holds at L", proved where the exact E|err|^2 is enclosed:
    the upper end of its Arb ball (fixed.enclosure_check, rounded outward) lies below eps_L^2(z)
    (1 - BOUND_FLOAT_MARGIN). The value is the largest ball-top / bound over those L: one minus it
    is the slack, the largest relative lowering of the bound (a constant slipped) that this proof
    would still pass."""
    balls = dict(
        zip(
            fixed_quantities["fixed_query_enclosed_L"],
            fixed_quantities["fixed_query_exact_mse_enclosure"],
        )
    )
    rows = [
        (L, balls[L][1], b)
        for L, b in zip(Ls, bounds)
        if L in balls and L >= 2 and math.isfinite(b)
    ]
    name = (
        "fixed query: E|T[mu_L](z) - T[mu](z)|^2 <= eps_L^2(z) proved at every enclosed L "
        "(Arb ball below the bound)"
    )
    if not rows:
        return judge.unjudged(
            name,
            "quadrature",
            "no enclosed L >= 2 with a finite bound",
            tier="enclosure",
            id="fixed/expectation-bound-enclosed",
            unit="ratio",
        )
    ratio = max(top / b for _, top, b in rows)
    return judge.verdict(
        name,
        "quadrature",
        id="fixed/expectation-bound-enclosed",
        unit="ratio",
        value=ratio,
        bound=1 - BOUND_FLOAT_MARGIN,
        rule="value <= bound",
        tier="enclosure",
        detail="upper end of the enclosure / bound per L: "
        + ", ".join(f"L = {L}: {top / b:.4g}" for L, top, b in rows)
        + f"; the bound from the emitted kernels in floats, cleared by {BOUND_FLOAT_MARGIN:g} "
        "relative",
    )


# The fixed-query tightness is judged at these L on the exact route (the bound's second term has
# vanished there, and the exact error is in its 1/L regime when e^{2q} <= TIGHTNESS_ASYMPTOTIC x
# the smaller L).
TIGHTNESS_LS = (10**6, 10**7)
TIGHTNESS_ASYMPTOTIC = 1e-2
# The O(1/L) remainder of the ratio at the larger L, estimated from its change between the two
# (Richardson: c / L' = (r(L) - r(L')) L / (L' - L)), is allowed for with this margin, plus the
# exact route's stated error (fixed.FLOAT_ROUTE_RELATIVE, 1e-10 relative) twice and float rounding.
TIGHTNESS_MARGIN = 10.0
TIGHTNESS_ROUNDING = 3e-10


@functools.cache
def _tightness_limit():
    """The derived limit of bound / exact at a fixed query (a SymPy expression in q; 4)."""
    return fluctuations_bound.tightness_limit()


def tightness_check(Gamma, U, V, z0, trace_plus: float, q: float) -> judge.Check:
    """The in-expectation bound's tightness at the fixed query, two-sided: eps_L^2(z) / E|err|^2 at
    L = 1e7 (the bound from the emitted kernels, the exact error from the exact finite-L route,
    numerics/selfnormalised.py) equals its derived limit lim_L L eps_L^2 / tr C1(z)
    (fluctuations_bound.tightness_limit, = sup_{D >= 1/2} 1/D^2 = 4, proved there) within the
    ratio's O(1/L) remainder (Richardson between 1e6 and 1e7, x TIGHTNESS_MARGIN) and rounding.
    A slip in a constant of the bound's first term (e^q dropped or doubled, the good event's
    constant, a term of tr(V Gamma V^T) + |V Gamma a|^2) moves the ratio by a fixed factor and is
    refuted; so is a bound that is too loose."""
    limit = float(_tightness_limit().subs(fluctuations_bound.q_sym, q))
    ratios = {}
    for L in TIGHTNESS_LS:
        _, second = selfnormalised.exact_second_moment(Gamma, U, V, z0, L)
        exact = float(np.trace(second))
        bound = float(expectation_bound(L, trace_plus, np.asarray(q)))
        ratios[L] = bound / exact if exact > 0 else math.inf
    lo, hi = TIGHTNESS_LS
    remainder = abs(ratios[lo] - ratios[hi]) * lo / (hi - lo)
    tolerance = TIGHTNESS_MARGIN * remainder / limit + TIGHTNESS_ROUNDING
    error = abs(ratios[hi] / limit - 1) if math.isfinite(ratios[hi]) else math.inf
    asymptotic = 2 * q <= math.log(TIGHTNESS_ASYMPTOTIC * lo)
    return judge.agreement(
        "fixed query: the in-expectation bound's tightness eps_L^2(z) / E|err|^2 at large L equals "
        "its derived limit sup_{D >= 1/2} 1/D^2 (two-sided)",
        "quadrature",
        id="fixed/expectation-bound-tightness",
        error=error,
        tolerance=tolerance,
        detail="derived limit (SymPy limit of L eps_L^2 / tr C1, proved = sup 1/D^2) "
        f"{limit:.12g}; bound / exact at "
        + ", ".join(f"L = {L:.0e}: {r:.12g}" for L, r in ratios.items())
        + f"; value: |ratio at L = {hi:.0e} / limit - 1|; tolerance: {TIGHTNESS_MARGIN:g} x the "
        f"O(1/L) remainder estimated from the change between the two L ({remainder:.3g}) / limit "
        f"+ {TIGHTNESS_ROUNDING:g} (exact route and rounding)",
        undecided=""
        if asymptotic
        else f"e^(2q) = e^{2 * q:.4g} > {TIGHTNESS_ASYMPTOTIC:g} x {lo:.0e}: the exact error is "
        "not in its 1/L regime at these L",
    )


def bound_checks(
    fixed: FixedQueryRun, fixed_quantities: dict, budget, Gamma, U, V, Sq, z0, coef, main, lam, rng
) -> Findings:
    """The high-probability and in-expectation bounds at the fixed query, from the fixed-query
    Monte Carlo (`fixed`, its enclosures in `fixed_quantities`) and at longer prompts drawn here,
    and the in-expectation bound integrated over nu against the query-averaged run `main`."""
    Ls, delta = budget.Ls, budget.delta
    law = GaussianLaw(np.zeros(Gamma.shape[0]), Gamma)
    w2, num2 = limits.gaussian_bound_moments(law, U, V, z0)
    terms0 = selfnormalised.query_terms(Gamma, U, V, z0[None, :])
    trace_plus0 = float(
        kernels.first_order_numerator(Gamma, V, U, z0[:, None])[0, 0]
    )  # tr(V Gamma V^T) + |V Gamma a|^2
    # High-probability bound: exact binomial test, at the fixed-query sweep's L and at longer
    # prompts drawn here for this check alone (their own child stream, so the later draws stay
    # those of the seed).
    all_Ls = list(Ls) + [L for L in budget.bound_Ls if L not in Ls]
    alpha = check_false_alarm() / len(all_Ls)
    errors = dict(fixed.errors)
    if len(all_Ls) > len(Ls):
        centred = GaussianLaw(np.zeros(Gamma.shape[0]), Gamma)  # the error does not depend on m
        limit = limits.gaussian_limit(
            centred.mean, Gamma, U, V, z0[None, :]
        )  # Lemma 2.1, emitted kernel
        bound_rng = rng.spawn(1)[0]
        for L in sweep(
            all_Ls[len(Ls) :],
            "prop-3.1: high-probability bound at longer prompts",
            weights=all_Ls[len(Ls) :],
            item="L",
        ):
            err, _ = montecarlo.fixed_query_errors(
                centred, bound_rng, budget.fixed_prompts, L, U, V, z0[None, :], limit
            )
            errors[L] = np.linalg.norm(err[:, 0, :], axis=1)
    detectable = binomial_detectable(budget.fixed_prompts, delta, alpha)
    # per L with a finite (informative) bound: its exceedance count and the largest count the
    # exact binomial test at alpha accepts
    counts, accepted, tested_Ls, ratios, bounds_hp = [], [], [], [], []
    for L in all_Ls:
        errs = errors[L]
        b = deviation_bound(L, delta, w2, num2)
        bounds_hp.append(b)
        quant = float(np.quantile(errs, 1 - delta))
        ratios.append(b / quant if math.isfinite(b) and quant > 0 else math.inf)
        if math.isfinite(b):
            tested_Ls.append(L)
            counts.append(int(np.sum(errs > b)))
            accepted.append(judge.accepted_exceedances(errs.size, delta, alpha))
    finite_ratios = [r for r in ratios if math.isfinite(r)]
    checks = [
        judge.verdict(
            "fixed query: P(|T[mu_L](z) - T[mu](z)| > eps_L(delta)) <= delta (exact binomial test)",
            "montecarlo",
            id="fixed/high-probability-bound",
            unit="rejections",
            value=counts,
            bound=accepted,
            rule="value <= bound",
            false_alarm=levels.proven(check_false_alarm(), levels.EXACT_BINOMIAL),
            undecided="" if tested_Ls else "no L has a finite bound: nothing is tested",
            detail="value: the prompts whose error exceeds eps_L(delta) at each L with a finite "
            f"bound (L = {tested_Ls}), bound: the largest count the exact binomial test accepts "
            "there; eps_L(delta) = sqrt(E w^2 |V(z'-mu_a)|^2 / (L delta/2)) / "
            "(1 - sqrt(2 E w^2 ln(2/delta) / L)), infinite (vacuous) when the square root in "
            "the denominator reaches 1. Proof: with w = e^{a^T z'} / E e^{a^T z'} (E w = 1), "
            "X = mean_i w_i (z_i - mu_a) and D = mean_i w_i, the error is V X / D exactly "
            "and E X = 0; Chebyshev gives |V X| <= s with probability >= 1 - delta/2 for "
            "s^2 = E w^2 |V(z'-mu_a)|^2 / (L delta/2); Maurer's lower tail for a mean of "
            "iid nonnegative variables, P(D <= 1 - t) <= exp(-L t^2 / (2 E w^2)), gives "
            "D > 1 - t with probability >= 1 - delta/2 for t = sqrt(2 E w^2 ln(2/delta) / L); "
            "on both events |V X / D| <= s / (1 - t). For N(m, Gamma): E w^2 = e^{a^T Gamma a}, "
            "E w^2 |V(z'-mu_a)|^2 = e^{a^T Gamma a}(tr(V Gamma V^T) + |V Gamma a|^2). "
            f"Test: delta = {delta:g}, {budget.fixed_prompts} prompts at each "
            f"L = {', '.join(str(L) for L in all_Ls)}; one-sided binomial test at false-alarm "
            f"{check_false_alarm():g} (Bonferroni over L); it rejects an exceedance probability "
            f"of {detectable:.3g} ({detectable / delta:.3g} delta) or more with power >= 0.999 at "
            "each L; tightness (bound / empirical (1-delta)-quantile) per L: "
            + ", ".join(f"{r:.3g}" for r in ratios),
            # the smallest relative excess of the exceedance probability over delta detected
            # (n draws at every L); nothing is tested when no L has a finite bound
            detectable=detectable / delta - 1.0 if tested_Ls else None,
        )
    ]
    # In expectation, fixed query.
    zc = significance.z_critical(check_false_alarm(), 2 * len(Ls), sided=1)
    eb = [float(expectation_bound(L, trace_plus0, terms0.q)[0]) if L >= 2 else math.inf for L in Ls]
    # the bound is stated for L >= 2 (erratum 1): the z-tests are made where it is finite; the
    # false alarm is shared with the integrated bound's tests below (len(Ls) each)
    zs = [(m - b) / se for m, b, se in zip(fixed.mse, eb, fixed.mse_se) if math.isfinite(b)]
    # Where every tested L is enclosed, fixed/expectation-bound-enclosed proves exact <= bound and
    # fixed/montecarlo-vs-exact judges Monte Carlo = exact: this test is implied (consistency).
    tested = [L for L, b in zip(Ls, eb) if math.isfinite(b)]
    enclosed_Ls = set(fixed_quantities.get("fixed_query_enclosed_L", ()))
    implied = bool(tested) and set(tested) <= enclosed_Ls
    checks.append(
        judge.z_test(
            "fixed query: E|T[mu_L](z) - T[mu](z)|^2 <= eps_L^2(z) (in-expectation bound, "
            "Monte Carlo)",
            id="fixed/expectation-bound",
            z=zs,
            alpha=check_false_alarm() / 2,
            tests=len(Ls),
            sided=1,
            assumption=levels.NORMAL_MEAN,
            tier="consistency" if implied else "",
            detail=(
                "implied by fixed/expectation-bound-enclosed (proved at every tested L) and "
                "fixed/montecarlo-vs-exact, so tier consistency; "
                if implied
                else ""
            )
            + "eps_L^2(z) = (tr(V Gamma V^T) + |V Gamma a|^2)(4 e^q / L + L "
            "exp(-(L-2)^2 / (8 (L-1) e^q))), q = a^T Gamma a. Proof: on {D >= 1/2}, |V X / D|^2 "
            "<= 4 |V X|^2 and E|V X|^2 = e^q (tr + |V Gamma a|^2) / L; on {D < 1/2} the output is "
            "a convex combination of the V z_i, so the error is at most max_i |V(z_i - mu_a)| and "
            "max^2 <= sum_i; {D < 1/2} lies in {D_-i < 1/2} (without token i, independent of z_i), "
            "and Maurer's lower tail for the L - 1 other weights (E w = 1, E w^2 = e^q) at 1 - t "
            "= L / (2(L-1)) bounds its probability by exp(-(L-2)^2 / (8 (L-1) e^q)). One-sided "
            "z = (MC - bound)/se at each L >= 2 (the false alarm shared with the integrated "
            "bound's check); tightness bound / exact per L: "
            + ", ".join(f"{b / e:.3g}" for b, e in zip(eb, fixed.exact)),
            # a slip in a bound lowers it: the lowering detected is the bound's slack
            detectable=significance.detectable_lowering(eb, fixed.exact, fixed.mse_se, zc),
            undecided="" if zs else "no L >= 2 with a finite bound: nothing is tested",
        )
    )
    checks.append(expectation_bound_enclosed(Ls, eb, fixed_quantities))
    checks.append(
        tightness_check(Gamma, U, V, z0, trace_plus0, float(np.asarray(terms0.q).ravel()[0]))
    )
    quantities = {
        "tightness_ratio": finite_ratios[-1] if finite_ratios else None,
        "high_probability_L": all_Ls,
        "high_probability_detectable": detectable,
        "tightness_ratio_by_L": ratios,
        "high_probability_bound": bounds_hp,
        "expectation_bound_fixed_query": eb,
    }
    # In expectation, integrated over nu (finite below the threshold).
    if math.isfinite(coef):
        sample = query_average.draw_queries(rng, Sq, (budget.rb_queries,), 1.0)
        terms = selfnormalised.query_terms(Gamma, U, V, sample.Z)
        trace_plus = kernels.first_order_numerator(Gamma, V, U, sample.Z.T)[0]
        integrated, integrated_se = [], []
        tested = [
            j for j, L in enumerate(Ls) if L >= 2
        ]  # the bound is stated for L >= 2 (erratum 1)
        for L in [Ls[j] for j in tested]:
            # first term: its query average is exactly good(L, q = 0) times the closed-form
            # coefficient; the (small) second term averaged over query draws. Both from the
            # emitted kernels.
            extra = trace_plus * kernels.expectation_bound_bad_event(L, terms.q)
            integrated.append(
                float(kernels.expectation_bound_good_event(L, 0.0)) * coef + float(extra.mean())
            )
            integrated_se.append(float(extra.std(ddof=1) / math.sqrt(extra.size)))
        zi = [
            (main["mc"][j] - b) / math.hypot(main["mc_se"][j], bse)
            for j, b, bse in zip(tested, integrated, integrated_se)
        ]
        checks.append(
            judge.z_test(
                "L2(nu): E||T[mu_L] - T[mu]||^2 <= E_nu eps_L^2(z) = 4 first_order_coefficient / L "
                "+ E_nu[second term] (Monte Carlo)",
                id="average/expectation-bound",
                z=zi,
                alpha=check_false_alarm() / 2,
                tests=len(Ls),
                sided=1,
                assumption=levels.NORMAL_MEAN,
                detail="the fixed-query bound integrated over nu; its first term is 4/L times the "
                "closed-form coefficient, the second is averaged over query draws; one-sided z at "
                "each L >= 2 (the false alarm shared with the fixed-query bound's check); "
                "tightness bound / exact per L: "
                + ", ".join(
                    f"{b / e:.3g}" for b, e in zip(integrated, [main["exact"][j] for j in tested])
                ),
                detectable=significance.detectable_lowering(
                    integrated,
                    [main["exact"][j] for j in tested],
                    [math.hypot(main["mc_se"][j], bse) for j, bse in zip(tested, integrated_se)],
                    zc,
                ),
                undecided="" if zi else "no tested L >= 2: nothing is tested",
            )
        )
        quantities["expectation_bound_integrated"] = integrated
    return Findings(checks, quantities)


def explicit_c1(coef, Gamma, U, V, Sq, sigma: float) -> tuple[float, int]:
    """c1 of the paper's form from the proven in-expectation bound (below the threshold, kappa = 1):
    E||err||^2 <= E_nu eps_L^2 = 4 coef / L + E_nu[(tr(V Gamma V^T) + |V Gamma a|^2) L
    e^{-(L-2)^2 / (8 (L-1) e^q)}], so c1 = sup_{L >= 2} L E_nu eps_L^2 / (sigma^6 ln L), the sup
    over L = 2..64 and a geometric grid to 1e9 (the second term decays like e^{-L / (8 e^q)} at each
    query). Derived from the bound alone, before any data."""

    def per_query(Z, L):
        t = selfnormalised.query_terms(Gamma, U, V, Z)
        return expectation_bound(
            L, kernels.first_order_numerator(Gamma, V, U, np.atleast_2d(Z).T)[0], t.q
        )

    grid = sorted(set(range(2, 65)) | {int(x) for x in np.geomspace(64, 1e9, 120)})
    lam = query_average.threshold_lambda(Gamma, U, Sq)
    scale = 1.0 / (1.0 - 2.0 * lam)
    vals = []
    for L in grid:
        if psd_root(Sq).shape[1] <= 3:
            bound = query_average.gauss_hermite_average(lambda Z: per_query(Z, L), Sq, scale, 40)
        else:
            # rank > 3: the second term's average is not computed (stated)
            bound = float(kernels.expectation_bound_good_event(L, 0.0)) * coef
        vals.append(
            float(kernels.paper_constant(bound, sigma, L))
        )  # c1 with the form equal to the bound at L
    i = int(np.argmax(vals))
    return float(vals[i]), grid[i]


def paper_form_checks(main, budget, Gamma, U, V, Sq, coef, lam, rng) -> Findings:
    """The paper's form c1 sigma^6 ln L / L^(c2/sigma^2) with c2 = sigma^2 (kappa = 1 below the
    threshold) and c1 from the proven in-expectation bound (`explicit_c1`, no data): the Monte
    Carlo error at the tested L and the exact error at 10x and 100x the largest L must lie below it
    (one-sided z-tests, Bonferroni)."""
    sigma = subgaussian_sigma(Gamma)
    if not math.isfinite(coef) or lam >= 0.5:
        return Findings(
            quantities={
                "c1": None,
                "c2": None,
                "sigma": sigma,
                "paper_form": "not run: at or above the threshold the bound has no finite c1",
            }
        )
    c1, L_star = explicit_c1(coef, Gamma, U, V, Sq, sigma)
    c2 = sigma**2
    extra_L = [10 * budget.Ls[-1], 100 * budget.Ls[-1]]
    if main.get("exact_big"):
        ex = list(main["exact_big"])
    else:
        c = min(6.0, query_average.proposal_scale(lam, math.log(extra_L[-1])))
        ex = montecarlo.exact_averages(
            Gamma, U, V, Sq, extra_L, rng, budget.rb_queries, c, budget.table_points
        )
    keep = [
        j for j, L in enumerate(budget.Ls) if L >= 2
    ]  # the form is stated for L >= 2 (erratum 1)
    Ls = [budget.Ls[j] for j in keep] + [e.L for e in ex]
    est = [main["mc"][j] for j in keep] + [e.mean for e in ex]
    ses = [main["mc_se"][j] for j in keep] + [e.stderr for e in ex]
    zc = significance.z_critical(check_false_alarm(), len(Ls), sided=1)
    form = [float(kernels.paper_form(c1, sigma, c2, L)) for L in Ls]
    zs = [(e - f) / s for e, f, s in zip(est, form, ses)]
    checks = [
        judge.z_test(
            "paper's form c1 sigma^6 ln L / L^(c2/sigma^2) with c2 = sigma^2 and c1 from the "
            "proven in-expectation bound holds at the tested L (Monte Carlo) and at 10x, 100x the "
            "largest L (exact route)",
            id="paper-form/bound",
            z=zs,
            alpha=check_false_alarm(),
            tests=len(Ls),
            sided=1,
            assumption=levels.NORMAL_MEAN,
            detail=f"sigma = max(1, sqrt(lambda_max(Gamma))) = {sigma:.4g}; c1 = sup_L L E_nu "
            f"eps_L^2 / (sigma^6 ln L) = {c1:.4g} (attained at L = {L_star}; derived before any "
            f"data), c2 = {c2:.4g}; one-sided z = (error - form) / se at L = {Ls}: "
            + ", ".join(f"{z:.1f}" for z in zs)
            + "; error / form: "
            + ", ".join(f"{e / f:.3g}" for e, f in zip(est, form)),
            detectable=significance.detectable_lowering(form, est, ses, zc),
        )
    ]
    return Findings(checks, {"c1": c1, "c2": c2, "sigma": sigma})


# At L = 1 both sides are exact (a quadratic under a Gauss-Hermite rule exact to degree 11): float64
# rounding only, fixed before any run.
L1_QUADRATURE_REL = 1e-12
# The witness's Catoni variance bound and where it is proved.
WITNESS_VARIANCE_SOURCE = (
    "Var over prompts of the L = 1 squared error averaged over n_q queries, 2 tr(P^2) + "
    "(4 tr(P Q) + 2 tr(Q^2)) / n_q with P = V Gamma V^T, Q = V Gamma U Sigma_q U^T Gamma V^T, "
    "proved for Gaussian tokens and queries (derivations/fluctuations_one_token.py, "
    "prompt_variance_proofs; kernel output_error_one_token_prompt_variance)"
)


def erratum_one(law, rng, budget, U, V, Gamma, Sq, limit_fn) -> Findings:
    """At L = 1, T[mu_1](z) = V z_1 and the error is exactly tr(V Gamma V^T) + tr(V Gamma U
    Sigma_q U^T Gamma V^T) > 0, while c1 sigma^6 ln(1) / 1 = 0. Two routes judge the closed form:
    the exact finite-L moments at L = 1 (selfnormalised.exact_second_moment, A_1 = 1, B_1 = 1 + q)
    averaged over queries by Gauss-Hermite (the integrand is a quadratic in z, so 6 nodes per axis
    are exact), and Monte Carlo, judged by Catoni's test with the proved per-prompt variance (a
    proven level) at the query counts that variance is proved for."""
    exact = float(
        kernels.output_error_one_token(Gamma, U, V, Sq)
    )  # derivations/fluctuations_one_token.py
    checks = []
    if np.linalg.matrix_rank(Sq) <= 3:
        quad = query_average.gauss_hermite_average(
            lambda Z: np.array(
                [np.trace(selfnormalised.exact_second_moment(Gamma, U, V, z, 1)[1]) for z in Z]
            ),
            Sq,
            1.0,
            6,
        )
        rel = (
            abs(quad - exact) / exact if exact > 0 else abs(quad)
        )  # V Gamma = 0: both sides vanish
        checks.append(
            judge.agreement(
                "erratum 1 witness: the closed-form L = 1 error equals the exact L = 1 moments "
                "averaged over the queries (Gauss-Hermite)",
                "quadrature",
                id="erratum-1/closed-form-l1",
                error=rel,
                tolerance=L1_QUADRATURE_REL,
                detail=f"closed form {exact:.8g}, quadrature {quad:.8g}; the rule is exact for "
                "this quadratic and A_1, B_1 are exact, so the tolerance is float rounding "
                "over 6^r nodes",
            )
        )
    mc = montecarlo.averaged_mse(
        law, rng, budget.prompts, 1, U, V, Sq, limit_fn, budget.queries_per_prompt, 1.0
    )
    z = (mc.mean - exact) / mc.stderr
    zc = significance.z_critical(check_false_alarm())
    name = (
        "erratum 1 witness: at L = 1 the error is tr(V Gamma V^T) + tr(V Gamma U Sigma_q U^T "
        "Gamma V^T) > 0 while the paper's right side c1 sigma^6 ln(1) / 1 is 0"
    )
    detail = (
        f"Monte Carlo at L = 1: {mc.mean:.5g} +- {mc.stderr:.3g} against the exact "
        f"{exact:.6g} (z = {z:.2f}); any c1 gives 0 at L = 1"
    )
    if exact > 0 and budget.queries_per_prompt in fluctuations_one_token.PROVED_QUERY_COUNTS:
        # the per-prompt variance is proved (derivations/fluctuations_one_token.py): a proven level
        variance = float(
            kernels.output_error_one_token_prompt_variance(
                Gamma, U, V, Sq, budget.queries_per_prompt
            )
        )
        checks.append(
            judge.catoni_test(
                name,
                id="erratum-1/witness",
                samples=mc.per_prompt,
                prediction=exact,
                variance=judge.ProvenVariance(variance, WITNESS_VARIANCE_SOURCE),
                alpha=check_false_alarm(),
                detail=detail,
            )
        )
    elif exact > 0:
        checks.append(
            judge.z_test(
                name,
                id="erratum-1/witness",
                z=z,
                alpha=check_false_alarm(),
                tests=1,
                sided=2,
                assumption=levels.NORMAL_MEAN,
                detail=detail + f"; {budget.queries_per_prompt} queries per prompt, a count whose "
                "per-prompt variance is not proved, so the normal test",
                detectable=significance.resolution(exact, mc.stderr, zc),
            )
        )
    else:
        # no positive L = 1 error: no witness (as before, a failed check), on the exact fact
        checks.append(
            judge.exact(
                name,
                "montecarlo",
                id="erratum-1/witness",
                value=bool(exact > 0),
                expected=True,
                detail=detail + f"; value: the exact L = 1 error {exact:.6g} > 0",
                false_alarm=levels.nominal(check_false_alarm(), levels.NORMAL_MEAN),
            )
        )
    erratum = {
        "id": 1,
        "text": (
            "Proposition 3.1 (and 3.4) as displayed fail at L = 1: ln(1) = 0 makes the right side 0"
        ),
        "witness": {
            "L": 1,
            "error_exact": exact,
            "error_monte_carlo": mc.mean,
            "error_stderr": mc.stderr,
            "right_side": 0.0,
        },
        "fix": "state the bound for L >= 2 (the suite checks L >= 2)",
    }
    return Findings(checks, errata=[erratum])
