"""Gradient flow of the exact finite-L risks and SGD at the authors' scale, in claim
`authors-experiment` (docs/paper.md section 6).

At each of the authors' prompt lengths (quick: the first few) and for both models, the gradient flow
d(mu, omega)/dt = -grad R_L from the initialisation INIT (the infinite-batch limit of SGD at time
t = lr x steps), recorded at the authors' end time T_END = lr x 300 000 and run on to T_CONV:
  softmax  grad R_L of the exact surface (numerics/finite_risk_gradient.py, BDF; the emitted
           integrand derivatives of derivations/risk_finite_gradient.py), on the surface's table
           of A_L, B_L;
  linear   the emitted closed-form gradient `authors_linear_risk_gradient`.
Judged (numerical checks, kind "ode"), at the flow's end T_CONV:
  gradient      the emitted softmax gradient (fine rule) agrees with the risk surface it
                differentiates, at two points: at the optimum found without gradients (profile over
                mu, Brent over omega) and at INIT. The reference is dR/dmu = c1 + 2 c2 mu (R is
                quadratic in mu) and a central difference of R in omega; the tolerance is the
                gradient's stated error plus the difference's own (step h against 2h, plus
                rounding). At the optimum the reference is ~0, so a slip in the gradient shows as a
                non-zero there. (The flow's end is not the place to judge the gradient against
                |fine rule - flow's rule|: at a converged flow's end that is about |gradient|
                itself, a ratio below 1 whatever the gradient's formula.)
  optimum       the flow's end is the exact optimum: for softmax R_L(end) - R*_L in [-TOL_R, tol]
                with R*_L minimised on the same surface by another route (the closed-form profile
                over mu and Brent over omega, no gradient), tol = |e|^2 / (2 lambda_min(H)) + TOL_R
                (the excess of a point whose gradient is within e, H the Hessian); for linear
                attention |R_L(end) - R*_L| <= TOL_R with R*_L the emitted closed-form optimum. A
                slip in the emitted gradient moves the flow's end off the optimum
                (tests/claims/test_authors_flow.py).
Reported: the flow at T_END (where the authors stopped; at L = 1000 the flow is still ~8e-6 above
R*_L there, its slow direction along the valley has rate ~9e-3).
SGD at the authors' scale (data/sgd/authors_long_sgd*.json, written by
benchmarks/authors_long_sgd.py, lr 1e-3, batch 128, at the L it was run for; one check per file):
the SGD end at step k against the flow at the same time lr k within the derived noise floor
(`sgd_check`). A run shorter than the authors' 300 000 steps that ends beyond the floor is
undecided, not failed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ...numerics import finite_risk as fr, finite_risk_gradient as fg, kernels
from ...numerics.significance import chi2_critical, z_critical
from .exact import OMEGA_MAX, ratio_detectable
from .training import INIT, LR
from ...core import progress
from ...judge.check import check_false_alarm
from ...judge import kinds as judge, levels
from ..shared.risk_power import SGD_STATIONARY
from ...core.findings import Findings

AUTHORS_STEPS = 300_000
T_END = LR * AUTHORS_STEPS  # the authors' end time
T_CONV = 1e5  # the flow's own end: slowest rate measured 9e-3 (L = 1000), e^-900
BOUNDARY = 1e-4  # an optimum with |omega| >= (1 - BOUNDARY) OMEGA_MAX is on the search's boundary
TOL_R = 1e-9  # Brent's xatol 1e-7 on omega: excess <= H 1e-14 / 2, far below; the flow's rtol 1e-7
LONG_SGD = Path(__file__).resolve().parents[3] / "data" / "sgd"  # authors_long_sgd*.json
H_FD = 1e-5


def _fd_hessian(grad, mu, om, h=H_FD):
    H = np.column_stack(
        [
            (grad(mu + h, om) - grad(mu - h, om)) / (2 * h),
            (grad(mu, om + h) - grad(mu, om - h)) / (2 * h),
        ]
    )
    return (H + H.T) / 2


def _points(fl, risk, grad, hessian) -> dict:
    """The flow at its recorded times: {"t": {"theta", "risk", "gradient", "hessian"}}."""
    return {
        f"{t:g}": {
            "theta": list(th),
            "risk": float(risk(*th)),
            "gradient": np.asarray(grad(*th)).tolist(),
            "hessian": np.asarray(hessian(*th)).tolist(),
        }
        for t, th in fl["at"].items()
    }


def linear_flow(Sp, Sq, s2, tau, L, times=()):
    """Linear attention at prompt length L: the gradient flow of the emitted closed-form risk from
    INIT to T_CONV (recorded at T_END and `times`) against the emitted closed-form optimum."""

    def grad(mu, om):
        return np.asarray(
            kernels.authors_linear_risk_gradient(Sp, Sq, mu, om, s2, tau, L), float
        ).ravel()

    def risk(mu, om):
        return float(kernels.authors_linear_risk(Sp, Sq, mu, om, s2, tau, L))

    fl = fg.flow(grad, INIT, T_CONV, (T_END, *times))
    end = fl["end"]
    p, R_star = (
        float(v) for v in np.asarray(kernels.authors_linear_optimum(Sp, Sq, s2, tau, L)).ravel()
    )
    return {
        "flow_end": list(end),
        "flow_risk": risk(*end),
        "product": p,
        "risk": R_star,
        "gradient": grad(*end).tolist(),
        "excess": risk(*end) - R_star,
        "at": _points(fl, risk, grad, lambda mu, om: _fd_hessian(grad, mu, om)),
    }


def softmax_flow(model, L, times=()):
    """Softmax at prompt length L: the gradient flow of the exact risk surface from INIT to T_CONV
    (recorded at T_END and `times`), its end's excess over the surface's optimum found without
    gradients with its tolerance, and the gradient's agreement with the surface (`_agreement`)."""
    surf = fr.surface(model, L, OMEGA_MAX)  # shared with the checks at L_max (checks.py)
    mu_s, om_s, R_star = surf.optimum()
    gs = fg.GradientSurface(surf)
    # the optimum on the search's boundary |omega| = OMEGA_MAX: the true optimum lies beyond the
    # surface
    beyond = abs(om_s) >= OMEGA_MAX * (1 - BOUNDARY)
    agreement = (
        {}
        if beyond
        else {"optimum": _agreement(surf, gs, mu_s, om_s), "init": _agreement(surf, gs, *INIT)}
    )
    try:
        fl = fg.flow(gs.flow_value, INIT, T_CONV, (T_END, *times))
    except (
        ValueError
    ) as exc:  # the flow left the surface's omega range: judged failed, unless beyond
        nan = [math.nan, math.nan]
        return {
            "mu": mu_s,
            "omega": om_s,
            "risk": R_star,
            "flow_end": nan,
            "flow_risk": math.nan,
            "excess": math.nan,
            "excess_tolerance": math.nan,
            "gradient": nan,
            "gradient_error": nan,
            "flow_evaluations": 0,
            "flow_failure": str(exc),
            "at": {},
            "surface": surf,
            "beyond_reach": beyond,
            "gradient_agreement": agreement,
        }
    end = fl["end"]
    g = gs.gradient(*end)
    # The flow follows the cheaper rule (flow_value), so its end is a zero of that field, not of the
    # judged one: their difference at the end joins the stated error (for a strongly anisotropic
    # Sigma, d = 3, the fine gradient at a converged end can be 6.8 stated errors from 0
    # without it).
    err = g.error + np.abs(g.value - np.asarray(gs.flow_value(*end)))
    lam_min = float(np.linalg.eigvalsh(gs.hessian(*end)).min())
    tol = float(err @ err) / (2 * lam_min) + TOL_R if lam_min > 0 else math.inf
    R_end = surf.risk(*end)
    return {
        "mu": mu_s,
        "omega": om_s,
        "risk": R_star,
        "flow_end": list(end),
        "flow_risk": R_end,
        "excess": R_end - R_star,
        "excess_tolerance": tol,
        "gradient": g.value.tolist(),
        "gradient_error": err.tolist(),
        "flow_evaluations": fl["evaluations"],
        "at": _points(fl, surf.risk, gs.value, gs.hessian),
        "surface": surf,
        "beyond_reach": beyond,
        "gradient_agreement": agreement,
    }


