"""Computations behind `thm-4.3` (no verdicts here): exact finite-L flows, the gradient gap g2(L),
Monte Carlo gradients on fresh prompts, and Lipschitz estimates.

g2(L) is measured as the largest exact gap ||grad R_L - grad R_inf|| (numerics/icl_exact.py) over
the points theta_L(t_k) and theta_inf(t_k) of the time grid (both in B_{2 rho}, checked). The
Gronwall step of Lemma D.1 only evaluates the gap along theta_L(t), so this g2 makes the bound
valid; it is a lower estimate of the sup over the whole ball (which at this L is not computable:
far in the ball lambda(theta) > 1/2 and the quadrature tables do not reach the q involved).
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import icl_exact, icl_flows, icl_training
from ...numerics.validate import BeyondReach

LAM_MAX = 2.0  # lambda(theta) reached by the quadrature tables (q <= 121 on 12 nodes)
TIMES = 48  # log-spaced time grid points
FLOW_AT_RTOL = 1e-7  # flow_at's tolerance
QUAD_REL = 5e-3  # quadrature (12 Gauss-Hermite nodes, 32..48-point tables) relative error allowance


def plan(s: dict) -> dict:
    Sigma, A0, b0 = s["Sigma"], s["A0"], s["b0"]
    theta0 = np.concatenate([A0.ravel(), [b0]])
    As, bs = icl_flows.endpoint(Sigma)
    rho = max(float(np.linalg.norm(theta0)), math.hypot(float(np.linalg.norm(As)), bs))
    fl = icl_flows.integrate_ab(
        Sigma, A0, b0, 40 / icl_flows.transverse_rate(Sigma) + 50, eps_list=(min(s["eps"]) / 10,)
    )
    level = min(s["eps"]) / 10
    T = float(fl["time_to_risk"][level])
    if not (math.isfinite(T) and T > 0):  # no training for the theorem to transfer
        r0 = float(fl["risk"][0])
        where = "starts at or below" if T == 0 else "never reaches"
        raise BeyondReach(
            f"the infinite-prompt flow {where} the risk "
            f"min(eps) / 10 = {level:g} (R_inf = {r0:.3g} at the start): the training horizon "
            "T(eps) the theorem's transfer is judged on is "
            + ("0; lower icl.eps or raise Sigma's scale" if T == 0 else "infinite")
        )
    t = np.concatenate([[0.0], np.geomspace(1e-4 * T, T, TIMES - 1)])
    return {"theta0": theta0, "rho": rho, "T": T, "t": t, "candidates": s["Ls"]}


def flows(Sigma: np.ndarray, p: dict, keep: int) -> dict:
    """theta_inf(t) and, for the first `keep` of the scenario's L whose flow the exact route can
    follow, theta_L(t) on the grid (solve_ivp on the exact gradient fields).

    An L whose flow leaves the tables' reach (lambda(theta) > LAM_MAX,
    numerics/icl_exact.OutOfReach; small L, where theta_L moves far from theta_inf) is skipped and
    listed in `beyond_reach` with where it left; the theorem is about large L. Fewer than two
    followable L: BeyondReach (exit 2). So is a theta_inf(t) that leaves the reach, whatever L:
    the gap g2 is measured on both trajectories (`g2_of`), and lambda(theta) does not depend on
    L."""
    inf = icl_exact.flow(lambda y: icl_exact.grad_inf(Sigma, y), p["theta0"], p["t"])
    reach = LAM_MAX  # where ExcessRisk.excess refuses (the flows' 2 % margin is for steps)
    lams = [icl_exact.whitened_lambda(Sigma, icl_exact.unpack(th, Sigma.shape[0])[0]) for th in inf]
    outside = [k for k, lam in enumerate(lams) if lam > reach]
    if outside:
        k = outside[0]
        raise BeyondReach(
            f"the infinite-prompt flow reaches lambda(theta) = {lams[k]:.4g} > {reach:.4g} at "
            f"t = {p['t'][k]:.4g}: the exact finite-L route's tables (lambda <= {reach}) cannot "
            "measure the gradient gap g2 there at any L; a smaller alpha or Sigma's scale keeps "
            "the flow within them"
        )
    out = {"inf": inf, "L": {}, "beyond_reach": []}
    for L in p["candidates"]:
        if len(out["L"]) == keep:
            break
        E = icl_exact.ExcessRisk(Sigma, L, LAM_MAX)
        try:
            out["L"][L] = {
                "excess": E,
                "traj": icl_exact.flow(E.grad, p["theta0"], p["t"], reach=E.reach),
            }
        except icl_exact.OutOfReach as exc:
            out["beyond_reach"].append({"L": L, "t": exc.t, "why": str(exc)})
    if len(out["L"]) < 2:
        left = "; ".join(f"L = {b['L']}: {b['why']}" for b in out["beyond_reach"])
        raise BeyondReach(
            f"two prompt lengths are needed whose finite-L flow stays where the exact route "
            f"can follow it (lambda(theta) <= {LAM_MAX}); {left}; add larger L to icl.L"
        )
    return out


def g2_of(E: icl_exact.ExcessRisk, points: np.ndarray) -> tuple[float, np.ndarray]:
    """(max exact gap over the points, the point attaining it)."""
    norms = [float(np.linalg.norm(E.gap(th))) for th in points]
    k = int(np.argmax(norms))
    return norms[k], points[k]


def mc_gap(Sigma, theta, L, n, rng, mixture_mean=None) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo mean of grad(per-prompt loss) - grad R_inf and its standard errors (fresh
    prompts)."""
    d = Sigma.shape[0]
    A, b = icl_exact.unpack(theta, d)
    G = icl_training.prompt_gradients(Sigma, A, b, L, n, rng, mixture_mean) - icl_exact.grad_inf(
        Sigma, theta
    )
    return G.mean(axis=0), G.std(axis=0, ddof=1) / math.sqrt(n)


