"""The exact finite-L risk section of claim `finite-prompt-risk` (docs/paper.md section 6).

R_L(mu, omega) of the one-head model is computed by numerics/finite_risk.py (the derived integrand
of derivations/risk_finite.py averaged over the query by quadrature, with a stated numerical error)
at the scenario's evaluation points `[scalar] points = [{mu = [..], omega = [..], L = ..}, ...]` for
inputs x ~ N(0, sigma) (prompt and query, the correct generator; `[scalar] sigma`, default I_d) and
beta ~ N(0, I_d / d). Checks, each with a fixed tolerance or a stated false alarm:

* stated numerical error of every exact value <= ERROR_TOLERANCE (relative);
* L = 1 anchor: R_1 = tr(sigma)/d + s2 + mu^2 (tr(sigma)/d + s2) (the prediction is mu y_1), within
  the stated error;
* Monte Carlo over fresh prompts (numerics/authors_sgd.evaluate, an independent sampler) equals the
  exact value at every point, for the risk and for its excess over the infinite-prompt loss (the
  latter with an exact control variate, so it has the power the risk alone lacks), each point a
  two-sided z-test, the critical value Bonferroni over the 2 k tests of both checks at
  check_false_alarm() (each check states that level: the pair's is at most it);
* the 1/L expansion (one head, sigma = I: the coefficient C1 of derivations/risk_scalar.py):
  L (R_L - R_inf) at L = EXPANSION_L equals C1 within EXPANSION_TOLERANCE relative. The remainder is
  C2 / L when 3 omega^2 < 1/2; the tolerance allows |C2| up to 100 |C1| (measured |C2| ~ 1.05 |C1|
  on the default scenario). For 3 omega^2 >= 1/2 the remainder decays slower (omega = 1/2, d = 1:
  still 2.8e-3 off C1 at L = 1e6, beyond that tolerance) and the limit is judged by extrapolation
  (slow_expansion_check);
* control: a plausible wrong formula for R_L must be refuted by the same Monte Carlo route: the
  first-order risk R_inf + C1 / L (sigma = I) or the risk of the authors' generator (erratum 5,
  sigma != I), at the point where its planned power is largest. The draws are planned from a pilot
  run on its own random stream, so the power (>= judge.POWER_TARGET, else the control is not
  judged) is fixed before the judged sample is drawn.
"""

from __future__ import annotations

import math

import numpy as np

from ...derivations import catalogue, selfnormalised_error
from ...numerics import (
    authors_sgd,
    finite_risk as fr,
    finite_risk_heads as frh,
    heads_montecarlo,
    scalar_risk as sr,
)
from ...numerics import significance as sig, validate
from ...numerics.extrapolation import aitken
from . import heads
from . import rate
from ...judge.check import check_false_alarm
from ...judge import kinds as judge, levels
from ..shared.common import symbolic_check
from ...core.findings import Findings
from .budget import Budget

# The exact values must be far more precise than the Monte Carlo they are judged with (relative
# standard errors >= ~1e-3 at these budgets); anisotropic laws reach ~1e-5
# (numerics/finite_risk.py).
ERROR_TOLERANCE = 1e-4
EXPANSION_L = 10**6
EXPANSION_TOLERANCE = 1e-4
SLOW_EXPANSION_MAX = 0.05  # slow_expansion_check: a relative tolerance above this has no power
PILOT = 4000
OMEGA_MAX = 1.0
# Reach of the extrapolated limit (excess_limit): Aitken's step is exact for F = lim + a L^-p, whose
# successive differences over a decade contract by r = 10^-p in (0, 1); it amplifies the window's
# deviation from that model by about 1 / (1 - r). Measured ratios outside (0, CONTRACTION_MAX]
# mean the window L = 1e4 .. 1e7 is not yet asymptotic (near omega^2 = 1/2, C1 ~ (1 - 2 omega^2)
# ^(-d/2-1) is reached only at far larger L): the limit is then not extrapolated and the checks
# that need it are undecided.
CONTRACTION_MAX = 0.9


