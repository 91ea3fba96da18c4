"""Wall time, CPU time and peak memory of `softlin verify`: claims one at a time or side by side.

    python benchmarks/bench_verify.py [--profile standard] [--jobs 1 2] [--cold] [--markdown PATH]

Runs `softlin verify --profile P --jobs N --out <temporary folder> --quiet` once for each N given
(in that order, back to back; N = 0 omits the flag, for a softlin from before `--jobs`, which
runs one claim at a time), as the README's first command runs it, and prints per run: the wall
time, the CPU time of the whole process tree (user + system, from the children's rusage), the peak
of the summed resident memory of the process tree (sampled every 0.2 s, so a shorter peak can be
missed) and the largest single process's peak (rusage), and the per-claim seconds that `verify`
prints (with N > 1 a claim's seconds are its own worker's wall time). `--cold` turns the proof
cache off (SOFTLIN_PROOF_CACHE empty): every identity is proved, as on a machine where softlin never
ran; otherwise the user's proof cache is read, as a second run reads it.

psutil (for the memory of the process tree) comes with the test extra (through Dask). The load
average before and after each run is printed: on a shared machine the wall time says more
about the other work than about softlin.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time

import psutil


def tree_rss(proc: psutil.Process) -> int:
    """The summed resident memory of a process and its descendants (0 for those gone)."""
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run(profile: str, jobs: int, cold: bool) -> dict:
    env = dict(os.environ)
    if cold:
        env["SOFTLIN_PROOF_CACHE"] = ""
    with tempfile.TemporaryDirectory() as out:
        argv = [sys.executable, "-m", "softlin.cli", "verify", "--profile", profile]
        argv += (["--jobs", str(jobs)] if jobs else []) + ["--out", out]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        peak = [0]
        stop = threading.Event()

        def sample():
            proc = psutil.Process(child.pid)
            while not stop.wait(0.2):
                try:
                    peak[0] = max(peak[0], tree_rss(proc))
                except psutil.Error:
                    return

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        stdout, _ = child.communicate()
        wall = time.perf_counter() - start
        stop.set()
        sampler.join()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    claims = {}
    for line in stdout.decode().splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[1] in ("verified", "refuted", "undecided"):
            claims[parts[0]] = float(parts[3])
    return {
        "jobs": jobs,
        "returncode": child.returncode,
        "wall": wall,
        "cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "peak_tree_mb": peak[0] / 2**20,
        "peak_process_mb": after.ru_maxrss / 1024,
        "load_before": load,
        "load_after": os.getloadavg()[0],
        "claims": claims,
    }


def table(runs: list[dict], profile: str) -> str:
    claims = list(runs[0]["claims"])
    head = "| claim | " + " | ".join(f"--jobs {r['jobs']} (s)" for r in runs) + " |"
    lines = [head, "|---" * (len(runs) + 1) + "|"]
    for c in claims:
        lines.append(
            f"| {c} | " + " | ".join(f"{r['claims'].get(c, float('nan')):.1f}" for r in runs) + " |"
        )
    for label, key, fmt in (
        ("wall clock", "wall", "{:.1f}"),
        ("CPU (user + system)", "cpu", "{:.1f}"),
        ("peak memory, process tree (MB)", "peak_tree_mb", "{:.0f}"),
        ("peak memory, one process (MB)", "peak_process_mb", "{:.0f}"),
        ("load average before / after", None, None),
    ):
        if key is None:
            cells = [f"{r['load_before']:.1f} / {r['load_after']:.1f}" for r in runs]
        else:
            cells = [fmt.format(r[key]) for r in runs]
        lines.append(f"| **{label}** | " + " | ".join(cells) + " |")
    return f"softlin verify --profile {profile}\n\n" + "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", default="standard", choices=("quick", "standard", "full"))
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1, 2], help="0: no --jobs flag (older softlin)"
    )
    parser.add_argument("--cold", action="store_true", help="proof cache off")
    parser.add_argument("--markdown", help="also write the table to this file")
    args = parser.parse_args(argv)
    runs = []
    for jobs in args.jobs:
        r = run(args.profile, jobs, args.cold)
        print(
            f"--jobs {jobs}: exit {r['returncode']}, wall {r['wall']:.1f} s, CPU {r['cpu']:.1f} s, "
            f"peak {r['peak_tree_mb']:.0f} MB (tree) / {r['peak_process_mb']:.0f} MB (process), "
            f"load {r['load_before']:.1f} -> {r['load_after']:.1f}",
            flush=True,
        )
        runs.append(r)
    text = table(runs, args.profile)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as handle:
            handle.write(text)
    return 0 if all(r["returncode"] == 0 for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
