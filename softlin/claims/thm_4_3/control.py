"""thm-4.3's negative control: tokens from a Gaussian mixture with the same covariance have a
non-linear infinite-prompt limit, so their gradient gap at the largest L must differ from the
Gaussian exact gap.

The control refutes the transfer when the Monte Carlo distance D_hat = ||gap_mix - gap_exact||
exceeds the threshold z ||se|| + QUAD_REL g2 (z the claim's critical value, the exact route's
quadrature allowance added). It is judged only at a power planned before the run's data, from a
pilot of n_p prompts (icl_common.Budget.pilot_prompts) on the claim's own child stream (pilot mean
m_p, standard errors s_p, k components):

- the true distance D >= ||m_p - gap_exact|| - z_k ||s_p|| (z_k two-sided at PLAN_BETA over the k
  components: every |noise_i| <= z_k s_i implies ||noise|| <= z_k ||s||);
- the run's true standard errors se_i <= significance.pilot_se_bound(s_i, n_p, n) and its estimated
  ones at most g se_i, g^2 = chi2_{n-1}(1 - beta) / (n - 1) (significance.sd_upper_factor), so its
  threshold is at most t_plan = z g ||se_plan|| + QUAD_REL g2;
- the run misses only if its noise has norm above D - t_plan; as above that needs some |noise_i| >
  (D - t_plan) se_i / ||se||, so the miss probability is at most 2 k Phi(-(D - t_plan) /
  ||se_plan||) (significance.union_bound_power).

The planned power holds with probability >= 1 - 3 PLAN_BETA over the pilot (normal approximation of
the prompt means, as the claim's other z-tests).
"""

from __future__ import annotations

import math

import numpy as np

from ...numerics import significance
from ...judge import kinds as judge
from ...core.findings import Findings
from . import routes

PLAN_BETA = 1e-3


def planned_power(
    pilot_mean, pilot_se, exact, n_pilot: int, n: int, z: float, allowance: float
) -> tuple[float, str]:
    """(power lower bound, how it was planned) of the control at n prompts, from the pilot
    (module docstring)."""
    k = len(pilot_mean)
    z_k = significance.z_critical(PLAN_BETA, k)
    dist_lo = float(np.linalg.norm(np.asarray(pilot_mean) - exact)) - z_k * float(
        np.linalg.norm(pilot_se)
    )
    se_plan = np.array(
        [significance.pilot_se_bound(s, n_pilot, n, PLAN_BETA / k) for s in pilot_se]
    )
    g = significance.sd_upper_factor(PLAN_BETA / k, n - 1)
    norm = float(np.linalg.norm(se_plan))
    thresh = z * g * norm + allowance
    margin = (
        (dist_lo - thresh) / norm if norm > 0 else (math.inf if dist_lo > thresh else -math.inf)
    )
    power = significance.union_bound_power(margin, 2 * k)
    return power, (
        f"pilot of {n_pilot} prompts: true distance >= {dist_lo:.4g}, planned threshold <= "
        f"{thresh:.4g}, ||se|| <= {norm:.3g}"
    )


def mixture_check(
    Sigma, theta, L: int, n: int, n_pilot: int, rng, exact_gap, z: float, allowance: float
) -> Findings:
    """The control at theta (the infinite flow's end) and the largest L, on n prompts planned from
    a pilot of n_pilot; `exact_gap` the Gaussian exact gap there, `allowance` its quadrature error.
    Its check (judge.control: the distance against the threshold, judged when the planned power
    reaches judge.POWER_TARGET), and its numbers for the certificate."""
    mix = routes.mixture_mean(Sigma)
    p_mean, p_se = routes.mc_gap(Sigma, theta, L, n_pilot, rng.spawn(1)[0], mix)
    power, plan = planned_power(p_mean, p_se, exact_gap, n_pilot, n, z, allowance)
    mix_mean, mix_se = routes.mc_gap(Sigma, theta, L, n, rng, mix)
    dist = float(np.linalg.norm(mix_mean - exact_gap))
    thresh = z * float(np.linalg.norm(mix_se)) + allowance
    name = "control: mixture-law tokens (same covariance) refute the transfer to the linear flow"
    detail = (
        f"Monte Carlo gap at L = {L}, theta_inf(T): distance to the Gaussian exact gap {dist:.4g} "
        f"against "
        f"z ||se|| + quadrature {thresh:.4g}; power planned before the run: {power:.6f} ({plan})"
    )
    numbers = {
        "mixture_control_distance": dist,
        "mixture_control_threshold": thresh,
        "mixture_control_planned_power": power,
    }
    check = judge.control(
        name,
        id="control/mixture-tokens",
        statistic=dist,
        critical=thresh,
        power=power,
        tier="statistical",
        unit="absolute error",
        detail=detail,
    )
    return Findings([check], numbers)
