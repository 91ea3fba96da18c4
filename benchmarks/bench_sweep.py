"""Dask sweep: 2 workers against 1 on the same grid, and the per-point overhead of the Dask path.

    python benchmarks/bench_sweep.py [--builtin rates] [--profile quick] [--keep DIR]

For each worker count it starts a LocalCluster (the start-up is timed apart), runs every point
of the grid into a fresh folder through softlin.sweep.engine.execute, and records the wall time and
each point's compute seconds as measured inside its worker. It prints

- the speed-up wall(1 worker) / wall(2 workers), cluster start-up excluded;
- the Dask overhead per point on 1 worker: (wall - sum of point seconds) / points, as a fraction
  of the mean point's compute (submission, scheduling, pickling the certificate back, the atomic
  write);
- whether the two runs wrote byte-identical certificates and summaries (they must).

The target (the issue's): speed-up >= 1.7 and overhead <= 5 % on a free 2-core machine. Both depend
on the load of the machine; `uptime` is printed before and after so a busy run can be recognised.
`--keep DIR` copies the 2-worker store to DIR/points (so `softlin sweep --builtin rates --out DIR`
then reuses the points instead of recomputing them).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from softlin.sweep import engine as cs
from softlin.sweep import execute as sx
from softlin.sweep.grid import BUILTIN, parse, points
from softlin.sweep.store import point_key


def run(parsed, pts, out: Path, workers: int) -> dict:
    t0 = time.perf_counter()
    client = sx.open_client(workers, None)
    started = time.perf_counter()
    seconds = []
    try:
        cs.execute(
            parsed,
            pts,
            out,
            lambda t: sx.run_dask(client, t),
            on_point=lambda task, s, done, total: seconds.append(s),
        )
    finally:
        wall = time.perf_counter() - started
        sx.close_client(client)
    return {"startup": started - t0, "wall": wall, "point_seconds": seconds}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--builtin", default="rates", choices=sorted(BUILTIN))
    ap.add_argument("--profile", default=None)
    ap.add_argument("--keep", type=Path)
    args = ap.parse_args()
    parsed = parse(BUILTIN[args.builtin], profile=args.profile)
    pts = points(parsed)
    for p in pts:
        p["key"] = point_key(parsed["claim"], p["scenario"], parsed["profile"], p["seed"])
    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    with tempfile.TemporaryDirectory() as tmp:
        res = {w: run(parsed, pts, Path(tmp) / f"w{w}", w) for w in (2, 1)}
        same = all(
            (Path(tmp) / "w1" / rel).read_bytes() == (Path(tmp) / "w2" / rel).read_bytes()
            for rel in [Path("summary.json")] + [Path("points") / f"{p['key']}.json" for p in pts]
        )
        if args.keep:
            shutil.copytree(Path(tmp) / "w2" / "points", args.keep / "points", dirs_exist_ok=True)
    print("load after: ", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    n = len(pts)
    for w, r in res.items():
        print(
            f"{w} worker(s): {n} points in {r['wall']:.1f} s "
            f"(cluster start-up {r['startup']:.1f} s); "
            f"point compute {sum(r['point_seconds']):.1f} s in total, "
            f"{min(r['point_seconds']):.1f}..{max(r['point_seconds']):.1f} s each"
        )
    one = res[1]
    overhead = (one["wall"] - sum(one["point_seconds"])) / n
    mean = sum(one["point_seconds"]) / n
    print(
        f"speed-up 2 vs 1 workers: {res[1]['wall'] / res[2]['wall']:.2f}x (cores: {os.cpu_count()})"
    )
    print(
        f"Dask overhead per point (1 worker): {overhead:.3f} s = {100 * overhead / mean:.1f} % of "
        f"a mean point ({mean:.1f} s)"
    )
    print(f"certificates and summary byte-identical across worker counts: {same}")


if __name__ == "__main__":
    main()