def _agreement(surf, gs, mu: float, omega: float) -> dict:
    """The emitted gradient at (mu, omega) against the risk surface's own derivatives:
    dR/dmu = c1 + 2 c2 mu exactly (R_L is quadratic in mu), dR/domega by the central difference
    D(h), h = 1e-4 max(1, |omega|), whose error is stated as |D(h) - D(2h)| (three times its h^2
    term) plus the rounding 4 eps |R| / h. `ratio` = max_k |g_k - reference_k| / (stated error of
    g_k + that of reference_k)."""
    eps = np.finfo(float).eps
    h = 1e-4 * max(1.0, abs(omega))
    try:
        g = gs.gradient(mu, omega)
        _, c1, c2 = surf.quadratic(omega)

        def d_omega(step):
            return (surf.risk(mu, omega + step) - surf.risk(mu, omega - step)) / (2 * step)

        d1, d2 = d_omega(h), d_omega(2 * h)
    except ValueError as exc:  # the point or its differences leave the surface: judged failed
        return {"theta": [mu, omega], "ratio": math.inf, "failure": str(exc)}
    R = abs(surf.risk(mu, omega))
    reference = np.array([c1 + 2 * c2 * mu, d1])
    reference_error = np.array(
        [4 * eps * (R + abs(c1) + abs(c2 * mu)), abs(d1 - d2) + 4 * eps * R / h]
    )
    ratio = float(np.max(np.abs(g.value - reference) / (g.error + reference_error)))
    return {
        "theta": [mu, omega],
        "gradient": g.value.tolist(),
        "gradient_error": g.error.tolist(),
        "reference": reference.tolist(),
        "reference_error": reference_error.tolist(),
        "ratio": _finite(ratio),
    }


