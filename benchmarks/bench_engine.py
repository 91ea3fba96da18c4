"""Benchmark of the Monte Carlo engine (softlin.numerics.sampling.sampled_outputs).

Two comparisons, on the same work, same machine, same run (repeats interleaved, medians reported):

1. Against a naive per-query loop (a Python loop over queries calling a softmax per prompt, as
   in the authors' published experiment code), at L = 16 with many queries. The naive side is
   charged for drawing its tokens too (one vectorised draw), so both sides do the same work.
   Target: >= 10x.
2. Against the bare cost of drawing the Gaussian tokens: the engine's time (drawing included)
   against the time `GaussianLaw.sample` takes to draw the same tokens in the same chunk shapes, for
   L from 16 to 10^6. Target: engine rate >= 50% of the drawing rate, at every L.

It also reports the peak memory traced by tracemalloc (numpy reports its allocations) for the
largest L, against the 256 MB cap.

    python benchmarks/bench_engine.py            # full run (a few minutes on 2 cores)
    python benchmarks/bench_engine.py --quick    # smoke run (seconds)
    python benchmarks/bench_engine.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import tracemalloc

import numpy as np
from scipy.special import softmax

from softlin.numerics import attention, sampling
from softlin.numerics.laws import GaussianLaw


def setup(d: int = 3):
    rng = np.random.default_rng(0)
    B = rng.normal(size=(d, d)) / np.sqrt(d)
    law = GaussianLaw(np.full(d, 0.1), B @ B.T + 0.2 * np.eye(d))
    U = 0.5 * np.eye(d) + 0.1 * rng.normal(size=(d, d))
    V = rng.normal(size=(2, d))
    return law, U, V


def naive_loop(tokens, U, V, queries):
    """The reference: for each query, for each prompt, a softmax over that prompt's scores."""
    P = tokens.shape[0]
    out = np.empty((P, len(queries), V.shape[0]))
    for j, z in enumerate(queries):
        a = U @ z
        for p in range(P):
            w = softmax(tokens[p] @ a)
            out[p, j] = V @ (w @ tokens[p])
    return out


def draw_same_tokens(law, rng, prompts, L, Q, work_bytes=attention.DEFAULT_WORK_BYTES):
    """Draw prompts x L tokens from `law` in the chunk shapes the engine uses."""
    r = law.root.shape[1]
    pb, c = attention.block_shape(prompts, L, 8 * (r + Q) * 2, work_bytes)
    for p0 in range(0, prompts, pb):
        n = min(pb, prompts - p0)
        for t0 in range(0, L, c):
            law.sample(rng, (n, min(c, L - t0)))


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def versus_naive(law, U, V, prompts, L, Q, repeats):
    rng = np.random.default_rng(1)
    queries = rng.normal(size=(Q, law.d))
    engine, naive = [], []
    for _ in range(repeats):
        engine.append(timed(lambda: sampling.sampled_outputs(law, rng, prompts, L, U, V, queries)))
        naive.append(timed(lambda: naive_loop(law.sample(rng, (prompts, L)), U, V, queries)))
    # Same answers on the same tokens (a correctness guard, not a timing).
    tokens = law.sample(np.random.default_rng(2), (4, L))
    ref = naive_loop(tokens, U, V, queries)
    fast = attention.softmax_attention(tokens, U, V, queries)
    assert np.allclose(fast, ref, rtol=1e-10, atol=1e-12), "engine and naive loop disagree"
    te, tn = statistics.median(engine), statistics.median(naive)
    return {
        "L": L,
        "queries": Q,
        "prompts": prompts,
        "token_queries": prompts * L * Q,
        "engine_seconds": te,
        "naive_seconds": tn,
        "speedup": tn / te,
    }


def versus_drawing(law, U, V, L, Q, tokens_per_run, repeats):
    rng = np.random.default_rng(3)
    queries = rng.normal(size=(Q, law.d))
    prompts = max(1, tokens_per_run // L)
    n = prompts * L
    engine, draw = [], []
    for _ in range(repeats):
        engine.append(timed(lambda: sampling.sampled_outputs(law, rng, prompts, L, U, V, queries)))
        draw.append(timed(lambda: draw_same_tokens(law, rng, prompts, L, Q)))
    te, td = statistics.median(engine), statistics.median(draw)
    return {
        "L": L,
        "queries": Q,
        "prompts": prompts,
        "tokens": n,
        "engine_tokens_per_s": n / te,
        "draw_tokens_per_s": n / td,
        "ratio": td / te,
    }


def peak_memory(law, U, V, L, Q):
    tracemalloc.start()
    sampling.sampled_outputs(law, np.random.default_rng(4), 2, L, U, V, np.ones((Q, law.d)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--json", help="write the results as JSON")
    parser.add_argument("--repeats", type=int, default=None)
    args = parser.parse_args(argv)
    law, U, V = setup()
    repeats = args.repeats or (1 if args.quick else 5)
    naive_prompts = 50 if args.quick else 1000
    tokens = 200_000 if args.quick else 4_000_000
    Ls = [16, 256, 4096] if args.quick else [16, 256, 4096, 65536, 1_000_000]
    results = {"naive": [], "drawing": [], "peak_bytes": None}
    print(f"engine vs naive per-query loop (L = 16, {naive_prompts} prompts), median of {repeats}:")
    for Q in (16, 64):
        r = versus_naive(law, U, V, naive_prompts, 16, Q, repeats)
        results["naive"].append(r)
        print(
            f"  Q = {Q:3d}: engine {r['engine_seconds']:.4f} s, naive {r['naive_seconds']:.3f} s, "
            f"speedup {r['speedup']:.0f}x (target >= 10x)"
        )
    print(f"engine vs bare token drawing ({tokens} tokens per run), median of {repeats}:")
    for Q in (1, 4):
        for L in Ls:
            r = versus_drawing(law, U, V, L, Q, max(tokens, L), repeats)
            results["drawing"].append(r)
            print(
                f"  Q = {Q}, L = {L:>8d}: engine {r['engine_tokens_per_s'] / 1e6:6.1f} Mtok/s, "
                f"drawing {r['draw_tokens_per_s'] / 1e6:6.1f} Mtok/s, ratio {r['ratio']:.2f} "
                f"(target >= 0.50)"
            )
    peak = peak_memory(law, U, V, max(Ls), 4)
    results["peak_bytes"] = peak
    print(f"peak traced memory at L = {max(Ls)}: {peak / 2**20:.1f} MB (cap 256 MB)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