def scaled_excess(model, L: int, mu, omega) -> tuple[float, float]:
    """F(L) = L (R_L - R_inf) of one or two heads on the exact route, with its stated error
    L x error."""
    value = _exact(model, {"L": L, "mu": list(mu), "omega": list(omega)})
    r_inf = fr.infinite_risk(model, float(np.dot(mu, omega)), 1.0)
    return L * (value.value - r_inf), L * value.error


def excess_limit(model, mu, omega) -> dict:
    """lim F(L), F(L) = L (R_L - R_inf), on the exact route alone (never from C1), with an
    uncertainty.

    3 c < 1/2, c = max omega_h omega_k: the remainder is C2 / L (the second order of the
    self-normalised mean carries E w^3 = e^{3 c Q}, Q ~ chi2_d, finite exactly there), so F(1e7) is
    within |F(1e6) - F(1e7)| / 9 of the limit; twice that plus the stated error is the uncertainty.
    3 c >= 1/2: the remainder decays slower, as about L^-p with p ~ (1 - 2c) / (4c) (measured:
    -2.8e-2, -9.1e-3, -2.8e-3, -8.3e-4 relative at L = 1e4 .. 1e7 for c = 1/4, d = 1; not derived),
    so the limit is Aitken's extrapolation over L = 1e5, 1e6, 1e7 (exact for F = lim + a L^-p with
    any p); the uncertainty is its change against the window 1e4, 1e5, 1e6 plus the stated errors
    carried through the formula."""
    c = float(np.max(np.outer(omega, omega)))
    if 3 * c < 0.5:
        (F6, _), (F7, e7) = (
            scaled_excess(model, 10**6, mu, omega),
            scaled_excess(model, 10**7, mu, omega),
        )
        return {
            "value": F7,
            "uncertainty": 2 * abs(F6 - F7) / 9 + e7,
            "method": "F(1e7), C2/L remainder",
            "F": {"1e6": F6, "1e7": F7},
        }
    Ls = (10**4, 10**5, 10**6, 10**7)
    F, err = map(np.array, zip(*(scaled_excess(model, L, mu, omega) for L in Ls)))
    steps = np.diff(F)
    ratios = (steps[1:] / steps[:-1]).tolist() if np.all(steps != 0) else [math.nan, math.nan]
    if not all(0 < r <= CONTRACTION_MAX for r in ratios):
        return {
            "value": float(F[-1]),
            "uncertainty": math.inf,
            "method": "none: F(L) does not contract over L = 1e4 .. 1e7",
            "beyond_reach": "the exact route's F(L) = L (R_L - R_inf) does not converge within "
            "L = 1e4 .. 1e7 (ratios of successive differences "
            f"{', '.join(f'{r:.3g}' for r in ratios)}, reach (0, {CONTRACTION_MAX:g}]): its limit "
            "cannot be extrapolated",
            "F": dict(zip(("1e4", "1e5", "1e6", "1e7"), F.tolist())),
        }
    limit, previous = aitken(F[1:]), aitken(F[:3])
    h = 1e-6 * max(1.0, float(np.max(np.abs(F))))  # first-order propagation by central differences
    carried = sum(
        abs(aitken(F[1:] + h * e) - aitken(F[1:] - h * e)) / (2 * h) * err[k + 1]
        for k, e in enumerate(np.eye(3))
    )
    return {
        "value": limit,
        "uncertainty": abs(limit - previous) + carried,
        "carried_errors": carried,
        "method": "Aitken over L = 1e5, 1e6, 1e7 (remainder slower than 1/L: 3 max omega_h "
        "omega_k >= 1/2)",
        "previous_window": previous,
        "F": dict(zip(("1e4", "1e5", "1e6", "1e7"), F.tolist())),
    }