def curves(Sp, Sq, s2, tau, Ls: list[int], times=()) -> dict:
    """At each of the prompt lengths `Ls`: the exact optima and the flows of both models, recorded
    at T_END and `times` (module docstring)."""
    model = fr.Model(Sp, Sq, tau, s2)
    soft, lin = [], []
    for L in progress.sweep(Ls, "exact optima and gradient flows", item="L"):
        soft.append(softmax_flow(model, L, times))
        lin.append(linear_flow(Sp, Sq, s2, tau, L, times))
    return {"L": Ls, "softmax": soft, "linear": lin, "t_end": T_END, "t_flow": T_CONV}


def _finite(x: float) -> float:
    """A ratio judged against 1: NaN (a flow that left the surface) counts as infinitely bad."""
    return x if math.isfinite(x) else math.inf


def flow_checks(c: dict) -> Findings:
    """Stationarity and optimality of the flows' ends. An L whose softmax optimum lies on the
    boundary |omega| = OMEGA_MAX of the exact surface (`beyond_reach`: the flow leaves the surface,
    e.g. at d = 1, Sigma = 0.5, noise 0, L = 4, 8, where the optimum sits on that boundary) is not
    judged and named; with no softmax L left, the softmax stationarity check is undecided."""
    Ls, soft, lin = c["L"], c["softmax"], c["linear"]
    judged = [j for j, s in enumerate(soft) if not s.get("beyond_reach")]
    beyond = [Ls[j] for j in range(len(Ls)) if j not in judged]
    note = (
        (
            f"; not judged (softmax optimum on the surface's boundary |omega| = {OMEGA_MAX:g}, "
            f"beyond the exact route's reach): L = {beyond}"
        )
        if beyond
        else ""
    )
    stat = {j: max(a["ratio"] for a in soft[j]["gradient_agreement"].values()) for j in judged}
    name = (
        "emitted softmax gradient agrees with the exact risk surface (zero at its optimum, "
        "differences at INIT), every L"
    )
    if stat:
        w = max(stat, key=stat.get)
        worst = soft[w]["gradient_agreement"]
        out = [
            judge.agreement(
                name,
                "ode",
                id="flow/gradient-agreement",
                error=stat[w],
                tolerance=1.0,
                unit="ratio",
                detail="largest |gradient - reference| / (stated error of both) over "
                f"L = {Ls[0]}..{Ls[-1]} and the two points (the optimum R*_L found without "
                f"gradients, where the reference is ~0, and INIT = {INIT}); reference "
                "dR/dmu = c1 + 2 c2 mu, dR/domega a central difference of R_L; worst at "
                f"L = {Ls[w]}: "
                + "; ".join(
                    f"{k} {a.get('theta')}: gradient {a.get('gradient')}, reference "
                    f"{a.get('reference')}{', ' + a['failure'] if 'failure' in a else ''}"
                    for k, a in worst.items()
                )
                + note,
            )
        ]
    else:
        out = [
            judge.verdict(
                name,
                "ode",
                id="flow/gradient-agreement",
                unit="ratio",
                value=None,
                bound=1.0,
                rule="value <= bound",
                detail="undecided: no L left to judge" + note,
                undecided="no L left to judge" + note,
            )
        ]
    ratio = {
        j: _finite(max(-soft[j]["excess"] / TOL_R, soft[j]["excess"] / soft[j]["excess_tolerance"]))
        for j in judged
    }
    ratio_lin = [max(-x["excess"] / TOL_R, x["excess"] / TOL_R) for x in lin]
    wl = int(np.argmax(ratio_lin))
    every = [*ratio.values(), *ratio_lin]
    # Judged on the count of ends outside their tolerance: a flow that left the surface (its end
    # not finite, its ratio infinite) is outside, never undecided, as a slip in the gradient sends
    # it there (tests/claims/test_authors_flow.py).
    outside = sum(1 for x in every if not x <= 1.0)
    worst = max(every) if not any(math.isnan(x) for x in every) else math.nan
    soft_text = (
        (
            f"worst softmax at L = {Ls[max(ratio, key=ratio.get)]}: excess "
            f"{soft[max(ratio, key=ratio.get)]['excess']:.3g} against "
            f"{soft[max(ratio, key=ratio.get)]['excess_tolerance']:.3g}; "
        )
        if ratio
        else "no softmax L judged; "
    )
    out.append(
        judge.exact(
            "gradient flow ends at the exact finite-L optimum, softmax and linear attention, "
            "every L",
            "ode",
            id="flow/ends-at-optimum",
            value=outside,
            expected=0,
            detail=f"flows (model, L) whose end lies outside its tolerance: {outside} of "
            f"{len(every)} (a flow that left the surface counts); largest (R_L(flow end) - R*_L) "
            f"/ tolerance (and -(...) / {TOL_R:g}) {worst:.3g}; R*_L by "
            "the profile over mu and Brent over omega on the same surface (softmax), by the "
            "emitted closed form (linear); " + soft_text + _linear_text(lin, Ls, wl) + note,
        )
    )
    return Findings(out)


