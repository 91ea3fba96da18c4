"""`softlin sweep (GRID.toml | --builtin NAME)`: one certificate per grid point (docs/sweeps.md).

    softlin sweep GRID.toml | --builtin rates [--profile quick|standard|full]
                  [--workers N | --scheduler tcp://HOST:PORT] [--out DIR] [--quiet]

This module holds the command: its arguments, the plan and the closing lines. Plan (everything
checked before any work; a problem is one line and exit 2): the grid (sweep/grid.py), every point's
scenario validated by its claim, the grid's estimated work against its `max_minutes`
(core/budgets.py), the output folder, and Dask being installed. The run is sweep/engine.py,
on Dask (sweep/execute.py). Exit 0 when every point is verified, else 1.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from ..core import budgets, progress, registry
from ..core.claim import PROFILES
from ..commands import DEFAULT_OUT, EXIT_FAILED, EXIT_OK, UsageError, check_out
from ..core.execute import plan_merged
from ..sweep import execute as sx
from ..sweep.engine import execute
from ..sweep.grid import builtin, load, parse, points
from ..sweep.store import point_key


def add_parser(sub) -> None:
    p = sub.add_parser(
        "sweep", help="run a claim over a grid of scenarios (Dask), with a summary and figures"
    )
    p.add_argument(
        "grid",
        nargs="?",
        type=Path,
        metavar="GRID.toml",
        help="grid TOML file (see docs/design.md, Sweeps)",
    )
    p.add_argument(
        "--builtin",
        metavar="NAME",
        help="a built-in grid instead of a file, declared by its claim (docs/sweeps.md)",
    )
    p.add_argument(
        "--profile",
        choices=PROFILES,
        default=None,
        help="budget (default: the grid's, else standard)",
    )
    p.add_argument(
        "--workers",
        type=int,
        metavar="N",
        default=None,
        help="LocalCluster worker processes (default: the cores)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="address of an existing Dask scheduler (tcp://HOST:PORT) instead",
    )
    p.add_argument(
        "--out", type=Path, metavar="DIR", help="output folder (default reports/sweeps/<grid name>)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress and no closing lines")


def plan(args) -> tuple[dict, list[dict], Path]:
    """(parsed grid, points with their store keys, output folder); ValueError/UsageError before any
    work."""
    if (args.grid is None) == (args.builtin is None):
        raise UsageError("sweep takes a grid file or --builtin NAME (one of them)")
    if args.workers is not None and args.scheduler:
        raise UsageError("give --workers or --scheduler, not both")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers {args.workers} must be >= 1")
    if args.scheduler is not None and "://" not in args.scheduler:
        raise ValueError(f"--scheduler {args.scheduler!r} is not an address like tcp://HOST:PORT")
    name = args.builtin or args.grid.stem
    grids = builtin() if args.builtin else {}
    if args.builtin and args.builtin not in grids:
        raise UsageError(
            f"--builtin {args.builtin!r} is not a built-in grid (known: {', '.join(sorted(grids))})"
        )
    parsed = parse(grids[args.builtin] if args.builtin else load(args.grid), profile=args.profile)
    claim = registry.get(parsed["claim"])
    pts = points(parsed)
    estimates = []
    for p in pts:
        where = ", ".join(f"{k} = {v}" for k, v in p["params"].items())
        try:
            estimates.append(plan_merged(claim, p["scenario"], parsed["profile"]).estimate)
        except ValueError as exc:
            raise ValueError(f"grid point {where}: {claim.id}: {exc}") from None
        p["key"] = point_key(claim.id, p["scenario"], parsed["profile"], p["seed"])
    budgets.admit(estimates, parsed["max_minutes"])
    out = args.out or DEFAULT_OUT / "sweeps" / name
    check_out(out)
    sx.require_dask()
    return parsed, pts, out


def _draw(task, seconds, done, total) -> None:
    where = ", ".join(f"{k} = {v:g}" for k, v in task["params"].items())
    progress.progress(
        f"sweep {task['claim']} {progress.bar(done / total, 16)} {done}/{total} points | "
        f"last: {where} in {seconds:.1f} s"
    )


def cmd_sweep(args) -> int:
    parsed, pts, out = plan(args)
    progress.enable(not args.quiet)
    start = time.perf_counter()
    clients = []

    def run(tasks):  # the cluster starts only when some point is not in the store
        if not tasks:
            return iter(())
        progress.progress(
            f"sweep {parsed['claim']}: {len(tasks)} of {len(pts)} points to compute; starting Dask"
        )
        clients.append(sx.open_client(args.workers or os.cpu_count() or 1, args.scheduler))
        return sx.run_dask(clients[0], tasks)

    try:
        result = execute(parsed, pts, out, run, on_point=_draw)
        workers = len(clients[0].scheduler_info().get("workers", {})) if clients else 0
    finally:
        progress.clear()
        for c in clients:
            sx.close_client(c)
    points_ = result["summary"]["points"]
    verified = sum(p["status"] == "verified" for p in points_)
    if not args.quiet:
        print(
            f"{len(points_)} points of {parsed['claim']} ({parsed['profile']}): "
            f"{result['computed']} computed, "
            f"{result['reused']} reused from the store, {verified} verified; "
            f"{time.perf_counter() - start:.1f} s" + (f" on {workers} workers" if clients else ""),
            file=sys.stdout,
        )
        for p in points_:
            if p["status"] != "verified":
                print(f"  {p['status']}: {p['params']} ({out / p['certificate']})")
        print(
            f"summary in {out / 'summary.json'}"
            + (f", figure {result['figure']}" if result["figure"] else "")
        )
    return EXIT_OK if verified == len(points_) else EXIT_FAILED
