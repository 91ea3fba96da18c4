"""False-alarm study outside CI: every claim at `quick` over 20 seeds and at `standard` over 5.

    python benchmarks/seeds.py [--quick-seeds 20] [--standard-seeds 5] [--json PATH]

On correct code every run must be verified: a claim's certificate states its family-wise false
alarm (quantities), so a red run here is either a real false alarm at that stated rate or a bug.
Each run writes into a temporary folder (never into reports/). Exit 0 when all runs are verified.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time


def run(profile: str, seed: int) -> tuple[dict, float]:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "softlin.cli",
                "verify",
                "--profile",
                profile,
                "--seed",
                str(seed),
                "--out",
                out,
                "--quiet",
                "--json",
                "-",
            ],
            capture_output=True,
            text=True,
        )
        elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        return {"error": (proc.stderr.strip().splitlines() or ["?"])[-1]}, elapsed
    certs = json.loads(proc.stdout)
    return {c["claim"]: c["status"] for c in certs}, elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick-seeds", type=int, default=20)
    parser.add_argument("--standard-seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args(argv)
    results, bad = [], 0
    plan = [("quick", s) for s in range(args.first_seed, args.first_seed + args.quick_seeds)]
    plan += [("standard", s) for s in range(args.first_seed, args.first_seed + args.standard_seeds)]
    for profile, seed in plan:
        statuses, elapsed = run(profile, seed)
        red = {k: v for k, v in statuses.items() if v != "verified"}
        bad += bool(red)
        results.append(
            {"profile": profile, "seed": seed, "seconds": round(elapsed, 1), "statuses": statuses}
        )
        print(
            f"{profile:<9} seed {seed:>3}  {elapsed:7.1f} s  "
            + ("all verified" if not red else f"NOT VERIFIED: {red}"),
            flush=True,
        )
    print(f"{len(plan) - bad}/{len(plan)} runs verified")
    if args.json_path:
        with open(args.json_path, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
