"""prop-3.1: the power of the Monte Carlo control, computed before the Monte Carlo run from the
exact route (never from the data the control judges).

False alarm. Each statistical check (Monte Carlo z-tests, the binomial test) states its false alarm
(softlin/judge: check_false_alarm(), 1e-6 by default, in total over its parts by Bonferroni);
the certificate's family-wise figure is the union bound over those, computed once from the checks
(softlin/judge/levels.family_wise). Quadrature and emission checks are deterministic up to stated
error bounds.

Power of the "claimed 1/L rate" control above the threshold. The control refutes slope 1 when the
Monte Carlo log-log slope s_hat satisfies (s_hat - 1) / se < -z (one-sided, false alarm 1e-6).
Its power is Phi((1 - s) / se - z), s the exact finite-L slope over the tested L (quadrature) and
se the slope's standard error predicted from a variance model of the per-prompt estimate
Y = (1/Q) sum_j W_j |err_j|^2:

    Var Y <= E Y^2 <= E_{nu'}[W^2 E|err|^4]           (Jensen over the Q queries of one prompt),
    E|err|^4 ~ (tr S)^2 + 2 tr S^2,  S = E err err^T = A_L P + (B_L - A_L) u u^T / q
                                                      (Gaussian fourth moment),

P = V Gamma V^T, u = V Gamma a, A_L, B_L the exact finite-L moments (both identities proved in
derivations/fluctuations_power.py, evaluated by the emitted error_fourth_moment_model); the relative
standard errors sqrt(Var Y / prompts) / E Y give the weighted-least-squares slope error, doubled as
a margin for the heavier-than-Gaussian tails of the error (a model, stated as such, not a bound).
The query averages use a fixed seed (the power is a function of the scenario and the budget alone).
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import fits, kernels, query_average, selfnormalised, significance

TAIL_MARGIN = 2.0


def predicted_relative_stderr(
    Gamma, U, V, Sigma_q, Ls, prompts: int, scale: float, n_queries: int = 2048, points: int = 32
) -> list[float]:
    rng = np.random.default_rng(20260)
    sample = query_average.draw_queries(rng, Sigma_q, (n_queries,), scale)
    terms = selfnormalised.query_terms(Gamma, U, V, sample.Z)
    Pm = V @ Gamma @ V.T
    u = kernels.first_order_shift(Gamma, V, U, sample.Z.T).T  # V Gamma a, (n, k)
    q = np.where(terms.q > 1e-300, terms.q, 1.0)
    uPu = np.einsum("ni,ij,nj->n", u, Pm, u)
    u2 = np.sum(u * u, axis=1)
    out = []
    for L in Ls:
        tab = selfnormalised.table(L, float(np.max(terms.q)), points)
        A, B = tab.moments(terms.q)
        mse = selfnormalised.exact_mse(tab, terms)
        fourth = kernels.error_fourth_moment_model(mse, A, B, q, np.trace(Pm @ Pm), uPu, u2)
        mean = float(np.mean(sample.weights * mse))
        var = float(np.mean(sample.weights**2 * fourth))
        out.append(math.sqrt(var / prompts) / mean)
    return out


def slope_control_power(Gamma, U, V, Sigma_q, budget, av, zc: float) -> dict:
    Ls = budget.Ls
    rel = TAIL_MARGIN * np.asarray(
        predicted_relative_stderr(Gamma, U, V, Sigma_q, Ls, budget.prompts, av["scale"])
    )
    _, se = fits.loglog_slope_design(Ls, rel)
    s = float(av["predicted_slope"])
    power = significance.power_one_sided((1.0 - s) / se, zc)
    return {
        "power": power,
        "stderr": se,
        "slope": s,
        "detail": (
            f"exact slope {s:.4f}, predicted standard error {se:.4f} (variance model x "
            f"{TAIL_MARGIN**2:g}), power Phi((1 - {s:.4f}) / {se:.4f} - {zc:.2f}) = {power:.6f}"
        ),
    }
