"""Benchmark of the conditional sampler against the full draw and the bare cost of the normals.

For Gaussian tokens, at prompt length L, dimension d (Gamma of full rank) and Q queries per prompt:

- `full`: the engine drawing every token coordinate (sampling.sampled_outputs, sampler="full");
- `conditional`: the engine drawing the scores and the weighted residuals (sampler="conditional",
  what "auto" takes when Q < d);
- `bare L x d`: only drawing the L d normals of the tokens, in the engine's cache-sized chunks;
- `bare L Q + d Q`: only drawing the normals the conditional sampler needs, in the same chunks.

Times are medians over repeats, per prompt. Targets (issue: at L = 1e6, d = 5, one query):
conditional / bare L x d <= 0.4, conditional / bare (L Q + d Q) <= 2. It also reports the peak
memory traced at the largest L.

It then times the two other users of the conditional sampler, each against its full route: the limit
battery's accumulator (sampling.sampled_accumulator; lemma-2.1's Gaussian and mixture's
two-component laws, 2000 prompts) and the several-head risk's Monte Carlo (heads_montecarlo.risk,
finite-prompt-risk).

    python benchmarks/bench_sampler.py            # full run (about a minute on 2 cores)
    python benchmarks/bench_sampler.py --quick    # smoke run (seconds)
    python benchmarks/bench_sampler.py --json out.json
    python benchmarks/bench_sampler.py --grid     # the issue's grid: auto against full and bare

`--grid` times `sampled_outputs` at d = 5 and one query per prompt, for L from 16 to 1e6 and prompt
counts from 1 to 1e4: "auto" (what the claims call), "full", and the bare draw of the L x d normals,
per prompt. A count of prompts costs its number of blocks times a block's time (the engine draws
min(prompts, max(1, tokens per chunk // L)) prompts a block), so a count whose prompts exceed
TOKEN_BUDGET tokens is timed on whole blocks up to that budget and scaled: a count of 1e4 prompts of
1e6 tokens would take hours and teaches nothing more. A cell of fewer than CALL_TOKENS tokens
repeats its call within each timing (a call of 16 tokens lasts some 30 microseconds, within the
host's noise). The targets: auto / bare L x d <= 0.4 from L = 1e4, and auto never slower than full
(where auto takes the full sampler it runs the same code, and the ratio's spread is the machine's
noise).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc

import numpy as np

from softlin.numerics import attention, sampling, heads_montecarlo
from softlin.numerics.conditional_sampler import conditional_pays
from softlin.numerics.laws import GaussianLaw, MixtureLaw


def setup(d: int):
    rng = np.random.default_rng(0)
    B = rng.normal(size=(d, d)) / np.sqrt(d)
    law = GaussianLaw(np.full(d, 0.1), B @ B.T + 0.2 * np.eye(d))
    U = 0.5 * np.eye(d) + 0.1 * rng.normal(size=(d, d)) / np.sqrt(d)
    V = rng.normal(size=(2, d))
    return law, U, V


def bare_draw(
    rng, prompts: int, L: int, per_token: int, extra: int, work_bytes=attention.DEFAULT_WORK_BYTES
):
    """Draw prompts x (L per_token + extra) normals in chunks of about work_bytes / 4."""
    chunk = max(1, work_bytes // (4 * 8 * per_token))
    buf = np.empty((chunk, per_token))
    for _ in range(prompts):
        for t0 in range(0, L, chunk):
            cc = min(chunk, L - t0)
            if cc == chunk:
                rng.standard_normal(out=buf)
            else:
                rng.standard_normal((cc, per_token))
        if extra:
            rng.standard_normal(extra)


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(d: int, L: int, Q: int, prompts: int, repeats: int) -> dict:
    law, U, V = setup(d)
    rng = np.random.default_rng(1)
    queries = rng.normal(size=(Q, d))
    runs = {
        "full": lambda: sampling.sampled_outputs(
            law, rng, prompts, L, U, V, queries, sampler="full"
        ),
        "conditional": lambda: sampling.sampled_outputs(
            law, rng, prompts, L, U, V, queries, sampler="conditional"
        ),
        "bare_Ld": lambda: bare_draw(rng, prompts, L, d, 0),
        "bare_LQ_dQ": lambda: bare_draw(rng, prompts, L, Q, d * Q),
    }
    times = {name: [] for name in runs}
    for _ in range(repeats):  # interleaved, so drifts hit every column alike
        for name, fn in runs.items():
            times[name].append(timed(fn) / prompts)
    row = {"d": d, "L": L, "queries": Q, "prompts": prompts}
    row.update({f"{name}_seconds_per_prompt": statistics.median(ts) for name, ts in times.items()})
    c = row["conditional_seconds_per_prompt"]
    row["conditional_over_bare_Ld"] = c / row["bare_Ld_seconds_per_prompt"]
    row["conditional_over_bare_LQ_dQ"] = c / row["bare_LQ_dQ_seconds_per_prompt"]
    row["full_over_bare_Ld"] = row["full_seconds_per_prompt"] / row["bare_Ld_seconds_per_prompt"]
    return row


def peak_memory(d: int, L: int, Q: int, sampler: str) -> int:
    law, U, V = setup(d)
    tracemalloc.start()
    sampling.sampled_outputs(
        law, np.random.default_rng(4), 1, L, U, V, np.ones((Q, d)), sampler=sampler
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def battery_rows(quick: bool, repeats: int) -> list[dict]:
    """The accumulator at the battery's sizes: full (law.sample) against conditional, seconds
    per run."""
    gaussian = GaussianLaw(
        [0.2, -0.1, 0.3], [[1.0, 0.5, -0.3], [0.5, 0.89, 0.33], [-0.3, 0.33, 0.45]]
    )
    mixture = MixtureLaw(
        [0.4, 0.6], [[1.0, 0.5], [-0.8, 0.2]], [[[0.5, 0.1], [0.1, 0.3]], [[0.4, 0.0], [0.0, 0.0]]]
    )
    rows = []
    for name, law in (("gaussian", gaussian), ("mixture", mixture)):
        d = law.d
        U, V = 0.5 * np.eye(d), np.eye(d)
        for Q in (1, 4):
            queries = np.random.default_rng(2).normal(size=(Q, d))
            for L in (64, 1024) if quick else (64, 256, 1024, 4096):
                times = {}
                for sampler in ("full", "conditional"):
                    run = lambda: sampling.sampled_accumulator(
                        law,
                        np.random.default_rng(3),
                        2000,
                        L,
                        U,
                        V,
                        queries,
                        np.zeros(Q),
                        sampler=sampler,
                    )
                    times[sampler] = statistics.median(timed(run) for _ in range(repeats))
                rows.append({"law": name, "d": d, "queries": Q, "L": L, **times})
    return rows


def risk_rows(quick: bool, repeats: int) -> list[dict]:
    """The several-head risk's Monte Carlo (d = 5, identity covariance): full against
    conditional."""
    rows = []
    for heads in ((1.0,), (1.0, -1.0)):
        omega = [0.5 * h for h in heads]
        for L in (100, 1000) if quick else (100, 1000, 10000):
            n = max(2, 2 * 10**6 // L)
            times = {}
            for sampler in ("full", "conditional"):
                run = lambda: heads_montecarlo.risk(
                    np.eye(5),
                    0.1,
                    0.2,
                    L,
                    list(heads),
                    omega,
                    n,
                    np.random.default_rng(4),
                    sampler=sampler,
                )
                times[sampler] = statistics.median(timed(run) for _ in range(repeats))
            rows.append({"heads": len(heads), "L": L, "prompts": n, **times})
    return rows


GRID_LS = (16, 64, 1024, 10**4, 10**5, 10**6)
GRID_PROMPTS = (1, 10, 100, 1000, 10**4)
TOKEN_BUDGET = 2 * 10**6  # tokens a timed run draws at most (the docstring)
CALL_TOKENS = 50_000  # tokens a timing draws at least, by repeating a small cell's call


def timed_prompts(prompts: int, L: int) -> int:
    """How many of `prompts` prompts of length L a grid cell times (module docstring): all of them
    within TOKEN_BUDGET tokens, else whole engine blocks up to it (at least one block)."""
    if prompts * L <= TOKEN_BUDGET:
        return prompts
    block, _ = attention.block_shape(prompts, L, 8 * 2 * 2, attention.DEFAULT_WORK_BYTES)
    return max(block, (TOKEN_BUDGET // L) // block * block)


def grid(repeats: int) -> list[dict]:
    law, U, V = setup(5)
    queries = np.random.default_rng(1).normal(size=(1, 5))
    rows = []
    print(f"d = 5, one query; seconds per prompt, median of {repeats}")
    print(
        f"{'L':>8} {'prompts':>7} {'timed':>6} {'auto takes':>11} {'auto':>10} {'full':>10} "
        f"{'bare Ld':>10} {'auto/Ld':>8} {'auto/full':>9}"
    )
    for L in GRID_LS:
        for prompts in GRID_PROMPTS:
            n = timed_prompts(prompts, L)
            rng = np.random.default_rng(1)
            runs = {
                "auto": lambda: sampling.sampled_outputs(law, rng, n, L, U, V, queries),
                "full": lambda: sampling.sampled_outputs(
                    law, rng, n, L, U, V, queries, sampler="full"
                ),
                "bare": lambda: bare_draw(rng, n, L, 5, 0),
            }
            # a cell of few tokens repeats its call within one timing, so that a sample lasts
            # long enough (about CALL_TOKENS tokens) for the timer's and the host's noise to fade
            calls = max(1, CALL_TOKENS // (n * L))
            times = {name: [] for name in runs}
            for _ in range(repeats):  # interleaved, so drifts hit every column alike
                for name, fn in runs.items():
                    times[name].append(timed(lambda: [fn() for _ in range(calls)]) / (n * calls))
            takes = "conditional" if conditional_pays(L, 1, 5, n) else "full"
            r = {"L": L, "prompts": prompts, "timed": n, "auto_takes": takes}
            r.update({name: statistics.median(ts) for name, ts in times.items()})
            r["auto_over_bare"], r["auto_over_full"] = r["auto"] / r["bare"], r["auto"] / r["full"]
            rows.append(r)
            print(
                f"{L:8d} {prompts:7d} {n:6d} {takes:>11} {r['auto']:10.2e} {r['full']:10.2e} "
                f"{r['bare']:10.2e} {r['auto_over_bare']:8.2f} {r['auto_over_full']:9.2f}",
                flush=True,
            )
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--json", help="write the results as JSON")
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--grid", action="store_true", help="the issue's grid (module docstring)")
    args = parser.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    if args.grid:
        rows = grid(repeats)
        if args.json:
            with open(args.json, "w") as fh:
                json.dump({"grid": rows}, fh, indent=2)
        return 0
    Ls = [16, 1024, 10**4] if args.quick else [16, 1024, 10**5, 10**6]
    ds = [2, 5] if args.quick else [2, 5, 20]
    tokens = 10**5 if args.quick else 2 * 10**6  # tokens per timed run (prompts = tokens / L)
    rows = []
    print(
        f"seconds per prompt, median of {repeats}; "
        f"ratios of the conditional sampler to the bare draws"
    )
    print(
        f"{'d':>3} {'Q':>2} {'L':>8} {'full':>10} {'cond.':>10} {'bare Ld':>10} {'bare LQ+dQ':>10} "
        f"{'full/Ld':>8} {'cond/Ld':>8} {'cond/(LQ+dQ)':>12}"
    )
    for d in ds:
        for Q in (1, 3):
            if Q >= d:
                continue
            for L in Ls:
                r = measure(d, L, Q, max(1, tokens // L), repeats)
                rows.append(r)
                print(
                    f"{d:3d} {Q:2d} {L:8d} {r['full_seconds_per_prompt']:10.2e} "
                    f"{r['conditional_seconds_per_prompt']:10.2e} "
                    f"{r['bare_Ld_seconds_per_prompt']:10.2e} "
                    f"{r['bare_LQ_dQ_seconds_per_prompt']:10.2e} {r['full_over_bare_Ld']:8.2f} "
                    f"{r['conditional_over_bare_Ld']:8.2f} "
                    f"{r['conditional_over_bare_LQ_dQ']:12.2f}",
                    flush=True,
                )
    L_max = max(Ls)
    peaks = {s: peak_memory(5, L_max, 1, s) for s in ("full", "conditional")}
    print(
        f"peak traced memory at L = {L_max}, d = 5, one query: "
        f"full {peaks['full'] / 2**20:.1f} MB, "
        f"conditional {peaks['conditional'] / 2**20:.1f} MB (cap 256 MB)"
    )
    print("\nlimit battery accumulator, 2000 prompts, seconds per run (median)")
    print(f"{'law':>9} {'d':>2} {'Q':>2} {'L':>6} {'full':>8} {'cond.':>8} {'speed-up':>8}")
    battery = battery_rows(args.quick, repeats)
    for r in battery:
        print(
            f"{r['law']:>9} {r['d']:2d} {r['queries']:2d} {r['L']:6d} {r['full']:8.3f} "
            f"{r['conditional']:8.3f} {r['full'] / r['conditional']:8.2f}",
            flush=True,
        )
    print("\nseveral-head risk Monte Carlo, 2e6 tokens, seconds per run (median)")
    print(f"{'heads':>5} {'L':>6} {'prompts':>8} {'full':>8} {'cond.':>8} {'speed-up':>8}")
    risk = risk_rows(args.quick, repeats)
    for r in risk:
        print(
            f"{r['heads']:5d} {r['L']:6d} {r['prompts']:8d} {r['full']:8.3f} "
            f"{r['conditional']:8.3f} {r['full'] / r['conditional']:8.2f}",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(
                {"rows": rows, "peak_bytes": peaks, "battery": battery, "risk": risk}, fh, indent=2
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
