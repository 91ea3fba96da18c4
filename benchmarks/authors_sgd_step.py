"""Per-step cost of SGD on the authors' one-head softmax model, side by side, outside CI.

    python benchmarks/authors_sgd_step.py [--L 1000] [--batch 128] [--repeat 300] [--json PATH]

Three implementations of one SGD step (draw a fresh batch, loss gradient, update) at d = 5,
Toeplitz(0.5) inputs, correct generator:
  baseline  the authors' recipe written in numpy: a literal [batch, L, d] tensor of inputs
            x = M_p g, labels y = x beta + eps, scores x^T x_q, softmax, output, loss, then the
            backward pass a reverse-mode autograd performs on that graph (softmax backward
            dz = p (dp - sum p dp));
  current   numerics/authors_sgd.py (reduced sampler: (n, L) scores and labels, then S, C);
  fast      numerics/authors_sgd_fast.py (z-space statistics, no (n, L) scores or labels formed);
  conditional  the fast step drawing z0 only, z1's three sums from their conditional Gaussian law
            (the same SGD in law, half the normals; both models' gradients computed).
Then where the fast step's time goes: the normals, the exponential, the row reductions.
Timings are wall clock on a shared machine (other processes inflate them; the ratio is measured in
one run, interleaved, so it is less affected).
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from softlin.numerics import authors_sgd as cur, authors_sgd_fast as fast

S2, LR, MU, OMEGA = 0.1, 1e-3, 0.5, 0.5


def toeplitz(d: int, r: float) -> np.ndarray:
    return np.array([[r ** abs(i - j) for j in range(d)] for i in range(d)])


def baseline_step(rng, theta, L, n, Mp, Mq, tau):
    """The authors' recipe: forward on the literal [n, L, d] tensor, backward by hand as autograd
    would."""
    mu, om = theta
    d = Mp.shape[0]
    x = rng.standard_normal((n, L, d)) @ Mp.T
    xq = rng.standard_normal((n, d)) @ Mq.T
    beta = math.sqrt(tau) * rng.standard_normal((n, d))
    y = np.einsum("nld,nd->nl", x, beta) + math.sqrt(S2) * rng.standard_normal((n, L))
    yq = np.einsum("nd,nd->n", xq, beta) + math.sqrt(S2) * rng.standard_normal(n)
    scores = np.einsum("nld,nd->nl", x, xq)  # forward
    z = om * scores
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=1, keepdims=True)
    S = (p * y).sum(axis=1)
    r = yq - mu * S
    g_out = -2 * r / n  # backward of mean (y_q - mu S)^2
    g_mu = float((g_out * S).sum())
    dp = (g_out * mu)[:, None] * y
    dz = p * (dp - (p * dp).sum(axis=1, keepdims=True))
    g_om = float((dz * scores).sum())
    return mu - LR * g_mu, om - LR * g_om


def current_step(rng, theta, L, n, maps, tau):
    s, y, f = cur.sample(rng, n, L, maps, S2, tau)
    yq = f + math.sqrt(S2) * rng.standard_normal(n)
    _, gm, go = cur.loss_and_grad("softmax", *theta, s, y, yq)
    return theta[0] - LR * gm, theta[1] - LR * go


def fast_step(rng, theta, L, n, maps, tau):
    nu, a, b, f, z = fast.draw(rng, n, L, maps, S2, tau)
    yq = f + math.sqrt(S2) * rng.standard_normal(n)
    gm, go = fast.step_gradients("softmax", *theta, nu, a, b, z[0], z[1], yq)
    return theta[0] - LR * gm, theta[1] - LR * go


def conditional_step(rng, theta, L, n, maps, tau):
    """The fast step with z1 replaced by its three conditionally Gaussian sums (softmax and
    linear)."""
    nu, a, b, f, z = fast.draw(rng, n, L, maps, S2, tau, rows=1)
    yq = f + math.sqrt(S2) * rng.standard_normal(n)
    g = fast.conditional_gradients(rng, {"softmax": theta, "linear": theta}, nu, a, b, z[0], yq)[
        "softmax"
    ]
    return theta[0] - LR * g[0], theta[1] - LR * g[1]


def timed(fn, repeat):
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--L", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    L, n = args.L, args.batch
    Sigma = toeplitz(5, 0.5)
    maps = cur.generator_maps(Sigma, "correct")
    tau = 0.2
    rng = np.random.default_rng(0)
    th = (MU, OMEGA)
    steps = {
        "baseline": lambda: baseline_step(rng, th, L, n, *maps, tau),
        "current": lambda: current_step(rng, th, L, n, maps, tau),
        "fast": lambda: fast_step(rng, th, L, n, maps, tau),
        "conditional": lambda: conditional_step(rng, th, L, n, maps, tau),
    }
    for fn in steps.values():
        fn()
    times = {k: [] for k in steps}
    for _ in range(5):  # interleaved rounds: contention hits all three alike
        for k, fn in steps.items():
            times[k].append(timed(fn, max(1, args.repeat // 5)))
    ms = {k: 1e3 * float(np.median(v)) for k, v in times.items()}
    nu, a, b, f, z = fast.draw(rng, n, L, maps, S2, tau)
    parts = {
        "normals (2 n L)": lambda: rng.standard_normal((2, n, L)),
        "draw (normals + per-prompt factors)": lambda: fast.draw(rng, n, L, maps, S2, tau),
        "softmax statistics S, C": lambda: fast.softmax_statistics(OMEGA, nu, a, b, z[0], z[1]),
        "exponential alone": lambda: np.exp(OMEGA * z[0]),
        "conditional: z0 draw": lambda: fast.draw(rng, n, L, maps, S2, tau, rows=1),
        "conditional: Gram + 3 normals": lambda: fast.conditional_sums(rng, OMEGA, nu, z[0]),
    }
    part_ms = {k: 1e3 * timed(fn, max(1, args.repeat // 3)) for k, fn in parts.items()}
    out = {
        "L": L,
        "batch": n,
        "d": 5,
        "ms_per_step": ms,
        "speedup_fast_over_baseline": ms["baseline"] / ms["fast"],
        "speedup_fast_over_current": ms["current"] / ms["fast"],
        "speedup_conditional_over_baseline": ms["baseline"] / ms["conditional"],
        "fast_step_parts_ms": part_ms,
    }
    print(json.dumps(out, indent=2))
    if args.json_path:
        with open(args.json_path, "w") as fh:
            json.dump(out, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
