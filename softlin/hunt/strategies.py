"""Hypothesis strategies of scenarios for `softlin hunt` (docs/design.md, "Hunt"); the CLI layer.

A strategy draws a *user* scenario (plain ints, floats and lists, the keys of docs/design.md,
"Scenarios"), exactly as a TOML file would give it, so a counterexample is written as TOML and
`softlin verify CLAIM --scenario FILE --profile quick` re-runs the very same claim run.

Space (per claim, `SPACES`):

- d from 1 to 6; token covariance Gamma = B B^T with B a d x r matrix, r from 0 to d: every rank,
  the singular ones (r < d) and Gamma = 0 included; mean m, interaction U, value V (k x d, k in
  1..3); query covariance Sigma_q = C C^T (singular allowed; `asm-3.3` assumes it positive
  definite, so a singular one is drawn on purpose and classified outside the hypotheses).
- entries on a grid: B, m, V, C in {-1, -3/4, ..., 1}, U in {-1/2, -3/8, ..., 1/2} (asm-3.3: in
  {-1, -3/4, ..., 1}, so that lambda >= 1/2 is drawn often). Products of
  dyadic numbers are exact in binary and in decimal, so the TOML file holds the scenario exactly,
  and Hypothesis shrinks each entry towards 0 (a shrunk counterexample has few non-zero entries).
- prompt lengths: 1 to 3 strictly increasing lengths from {4, 8, ..., 128}; trials fixed per budget.

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
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ..numerics import query_average

LENGTHS = (4, 8, 16, 32, 64, 128)
TRIALS = {"quick": 800, "standard": 2000}      # prompts per length in the scenario (quick keeps 1/4)


def dyadic_array(shape, steps: int, denominator: int):
    """An integer array in [-steps, steps] divided by `denominator` (dyadic, so exact)."""
    # fill=nothing: every entry drawn on its own (the default fills most of an array with one value)
    return arrays(np.int64, shape, elements=st.integers(-steps, steps), fill=st.nothing()).map(
        lambda a: a / denominator)


@st.composite
def common_scenarios(draw, max_d: int, max_rank: int, budget: str, u_denominator: int = 8):
    """Common keys (docs/design.md, "Scenarios") as plain lists. The matrices are drawn at the largest
    size and cut to d (rows of V to k, columns of B to r), so that when Hypothesis lowers d, k or r the
    remaining entries keep their values and the shrinker can make d small."""
    d = draw(st.integers(1, max_d), label="d")
    r = draw(st.integers(0, min(d, max_rank)), label="rank of B")
    k = draw(st.integers(1, 3), label="rows of V")
    B = draw(dyadic_array((max_d, max_rank), 4, 4), label="B")[:d, :r]
    C = draw(dyadic_array((max_d, max_d), 4, 4), label="C")[:d, :d]
    Ls = sorted(draw(st.sets(st.sampled_from(LENGTHS), min_size=1, max_size=3), label="L"))
    return {
        "d": d,
        "mean": draw(dyadic_array((max_d,), 4, 4), label="mean")[:d].tolist(),
        "cov": (B @ B.T).tolist(),
        "U": draw(dyadic_array((max_d, max_d), 4, u_denominator), label="U")[:d, :d].tolist(),
        "V": draw(dyadic_array((3, max_d), 4, 4), label="V")[:k, :d].tolist(),
        "query_cov": (C @ C.T).tolist(),
        "L": [int(L) for L in Ls],
        "trials": TRIALS[budget],
        "delta": 1e-3,
    }


def _rank(cov) -> int:
    return int(np.linalg.matrix_rank(np.asarray(cov, float), tol=1e-10))


def lemma_region(s: dict) -> str:
    r = _rank(s["cov"])
    return "Gamma = 0" if r == 0 else ("Gamma full rank" if r == s["d"] else "Gamma singular, non-zero")


def asm_region(s: dict) -> str:
    lam = query_average.threshold_lambda(s["cov"], s["U"], s["query_cov"])
    return "lambda < 1/2 (c = 2 finite)" if lam < 0.5 else "lambda >= 1/2 (c = 2 infinite)"


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