def hessian_norm(grad, theta, h: float = 1e-4) -> float:
    """||Hessian||_op by central differences of `grad` (symmetrised)."""
    n = theta.size
    H = np.array([(grad(theta + h * e) - grad(theta - h * e)) / (2 * h) for e in np.eye(n)])
    return float(np.linalg.norm((H + H.T) / 2, 2))


def ball_points(rng, n: int, dim: int, radius: float) -> np.ndarray:
    """n points uniform in the ball of the given radius (dim coordinates)."""
    g = rng.standard_normal((n, dim))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    return g * radius * rng.uniform(size=(n, 1)) ** (1.0 / dim)


def mixture_mean(Sigma: np.ndarray) -> np.ndarray:
    """m = 0.9 sqrt(lambda_1) e_1 (principal axis): Sigma - m m^T stays positive definite."""
    lam, vec = np.linalg.eigh(Sigma)
    return 0.9 * math.sqrt(lam[-1]) * vec[:, -1]


def flow_at(Sigma: np.ndarray, p: dict, L: int, inf: np.ndarray):
    """(ExcessRisk, theta_L(t) on the plan's grid) for one more L, or (None, why) when its flow
    leaves the exact route's reach. The tables reach 1.25 times the infinite trajectory's largest
    lambda (capped at LAM_MAX; at the large L this is called for theta_L stays near theta_inf, and
    small tables are cheap: log_moments' cost grows steeply with q), and LAM_MAX when that is
    left."""
    lam_inf = max(
        icl_exact.whitened_lambda(Sigma, icl_exact.unpack(th, Sigma.shape[0])[0]) for th in inf
    )
    why = ""
    for lam in dict.fromkeys((min(LAM_MAX, 1.25 * lam_inf), LAM_MAX)):
        E = icl_exact.ExcessRisk(Sigma, L, lam)
        try:
            # rtol 1e-7: the risk at the horizon is judged against eps with a 5e-3 relative
            # quadrature allowance, far above the flow's error
            return E, icl_exact.flow(E.grad, p["theta0"], p["t"], rtol=FLOW_AT_RTOL, reach=E.reach)
        except icl_exact.OutOfReach as exc:
            why = str(exc)
    return None, why
