"""Run the math mutants: `python -m tests.mutants [--only NAME ... | --ci [--ci-budget-seconds S]]
[--jobs N] [--json PATH] [--timeout SECONDS] [--record]`.

Each mutant runs in its own Python process (the slip is applied by `tests.mutants.hook` at import
time, the working tree is never edited) against the claims it touches, at the `quick` profile and
the claims' built-in scenarios with seed 0, then against the unit tests it names (if any). A mutant
is

    killed     refuted: some claim's evidence check failed (tier proof, enclosure, numerical,
               statistical or archived: the claim's status is "refuted"), or a named test failed.
               A kill by a claim's check within a small margin of its bound (tests/mutants/
               margins.py) is run again at seeds 1 and 2 and counts only if all three seeds kill;
    marginal   killed at seed 0 within a small margin, but not at every one of seeds 0, 1, 2;
    undecided  no claim refuted, but some verdict is no longer "verified" (an undecided check, or a
               failed consistency check): the slip is seen, but no check that could fail caught it;
    crashed    a claim raised and none was refuted: seen, by accident rather than by a check;
    timed-out  its process ran past the per-mutant timeout (--timeout, SOFTLIN_MUTANT_TIMEOUT,
               default 900 s) and was stopped with everything it started;
    SURVIVED   every verdict stayed "verified" and every named test passed.

Only kills count in the kill rate. Each kill names the check that killed it (the most decisive of
the failed evidence checks, or the named test), the module that builds that check
(tests/mutants/origins.py) and its margin (how far past its bound, relative). Exit status: 0 when
every mutant is killed or is a known survivor (`catalogue.SURVIVORS`, each with the reason no route
can see it); otherwise the sum of 1 (a mutant survived), 2 (a stale mutant or a harness error),
4 (undecided), 8 (crashed), 16 (timed out) and 32 (marginal), so each kind of non-kill is told
apart. `--record` prints the per-mutant record lines for tests/mutants/LAST_FULL_RUN.

Under `--ci --ci-budget-seconds S` the mutants of CI's selection that do not fit the budget
(tests/mutants/selection.py) are *deferred*: not run, listed apart (JSON verdict "deferred", with
the seconds they would have taken), counted neither as kills nor as non-kills, and given no record
line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import margins, selection
from .catalogue import MUTANTS, SURVIVORS, by_name

REPO = Path(__file__).resolve().parents[2]
# The per-mutant timeout (seconds): a mutant at quick takes 20 s to 4 min on two idle cores
# (LAST_FULL_RUN); a slip that makes a claim loop or crawl is stopped here and reported timed-out,
# never counted as a kill.
TIMEOUT = 900.0
SEEDS = (0, 1, 2)
# Exit-status bits, one per kind of non-kill.
EXIT_BITS = {
    "SURVIVED": 1,
    "STALE": 2,
    "ERROR": 2,
    "undecided": 4,
    "crashed": 8,
    "timed-out": 16,
    "marginal": 32,
}
NOT_KILLED = ("marginal", "undecided", "crashed", "timed-out", "SURVIVED")


def run_one(name: str, seed: int = 0, with_tests: bool = True) -> dict:
    """In this process: install the slip, run its claims at `seed`, return what each verdict
    became, with the killing check's id, module and margin per refuted claim."""
    from . import hook, origins

    mutant = by_name(name)
    hook.install(mutant)
    origins.record()
    from softlin.core import registry
    from softlin.core.claim import claim_rng

    result = {}
    for cid in mutant.claims:
        claim = registry.get(cid)
        scenario = {**claim.default_scenario(), "seed": seed}
        origins.running(cid)
        try:
            cert = claim.run(scenario, "quick", claim_rng(seed, cid))
        except Exception as exc:  # a slip that crashes a claim is seen, but not a kill: say so
            result[cid] = {"status": "crashed", "caught_by": [f"{type(exc).__name__}: {exc}"[:200]]}
            continue
        caught = [
            f"{c['id']} ({c['tier']}, {'failed' if c['passed'] is False else 'undecided'})"
            for c in cert["checks"]
            if c.get("judged", True) and c["passed"] is not True
        ]
        row = {"status": cert["status"], "caught_by": caught}
        kill = margins.killing_check(cert["checks"])
        if kill is not None:
            row["kill"] = {**kill, "module": origins.origin(kill["id"])}
        result[cid] = row
    if mutant.tests and with_tests:
        result["tests"] = _run_tests(mutant.tests)
    return result


def classify(result: dict) -> str:
    """The mutant's verdict at one seed (module docstring) from what each claim's status and the
    tests became."""
    statuses = [r["status"] for r in result.values()]
    if "refuted" in statuses or "failed" in statuses:
        return "killed"
    if "crashed" in statuses:
        return "crashed"
    if any(s != "verified" for s in statuses):
        return "undecided"
    return "SURVIVED"


