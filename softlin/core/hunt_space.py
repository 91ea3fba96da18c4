"""What a claim's hunt space says without Hypothesis (docs/design.md, "Hunt"): `Space` and the
region classifiers, plain functions of a validated scenario. The strategies that draw the scenarios
are claims/shared/hunt_strategies.py, imported only by the hunt.

Known defects (`Space.known_defects`): regions where a check is known to misfire; they are counted
under their label and not run, so that a hunt reports new failures. No claim declares one today
(prop-3.4's, a scenario lambda above 1e3 that crashed its query-averaged route, is now refused by
its validation at the route's derived reach, claims/prop_3_4/claim.py).

Regions (`region`): which part of the hypothesis space a validated scenario falls in (for
`lemma-2.1` the rank of Gamma; for `asm-3.3` whether lambda = lambda_max(U^T Gamma U Sigma_q) is
below the finiteness threshold 1/2). Scenarios that a claim's validation or its structural limits
(core/budgets.py: rank(Gamma) <= 3 for the Gauss-Hermite route, Sigma_q positive definite for
asm-3.3) reject are "outside hypotheses" and are counted, never judged.

A space's `statistical_checks` bounds a run's count with room to spare: a run's family-wise false
alarm, in units of the per-check level, is at most it (a run above it stops the hunt, exit 3). The
committed certificates' counts (their summed false alarms over 1e-6) are kept below the bounds by
tests/test_hunt.py.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..numerics import icl_flows, query_average


def _rank(cov) -> int:
    return int(np.linalg.matrix_rank(np.asarray(cov, float), tol=1e-10))


def lemma_region(s: dict) -> str:
    r = _rank(s["cov"])
    return (
        "Gamma = 0"
        if r == 0
        else ("Gamma full rank" if r == s["d"] else "Gamma singular, non-zero")
    )


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
    return "alpha above the paper's range, " + (
        "within the linear-attention condition"
        if alpha <= icl_flows.zfb_alpha_bound(Sigma)
        else "above both"
    )


def norm_region(s: dict) -> str:
    return "||Sigma||_op <= 1" if np.linalg.norm(s["Sigma"], 2) <= 1 else "||Sigma||_op > 1"


def heads_region(s: dict) -> str:
    return f"{len(s['mu'])} head(s)"


def dimension_region(s: dict) -> str:
    return f"d = {s['Sigma'].shape[0]}"


@dataclass(frozen=True)
class Space:
    """A claim's hunt space: `strategy` names a function of the budget that returns the Hypothesis
    strategy of its user scenarios ("module:function", imported by `scenarios` only, so that a claim
    declares its space without loading Hypothesis), `region(validated)` labels a validated scenario,
    and `statistical_checks` is an upper bound on the statistical (montecarlo) checks of one run, so
    that a run at per-check level alpha false-alarms with probability <= statistical_checks x alpha
    (hunt/search.py checks every run's certificate against it; a larger bound only lowers the
    per-check level)."""

    strategy: str
    region: Callable[[dict], str]
    statistical_checks: int
    # The region labels that 60 drawn scenarios must reach (tests/test_hunt.py), and whether some
    # draws fall outside the claim's hypotheses: what the space is designed to cover.
    regions: tuple[str, ...] = ()
    draws_outside: bool = True
    # (label, predicate on the validated scenario): regions where a check of the claim is known to
    # be defective; counted under their label and not run, so a hunt looks for new failures.
    known_defects: tuple = ()

    def __post_init__(self):
        module, _, name = self.strategy.partition(":")
        if not module or not name:
            raise ValueError(f"hunt strategy {self.strategy!r} is not 'module:function'")

    def scenarios(self, budget: str):
        """The Hypothesis strategy of user scenarios at this budget (imports the strategy's module;
        a module named with a leading dot is one of softlin.claims.shared)."""
        module, _, name = self.strategy.partition(":")
        return getattr(importlib.import_module(module, "softlin.claims.shared"), name)(budget)
