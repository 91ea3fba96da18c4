"""thm-4.3, Lemma D.1's Gronwall step on the flows: its hypotheses (the infinite trajectory in
B_rho, the finite ones in B_{2 rho}, beta_inf a Lipschitz constant of grad R_inf on B_{2 rho}), the
bound ||theta_L(t) - theta_inf(t)|| <= g2(L) t exp(beta_inf t) on the time grid, and the majorant
B(t) = g2 t e^{beta t} (evaluated from derivations/gronwall.py, not typed again) against the
comparison ODE e' = g2 + beta e, e(0) = 0, solved numerically: e <= B <= (1 + beta t) e.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

from ...core.findings import Findings
from ...derivations import gronwall
from ...judge import kinds as judge
from ...numerics import icl_exact
from . import routes

ODE_SLACK = 1e-6  # solve_ivp rtol 1e-9 on O(1) trajectories: absolute error well below this
TIMES_MAJORANT = 47  # the majorant's own grid when the flow's has too few times below 30 / beta

# The majorant evaluated is the derived one whose bound the proofs establish (not typed again).
_MAJORANT = sp.lambdify((gronwall.g2, gronwall.beta, gronwall.t), gronwall.majorant(), "numpy")


def gronwall_bound(g2: float, beta: float, t: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # inf beyond t ~ 700 / beta: the bound then holds trivially
        return np.asarray(_MAJORANT(g2, beta, np.asarray(t, float)), float)


def gronwall_checks(inf, sweep, rho: float, Ls, beta: float, t: np.ndarray) -> Findings:
    """The trajectories' hypotheses, the Gronwall bound on the flows (`sweep`: gaps.GapSweep) and
    the majorant against the comparison ODE (module docstring)."""
    inf_norm = float(np.linalg.norm(inf, axis=1).max())
    fin_norm = max(r["max_norm_theta_L"] for r in sweep.rows)
    f = Findings()
    f.checks.append(
        judge.verdict(
            "hypothesis: ||theta_inf(t)|| <= rho along the infinite trajectory",
            "ode",
            id="hypothesis/infinite-bounded",
            unit="norm",
            value=inf_norm,
            bound=rho * (1 + ODE_SLACK),
            rule="value <= bound",
            detail=f"rho = max(||theta(0)||, ||theta*||) = {rho:.8g} from the derived endpoint, "
            f"fixed before the flow; bound rho (1 + {ODE_SLACK:g}) for the ODE's error",
        )
    )
    f.checks.append(
        judge.verdict(
            "hypothesis: ||theta_L(t)|| <= 2 rho along every finite trajectory",
            "ode",
            id="hypothesis/finite-bounded",
            unit="norm",
            value=fin_norm,
            bound=2 * rho,
            rule="value <= bound",
            detail=f"L = {Ls}",
        )
    )
    # 2. Gronwall with independent pieces. On the flows it is implied once beta bounds the Lipschitz
    # constant (check 3) and g2 is the exact sup (check 4): consistency. The majorant check judges
    # the bound's formula itself against the comparison ODE solved independently, so a slip in
    # gronwall_bound (a dropped t, a wrong exponent) fails it: numerical evidence.
    f.checks.append(
        judge.verdict(
            "Gronwall: ||theta_L(t) - theta_inf(t)|| <= g2(L) t exp(beta_inf t) on the time grid",
            "ode",
            id="gronwall/flows",
            unit="norm",
            value=sweep.worst_excess,
            bound=ODE_SLACK,
            rule="value <= bound",
            tier="consistency",
            detail="the largest ||theta_L(t) - theta_inf(t)|| - g2(L) t exp(beta_inf t) over the "
            f"times and L, against the ODE slack; largest ratio gap / bound "
            f"{sweep.worst_ratio:.4g}; "
            f"flows by solve_ivp (DOP853, rtol 1e-9); g2 exact; beta_inf = {beta:.4g}; {len(t)} "
            f"times log-spaced from {t[1]:.2g} to {t[-1]:.3g}",
        )
    )
    f.checks.append(majorant_check(sweep.g2s[0], beta, t))
    return f


def majorant_check(g_ref: float, beta: float, t: np.ndarray):
    """The majorant B = g2 t e^{beta t} at g2 = `g_ref` against the comparison ODE solved by
    solve_ivp: e <= B <= (1 + beta t) e on the times of `t` with beta t <= 30."""
    tc = t[beta * t <= 30.0]  # beyond, both sides exceed e^30 g2 (no information)
    # beta so large (e.g. ~4e5) that no time of the flow's grid lies below 30 / beta: the comparison
    # ODE would run over an empty interval, so the majorant gets a grid of its own up to 30 / beta
    if tc.size < 3:
        tc = np.concatenate([[0.0], np.geomspace(1e-4, 1.0, TIMES_MAJORANT) * 30.0 / beta])
    comp = solve_ivp(
        lambda _, e: g_ref + beta * e,
        (0, tc[-1]),
        [0.0],
        method="DOP853",
        rtol=1e-10,
        atol=1e-14 * g_ref,
        t_eval=tc,
    )
    e = comp.y[0]
    B = gronwall_bound(g_ref, beta, tc)
    # both inequalities as ratios (passing at most 1) with the ODE's relative allowance 1e-7, at
    # t > 0 (at t = 0 both sides vanish)
    dominated = float(np.max(e[1:] / (B[1:] * (1 + 1e-7))))
    sharp = float(np.max(B[1:] / ((1 + beta * tc[1:]) * e[1:] * (1 + 1e-7))))
    return judge.verdict(
        "Gronwall majorant: e(t) <= g2 t e^{beta t} <= (1 + beta t) e(t) for e' = g2 + beta e, "
        "e(0) = 0",
        "ode",
        id="gronwall/majorant",
        unit="ratio",
        value=max(dominated, sharp),
        bound=1.0,
        rule="value <= bound",
        # holds for every g2 and beta > 0 whatever the theorem's data: shown beside the
        # majorant's proof (gronwall/majorant-proof), never counted
        tier="consistency",
        detail="comparison ODE by solve_ivp; the majorant must dominate it and be first-order "
        "sharp at t -> 0: the larger of max e / (B (1 + 1e-7)) = "
        f"{dominated:.8g} and max B / ((1 + beta t) e (1 + 1e-7)) = {sharp:.8g}; "
        f"max B / e = {float(np.max(B[1:] / e[1:])):.4g}",
    )


def beta_check(Sigma: np.ndarray, rho: float, inf: np.ndarray, beta: float, rng):
    """beta_inf against sampled Hessian norms of R_inf (central differences) at 60 points uniform
    in B_{2 rho} and on theta_inf: (the check, the largest sampled norm)."""
    d = Sigma.shape[0]
    pts = np.vstack([routes.ball_points(rng, 60, d * d + 1, 2 * rho), inf[::6]])
    gi = lambda th: icl_exact.grad_inf(Sigma, th)
    h_inf = max(routes.hessian_norm(gi, th) for th in pts)
    check = judge.verdict(
        "beta_inf >= sampled ||Hess R_inf|| on B_{2 rho}",
        "ode",
        id="hypothesis/beta-bounds-hessian",
        unit="norm",
        value=h_inf,
        bound=beta,
        rule="value <= bound",
        detail=f"{len(pts)} points (uniform in the ball and on theta_inf); central differences",
    )
    return check, h_inf
