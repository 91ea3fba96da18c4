"""thm-5.2, the infinite-prompt gradient flow of R_inf(A, b) by the ODE route (Radau, rtol 1e-10,
numerics/icl_flows.py): from the scenario's balanced start (reaching (A*, b*) and conserving
||A||_F^2 - b^2), over random SPD Sigma with alpha inside and outside the paper's range, the full
(U, V) flow's untrained blocks, and the endpoint exponent slip b* = tr(Sigma^-2)^(1/2) refuted.
"""

from __future__ import annotations

import numpy as np

from ...judge import kinds as judge
from ...numerics import icl_flows
from ...numerics.validate import BeyondReach

# Tolerances. Radau with rtol 1e-10 over at most ~1e4 accepted steps accumulates at most ~1e-6
# relative error; the horizon T = 40 / (slowest transverse rate) + 50 leaves e^-40 of the transverse
# distance.
ODE_RELATIVE_TOLERANCE = 1e-6


def random_spd(rng, d, cond, norm):
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    S = Q @ np.diag(norm * np.geomspace(1.0, 1.0 / cond, d)) @ Q.T
    return (S + S.T) / 2


def flow_run(Sigma, alpha, Theta=None, eps_list=()):
    A0, b0 = icl_flows.balanced_init(Sigma, alpha, Theta)
    T = 40.0 / icl_flows.transverse_rate(Sigma) + 50.0
    r = icl_flows.integrate_ab(Sigma, A0, b0, T, eps_list)
    As, bs = icl_flows.endpoint(Sigma)
    scale = max(1.0, float(np.abs(As).max()), bs)
    r.update(
        A_err=float(np.abs(r["A"] - As).max()),
        b_err=abs(r["b"] - bs),
        scale=scale,
        b_star=bs,
        T=T,
        rel_drift=r["invariant_drift"] / scale**2,
    )
    return r


def scenario_flow_check(main: dict):
    """The scenario's flow (`main`, flow_run) reaches (A*, b*) and conserves ||A||_F^2 - b^2."""
    return judge.agreement(
        "scenario: flow reaches (A*, b*) and conserves ||A||_F^2 - b^2 (Radau, rtol 1e-10)",
        "ode",
        id="flow/scenario",
        error=max(main["A_err"] / main["scale"], main["rel_drift"]),
        tolerance=ODE_RELATIVE_TOLERANCE,
        detail=f"max |A(T) - A*| = {main['A_err']:.3g}, |b(T) - b*| = {main['b_err']:.3g}, "
        f"drift {main['invariant_drift']:.3g}; T = {main['T']:.3g}; relative to "
        "max(1, |A*|, b*)^(1,2)",
    )


def sweep_step(rng, n_sweep: int):
    """Random SPD Sigma (d in 1..4, condition up to 100, ||Sigma|| in [0.1, 10]), alpha at half
    and three times the paper's bound: (the check inside the range, the rows, the worst relative
    error inside and outside). Outside the paper's range the flow still converges here (the range
    is sufficient, not necessary)."""
    sweep = []
    for j in range(n_sweep):
        dd = int(rng.integers(1, 5))
        cond = float(10 ** rng.uniform(0, 2)) if dd > 1 else 1.0
        nrm = float(10 ** rng.uniform(-1, 1))
        Sj = random_spd(rng, dd, cond, nrm)
        bound = icl_flows.paper_alpha_bound(Sj)
        for where, factor in (("inside", 0.5), ("outside", 3.0)):
            r = flow_run(Sj, factor * bound)
            sweep.append(
                {
                    "d": dd,
                    "cond": cond,
                    "norm": nrm,
                    "alpha": factor * bound,
                    "range": where,
                    "A_err_rel": r["A_err"] / r["scale"],
                    "b_err_rel": r["b_err"] / r["scale"],
                    "drift_rel": r["rel_drift"],
                }
            )
    worst_in = max(max(x["A_err_rel"], x["drift_rel"]) for x in sweep if x["range"] == "inside")
    worst_out = max(max(x["A_err_rel"], x["drift_rel"]) for x in sweep if x["range"] == "outside")
    check = judge.agreement(
        "sweep: random SPD Sigma (cond <= 100, ||Sigma|| in [0.1, 10]), alpha inside the range",
        "ode",
        id="flow/sweep",
        error=worst_in,
        tolerance=ODE_RELATIVE_TOLERANCE,
        detail=f"{n_sweep} Sigma; largest relative endpoint error or drift",
    )
    return check, sweep, worst_in, worst_out


# The perturbed start of block_invariance is a contrast for the reader, not evidence: at extreme
# Sigma scales (eigenvalues ~1e6) its flow from u, v = +-1e-3 is too stiff to finish in
# MAX_EVALUATIONS, so it gets a fifth (about 5 s) and its detail says when it did not finish.
CONTRAST_EVALUATIONS = icl_flows.MAX_EVALUATIONS // 5


def block_invariance(Sigma: np.ndarray, A0: np.ndarray, b0: float, T: float):
    """The full (U, V) flow from the balanced start keeps the untrained blocks at 0, and from a
    start perturbed by 1e-3 (for contrast) leaves them: (the check, the full flow, the perturbed
    one)."""
    d = Sigma.shape[0]
    z = np.zeros((d, 1))
    full = icl_flows.integrate_full(Sigma, A0, z, z, b0, T)
    try:
        pert = icl_flows.integrate_full(
            Sigma, A0, z + 1e-3, z - 1e-3, b0, T, evaluations=CONTRAST_EVALUATIONS
        )
        contrast = (
            f"max off-block {pert['max_offblock']:.3g}, final {float(pert['offblock'][-1]):.3g}, "
            f"final risk {pert['risk']:.3g}"
        )
    except BeyondReach as exc:  # a contrast only: said, not judged
        pert, contrast = None, f"not integrated ({exc})"
    check = judge.agreement(
        "block invariance: full (U, V) flow from the balanced start keeps the other blocks at 0",
        "ode",
        id="flow/block-invariance",
        error=float(full["max_offblock"]),
        tolerance=0.0,
        unit="absolute error",
        detail="largest |U[d, :d]|, |V[d, :d]| over the time grid (exact zero expected: the "
        f"derived gradients vanish identically there); perturbed start (1e-3): {contrast}",
    )
    return check, full, pert


def exponent_control(Sigma: np.ndarray, main: dict):
    """Control (ODE route): the exponent slip b* = tr(Sigma^-2)^(1/2) (A* = Sigma^-1 / b*) must be
    refuted by the scenario's flow `main`."""
    Sinv = np.linalg.inv(Sigma)
    b_slip = float(np.trace(Sinv @ Sinv)) ** 0.5
    slip_err = abs(main["b"] - b_slip) / main["scale"]
    return judge.verdict(
        "control: endpoint b* = tr(Sigma^-2)^(1/2) (exponent 1/2 for 1/4) refuted by the ODE route",
        "control",
        id="control/endpoint-exponent",
        unit="relative error",
        value=slip_err,
        bound=ODE_RELATIVE_TOLERANCE,
        rule="value >= bound",
        tier="consistency",
        detail="|b(T) - b_slip| / scale against the ODE tolerance: the slip is refuted beyond it",
        # tr(Sigma^-2) = 1 makes both exponents give the same b*: the slip coincides with the
        # claim there and cannot be refuted
        undecided=""
        if slip_err > ODE_RELATIVE_TOLERANCE
        else "the slip's endpoint is within the ODE tolerance of the flow's here (e.g. "
        "tr(Sigma^-2) near 1): not distinguished at this Sigma",
    )
