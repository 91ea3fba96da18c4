"""Do the statistical checks hold their stated level? A seed study outside CI.

    python benchmarks/seed_study.py [--claims lemma-2.1 thm-4.3] [--seeds 60] [--level 0.05]
                                    [--jobs 2] [--json PATH]

Each claim runs at `quick` on its built-in scenario over many seeds with every statistical check
at an inflated per-check false alarm `--level` (the certificates use 1e-6, too small for any
number of seeds to show). The code is correct, so each rejection of a judged statistical check
(not a control) is a false alarm: per check, the empirical rejection rate over the seeds must not
exceed the stated level beyond its Clopper-Pearson 95 % interval. Bonferroni within a check makes
its stated level an upper bound, so a rate far below the level is expected, not a defect; a rate
above it is one. Nothing is written under reports/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def one_run(task: tuple[str, int, float]) -> dict:
    from softlin import certio
    from softlin.core import claim as base, registry
    from softlin.judge import check as judged

    claim_id, seed, level = task
    claim = registry.get(claim_id)
    # inflated on purpose, past false_alarm_level's guard (which only lowers the level):
    # certificates made here are no evidence and are never written
    token = judged._LEVEL.set(level)
    try:
        start = time.perf_counter()
        cert = json.loads(
            certio.dumps(
                # the seed replaces the scenario's too, as `--seed` does: streams keyed by the
                # scenario's seed (thm-5.2's training sample) vary with it
                claim.run(
                    {**claim.default_scenario(), "seed": seed},
                    "quick",
                    base.claim_rng(seed, claim_id),
                )
            )
        )
    finally:
        judged._LEVEL.reset(token)
    studied = [
        c
        for c in cert["checks"]
        if c["tier"] == "statistical" and c["kind"] != "control" and c.get("judged", True)
    ]
    return {
        "claim": claim_id,
        "seed": seed,
        "rejected": {c["id"]: c["passed"] is False for c in studied},
        "undecided": {c["id"]: c["passed"] is None for c in studied},
        "level_kind": {c["id"]: c.get("false_alarm", {}).get("kind", "") for c in studied},
        "value": {c["id"]: c.get("value") for c in studied},
        "seconds": time.perf_counter() - start,
    }


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    from scipy import stats

    a = (1 - confidence) / 2
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a, k + 1, n - k))
    return lo, hi


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", nargs="+", default=["lemma-2.1", "thm-4.3"])
    parser.add_argument("--seeds", type=int, default=60)
    parser.add_argument("--first-seed", type=int, default=1000)
    parser.add_argument("--level", type=float, default=0.05)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", dest="json_path")
    parser.add_argument(
        "--runs", dest="runs_path", help="append each finished run here (JSON lines), as it ends"
    )
    args = parser.parse_args(argv)
    tasks = [
        (c, s, args.level)
        for c in args.claims
        for s in range(args.first_seed, args.first_seed + args.seeds)
    ]
    start = time.perf_counter()
    runs = []
    with ProcessPoolExecutor(args.jobs) as pool:
        # a run is kept as soon as it ends, so an interrupted study still leaves its rows
        for run in pool.map(one_run, tasks):
            runs.append(run)
            if args.runs_path:
                with open(args.runs_path, "a") as out:
                    out.write(json.dumps(run) + "\n")
    rows, above = [], 0
    for claim_id in args.claims:
        mine = [r for r in runs if r["claim"] == claim_id]
        for name in sorted({n for r in mine for n in r["rejected"]}):
            seen = [r["rejected"][name] for r in mine if name in r["rejected"]]
            k, n = sum(seen), len(seen)
            kinds = sorted({r["level_kind"].get(name, "") for r in mine if name in r["rejected"]})
            lo, hi = clopper_pearson(k, n)
            bad = lo > args.level
            above += bad
            rows.append(
                {
                    "claim": claim_id,
                    "check": name,
                    "rejections": k,
                    "runs": n,
                    "rate": k / n,
                    "ci95": [lo, hi],
                    "stated_level": args.level,
                    "level_kind": "/".join(kinds),
                    "above_level": bad,
                }
            )
            print(
                f"{claim_id:<10} {k:>3}/{n:<3} rate {k / n:.3f} CI95 [{lo:.3f}, {hi:.3f}] "
                f"{'/'.join(kinds):<7} "
                f"{'ABOVE the level ' if bad else ''}{name[:90]}"
            )
    total_k, total_n = sum(r["rejections"] for r in rows), sum(r["runs"] for r in rows)
    print(
        f"{len(runs)} runs in {time.perf_counter() - start:.0f} s ({args.jobs} jobs); {total_k} "
        f"rejections in {total_n} check runs at stated level {args.level:g} per check; checks "
        f"above their level: {above}"
    )
    if args.json_path:
        Path(args.json_path).write_text(
            json.dumps({"level": args.level, "rows": rows}, indent=1) + "\n"
        )
    return 1 if above else 0


if __name__ == "__main__":
    sys.exit(main())