ROUNDING_EXCESS = 1e-12


def _linear_text(lin, Ls, wl: int) -> str:
    """Where every linear excess is at rounding level, which L holds the largest one depends on the
    last bits of the arithmetic: the text then states the level, not an L."""
    if max(abs(x["excess"]) for x in lin) <= ROUNDING_EXCESS:
        return f"every linear excess at rounding level (|excess| <= {ROUNDING_EXCESS:g})"
    return f"worst linear at L = {Ls[wl]}: excess {lin[wl]['excess']:.3g}"


def load_long_sgd(folder: Path = LONG_SGD) -> dict:
    """{file stem: result} of every authors_long_sgd*.json in `folder` (none in an installed
    wheel)."""
    return {
        p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("authors_long_sgd*.json"))
    }


def same_setting(setting: dict, Sp, Sq, s2, tau) -> bool:
    """Whether a result file of benchmarks/authors_long_sgd.py was run on this scenario's law: the
    correct generator (Sigma_p = Sigma_q) with its Toeplitz(r) Sigma, tau and s2: a run of another
    law is no reference for this scenario's flows."""
    label = str(setting.get("sigma", ""))
    if setting.get("generator") != "correct" or not (
        label.startswith("Toeplitz(") and label.endswith(")")
    ):
        return False
    d, r = int(setting["d"]), float(label[len("Toeplitz(") : -1])
    sigma = r ** np.abs(np.subtract.outer(np.arange(d), np.arange(d)))
    Sp, Sq = np.asarray(Sp, float), np.asarray(Sq, float)
    return (
        Sp.shape == sigma.shape
        and np.allclose(Sp, sigma, rtol=0, atol=1e-12)
        and np.allclose(Sq, sigma, rtol=0, atol=1e-12)
        and math.isclose(float(setting["s2"]), s2, rel_tol=1e-12)
        and math.isclose(float(setting["tau"]), tau, rel_tol=1e-12)
    )


