"""prop-3.1, regimes below, at and above the threshold lambda = 1/2, and the sharp exponent.

The scenario's token covariance is rescaled, Gamma = sigma^2 Gamma0 with
sigma^2 = lambda_target / lambda0. In each regime: Monte Carlo = exact finite-L error at every L,
fitted slope = exact slope, and the exact query-averaged error of the scalar reduction
(q = lambda g^2) to L = e^64 (quick) or e^128 decays as
L^-kappa, kappa(lambda) = min(1, (sqrt(1 + 4/lambda) - 1)/2) (derivations/fluctuations_exponent.py).
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import limits, query_average, selfnormalised, significance
from ...numerics.fits import linear_fit
from ...numerics.laws import GaussianLaw
from ...judge import kinds as judge, levels
from ...judge.check import check_false_alarm
from ...core.findings import Findings
from .average import query_averaged, per_L_check, slope_check, exact_coefficient
from .common import REGIMES, regime_setting
from ..shared.common import subgaussian_sigma
from ..shared.exponents import naive_exponent, sharp_exponent
from .power import slope_control_power
from ...core.progress import sweep

# The 4-term fit ln F = c0 - kappa l + p ln l + c1 / l of the exact average at l = 8..64 (quick) or
# 12..128 (standard) recovers kappa within FIT_MODEL_ERROR for lambda in {0.2, 0.5, 1} (design study
# in tests/numerics/test_prop31_engine.py, against the fit to l = 16..256: largest change 2e-3).
# The check's tolerance KAPPA_TOLERANCE is fixed at 5 times that; the nearest wrong exponents it
# must exclude (the naive 1/(2 lambda), 0.118 away at lambda = 1; kappa of 2 lambda, 0.18 away) are
# more than 10 tolerances away.
FIT_MODEL_ERROR = 2e-3
KAPPA_TOLERANCE = 1e-2


def asymptotic_exponent(lam: float, ells, kappa_guess: float) -> dict:
    """Fit ln F(l) = c0 - kappa l + p ln l + c1 / l to the exact query average F of the scalar
    reduction (d = 1: q = lambda g^2) at l = ln L in `ells`; F = E B_L (the d = 1 mean squared error
    over V^2 Gamma). Returns kappa from the 4-term fit, from a 3-term fit (no c1 / l) on the last
    points (reported only), and the log power p."""
    logs = np.array(
        [
            selfnormalised.scalar_average(lam, int(round(math.exp(e))), kappa_guess)[1]
            for e in sweep(
                ells, f"prop-3.1: exact asymptotics (lambda = {lam:g})", weights=ells, item="ln L"
            )
        ]
    )
    ell = np.array([math.log(round(math.exp(e))) for e in ells])
    X4 = np.column_stack([np.ones_like(ell), -ell, np.log(ell), 1 / ell])
    c4 = linear_fit(X4, logs).coef
    X3 = X4[1:, :3]
    c3 = linear_fit(X3, logs[1:]).coef
    return {
        "kappa4": float(c4[1]),
        "kappa3": float(c3[1]),
        "log_power": float(c4[2]),
        "ells": ell.tolist(),
        "log_values": logs.tolist(),
    }


def regime_checks(s, budget, rng, lam0, exponent_fn, regimes=REGIMES) -> tuple[Findings, dict]:
    """Each regime's checks, its quantities (keyed by the regime's name) and its series (keyed by
    its label, for the figure's controls); and the power of its controls, which the claim writes
    after every check has run."""
    Gamma0, U, V, Sq, m = s["cov"], s["U"], s["V"], s["query_cov"], s["mean"]
    found, power_all = Findings(), {}
    for name, target in regimes:
        Gamma, sigma2 = regime_setting(Gamma0, lam0, target)
        lam = query_average.threshold_lambda(Gamma, U, Sq)
        if (
            abs(lam - target) <= 1e-9 * target
        ):  # constructed to be the target: drop the eigensolver's rounding
            lam = target
        kappa = exponent_fn(lam)
        law = GaussianLaw(m, Gamma)
        limit_fn = lambda Z, G=Gamma: limits.gaussian_limit(m, G, U, V, Z)
        av = query_averaged(law, rng, budget, U, V, Gamma, Sq, limit_fn, lam, f"{name} threshold")
        checks = [
            per_L_check(
                f"{name} threshold (lambda = {lam:.3g})",
                av,
                check_false_alarm() / (1 + len(REGIMES)),  # shared with the scenario's
                f"regime/{name}",
            ),
            slope_check(f"{name} threshold (lambda = {lam:.3g})", av, kappa, f"regime/{name}"),
        ]
        # The asymptotic exponent from the exact averages at huge L.
        asym = asymptotic_exponent(lam, budget.ells, sharp_exponent(lam))
        # Tolerance fixed beforehand (not from these values): KAPPA_TOLERANCE, above the 4-term
        # fit's model error.
        dev = abs(asym["kappa4"] - kappa)
        naive = naive_exponent(lam)
        sharp = sharp_exponent(lam)
        checks.append(
            judge.agreement(
                f"{name} threshold (lambda = {lam:.3g}): exact L2(nu) error decays as L^-kappa, "
                f"kappa = {kappa:.4f} (quadrature up to L = e^{max(budget.ells):g})",
                "quadrature",
                id=f"regime/{name}/kappa",
                unit="absolute error",
                error=dev,
                tolerance=KAPPA_TOLERANCE,
                detail=f"fit ln F = c0 - kappa ln L + p ln ln L + c1/ln L to the exact average at "
                f"ln L = {', '.join(f'{e:g}' for e in asym['ells'])}: kappa = "
                f"{asym['kappa4']:.5f} against the derived {kappa:.5f}, log power p = "
                f"{asym['log_power']:.3f}; value |kappa - predicted| = {dev:.2e} <= "
                f"{KAPPA_TOLERANCE:g} (fixed: the fit's model error is <= {FIT_MODEL_ERROR:g} for "
                f"lambda in [0.2, 1]); the 3-term fit (no c1/ln L) gives {asym['kappa3']:.5f} "
                f"(reported); the naive min(1, e^q/L) heuristic would give {naive:.4f}",
            )
        )
        power = {}
        if lam > 0.5:
            # Two hypotheses, fixed before the run: the derived kappa and the naive 1/(2 lambda).
            # The naive one is refuted when the fitted exponent is closer to the derived one than
            # half their gap; the fit's model error (<= FIT_MODEL_ERROR) is far below half the gap,
            # so the decision is deterministic: power 1.
            half_gap = abs(sharp - naive) / 2
            power[f"{name}: naive exponent excluded (quadrature)"] = (
                1.0 if FIT_MODEL_ERROR < half_gap else 0.0
            )
            checks.append(
                judge.control(
                    f"{name} threshold: the naive exponent min(1, 1/(2 lambda)) = {naive:.4f} is "
                    "excluded by the exact quadrature",
                    id=f"regime/{name}/naive-excluded",
                    statistic=abs(asym["kappa4"] - naive),
                    critical=half_gap,
                    power=power[f"{name}: naive exponent excluded (quadrature)"],
                    tier="consistency",
                    unit="exponent",
                    detail=f"value |fitted kappa - naive| = {abs(asym['kappa4'] - naive):.3g}, "
                    f"bound {half_gap:.3g} = half the gap between the derived {sharp:.4f} and the "
                    f"naive {naive:.4f} (fixed before the run); deterministic (quadrature): power "
                    f"1 since the fit's model error {FIT_MODEL_ERROR:g} < {half_gap:.3g}",
                )
            )
            half_gap1 = abs(1.0 - sharp) / 2
            power[f"{name}: claimed 1/L rate excluded (quadrature)"] = (
                1.0 if FIT_MODEL_ERROR < half_gap1 else 0.0
            )
            checks.append(
                judge.control(
                    f"{name} threshold: a claimed 1/L rate (kappa = 1) is excluded by the "
                    "exact quadrature",
                    id=f"regime/{name}/one-over-l-excluded",
                    statistic=abs(asym["kappa4"] - 1.0),
                    critical=half_gap1,
                    power=power[f"{name}: claimed 1/L rate excluded (quadrature)"],
                    tier="consistency",
                    unit="exponent",
                    detail=f"value |fitted kappa - 1| = {abs(asym['kappa4'] - 1.0):.3g}, bound "
                    f"{half_gap1:.3g} = half the gap between the derived {sharp:.4f} and 1 (fixed "
                    "before the run); deterministic: power 1",
                )
            )
        fit = av["fit"]
        zc = significance.z_critical(check_false_alarm(), sided=1)
        if name == "above":
            pw = slope_control_power(Gamma, U, V, Sq, budget, av, zc)
            power[f"{name}: claimed 1/L rate refuted (Monte Carlo slope)"] = pw["power"]
            z1 = (fit.slope - 1.0) / fit.stderr
            control = (
                f"negative control (lambda = {lam:.3g} above the threshold): a claimed 1/L rate "
                "must be refuted by the Monte Carlo slope"
            )
            if pw["power"] < judge.POWER_TARGET:
                power[f"{name}: claimed 1/L rate (not run)"] = (
                    f"power {pw['power']:.4g} < {judge.POWER_TARGET}: {pw['detail']}"
                )
            # judged by its plan (judge.control): refuted when -z = (1 - slope) / se reaches the
            # one-sided critical value
            checks.append(
                judge.control(
                    control,
                    id=f"regime/{name}/control-one-over-l",
                    statistic=-z1,
                    critical=zc,
                    power=pw["power"],
                    tier="statistical",
                    unit="z",
                    detail=f"measured slope {fit.slope:.4f} +- {fit.stderr:.4f} against 1: "
                    f"value -z = (1 - slope) / se = {-z1:.1f}, one-sided at false-alarm "
                    f"{check_false_alarm():g} (critical {zc:.2f}); power computed before the "
                    f"run: {pw['detail']}",
                )
            )
        if name == "at":
            # L x error at the threshold: the Monte Carlo growth between the extreme L against the
            # exact growth (which is positive: no finite first-order coefficient, (ln L)^p with p
            # from the fit above).
            Ls = budget.Ls
            g_mc = Ls[-1] * av["mc"][-1] - Ls[0] * av["mc"][0]
            g_ex = Ls[-1] * av["exact"][-1] - Ls[0] * av["exact"][0]
            sg = math.hypot(
                math.hypot(Ls[0] * av["mc_se"][0], Ls[-1] * av["mc_se"][-1]),
                math.hypot(Ls[0] * av["exact_se"][0], Ls[-1] * av["exact_se"][-1]),
            )
            zg = (g_mc - g_ex) / sg
            zc2 = significance.z_critical(check_false_alarm())
            name_at = (
                f"at the threshold (lambda = {lam:.3g}): L x error grows with L as the exact "
                "value does (no finite first-order coefficient)"
            )
            detail_at = (
                f"growth of L x MSE from L = {Ls[0]} to {Ls[-1]}: Monte Carlo "
                f"{g_mc:.4g}, exact {g_ex:.4g} (z = {zg:.2f}); the exact growth is (ln L)^p with "
                f"p = {asym['log_power']:.2f}"
            )
            if g_ex > 0 and asym["log_power"] > 0:
                checks.append(
                    judge.z_test(
                        name_at,
                        id="regime/at/growth",
                        z=zg,
                        alpha=check_false_alarm(),
                        tests=1,
                        sided=2,
                        assumption=levels.NORMAL_MEAN,
                        detail=detail_at + " > 0",
                        detectable=significance.resolution(g_ex, sg, zc2),
                    )
                )
            else:
                # the exact route shows no growth: a refutation on the exact facts themselves
                checks.append(
                    judge.exact(
                        name_at,
                        "montecarlo",
                        id="regime/at/growth",
                        value=[bool(g_ex > 0), bool(asym["log_power"] > 0)],
                        expected=[True, True],
                        detail=detail_at + "; value: (exact growth > 0, log power p > 0)",
                        false_alarm=levels.nominal(check_false_alarm(), levels.NORMAL_MEAN),
                    )
                )
        sigma = subgaussian_sigma(Gamma)
        first = None if lam >= 0.5 else exact_coefficient(Gamma, U, V, Sq)
        power_all.update(power)
        series = {
            "L": list(budget.Ls),
            "rmse": [math.sqrt(v) for v in av["mc"]],
            "mse": av["mc"],
            "mse_stderr": av["mc_se"],
            "exact_mse": av["exact"],  # the figure's overlay
            "first_order_coefficient": first,
        }
        quantities = {
            "lambda": lam,
            "sigma_scale_squared": sigma2,
            "subgaussian_sigma": sigma,
            "exponent": kappa,
            "naive_exponent": naive,
            "measured_slope": fit.slope,
            "measured_slope_stderr": fit.stderr,
            "predicted_slope_tested_range": av["predicted_slope"],
            "asymptotic_fit": asym,
            "c2": sigma**2 * kappa,
            "first_order_coefficient": first,
            "mc_mse": av["mc"],
            "exact_mse": av["exact"],
            "proposal_scale": av["scale"],
        }
        found.add(
            Findings(checks, {name: quantities}, {f"{name} threshold (lambda = {lam:g})": series})
        )
    return found, power_all