def expansion_verdict(name: str, error: float, tolerance: float, stated: float, what: str, detail):
    """exact/expansion-c1: the relative error of L (R_L - R_inf)'s limit against C1 within
    `tolerance`; not judged (no power) where `stated`, the stated error of `what` relative to C1,
    exceeds SLOW_EXPANSION_MAX."""
    if stated > SLOW_EXPANSION_MAX:
        return judge.unjudged(
            name,
            "quadrature",
            f"the stated error {stated:.3g} of {what} exceeds {SLOW_EXPANSION_MAX:g}: no power",
            value=error,
            bound=tolerance,
            detail=detail,
            id="exact/expansion-c1",
            unit="relative error",
            rule="value <= bound",
        )
    return judge.agreement(
        name, "quadrature", id="exact/expansion-c1", error=error, tolerance=tolerance, detail=detail
    )


def slow_expansion_check(model, mu: float, omega: float, C1: float) -> Findings:
    """L (R_L - R_inf) -> C1 where the remainder decays slower than 1/L (3 omega^2 >= 1/2): the
    exact route's extrapolated limit (excess_limit) against C1, within its uncertainty, which is
    fixed by the exact values only. When that exceeds SLOW_EXPANSION_MAX relative (omega^2 near 1/2,
    p near 0) the check has no power and is not judged."""
    lim = excess_limit(model, [mu], [omega])
    F = list(lim["F"].values())
    name = "exact risk vs its 1/L expansion: L (R_L - R_inf) -> C1 (Aitken over L = 1e5, 1e6, 1e7)"
    if "beyond_reach" in lim:
        detail = (
            f"3 omega^2 = {3 * omega**2:.4g} >= 1/2; F(L) = "
            f"{', '.join(f'{x:.9g}' for x in F)} at L = 1e4 .. 1e7, C1 = {C1:.9g}"
        )
        check = judge.unjudged(
            name,
            "quadrature",
            lim["beyond_reach"],
            detail=detail,
            id="exact/expansion-c1",
            unit="relative error",
        )
        return Findings([check], {"expansion": {"L": 10**7, "scaled_excess": F[-1], "C1": C1}})
    tol, rel = lim["uncertainty"] / abs(C1), abs(lim["value"] - C1) / abs(C1)
    detail = (
        f"3 omega^2 = {3 * omega**2:.4g} >= 1/2: the remainder decays slower than 1/L; "
        f"F(L) = L (R_L - R_inf) = {', '.join(f'{x:.9g}' for x in F)} at L = 1e4 .. 1e7, Aitken "
        f"limit {lim['value']:.9g} (window 1e4..1e6: {lim['previous_window']:.9g}), C1 = {C1:.9g}; "
        f"tolerance = window change + stated errors carried ({lim['carried_errors'] / abs(C1):.2g} "
        "relative)"
    )
    check = expansion_verdict(name, rel, tol, tol, "C1", detail)
    return Findings(
        [check],
        {
            "expansion": {
                "L": 10**7,
                "scaled_excess": F[-1],
                "C1": C1,
                "aitken_limit": lim["value"],
                "aitken_previous_window": lim["previous_window"],
            }
        },
    )