# The archives' sampler and its training stream: benchmarks/authors_long_sgd.py draws run L's SGD
# from default_rng([seed, TRAINING_STREAM, L]) with numerics/authors_sgd_fast.train_conditional.
ARCHIVED_SAMPLER = "numerics/authors_sgd_fast.train_conditional"
TRAINING_STREAM = 11
# Today's code re-running an archive's first recorded point at its seed agrees to 3.5e-13 (measured,
# 3000 steps): what is left is the order of floating-point sums, amplified by the steps. A slip in
# the sampler or the gradient moves the point by orders of magnitude more.
REPLAY_TOLERANCE = 1e-9


def replay_first_points(long_sgd: dict, runs: dict) -> dict:
    """Each archived run in `runs` ({L: run}) re-run with today's code at its seed up to its first
    recorded point after the start (step record_steps[1]), and compared with the archived
    parameters there: {L: {"step", "largest_difference"}}, or {"reason": ...} when the archive
    cannot be re-run (another sampler, no recorded trajectory). An archive that today's code does
    not reproduce says nothing about today's code."""
    from ...numerics import authors_sgd_fast

    setting = long_sgd["setting"]
    if setting.get("sampler") != ARCHIVED_SAMPLER:
        return {"reason": f"archived with sampler {setting.get('sampler')!r}, not re-runnable"}
    d, r = int(setting["d"]), float(str(setting["sigma"])[len("Toeplitz(") : -1])
    sigma = r ** np.abs(np.subtract.outer(np.arange(d), np.arange(d)))
    out = {}
    for L, run in sorted(runs.items()):
        steps, trajectory = run.get("record_steps", []), run.get("trajectory", {})
        if len(steps) < 2 or not all(len(trajectory.get(m, [])) >= 2 for m in run["params"]):
            return {"reason": f"the run at L = {L} records no trajectory point to re-run"}
        again = authors_sgd_fast.train_conditional(
            sigma,
            float(setting["s2"]),
            float(setting["tau"]),
            L,
            setting["generator"],
            int(steps[1]),
            float(setting["lr"]),
            int(setting["batch"]),
            setting["init"],
            np.random.default_rng([int(setting["seed"]), TRAINING_STREAM, L]),
            record=1,
        )
        out[L] = {
            "step": int(steps[1]),
            "largest_difference": max(
                float(np.max(np.abs(np.subtract(again["params"][m], trajectory[m][1]))))
                for m in run["params"]
            ),
        }
    return out


def replay_reason(replay: dict) -> str:
    """Why an archived run cannot stand for today's code ("" when every re-run agrees)."""
    if "reason" in replay:
        return replay["reason"]
    for L, r in replay.items():
        x = r["largest_difference"]
        if not (math.isfinite(x) and x <= REPLAY_TOLERANCE):
            return (
                f"today's code does not reproduce the archive at L = {L}: re-run to its first "
                f"recorded step {r['step']} at its seed, the parameters differ by {x:.3g} "
                f"(> {REPLAY_TOLERANCE:g})"
            )
    return ""


SGD_CHECK = (
    "SGD at the authors' scale ends within the SGD noise floor of the gradient flow at the same "
    "time"
)


def sgd_check_id(stem: str) -> str:
    """The long-SGD check's id: one per result file ("sgd-long/300k-l100" for
    authors_long_sgd_300k_L100)."""
    short = stem.removeprefix("authors_long_sgd").strip("_").replace("_", "-").lower()
    return "sgd-long/" + short if short else "sgd-long"


def sgd_unjudged(reason: str, stem: str = ""):
    """The long-SGD check where there is nothing to judge: kept, with why (named by its file, if
    any)."""
    return judge.unjudged(
        SGD_CHECK + (f" ({stem})" if stem else ""),
        "montecarlo",
        reason,
        tier="archived",
        id=sgd_check_id(stem),
        unit="ratio",
    )


def _produced_by(long_sgd: dict, stem: str) -> str:
    """Where an archived run comes from: its file, the commit and the SHA-256 of the code that wrote
    it."""
    prov = long_sgd.get("provenance", {})
    code = ", ".join(
        f"{path} {digest[:12]}" for path, digest in sorted(prov.get("code_sha256", {}).items())
    )
    return (
        f"data/sgd/{stem}.json (commit {str(prov.get('source_commit', 'not recorded'))[:12]}; code "
        f"sha256 {code or 'not recorded'})"
    )


