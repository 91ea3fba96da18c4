"""SGD at the authors' scale: 300 000 steps, lr 1e-3, batch 128, at three of their prompt lengths.

Run outside CI:

    nice python benchmarks/authors_long_sgd.py [--L 10 100 1000] [--steps 300000]
        [--out data/sgd/authors_long_sgd.json]

Setting of claim `authors-experiment` (d = 5, Sigma Toeplitz(0.5), beta ~ N(0, I / d), s2 = 0.1,
correct generator, init (0.5, 0.5)). Both models (softmax, linear attention) are trained at
each L by numerics/authors_sgd_fast.train_conditional (the same SGD in law as
numerics/authors_sgd.train, half the normals). At each endpoint the per-prompt gradient covariance
(2 x 2, query noise sampled as SGD sees it) is measured on GRAD_PROMPTS fresh prompts: it enters the
SGD noise floor the claim judges the endpoint with (derivations/risk_finite_gradient.py). The claim
reads the JSON written here (softlin/claims/authors_experiment/flow.py); the seed streams are
default_rng([SEED, 11, L]) (training) and default_rng([SEED, 12, L]) (gradient covariance). The
JSON's `provenance` names the commit it ran on and the SHA-256 of each file of CODE as run, so a
later reader can tell whether the sampler changed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np

from softlin.numerics import authors_sgd, authors_sgd_fast

SEED, LR, BATCH, INIT, S2 = 0, 1e-3, 128, (0.5, 0.5), 0.1
GRAD_PROMPTS = 20_000


def toeplitz(d: int, r: float) -> np.ndarray:
    return np.array([[r ** abs(i - j) for j in range(d)] for i in range(d)])


def gradient_covariance(model, mu, om, Sigma, tau, L, rng, n=GRAD_PROMPTS):
    """Covariance (2 x 2) of the per-prompt loss gradient at (mu, omega), in chunks of ~8 MB."""
    maps = authors_sgd.generator_maps(Sigma, "correct")
    rows, done, per = [], 0, max(1, (1 << 20) // L)
    while done < n:
        k = min(per, n - done)
        s, y, f = authors_sgd.sample(rng, k, L, maps, S2, tau)
        yq = f + np.sqrt(S2) * rng.standard_normal(k)
        _, gm, go = authors_sgd.per_prompt_gradients(model, mu, om, s, y, yq)
        rows.append(np.stack([gm, go], axis=1))
        done += k
    G = np.concatenate(rows)
    return np.cov(G.T).tolist()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--L", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--out", default="data/sgd/authors_long_sgd.json")
    args = parser.parse_args()
    Sigma = toeplitz(5, 0.5)
    tau = 1.0 / 5
    runs = {}
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    for L in args.L:

        def report(k, n, L=L):
            if k % (n // 20) == 0:
                print(f"L = {L}: step {k}/{n}", file=sys.stderr, flush=True)

        tr = authors_sgd_fast.train_conditional(
            Sigma,
            S2,
            tau,
            L,
            "correct",
            args.steps,
            LR,
            BATCH,
            INIT,
            np.random.default_rng([SEED, 11, L]),
            record=100,
            progress=report,
        )
        t0 = time.perf_counter()
        cov = {
            m: gradient_covariance(
                m, *tr["params"][m], Sigma, tau, L, np.random.default_rng([SEED, 12, L])
            )
            for m in authors_sgd.MODELS
        }
        runs[str(L)] = {
            "params": {m: list(tr["params"][m]) for m in authors_sgd.MODELS},
            "gradient_covariance": cov,
            "grad_prompts": GRAD_PROMPTS,
            "trajectory": {m: tr["trajectory"][m].tolist() for m in authors_sgd.MODELS},
            "record_steps": tr["record_steps"],
            "seconds": tr["seconds"],
            "ms_per_step": 1e3 * tr["seconds"] / args.steps,
            "covariance_seconds": time.perf_counter() - t0,
        }
        print(
            f"L = {L}: {tr['seconds']:.0f} s, endpoints {tr['params']}", file=sys.stderr, flush=True
        )
        write(args, tau, runs)  # after every L: a long run stopped early keeps what it finished
    return 0


# The code that produces the runs (paths from the repository root).
CODE = ("benchmarks/authors_long_sgd.py", "numerics/authors_sgd.py", "numerics/authors_sgd_fast.py")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def provenance() -> dict:
    """The commit this checkout is at (None outside git) and the SHA-256 of each file of CODE."""
    import subprocess

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", *CODE], cwd=ROOT, capture_output=True, text=True
    )
    return {
        "source_commit": head.stdout.strip() if head.returncode == 0 else None,
        "code_changed_since_commit": bool(dirty.stdout.strip()) if dirty.returncode == 0 else None,
        "code_sha256": {
            path: hashlib.sha256(open(os.path.join(ROOT, path), "rb").read()).hexdigest()
            for path in CODE
        },
    }


def write(args, tau, runs):
    out = {
        "setting": {
            "d": 5,
            "sigma": "Toeplitz(0.5)",
            "tau": tau,
            "s2": S2,
            "generator": "correct",
            "seed": SEED,
            "lr": LR,
            "batch": BATCH,
            "init": list(INIT),
            "steps": args.steps,
            "sampler": "numerics/authors_sgd_fast.train_conditional",
        },
        "runs": runs,
        "provenance": provenance(),
    }
    with open(args.out + ".tmp", "w") as fh:
        json.dump(out, fh, indent=1)
    os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    raise SystemExit(main())