def kill_of(result: dict) -> dict | None:
    """The check that killed the mutant at one seed: the most decisive of the refuted claims'
    killing checks (margins.killing_check) when it is not a near miss; else a failed named test
    (decisive: a test does not depend on the claims' seed); else the claims' near miss. None when
    nothing was refuted."""
    kills = [r["kill"] for r in result.values() if r.get("status") == "refuted" and "kill" in r]
    best = max(
        kills,
        key=lambda k: (not k["small"], float("inf") if k["margin"] is None else k["margin"]),
        default=None,
    )
    if best is not None and not best["small"]:
        return best
    tests = result.get("tests")
    if tests and tests["status"] == "failed":
        node = (tests["caught_by"] or ["named test"])[0].removeprefix("FAILED ").split(" - ")[0]
        return {"id": node, "module": node.split("::")[0], "margin": None, "small": False}
    return best


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


def spawn(name: str, seed: int = 0, timeout: float = TIMEOUT) -> tuple[dict, float]:
    """Run one mutant at one seed in a fresh process (its own process group, so that a timeout
    stops everything it started): (result, seconds). The result is {"timed-out": seconds} past
    the timeout, {"error": last stderr line} when the process failed."""
    start = time.perf_counter()
    cmd = [sys.executable, "-m", "tests.mutants", "--one", name, "--seed", str(seed)]
    if seed != SEEDS[0]:
        cmd.append("--claims-only")  # the named tests do not depend on the claims' seed
    proc = subprocess.Popen(
        cmd,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "MPLBACKEND": "Agg"},
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"timed-out": timeout}, time.perf_counter() - start
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        last = (stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": last}, elapsed
    return json.loads(stdout.strip().splitlines()[-1]), elapsed


def judge_mutant(name: str, timeout: float = TIMEOUT) -> dict:
    """The mutant's row: its verdict over the seeds it needed (module docstring), the check that
    killed it, the module that builds that check, the margin, the seeds that killed, and the
    time spent."""
    res, seconds = spawn(name, SEEDS[0], timeout)
    row = {"verdict": "", "check": "", "module": "", "margin": None, "seeds": [], "detail": ""}
    if "timed-out" in res or "error" in res:
        if "timed-out" in res:
            row.update(verdict="timed-out", detail=f"stopped after {timeout:g} s at seed 0")
        else:
            stale = "stale mutant" in res["error"]
            row.update(verdict="STALE" if stale else "ERROR", detail=res["error"])
        return {**row, "seconds": round(seconds, 1)}
    row["detail"] = describe(res)
    verdict = classify(res)
    kill = kill_of(res) if verdict == "killed" else None
    if kill is not None:
        row.update(check=kill["id"], module=kill["module"], margin=kill["margin"], seeds=[0])
        if kill["small"]:
            # a near miss: count it only if the other seeds kill as well
            for seed in SEEDS[1:]:
                again, more = spawn(name, seed, timeout)
                seconds += more
                if "timed-out" in again or "error" in again or classify(again) != "killed":
                    what = "timed out" if "timed-out" in again else describe(again)
                    row["detail"] += f"; seed {seed}: {what}"
                    continue
                row["seeds"].append(seed)
            if row["seeds"] != list(SEEDS):
                verdict = "marginal"
    row["verdict"] = verdict
    return {**row, "seconds": round(seconds, 1)}


def describe(res: dict) -> str:
    return "; ".join(
        f"{cid}: {r['status']}" + (f" by {', '.join(r['caught_by'][:3])}" if r["caught_by"] else "")
        for cid, r in res.items()
    )


def record_line(name: str, row: dict, commit: str) -> str:
    """One per-mutant line of LAST_FULL_RUN (selection.read_records parses it), its last field the
    seconds the mutant took (CI's time budget reads them)."""
    margin = row.get("margin")
    return " ".join(
        [
            "mutant",
            name,
            row["verdict"],
            row.get("check") or "-",
            row.get("module") or "-",
            "-" if margin is None else f"{margin:.3g}",
            ",".join(str(s) for s in row.get("seeds", [])) or "-",
            commit[:10],
            "-" if row.get("seconds") is None else f"{row['seconds']:.0f}",
        ]
    )


def summary(rows: dict) -> str:
    """The run's counts, every kind of non-kill apart."""
    count = {v: sum(r["verdict"] == v for r in rows.values()) for v in ("killed", *NOT_KILLED)}
    small = sum(r["verdict"] == "killed" and r["seeds"] == list(SEEDS) for r in rows.values())
    return (
        f"killed {count['killed']}/{len(rows)} by refutation or a named test "
        f"({small} of them near misses confirmed at seeds 0, 1, 2); not killed: "
        f"{count['marginal']} marginal, {count['undecided']} undecided, "
        f"{count['crashed']} crashed, {count['timed-out']} timed out, "
        f"{count['SURVIVED']} survived"
    )


def exit_status(rows: dict) -> int:
    """0 when every mutant is killed or a known survivor, else the sum of the bits (EXIT_BITS) of
    the kinds of non-kill present."""
    bits = 0
    for name, row in rows.items():
        if row["verdict"] == "SURVIVED" and name in SURVIVORS:
            continue
        bits |= EXIT_BITS.get(row["verdict"], 0)
    return bits


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--claims-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--only", nargs="*", help="mutant names (default: all)")
    parser.add_argument(
        "--ci",
        action="store_true",
        help="CI's selection: changed since the last full run plus a rotating share "
        "(tests/mutants/selection.py; SOFTLIN_MUTANTS=all for the whole catalogue)",
    )
    parser.add_argument(
        "--ci-budget-seconds",
        type=float,
        help="with --ci: run the rotating share and, of the other selected mutants, those whose "
        "recorded or estimated seconds fit this budget; report the rest deferred "
        "(selection.fit)",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--timeout",
        type=float,
        default=float(os.environ.get("SOFTLIN_MUTANT_TIMEOUT", TIMEOUT)),
        help=f"seconds per mutant and seed before it is stopped (default {TIMEOUT:g}, or "
        "SOFTLIN_MUTANT_TIMEOUT)",
    )
    parser.add_argument("--json", dest="json_path", help="write the results as JSON")
    parser.add_argument(
        "--record", action="store_true", help="print the per-mutant lines for LAST_FULL_RUN"
    )
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(args.one, args.seed, not args.claims_only)))
        return 0
    names = args.only or [m.name for m in MUTANTS]
    deferred = {}
    if args.ci_budget_seconds is not None and not args.ci:
        parser.error("--ci-budget-seconds applies to --ci's selection")
    if args.ci:
        names, why, share_turn = selection.select_with_share()
        print(f"selection: {why}", flush=True)
        if args.ci_budget_seconds is not None:
            names, deferred = budgeted(names, share_turn, args.ci_budget_seconds)
    for name in names:
        by_name(name)  # unknown names fail before any work
    rows, start = {}, time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        judged = pool.map(lambda n: (n, judge_mutant(n, args.timeout)), names)
        for name, row in judged:
            mutant = by_name(name)
            rows[name] = {
                **row,
                "layer": mutant.path.split("/")[0],
                "slip": mutant.slip,
                "claims": list(mutant.claims),
            }
            margin = "" if row["margin"] is None else f" margin {row['margin']:.3g}"
            kill = (
                f" [{row['check']} in {row['module'] or '?'}{margin}, seeds {row['seeds']}]"
                if row["check"]
                else ""
            )
            print(
                f"{row['verdict']:<9} {name:<38} {row['seconds']:6.1f} s{kill}  {row['detail']}",
                flush=True,
            )
    print(f"{summary(rows)}; {time.perf_counter() - start:.0f} s")
    if deferred:
        # not run: neither killed nor a non-kill; CI runs them at their share's turn at the latest
        print(
            f"deferred (not run, not counted) {len(deferred)}: "
            + ", ".join(f"{n} ({r['seconds']:.0f} s {r['detail']})" for n, r in deferred.items())
        )
    for name, row in rows.items():
        if row["verdict"] == "SURVIVED" and name in SURVIVORS:
            print(f"  known survivor {name}: {SURVIVORS[name]}")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps({**rows, **deferred}, indent=2) + "\n")
    if args.record:
        head = selection.git("rev-parse", "HEAD").strip()
        if deferred:
            print(
                f"# {len(deferred)} mutants deferred: these lines update the mutants run, but "
                "this run is no complete entry at HEAD (tests/mutants/selection.py)"
            )
        for name, row in rows.items():
            print(record_line(name, row, head))
    return exit_status(rows)


def budgeted(names, share_turn, budget: float) -> tuple[list[str], dict]:
    """`selection.fit` on each mutant's recorded or estimated seconds: (names to run, the
    deferred mutants' rows, verdict "deferred", with the seconds they would have taken)."""
    records = selection.read_records()
    cost = {n: selection.estimated_seconds(n, records) for n in names}
    run, later = selection.fit(names, share_turn, budget, {n: c[0] for n, c in cost.items()})
    spent = sum(cost[n][0] for n in run)
    print(
        f"budget {budget:g} s: {len(run)} run ({spent:.0f} s recorded or estimated), "
        f"{len(later)} deferred",
        flush=True,
    )
    return run, {
        n: {"verdict": "deferred", "seconds": cost[n][0], "detail": cost[n][1]} for n in later
    }


if __name__ == "__main__":
    sys.exit(main())