def expansion_check(model, mu: float, omega: float, C1: float) -> Findings:
    """L (R_L - R_inf) -> C1 on the exact route (one head, sigma = I): at L = EXPANSION_L within
    EXPANSION_TOLERANCE when the remainder is C2 / L (3 omega^2 < 1/2), else by extrapolation
    (slow_expansion_check). The quantity "expansion" says where."""
    if 3 * omega**2 >= 0.5:
        return slow_expansion_check(model, mu, omega, C1)
    big = fr.exact_risk(model, EXPANSION_L, mu, omega)
    r_inf = fr.infinite_risk(model, mu, omega)
    scaled = EXPANSION_L * (big.value - r_inf)
    # L R_L - L R_inf carries L times R_L's stated error and R_inf's rounding: added to the
    # tolerance, relative to C1. Where C1 is below that resolution (C1 ~ mu^2 omega^2 -> 0) the
    # difference of two O(1) risks cannot see it, and the check has no power.
    carried = EXPANSION_L * (big.error + 4 * np.finfo(float).eps * abs(r_inf)) / abs(C1)
    name = f"exact risk vs its 1/L expansion: L (R_L - R_inf) -> C1 (L = {EXPANSION_L:g})"
    rel = abs(scaled - C1) / abs(C1)
    detail = (
        f"L (R_L - R_inf) = {scaled:.9g}, C1 = {C1:.9g}; the remainder C2 / L "
        f"(3 omega^2 < 1/2); tolerance {EXPANSION_TOLERANCE:g} + L x (R_L's stated error + R_inf's "
        f"rounding) / |C1| = {carried:.2g}"
    )
    check = expansion_verdict(
        name, rel, EXPANSION_TOLERANCE + carried, carried, "L (R_L - R_inf) relative to C1", detail
    )
    expansion = {
        "L": EXPANSION_L,
        "scaled_excess": scaled,
        "error": EXPANSION_L * big.error,
        "C1": C1,
    }
    return Findings([check], {"expansion": expansion})


def optimum_curve(model, d: int, s2: float, Ls: list[int]) -> dict:
    """The finite-L optimum on the exact surface at each L (numerics/finite_risk.RiskSurface), the
    authors' heuristic optimum mu(omega) = omega / (omega^2 + (1 + s2) e^{d omega^2} / L) minimised
    over omega, and the exact risk that the heuristic optimum really achieves (isotropic inputs)."""
    from scipy.optimize import minimize_scalar

    out = {"L": Ls, "exact": [], "heuristic": []}
    for L in Ls:
        surface = fr.RiskSurface(model, L, OMEGA_MAX)
        mu, om, R = surface.optimum()
        out["exact"].append({"mu": mu, "omega": om, "risk": R})

        def heur(w):
            # the heuristic risk R_inf + heuristic / L (emitted kernels) is quadratic in mu: its
            # three values at mu = 0, +-1 give
            # mu*(omega) = omega / (omega^2 + (1 + s2) e^{d omega^2} / L) without retyping it
            r = {
                m: sr.infinite_risk([m], [w], s2) + sr.heuristic([m], [w], d, s2) / L
                for m in (0.0, 1.0, -1.0)
            }
            c1, c2 = (r[1.0] - r[-1.0]) / 2, (r[1.0] + r[-1.0]) / 2 - r[0.0]
            m = -c1 / (2 * c2)
            return r[0.0] + c1 * m + c2 * m * m, m

        res = minimize_scalar(
            lambda w: heur(w)[0],
            bounds=(1e-3, OMEGA_MAX),
            method="bounded",
            options={"xatol": 1e-7},
        )
        hm = heur(res.x)[1]
        out["heuristic"].append(
            {
                "mu": hm,
                "omega": float(res.x),
                "predicted_risk": heur(res.x)[0],
                "exact_risk": surface.risk(hm, float(res.x)),
            }
        )
    return out


def default_points() -> list[dict]:
    """L = 1, 2, 10, 100 at the scenario's default head (mu, omega) = (-1, 0.25), one point nearer
    the authors' optimum (mu, omega) = (1.5, 0.45) at L = 20, and two two-head points: an
    antisymmetric pair near the two-head optimum at L = 10 (where the cross moments differ most from
    the one-head ones) and a same-sign pair at L = 5."""
    return [{"mu": [-1.0], "omega": [0.25], "L": L} for L in (1, 2, 10, 100)] + [
        {"mu": [1.5], "omega": [0.45], "L": 20},
        {"mu": [1.0, -1.0], "omega": [0.37, -0.37], "L": 10},
        {"mu": [1.0, 0.5], "omega": [0.5, 0.2], "L": 5},
    ]