def sgd_check(c: dict, long_sgd: dict, Sp, Sq, s2, tau, stem: str = "") -> Findings:
    """SGD endpoints at step k against the flow at the same time t = lr k, within the noise floor:
    the exact excess R_L(SGD) - R_L(flow(t)) = g.delta + delta^T H delta / 2 + ..., delta ~ N(0, P)
    the stationary fluctuation (derived P), so
    |excess| <= z sqrt(g^T P g) + q mean(delta^T H delta / 2) (the Gaussian linear term two-sided
    at z, the quadratic term at the chi2_1 quantile q times its mean; half of check_false_alarm() to
    each, Bonferroni over the runs). Its quantities: per model and L, "<model> L=<L> (<k> steps)",
    the numbers behind the check. The archive stands for today's code only if today's code,
    re-run at its seed, reproduces its first recorded point (replay_first_points): otherwise the
    check is undecided with the difference."""
    if not same_setting(long_sgd["setting"], Sp, Sq, s2, tau):
        return Findings(
            [
                sgd_unjudged(
                    f"data/sgd/{stem}.json was run on another law than this scenario's", stem
                )
            ]
        )
    runs = {int(L): r for L, r in long_sgd["runs"].items() if int(L) in c["L"]}
    if not runs:
        return Findings(
            [sgd_unjudged(f"data/sgd/{stem}.json holds no run at this scenario's L", stem)]
        )
    replay = replay_first_points(long_sgd, runs)
    mismatch = replay_reason(replay)
    lr, batch, steps = (
        long_sgd["setting"]["lr"],
        long_sgd["setting"]["batch"],
        long_sgd["setting"]["steps"],
    )
    t_key = f"{lr * steps:g}"
    n_tests = 2 * len(runs)
    # the false alarm shared by 2 n_tests tests: each (model, L) comparison's two terms
    q = chi2_critical(check_false_alarm(), 1, tests=2 * n_tests)
    z = z_critical(check_false_alarm(), tests=2 * n_tests, sided=2)
    out, ratios = {}, []
    for L, run in sorted(runs.items()):
        j = c["L"].index(L)
        for m in ("softmax", "linear"):
            ref = c[m][j]["at"].get(t_key)
            theta = run["params"][m]
            if (
                ref is None
            ):  # the flow failed (left the surface): nothing to compare with, judged failed
                ratios.append(math.inf)
                out[f"{m} L={L}"] = {
                    "sgd_end": theta,
                    "flow_failure": c[m][j].get("flow_failure", "not recorded"),
                    "excess_risk": math.nan,
                    "tolerance": math.nan,
                    "steps": steps,
                }
                continue
            R = ref_risk = ref["risk"]
            if m == "softmax":
                R = c[m][j]["surface"].risk(*theta)
            else:
                R = float(kernels.authors_linear_risk(Sp, Sq, *theta, s2, tau, L))
            (h11, h12), (_, h22) = ref["hessian"]
            (c11, c12), (_, c22) = run["gradient_covariance"][m]
            floor = float(kernels.sgd_mean_excess(h11, h12, h22, c11, c12, c22, lr, batch))
            P = np.asarray(
                kernels.sgd_stationary_covariance(h11, h12, h22, c11, c12, c22, lr, batch), float
            )
            g = np.asarray(ref["gradient"], float)
            linear_sd = math.sqrt(max(float(g @ P @ g), 0.0))
            tol = q * floor + z * linear_sd
            excess = R - ref_risk
            ratios.append(abs(excess) / tol)
            out[f"{m} L={L}"] = {
                "sgd_end": theta,
                "flow_at_same_time": ref["theta"],
                "t": lr * steps,
                "sgd_exact_risk": R,
                "flow_risk": ref_risk,
                "excess_risk": excess,
                "mean_excess_floor": floor,
                "linear_term_sd": linear_sd,
                "stationary_covariance": P.tolist(),
                "tolerance": tol,
                "steps": steps,
            }
    worst = max(out, key=lambda k: _finite(abs(out[k]["excess_risk"]) / out[k]["tolerance"]))
    # Fewer steps than the authors': beyond the floor is undecided (the run may not follow the
    # flow's linearisation yet); at the authors' steps it is a failure.
    largest = max(ratios) if not any(math.isnan(r) for r in ratios) else math.nan
    check = judge.verdict(
        f"SGD at the authors' scale ({steps} steps, lr {lr:g}, batch {batch}) ends within the SGD "
        f"noise floor of the gradient flow at the same time t = {t_key}, L = {sorted(runs)}",
        "montecarlo",
        id=sgd_check_id(stem),
        unit="ratio",
        value=largest,
        bound=1.0,
        rule="value <= bound",
        detail="largest |R_L(SGD end) - R_L(flow(t))| / (z sqrt(g^T P g) + q tr(H P) / 2) over "
        f"models and L, z = {z:.3g}, q = {q:.3g}; P the stationary covariance (discrete Lyapunov, "
        "derived), H and g the exact Hessian and gradient at flow(t), C measured on "
        f"{long_sgd['runs'][str(sorted(runs)[0])]['grad_prompts']} prompts; false alarm "
        f"{check_false_alarm():g} Bonferroni over the runs; worst {worst}: "
        f"{out[worst]['excess_risk']:.3g} against {out[worst]['tolerance']:.3g}; replayed from "
        f"{_produced_by(long_sgd, stem)}; {_replay_text(replay)}",
        tier="archived",
        detectable=ratio_detectable(
            [r["tolerance"] for r in out.values()],
            [r.get("flow_risk", math.nan) for r in out.values()],
        ),
        false_alarm=levels.nominal(
            check_false_alarm(),
            f"{SGD_STATIONARY}; the runs are archived (data/sgd), the test made now at this level",
        ),
        undecided=mismatch
        or (
            f"{steps} steps, fewer than the authors' {AUTHORS_STEPS}: beyond the floor "
            "(largest ratio {:.4g}) the run may not follow the flow's linearisation yet".format(
                largest
            )
            if largest > 1.0 and steps < AUTHORS_STEPS
            else ""
        ),
    )
    return Findings(
        [check],
        {f"{key} ({steps} steps)": v for key, v in out.items()}
        | _replay_quantities(replay, stem, steps),
    )


