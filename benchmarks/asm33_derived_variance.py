"""asm-3.3's proven-level Monte Carlo decision (`montecarlo/closed-forms`): its derived variances
against the sample, and its resolution against the normal test's on the same entries.

Run outside CI:

    python benchmarks/asm33_derived_variance.py [--seeds 4] [--n 200000]

On the default scenario, for the 8 entries of orders p, q in {0, 4} at both tilt powers:

* the ratio s^2 / Var of the sample variance of n importance-weighted draws (seeds 0 .. seeds-1)
  to the derived Var Y_pq = E[(Y w)^2] - M_pq^2 (montecarlo.variance_bound);
* at the standard budget (10^6 pairs per power), each entry's `detectable` relative slip under the
  normal test at the derived variance, Bonferroni over the 8 entries and over the old 18 (the
  Catoni decision's own figure is in the certificate, reports/certificates/asm-3.3.json).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from softlin.claims.asm_3_3 import claim as asm33
from softlin.claims.asm_3_3 import montecarlo as mcm
from softlin.core import scenario
from softlin.derivations import tilted_moments as tm
from softlin.numerics import kernels, significance
from softlin.numerics import tilted_moments as nt
from softlin.numerics.laws import GaussianLaw


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--n", type=int, default=200_000)
    args = parser.parse_args()
    s = scenario.common(asm33.default_scenario())
    m, G, U, Sq = s["mean"], s["cov"], s["U"], s["query_cov"]
    R = asm33.exact_decimals
    me, ce, Ue, Se = R(m).T, R(G), R(U), R(Sq)
    tables = asm33.closed_form_tables(tm.tilted_moment, me, ce, Ue, Se)
    law = GaussianLaw(m, G)
    seconds = mcm.second_moments(tables, me, ce, Ue, Se, law.root.shape[1])
    var = {k: mcm.variance_bound(v, tables[k[0]][k[1]][k[2]]) for k, v in seconds.items()}
    lognorm = lambda A: kernels.mixture_component_logit(0.0, m[:, None], G, np.eye(len(m)), A.T)[0]
    keep = tuple((i, j) for i in (0, 1) for j in (0, 1))
    print("s^2 / Var per (c, p, q):")
    for seed in range(args.seeds):
        for c in tm.POWERS:
            out = np.empty((args.n, len(keep)))
            rng = np.random.default_rng(seed)
            nt.monte_carlo(law, lognorm, U, Sq, c, args.n, rng, keep=keep, out=out)
            ratios = [out[:, k].var(ddof=1) / var[c, i, j] for k, (i, j) in enumerate(keep)]
            print(f"  seed {seed} c {c}: " + " ".join(f"{r:.4f}" for r in ratios))
    n = asm33.BUDGETS["standard"].mc_samples
    z8, z18 = significance.z_critical(1e-6, 8), significance.z_critical(1e-6, 18)
    print(f"normal test's detectable at n = {n}, derived variance (Bonferroni 8 / 18):")
    for (c, i, j), v in sorted(var.items()):
        P, se = float(tables[c][i][j]), math.sqrt(v / n)
        print(
            f"  (c, p, q) = ({c}, {tm.ORDERS[i]}, {tm.ORDERS[j]}): "
            f"{significance.detectable_relative(P, se, z8):.4f} / "
            f"{significance.detectable_relative(P, se, z18):.4f}"
        )


if __name__ == "__main__":
    main()