def validate_points(t: dict, d: int) -> tuple[np.ndarray, list[dict]]:
    """(sigma, points) from the [scalar] table."""
    sigma = (
        np.eye(d)
        if t.get("sigma") is None
        else validate.positive_definite(f"scalar.sigma (scalar.d = {d})", t["sigma"], d)
    )
    points = t.get("points", default_points())
    if not isinstance(points, list) or not points:
        raise ValueError(
            "scalar.points must be a non-empty list of {mu = [..], omega = [..], L = ..}"
        )
    out = []
    for i, p in enumerate(points):
        if not isinstance(p, dict) or set(p) != {"mu", "omega", "L"}:
            raise ValueError(f"scalar.points[{i}] = {p!r} must have exactly the keys mu, omega, L")
        mu, om, L = p["mu"], p["omega"], p["L"]
        if not (isinstance(mu, list) and isinstance(om, list) and len(mu) == len(om) >= 1):
            raise ValueError(
                f"scalar.points[{i}]: mu and omega must be lists of equal length (one value per "
                "head)"
            )
        if len(mu) > 2:
            raise ValueError(
                f"scalar.points[{i}]: the exact finite-L risk covers one or two heads (got "
                f"{len(mu)})"
            )
        if not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
            for x in mu + om
        ):
            raise ValueError(f"scalar.points[{i}]: mu and omega must be finite numbers")
        if isinstance(L, bool) or not isinstance(L, int) or not 1 <= L <= 10**6:
            raise ValueError(f"scalar.points[{i}].L = {L!r} must be an integer in [1, 10^6]")
        out.append({"mu": [float(x) for x in mu], "omega": [float(x) for x in om], "L": L})
    return sigma, out


def _exact(model, p):
    if len(p["mu"]) == 2:
        return frh.exact_risk(model, p["L"], p["mu"], p["omega"])
    return fr.exact_risk(model, p["L"], p["mu"][0], p["omega"][0])


def _mc(sigma, s2, tau, point, n, rng, generator="correct"):
    if len(point["mu"]) == 2:
        e = heads_montecarlo.risk(
            sigma, s2, tau, point["L"], point["mu"], point["omega"], n, rng, generator
        )
        return e["risk"], e["excess"]
    e = authors_sgd.evaluate(
        {"m": ("softmax", point["mu"][0], point["omega"][0])},
        sigma,
        s2,
        tau,
        point["L"],
        generator,
        n,
        rng,
    )
    return e["risk"]["m"], e["excess_over_limit"]["m"]