def _replay_quantities(replay: dict, stem: str, steps: int) -> dict:
    """The re-runs, keyed apart from the other files' (several archives share a step count)."""
    if "reason" in replay:
        return {f"replay of {stem}": replay}
    return {f"replay L={L} ({steps} steps)": r for L, r in replay.items()}


def _replay_text(replay: dict) -> str:
    """The re-runs in words; a difference within the tolerance is rounding, whose digits move with
    the BLAS build, so the text says "agrees" and the number stays in the quantities."""
    if "reason" in replay:
        return f"not re-run: {replay['reason']}"

    def one(L, r):
        x = r["largest_difference"]
        agreed = math.isfinite(x) and x <= REPLAY_TOLERANCE
        return f"L = {L} step {r['step']} " + ("agrees" if agreed else f"differs by {x:.3g}")

    return (
        "today's code re-run at the archive's seed to its first recorded point: "
        + ", ".join(one(L, r) for L, r in replay.items())
        + f" (within {REPLAY_TOLERANCE:g})"
    )


def section(Sp, Sq, s2, tau, Ls: list[int]) -> Findings:
    """The gradient flows at the prompt lengths `Ls` (flow_checks) and SGD at the authors' scale,
    one check per result file of benchmarks/authors_long_sgd.py (sgd_check; unjudged when there is
    none). Quantities: the flows' curves without their surfaces ("exact_optimum_curves") and the
    long SGD runs' numbers ("authors_scale_sgd")."""
    results = load_long_sgd()
    times = [r["setting"]["lr"] * r["setting"]["steps"] for r in results.values()]
    flows = curves(Sp, Sq, s2, tau, Ls, times)
    f = flow_checks(flows)
    f.add(Findings(quantities={"exact_optimum_curves": strip(flows), "authors_scale_sgd": {}}))
    for stem, result in results.items():
        f.add(sgd_check(flows, result, Sp, Sq, s2, tau, stem), quantities_under="authors_scale_sgd")
    if not results:
        f.add(
            Findings(
                [
                    sgd_unjudged(
                        "no result file of benchmarks/authors_long_sgd.py in data/sgd "
                        "(an installed wheel has none: run softlin from a checkout)"
                    )
                ]
            )
        )
    return f


def strip(c: dict) -> dict:
    """The curves without the surfaces (for the certificate); the flow's risk at the authors' end
    time."""
    return {**c, "softmax": [{k: v for k, v in s.items() if k != "surface"} for s in c["softmax"]]}
