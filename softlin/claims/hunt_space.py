"""What a claim's hunt space says without Hypothesis (docs/design.md, "Hunt"): `Space` and the
region classifiers, plain functions of a validated scenario. The strategies that draw the scenarios
are claims/hunt_strategies.py, imported only by the hunt.

Known defects (`Space.known_defects`): regions where a check is known to misfire; they are counted
under their label and not run, so that a hunt reports new failures. One now: finite-prompt-risk with
mu = 0 in every head (see `_more_spaces`); lemma-2.1 with V Gamma V^T = 0 was one, found by this hunt,
and is fixed.

Regions (`region`): which part of the hypothesis space a validated scenario falls in (for
`lemma-2.1` the rank of Gamma; for `asm-3.3` whether lambda = lambda_max(U^T Gamma U Sigma_q) is
below the finiteness threshold 1/2). Scenarios that a claim's validation or its structural limits
(claims/budgets.py: rank(Gamma) <= 3 for the Gauss-Hermite route, Sigma_q positive definite for
asm-3.3) reject are "outside hypotheses" and are counted, never judged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..numerics import icl_flows, query_average


def _rank(cov) -> int:
    return int(np.linalg.matrix_rank(np.asarray(cov, float), tol=1e-10))


def lemma_region(s: dict) -> str:
    r = _rank(s["cov"])
    return "Gamma = 0" if r == 0 else ("Gamma full rank" if r == s["d"] else "Gamma singular, non-zero")


def asm_region(s: dict) -> str:
    lam = query_average.threshold_lambda(s["cov"], s["U"], s["query_cov"])
    return "lambda < 1/2 (c = 2 finite)" if lam < 0.5 else "lambda >= 1/2 (c = 2 infinite)"


def lambda_region(s: dict) -> str:
    lam = query_average.threshold_lambda(s["cov"], s["U"], s["query_cov"])
    return "lambda < 1/2" if lam < 0.5 else "lambda >= 1/2"


def mixture_region(s: dict) -> str:
    return f"{len(s['mixture']['weights'])} component(s)"


def alpha_region(s: dict) -> str:
    Sigma, alpha = s["Sigma"], s["icl"]["alpha"]
    if alpha <= icl_flows.paper_alpha_bound(Sigma):
        return "alpha within the paper's range"
    return "alpha above the paper's range, " + \
        ("within the linear-attention condition" if alpha <= icl_flows.zfb_alpha_bound(Sigma) else "above both")


def norm_region(s: dict) -> str:
    return "||Sigma||_op <= 1" if np.linalg.norm(s["Sigma"], 2) <= 1 else "||Sigma||_op > 1"


def heads_region(s: dict) -> str:
    return f"{len(s['mu'])} head(s)"


def dimension_region(s: dict) -> str:
    return f"d = {s['Sigma'].shape[0]}"


@dataclass(frozen=True)
class Space:
    """A claim's hunt space: `scenarios(budget)` a strategy, `region(validated)` its label, and
    `statistical_checks` an upper bound on the statistical (montecarlo) checks of one run, so that a
    run at per-check level alpha false-alarms with probability <= statistical_checks x alpha
    (hunt/search.py checks every run's certificate against it)."""
    scenarios: object
    region: object
    statistical_checks: int
    # (label, predicate on the validated scenario): regions where a check of the claim is known to be
    # defective; counted under their label and not run, so a hunt looks for new failures.
    known_defects: tuple = ()