def run(
    s: dict, budget: Budget, rng: np.random.Generator, first_order=None, optimum: bool = True
) -> Findings:
    """`first_order(mu, omega)` is the scenario's C1 (one head, sigma = I) or None; `optimum=False`
    skips the optimum curve (tests of the other checks)."""
    d, s2, tau = s["d"], s["s2"], 1.0 / s["d"]
    sigma, points = s["sigma"], s["points"]
    model = fr.Model(sigma, sigma, tau, s2)
    authors = fr.Model(sigma @ sigma, np.eye(d), tau, s2)
    isotropic = np.allclose(sigma, np.eye(d))
    exact = [_exact(model, p) for p in points]
    # R_inf depends on the heads through p = mu.omega only (the integrand at A = B = 0)
    r_inf = [fr.infinite_risk(model, float(np.dot(p["mu"], p["omega"])), 1.0) for p in points]
    rel_err = max(e.error / abs(e.value) for e in exact)
    proofs = (
        list(catalogue.risk_finite_proofs())
        + list(catalogue.risk_finite_heads_proofs())
        + selfnormalised_error.stein_proofs()
    )
    f = Findings(
        [
            symbolic_check(
                "exact finite-L risk (one and two heads): Stein mean, conditional risk, beta "
                "averages, anchors",
                {p.statement: p for p in proofs},
                id="exact/proofs",
            ),
            judge.agreement(
                "exact finite-L risk: stated numerical error",
                "quadrature",
                id="exact/stated-error",
                error=rel_err,
                tolerance=ERROR_TOLERANCE,
                detail="largest relative error estimate over the points (quadrature nodes and "
                "table refinement differences, numerics/finite_risk.py)",
                tier="consistency",
            ),
        ]
    )
    ones = [(p, e) for p, e in zip(points, exact) if p["L"] == 1]
    if ones:
        dev = max(
            abs(
                e.value
                - (np.trace(sigma) * tau + s2 + sum(p["mu"]) ** 2 * (np.trace(sigma) * tau + s2))
            )
            / e.value
            for p, e in ones
        )
        tol = max(e.error / e.value for _, e in ones)
        f.checks.append(
            judge.agreement(
                "L = 1 anchor: R_1 = tau tr(sigma) + s2 + (sum_h mu_h)^2 (tau tr(sigma) + s2)",
                "quadrature",
                id="exact/anchor-l1",
                error=dev,
                tolerance=tol,
                detail="relative difference from the closed form of the prediction mu y_1, "
                "within the stated numerical error",
            )
        )
    # Alternatives for the control (one-head points): the first-order risk (isotropic) or the
    # authors' generator.
    one = [len(p["mu"]) == 1 for p in points]
    if isotropic and first_order is not None:
        alt_name, alt_id = "the first-order risk R_inf + C1 / L", "first-order-risk"
        alt = [
            ri + first_order(p["mu"][0], p["omega"][0]) / p["L"] if o else None
            for p, ri, o in zip(points, r_inf, one)
        ]
    elif not isotropic:
        alt_name, alt_id = (
            "the authors' generator's risk (prompt covariance sigma^2, query covariance I; "
            "erratum 5)",
            "authors-generator-risk",
        )
        alt = [
            fr.exact_risk(authors, p["L"], p["mu"][0], p["omega"][0]).value if o else None
            for p, o in zip(points, one)
        ]
    else:
        alt_name, alt_id, alt = None, None, None
    z = sig.z_critical(check_false_alarm(), tests=2 * len(points))
    # Pilot (its own stream) -> per-point variance of the excess -> planned power of the control.
    pilot_rng = np.random.default_rng(rng.integers(2**63))
    n = budget.point_draws
    plan = None
    if alt is not None:
        best = None
        for i, p in enumerate(points):
            if alt[i] is None:
                continue
            _, ex = _mc(sigma, s2, tau, p, PILOT, pilot_rng)
            var = ex[1] ** 2 * PILOT
            pw = (
                sig.power(exact[i].value - alt[i], math.sqrt(var / n), z)
                if var > 0
                else float("nan")
            )
            if best is None or pw > best[1]:
                best = (i, pw)
        plan = {
            "point": best[0],
            "draws": n,
            "pilot_draws": PILOT,
            "power": best[1],
            "alternative": alt_name,
        }
    mc, mc_se, ex_z, tot_z, mc_ex = [], [], [], [], []
    tot_se, ex_se = [], []  # the z-tests' standard errors (Check.detectable)
    for p, e, ri in zip(points, exact, r_inf):
        risk, excess = _mc(sigma, s2, tau, p, n, rng)
        mc.append(risk[0])
        mc_se.append(risk[1])
        mc_ex.append(excess)
        tot_se.append(risk[1])
        ex_se.append(excess[1])
        # the exact route's stated error is deterministic: subtracted before dividing by the se
        tot_z.append(max(0.0, abs(risk[0] - e.value) - e.error) / tot_se[-1])
        ex_z.append(max(0.0, abs(excess[0] - (e.value - ri)) - e.error) / ex_se[-1])
    f.checks.append(
        judge.z_test(
            "Monte Carlo risk equals the exact finite-L risk at every point",
            id="exact/montecarlo-risk",
            z=tot_z,
            alpha=check_false_alarm(),
            tests=2 * len(points),
            sided=2,
            assumption=levels.NORMAL_MEAN,
            detail=f"largest (|MC - exact| - stated error) / se over {len(points)} points, "
            f"{n} fresh prompts each; Bonferroni over both Monte Carlo checks",
            detectable=sig.resolution(
                [e.value for e in exact], tot_se, z, allowance=[e.error for e in exact]
            ),
        )
    )
    f.checks.append(
        judge.z_test(
            "Monte Carlo excess over the infinite-prompt loss equals R_L - R_inf at every point",
            id="exact/montecarlo-excess",
            z=ex_z,
            alpha=check_false_alarm(),
            tests=2 * len(points),
            sided=2,
            assumption=levels.NORMAL_MEAN,
            detail="largest (|MC - exact| - stated error) / se; the excess is sampled with the "
            "infinite-prompt loss as an exact control variate (same prompts); Bonferroni over "
            "both Monte Carlo checks",
            detectable=sig.resolution(
                [e.value - ri for e, ri in zip(exact, r_inf)],
                ex_se,
                z,
                allowance=[e.error for e in exact],
            ),
        )
    )
    if plan is not None:
        i = plan["point"]
        zc = abs(mc_ex[i][0] - (alt[i] - r_inf[i])) / mc_ex[i][1]
        # judged at its planned power (from a pilot on its own stream): a control that then misses
        # its wrong formula fails; below judge.POWER_TARGET it is kept, not judged
        f.checks.append(
            judge.control(
                f"control: {alt_name} is refuted by Monte Carlo",
                id=f"control/{alt_id}",
                statistic=zc,
                critical=z,
                power=plan["power"],
                tier="statistical",
                unit="|z|",
                detail=f"|MC excess - wrong excess| / se at point {i} (L = {points[i]['L']}), "
                f"power planned from a {PILOT}-prompt pilot",
            )
        )
    f.add(
        Findings(
            quantities={
                "points": points,
                "exact_risk": [e.value for e in exact],
                "exact_risk_error": [e.error for e in exact],
                "mc_risk": mc,
                "mc_risk_stderr": mc_se,
                "exact_infinite_risk": r_inf,
                "mc_excess": [m[0] for m in mc_ex],
                "mc_excess_stderr": [m[1] for m in mc_ex],
                "exact_risk_authors_generator": None
                if isotropic
                else [
                    fr.exact_risk(authors, p["L"], p["mu"][0], p["omega"][0]).value if o else None
                    for p, o in zip(points, one)
                ],
                "control_plan": plan,
                "draws_per_point": n,
                "sigma": sigma.tolist(),
            }
        )
    )
    if isotropic and first_order is not None:
        mu0, om0 = s["mu"][0], s["omega"][0]
        f.add(expansion_check(model, mu0, om0, first_order(mu0, om0)))
    else:
        f.add(Findings(quantities={"expansion": None}))
        if not isotropic:
            f.add(kept_unjudged(NOT_ISOTROPIC, EXPANSION))
    curve = None
    if isotropic and optimum:
        curve = optimum_curve(model, d, s2, list(budget.curve_Ls))
        curve["heuristic_excess"] = [
            h["exact_risk"] - e["risk"] for e, h in zip(curve["exact"], curve["heuristic"])
        ]
        # Witness at the smallest L, re-evaluated with stated errors: the gap must exceed both
        # errors.
        e0, h0 = curve["exact"][0], curve["heuristic"][0]
        at_opt = fr.exact_risk(model, curve["L"][0], e0["mu"], e0["omega"])
        at_heur = fr.exact_risk(model, curve["L"][0], h0["mu"], h0["omega"])
        gap, err = at_heur.value - at_opt.value, at_heur.error + at_opt.error
        # Its reach: a gap within the routes' stated errors (-err < gap < err) cannot show the
        # witness either way (extreme label noise, noise = 2^20 with omega ~ 1e-6, flattens
        # the risk around both optima: a hunt draw failed it); undecided there. Below -err the
        # heuristic's point beats the computed optimum, a fault of the optimiser: failed.
        unresolved = (
            f"beyond the witness's reach: the gap {gap:.3g} is within the routes' stated errors "
            f"{err:.3g}"
            if -err < gap < err
            else ""
        )
        f.checks.append(
            judge.verdict(
                "beyond the paper: the heuristic's optimum is not the finite-L optimum",
                "quadrature",
                id="beyond/heuristic-optimum-differs",
                unit="risk",
                value=gap,
                bound=err,
                rule="value >= bound",
                detail="exact risk at the heuristic optimum minus the exact optimum's, "
                f"L = {curve['L'][0]}; must reach the sum of their stated numerical errors (the "
                "excess at every L is in optimum_curve.heuristic_excess)",
                tier="consistency",
                undecided=unresolved,
            )
        )
    heuristic_at_points = heads.heuristic_errors(model, d, s2, points, exact) if isotropic else None
    f.add(
        Findings(
            quantities={
                "optimum_curve": curve,
                "two_heads": {"heuristic_at_points": heuristic_at_points},
            }
        )
    )
    if curve is not None:
        one_head = {L: (e["mu"], e["omega"]) for L, e in zip(curve["L"], curve["exact"])}
        f.add(
            heads.optimum_checks(model, budget.heads_Ls, one_head, d, s2),
            quantities_under="two_heads",
        )
    elif not isotropic:
        f.add(kept_unjudged(NOT_ISOTROPIC, HEURISTIC_OPTIMUM, *TWO_HEADS))
    if isotropic and optimum and budget.rate:
        # R*_inf = R_inf at p = mu omega = 1 (its minimiser), from the emitted kernel
        f.add(
            rate.run(model, d, s2, sr.infinite_risk(np.ones(1), np.ones(1), s2)),
            quantities_under="optimum_rate",
        )
    else:
        f.add(Findings(quantities={"optimum_rate": None}))
        if not isotropic:
            f.add(kept_unjudged(NOT_ISOTROPIC, RATE))
        elif optimum:
            f.add(kept_unjudged("not run at this profile (exact optima up to L = 1e6)", RATE))
    return f


