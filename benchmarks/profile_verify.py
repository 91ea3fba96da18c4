"""Where `softlin verify` spends its time, step by step, and what each step buys.

A claim's run is a sequence of steps, each returning a `Findings` that the run takes in with
`Findings.add` (softlin/core/findings.py). This script times the interval between consecutive
`add` calls of a claim's run, so each row is one step: its wall time and what it added (its checks
by id and tier, the quantities and series it wrote). The remainder after the last `add` (formulas,
the certificate) is its own row. Nothing in softlin is changed: `add` is wrapped for the run only.

    python benchmarks/profile_verify.py                       # every claim, standard
    python benchmarks/profile_verify.py prop-3.4 --profile quick
    python benchmarks/profile_verify.py --markdown PATH

Times are wall-clock on this machine, as loaded as it is: run it on an idle machine to compare.
"""

from __future__ import annotations

import argparse
import sys
import time

from softlin.core import execute
from softlin.core import registry
from softlin.core.findings import Findings


def profile_claim(claim_id: str, profile: str, seed: int = 0) -> list[dict]:
    """Rows (step, seconds, checks, quantities, series) of one claim's run."""
    rows: list[dict] = []
    original = Findings.add
    last = [time.perf_counter()]

    def add(self, other, **kw):
        now = time.perf_counter()
        rows.append(
            {
                "seconds": now - last[0],
                "checks": [f"{c.id} ({c.tier})" for c in other.checks],
                "quantities": sorted(other.quantities),
                "series": sorted(other.series),
            }
        )
        result = original(self, other, **kw)
        last[0] = time.perf_counter()
        return result

    Findings.add = add
    try:
        start = time.perf_counter()
        _run(claim_id, profile, seed)
        total = time.perf_counter() - start
    finally:
        Findings.add = original
    rows.append(
        {
            "seconds": time.perf_counter() - last[0],
            "checks": ["(formulas and certificate)"],
            "quantities": [],
            "series": [],
        }
    )
    for i, r in enumerate(rows):
        r["step"] = i + 1
    return [{"claim": claim_id, "total": total, **r} for r in rows]


def _run(claim_id: str, profile: str, seed: int) -> dict:
    """The claim on its built-in scenario, through the one path `softlin verify` takes."""
    claim = registry.get(claim_id)
    plan = execute.plan(claim, {}, profile, seed=seed)
    return execute.run(claim, plan.scenario, profile)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", nargs="*")
    parser.add_argument("--profile", default="standard")
    parser.add_argument("--markdown", help="write the table as Markdown to this file")
    args = parser.parse_args(argv)
    claims = args.claims or list(registry.CLAIMS)
    lines = [
        "| claim | step | seconds | share of claim | what it buys |",
        "|---|---|---|---|---|",
    ]
    grand = 0.0
    for cid in claims:
        rows = profile_claim(cid, args.profile)
        total = rows[0]["total"]
        grand += total
        print(f"{cid}: {total:.1f} s", flush=True)
        for r in rows:
            buys = ", ".join(r["checks"]) or "(no check)"
            if r["quantities"]:
                buys += f"; quantities {', '.join(r['quantities'][:6])}"
            print(f"  step {r['step']:2d} {r['seconds']:7.2f} s  {buys}", flush=True)
            lines.append(
                f"| {cid} | {r['step']} | {r['seconds']:.2f} | {r['seconds'] / total:.0%} | "
                f"{buys} |"
            )
    print(f"all: {grand:.1f} s")
    lines.append(f"| all | | {grand:.1f} | | |")
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
