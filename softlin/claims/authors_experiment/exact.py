"""The exact finite-L softmax risk in claim `authors-experiment` (docs/paper.md section 6).

numerics/finite_risk.py computes R_L(mu, omega) of the one-head softmax model exactly (the integrand
derived in derivations/risk_finite.py, averaged by quadrature with a stated error), here for the
experiment's anisotropic inputs. Two uses:

* a judged check: at every trained prompt length the Monte Carlo test risk of the SGD endpoint
  (fresh prompts, computed by the experiment) equals the exact risk at those parameters (two-sided
  z-tests with the quadrature's stated error as an allowance, Bonferroni over the L at
  judge.check.check_false_alarm()); a wrong exact route or a wrong
  test-risk estimator fails it;
* the authors' figure at all 19 of their prompt lengths: the exact softmax optimum (mu*_L, omega*_L,
  R*_L) minimised on the exact surface, and the exact linear-attention optimum, with the gradient
  flows that reach them (claims/authors_experiment/flow.py; AUTHORS_LS and OMEGA_MAX are shared
  with it).
"""

from __future__ import annotations

import math


from ...numerics import finite_risk as fr, significance
from ...numerics.significance import z_critical
from ...judge.check import check_false_alarm
from ...judge import kinds as judge, levels
from ...core.findings import Findings

AUTHORS_LS = list(range(10, 101, 10)) + list(range(200, 1001, 100))
QUICK_LS = 4
OMEGA_MAX = 1.0


def ratio_detectable(tolerance, prediction) -> float | None:
    """Check.detectable of a "|difference| <= tolerance" check with a probabilistic tolerance
    (the SGD noise floors): the smallest relative slip of `prediction` beyond the tolerance,
    tolerance / |prediction|, the smallest over the points; None when no point has a finite one."""
    eps = [
        t / abs(p)
        for t, p in zip(tolerance, prediction)
        if math.isfinite(t) and math.isfinite(p) and p != 0 and t >= 0
    ]
    return float(min(eps)) if eps else None


def endpoint_check(Sp, Sq, s2, tau, Ls, params, risk) -> Findings:
    """MC test risk of the trained softmax parameters against the exact risk there, every L; the
    exact risk [value, stated error] per L is the quantity "softmax_exact_risk"."""
    model = fr.Model(Sp, Sq, tau, s2)
    exact, zs = {}, []
    for L in Ls:
        mu, om = params[L]
        r = fr.exact_risk(model, L, float(mu), float(om))
        exact[L] = [r.value, r.error]
        m, se = risk[L]
        # The quadrature's stated error is deterministic: an allowance subtracted before dividing
        # by the Monte Carlo's standard error, not a variance added to it.
        zs.append(max(0.0, abs(m - r.value) - r.error) / se)
    z = z_critical(check_false_alarm(), len(Ls))
    check = judge.z_test(
        "softmax: Monte Carlo test risk of the SGD endpoint equals its exact finite-L risk, "
        "every L",
        id="softmax/test-risk-exact",
        z=zs,
        alpha=check_false_alarm(),
        tests=len(Ls),
        sided=2,
        assumption=levels.NORMAL_MEAN,
        detail=f"largest max(0, |MC - exact| - stated error) / se over L = {Ls}; exact risk by "
        "quadrature (numerics/finite_risk.py; its stated error an allowance); Bonferroni over L",
        detectable=significance.resolution(
            [exact[L][0] for L in Ls],
            [risk[L][1] for L in Ls],
            z,
            allowance=[exact[L][1] for L in Ls],
        ),
    )
    return Findings([check], {"softmax_exact_risk": exact})
