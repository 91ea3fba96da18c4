"""The per-L level of lemma-2.1's `battery/mse-exact` statistic, measured outside CI.

    python benchmarks/mse_exact_level.py [--profile quick] [--replications 20000] [--level 0.05]

The check compares the Monte Carlo mean of n per-prompt squared errors with the exact finite-L MSE
by a studentised mean, two-sided at level/len(L) per L (Bonferroni). The squared errors are skewed
(sample skewness ~3), so the normal approximation of that statistic is nominal. This replays the
statistic on the built-in scenario's queries at the profile's sizes, each replication with its own
seed, and prints per L the rejection rate in each tail against the nominal one; for comparison, the
same with Hall's (1992) skewness-removing transformation T + a T^2 + a^2 T^3 / 3 + g / (6 sqrt n),
a = g / (3 sqrt n), g the sample skewness. Nothing is written.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    from softlin.core import scenario as scen
    from softlin.claims.shared.common import budget_for, limit_setting, queries_for
    from softlin.claims.lemma_2_1 import claim as lemma21
    from softlin.claims.shared.gaussian_subject import gaussian_subject
    from softlin.numerics import sampling, limits
    from softlin.numerics.laws import GaussianLaw

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="quick", choices=("quick", "standard", "full"))
    parser.add_argument("--replications", type=int, default=20000)
    parser.add_argument("--level", type=float, default=0.05)
    args = parser.parse_args()

    s = scen.common(lemma21.default_scenario())
    m, cov, U, V = s["mean"], s["cov"], s["U"], s["V"]
    budget = budget_for(s, args.profile)
    queries = queries_for(limit_setting(s), budget, np.random.default_rng(123))
    law = GaussianLaw(m, cov)
    limit = limits.gaussian_limit(m, cov, U, V, queries)
    exact = lemma21.exact_mse_of(cov, U, V)
    subject = gaussian_subject("scenario", law, m, cov, U, V)
    shifts = np.array([subject.claimed_log_normaliser(z) for z in queries])
    per_side = args.level / len(budget.Ls) / 2
    zc = float(stats.norm.isf(per_side))
    counts = {(k, L): [0, 0] for k in ("studentised", "hall") for L in budget.Ls}
    start = time.perf_counter()
    for r in range(args.replications):
        rng = np.random.default_rng(1000 + r)
        for L in budget.Ls:
            acc = sampling.sampled_accumulator(law, rng, budget.trials, L, U, V, queries, shifts)
            sq = np.mean(np.linalg.norm(acc.result() - limit[None], axis=2) ** 2, axis=1)
            n, mean = sq.size, sq.mean()
            T = (mean - float(np.mean(exact(queries, L)))) / (sq.std(ddof=1) / math.sqrt(n))
            g = np.mean((sq - mean) ** 3) / np.mean((sq - mean) ** 2) ** 1.5
            a = g / (3 * math.sqrt(n))
            for key, value in (
                ("studentised", T),
                ("hall", T + a * T**2 + a**2 * T**3 / 3 + g / (6 * math.sqrt(n))),
            ):
                counts[key, L][0] += value < -zc
                counts[key, L][1] += value > zc
    print(
        f"{args.profile}: {budget.trials} prompts per L, {len(queries)} queries, "
        f"{args.replications} replications in {time.perf_counter() - start:.0f} s; "
        f"nominal per tail {per_side:.4g} (per L {2 * per_side:.4g})"
    )
    for (key, L), (lower, upper) in counts.items():
        n = args.replications
        print(
            f"{key:12s} L = {L:5d}: lower {lower / n:.4f}  upper {upper / n:.4f}  "
            f"total {(lower + upper) / n:.4f}"
        )


if __name__ == "__main__":
    main()
