"""thm-4.3, the gradient gap g2(L) along the flows: per L, the exact g2 (its argmax over both
trajectories), the flows' gap against the Gronwall majorant g2 t e^{beta t}, and the Monte Carlo
gradient gap on fresh prompts at the argmax; then the Monte Carlo gap against the exact one
(per-component z-tests) and the decrease of g2 in L (the Monte Carlo log-log slope, its upper
confidence bound below 0, agreeing with the exact slope)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...judge import kinds as judge
from ...judge import levels
from ...judge.check import check_false_alarm
from ...numerics import significance
from ...numerics.fits import linear_fit
from . import routes
from .gronwall_checks import gronwall_bound
from .routes import QUAD_REL


@dataclass(frozen=True)
class GapSweep:
    """Per L: the rows of the certificate, g2, the Monte Carlo gap against the exact one, and
    (exact gap, its z-test's se) for Check.detectable; over L: the largest excess of the gap over
    the majorant and the largest ratio gap / majorant."""

    rows: list
    g2s: list
    mc: list
    tested: list
    worst_excess: float
    worst_ratio: float


def gap_sweep(Sigma, fl: dict, t: np.ndarray, beta: float, n: int, rng, g2_measure) -> GapSweep:
    """The sweep over the followed L of `fl` (routes.flows) with `n` Monte Carlo prompts per L;
    `g2_measure(E, points)` is g2 and its argmax (the claim's, so that a test can replace it)."""
    inf = fl["inf"]
    rows, g2s, mc = [], [], []
    worst_excess, worst_ratio = -math.inf, 0.0
    tested = []  # (exact gap, its z-test's se) per L
    for L in list(fl["L"]):
        E, traj = fl["L"][L]["excess"], fl["L"][L]["traj"]
        g2, arg = g2_measure(E, np.vstack([traj, inf]))
        gaps = np.linalg.norm(traj - inf, axis=1)
        bound = gronwall_bound(g2, beta, t)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = float(np.nanmax(np.where(t > 0, gaps / bound, 0.0)))
        # the gap's excess over the majorant, judged against the ODE slack
        worst_excess = max(worst_excess, float(np.max(gaps - bound)))
        worst_ratio = max(worst_ratio, ratio)
        exact = E.gap(arg)
        mean, se = routes.mc_gap(Sigma, arg, L, n, rng)
        # the quadrature's error is deterministic: added to the tolerance, not to the standard error
        mc.append(
            {
                "L": L,
                "exact": exact,
                "mc": mean,
                "se": se,
                "z": np.maximum(0.0, np.abs(mean - exact) - QUAD_REL * np.abs(exact)) / se,
            }
        )
        tested.append((exact, se))  # Check.detectable
        g2s.append(g2)
        rows.append(
            {
                "L": L,
                "g2": g2,
                "max_gap": float(gaps.max()),
                "max_ratio_to_bound": ratio,
                "max_norm_theta_L": float(np.linalg.norm(traj, axis=1).max()),
                "final_risk_L": E.risk(traj[-1]),
            }
        )
    return GapSweep(rows, g2s, mc, tested, worst_excess, worst_ratio)


def gap_check(sweep: GapSweep, n: int, n_tests: int, z: float):
    """The exact gap against the Monte Carlo gap at the g2 argmax, every L and component."""
    zs = np.concatenate([np.ravel(m["z"]) for m in sweep.mc])
    tested = sweep.tested
    return judge.z_test(
        "exact finite-L gradient gap = Monte Carlo gap (fresh prompts) at the g2 argmax, every L",
        id="gap/exact-vs-montecarlo",
        z=zs,
        # this check's share of the claim's Bonferroni budget: its zs.size z-tests of n_tests
        alpha=check_false_alarm() * zs.size / n_tests,
        tests=zs.size,
        assumption=levels.NORMAL_MEAN,
        detail=f"{n} prompts per L; per-component z = (|MC - exact| - "
        f"{QUAD_REL} |exact|) / se (the quadrature allowance added, not combined); the "
        f"claim's false alarm {check_false_alarm():g} shared over its {n_tests} tests",
        detectable=significance.resolution(
            np.concatenate([np.ravel(g) for g, _ in tested]),
            np.concatenate([np.ravel(e) for _, e in tested]),
            z,
            allowance=np.concatenate([QUAD_REL * np.abs(np.ravel(g)) for g, _ in tested]),
        ),
    )


def decrease_check(Ls, sweep: GapSweep, z: float, n_tests: int):
    """g2(L) decreases with L (module docstring): (the check, {slope_exact, slope_mc, slope_se})."""
    lx = np.log(np.array(Ls, float))
    mc_norm = np.array([np.linalg.norm(m["mc"]) for m in sweep.mc])
    mc_se = np.array([np.linalg.norm(m["se"]) for m in sweep.mc]) / np.maximum(
        mc_norm, 1e-300
    )  # se of log norm
    X = np.vstack([np.ones_like(lx), lx]).T
    fit = linear_fit(X, np.log(mc_norm), mc_se)
    slope_mc, slope_se = float(fit.coef[1]), math.sqrt(fit.cov[1, 1])
    slope_exact = float(linear_fit(X, np.log(sweep.g2s)).coef[1])
    # two statistics against their critical values: the slopes' disagreement beyond the 0.02
    # allowance, (|slope_mc - slope_exact| - 0.02) / se <= z, and the decrease, slope_mc / se <= -z
    # (the upper confidence bound below 0); a slope that agrees but whose sign the data cannot tell
    # (its confidence interval holds 0) is undecided
    agree_z = (abs(slope_mc - slope_exact) - 0.02) / slope_se
    sign_z = slope_mc / slope_se
    agree = abs(slope_mc - slope_exact) <= z * slope_se + 0.02
    dec = slope_mc + z * slope_se < 0
    # resolution: a relative slip of the exact slope must clear z se and the 0.02 allowance
    slope_eps = significance.resolution(slope_exact, slope_se, z, allowance=0.02)
    check = judge.verdict(
        "g2(L) decreases with L: Monte Carlo log-log slope < 0 and = the exact slope",
        "montecarlo",
        id="gap/g2-decreases",
        unit="values",
        value=[agree_z, sign_z],
        bound=[z, -z],
        rule="value <= bound",
        detail="[(|slope_mc - slope_exact| - 0.02) / se, slope_mc / se] against [z, -z]: "
        f"the Monte Carlo slope {slope_mc:.4g} +- {slope_se:.3g} agrees with the exact "
        f"{slope_exact:.4g} within z se and 0.02 (the quadrature's allowance), and its upper "
        f"confidence bound is below 0; weighted fit over L = {Ls}; z = {z:.3g}, two-sided, "
        f"this test's share {check_false_alarm():g} / {n_tests} of the claim's false alarm",
        detectable=slope_eps,
        false_alarm=levels.nominal(check_false_alarm() / n_tests, levels.NORMAL_FIT),
        undecided="the Monte Carlo slope agrees with the exact one but its confidence "
        "interval holds 0: the decrease is not resolved"
        if agree and not dec and not slope_mc - z * slope_se > 0
        else "",
    )
    return check, {"slope_exact": slope_exact, "slope_mc": slope_mc, "slope_se": slope_se}
