"""Run the math mutants: `python -m tests.mutants [--only NAME ...] [--jobs N] [--json PATH]`.

Each mutant runs in its own Python process (the slip is applied by `tests.mutants.hook` at import
time, the working tree is never edited) against the claims it touches, at the `quick` profile and
the claims' built-in scenarios with seed 0, then against the unit tests it names (if any). A mutant
is

    killed     some claim is refuted (an evidence check failed: tier proof, enclosure, numerical,
               statistical or archived) or a named test fails;
    undecided  no claim refuted, but some verdict is no longer "verified" (an undecided check, or a
               failed consistency check): the slip is seen, but no check that could fail caught it;
    crashed    a claim raised: seen, by accident rather than by a check;
    SURVIVED   every verdict stayed "verified" and every named test passed.

Only kills count in the kill rate; the table names the checks that caught each mutant (passed =
false, or undecided), with their tiers. Exit 0 when every mutant is killed, undecided, crashed or a
known survivor (`catalogue.SURVIVORS`, each with the reason no route can see it), 1 when another
survives, 2 on a stale mutant (its text is gone).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import selection
from .catalogue import MUTANTS, SURVIVORS, by_name

REPO = Path(__file__).resolve().parents[2]


def run_one(name: str) -> dict:
    """In this process: install the slip, run its claims, return what each verdict became."""
    from . import hook

    mutant = by_name(name)
    hook.install(mutant)
    from softlin.core import registry
    from softlin.core.claim import claim_rng

    result = {}
    for cid in mutant.claims:
        claim = registry.get(cid)
        scenario = claim.default_scenario()
        try:
            cert = claim.run(scenario, "quick", claim_rng(scenario.get("seed", 0), cid))
        except Exception as exc:  # a slip that crashes a claim is caught too, but say so
            result[cid] = {"status": "crashed", "caught_by": [f"{type(exc).__name__}: {exc}"[:200]]}
            continue
        caught = [
            f"{c['name']} ({c['tier']}, {'failed' if c['passed'] is False else 'undecided'})"
            for c in cert["checks"]
            if c["passed"] is not True
        ]
        result[cid] = {"status": cert["status"], "caught_by": caught}
    if mutant.tests:
        result["tests"] = _run_tests(mutant.tests)
    return result


DETECTED = ("killed", "undecided", "crashed")


def classify(result: dict) -> str:
    """The mutant's verdict (module docstring) from what each claim's status and the tests
    became."""
    statuses = [r["status"] for r in result.values()]
    if "refuted" in statuses or "failed" in statuses:
        return "killed"
    if "crashed" in statuses:
        return "crashed"
    if any(s != "verified" for s in statuses):
        return "undecided"
    return "SURVIVED"


def _run_tests(node_ids) -> dict:
    """Run pytest in this process (the slip is installed), output discarded: the stdout's last line
    must stay the JSON result. A failure kills the mutant: status "failed"."""
    import contextlib
    import io

    import pytest

    with (
        contextlib.redirect_stdout(io.StringIO()) as out,
        contextlib.redirect_stderr(io.StringIO()),
    ):
        # -n 0: in this process, where the slip is installed (xdist workers would import the real
        # code); -m: a named test runs even when it is marked slow (the default addopts would
        # deselect it)
        code = pytest.main(
            ["-q", "-x", "-n", "0", "-p", "no:cacheprovider", "-m", "slow or not slow", *node_ids]
        )
    failed = [line for line in out.getvalue().splitlines() if line.startswith("FAILED")]
    if code in (pytest.ExitCode.NO_TESTS_COLLECTED, pytest.ExitCode.USAGE_ERROR):
        # a named test that is gone must not count as a kill
        raise LookupError(f"stale mutant test ids {list(node_ids)}: pytest exit {int(code)}")
    if code == 0:
        return {"status": "verified", "caught_by": []}
    return {"status": "failed", "caught_by": failed[:3] or [f"pytest exit {int(code)}"]}


def _spawn(name: str) -> tuple[str, dict, float]:
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "tests.mutants", "--one", name],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return name, {"error": last}, elapsed
    return name, json.loads(proc.stdout.strip().splitlines()[-1]), elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="*", help="mutant names (default: all)")
    parser.add_argument(
        "--ci",
        action="store_true",
        help="CI's selection: changed since the last full run plus a rotating share "
        "(tests/mutants/selection.py; SOFTLIN_MUTANTS=all for the whole catalogue)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--json", dest="json_path", help="write the results as JSON")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one)))
        return 0
    names = args.only or [m.name for m in MUTANTS]
    if args.ci:
        names, why = selection.select()
        print(f"selection: {why}", flush=True)
    for name in names:
        by_name(name)  # unknown names fail before any work
    rows, start = {}, time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for name, res, elapsed in pool.map(_spawn, names):
            mutant = by_name(name)
            if "error" in res:
                verdict = "STALE" if "stale mutant" in res["error"] else "ERROR"
                detail = res["error"]
            else:
                verdict = classify(res)
                detail = "; ".join(
                    f"{cid}: {r['status']}"
                    + (f" by {', '.join(r['caught_by'][:3])}" if r["caught_by"] else "")
                    for cid, r in res.items()
                )
            rows[name] = {
                "verdict": verdict,
                "layer": mutant.path.split("/")[0],
                "slip": mutant.slip,
                "detail": detail,
                "seconds": round(elapsed, 1),
                "claims": list(mutant.claims),
            }
            print(f"{verdict:<9} {name:<38} {elapsed:6.1f} s  {detail}", flush=True)
    killed = sum(r["verdict"] == "killed" for r in rows.values())
    seen = {v: sum(r["verdict"] == v for r in rows.values()) for v in DETECTED if v != "killed"}
    print(
        f"kill rate: {killed}/{len(rows)} ({100 * killed / len(rows):.0f}%) "
        f"in {time.perf_counter() - start:.0f} s; "
        f"seen but not killed: {seen['undecided']} undecided, {seen['crashed']} crashed"
    )
    known = [name for name, r in rows.items() if r["verdict"] == "SURVIVED" and name in SURVIVORS]
    for name in known:
        print(f"  known survivor {name}: {SURVIVORS[name]}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=2) + "\n")
    if any(r["verdict"] in ("STALE", "ERROR") for r in rows.values()):
        return 2
    detected = sum(r["verdict"] in DETECTED for r in rows.values())
    return 0 if detected + len(known) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
