"""prop-3.1, shared pieces: the false-alarm budget, critical values, the profile budgets, exact
rational conversion, and the regime rescaling Gamma = sigma^2 Gamma0 (lambda = sigma^2 lambda0).

False alarm: every statistical check of the claim is run at judge.check.check_false_alarm()
(1e-6 unless a hunt lowers it) in total (Bonferroni over its parts) and states it (its
`false_alarm`), so the claim's family-wise false alarm is at most 1e-6 times the number of
statistical checks (the union bound the certificate's top level records, softlin/judge/levels.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


REGIMES = (("below", 0.2), ("at", 0.5), ("above", 1.0))
NEAR_THRESHOLD = 0.49  # lambda of the extra closed-form vs quadrature check of the query average
DIGITS = 40
# Kernel (float64) against the 40-digit closed forms: ~20 rounded operations on numbers of size
# up to e^{a^T Gamma a} max|C1|, so 1e-13 relative leaves a factor > 100 over the rounding.
KERNEL_TOLERANCE = 1e-13


@dataclass(frozen=True)
class Budget:
    """What prop-3.1 spends at one profile on one scenario (built by `budget`).

    Ls: prompt lengths of every Monte Carlo sweep (the scenario's L; its first three at quick)
    prompts: prompts per L of each query-averaged Monte Carlo sweep (scenario, regimes, token
        laws) and of erratum 1's at L = 1
    queries_per_prompt: queries drawn per prompt in those sweeps
    fixed_prompts: prompts per L of the fixed-query Monte Carlo (and of the high-probability bound)
    rb_queries: query draws of the exact (Rao-Blackwellised) averages and of every other average
        over sampled queries (coefficients, the integrated bound)
    ells: ln L of the exact asymptotic-exponent fits
    delta: the high-probability bound's failure probability (the scenario's delta)
    table_points: points of the exact route's spline tables
    enclosed: how many of the first fixed-query L are enclosed by Arb (~3 s each)
    bound_Ls: longer prompt lengths where only the high-probability bound is judged
    every_l: whether the in-expectation bound is proved for every L at the fixed query (Arb boxes
        and a tail lemma, every_l.py; ~30 s): at standard and full
    """

    Ls: tuple[int, ...]
    prompts: int
    queries_per_prompt: int
    fixed_prompts: int
    rb_queries: int
    ells: tuple[float, ...]
    delta: float
    table_points: int
    enclosed: int
    bound_Ls: tuple[int, ...] = ()
    every_l: bool = False


def fixed_query(s: dict) -> np.ndarray:
    """The fixed query z0 of the claim's fixed-query part: the scenario's `query`, else the first
    column of Sigma_q^(1/2) (a typical query), else the ones vector (Sigma_q = 0)."""
    from ...numerics.laws import psd_root

    Sq = s["query_cov"]
    if s.get("query") is not None:
        return np.asarray(s["query"], float)
    return psd_root(Sq)[:, 0] if np.any(Sq) else np.ones(s["d"])


def budget(s: dict, profile: str) -> Budget:
    t = s["trials"]
    if profile == "quick":
        return Budget(
            Ls=tuple(s["L"][:3]),
            prompts=max(200, t // 4),
            queries_per_prompt=4,
            fixed_prompts=max(1000, 2 * t),
            rb_queries=4096,
            ells=(8.0, 16.0, 32.0, 64.0),
            delta=s["delta"],
            table_points=32,
            enclosed=1,
        )
    scale = 2 if profile == "full" else 1
    ells = (
        (12.0, 16.0, 32.0, 64.0, 128.0)
        if profile == "standard"
        else (12.0, 16.0, 32.0, 64.0, 128.0, 256.0)
    )
    # The conditional sampler draws a fixed-query prompt in L + r normals, which pays for the bound
    # at prompts 4x (standard) and ~25x (full) longer than the scenario's longest.
    bound_Ls = tuple(
        sorted({4 * max(s["L"])} | ({25 * max(s["L"])} if profile == "full" else set()))
    )
    return Budget(
        Ls=tuple(s["L"]),
        prompts=scale * t,
        queries_per_prompt=8,
        fixed_prompts=scale * 10 * t,
        rb_queries=scale * 16384,
        ells=ells,
        delta=s["delta"],
        table_points=48,
        enclosed=len(s["L"]),
        bound_Ls=bound_Ls,
        every_l=True,
    )


def regime_setting(Gamma0, lam0, target):
    sigma2 = target / lam0
    return sigma2 * Gamma0, sigma2


# Relative error of the exact averages from the spline tables (<= 5e-4 measured, see
# selfnormalised.Table), allowed for deterministically in the comparisons with Monte Carlo.
TABLE_RELATIVE_ERROR = 1e-3