# The checks that only an isotropic scenario reaches, kept unjudged elsewhere with why: (name,
# kind, id, unit) as the checks that judge them name themselves.
NOT_ISOTROPIC = (
    "derived for isotropic inputs only (sigma = I: the heuristic, C1 and the head formulas of "
    "numerics/scalar_risk.py); this scenario's sigma is not the identity"
)
EXPANSION = (
    "exact risk vs its 1/L expansion: L (R_L - R_inf) -> C1",
    "quadrature",
    "exact/expansion-c1",
    "relative error",
)
HEURISTIC_OPTIMUM = (
    "beyond the paper: the heuristic's optimum is not the finite-L optimum",
    "quadrature",
    "beyond/heuristic-optimum-differs",
    "risk",
)
TWO_HEADS = (
    (
        "two heads: the optimum is never worse than the one-head optimum",
        "quadrature",
        "heads/never-worse",
        "risk",
    ),
    (
        "two heads: the antisymmetric optimum is a minimum in the symmetry-breaking direction",
        "quadrature",
        "heads/antisymmetric-minimum",
        "risk",
    ),
    (
        "beyond the paper: a second head helps at finite L",
        "quadrature",
        "beyond/second-head-helps",
        "risk",
    ),
)
RATE = (
    "rate: L (R*_L - R*_inf) -> c* = min_omega pair(omega^2) / omega^2",
    "quadrature",
    "rate/optimum-c-star",
    "absolute error",
)


def kept_unjudged(reason: str, *checks: tuple[str, str, str, str]) -> Findings:
    """Checks this scenario or profile does not reach, kept in the certificate with `reason`."""
    return Findings(
        [judge.unjudged(name, kind, reason, id=id, unit=unit) for name, kind, id, unit in checks]
    )
