"""Timing and accuracy of the exact finite-L risk (numerics/finite_risk.py), outside CI.

    python benchmarks/finite_risk.py [--json PATH]

For d = 5 (isotropic, and Toeplitz(0.5) inputs under the correct and the authors' generators) and
L in {10, 100, 1000, 10^4, 10^6}: the time of one `exact_risk` evaluation at the default rules, its
stated relative error, and its true relative error against a finer evaluation (480 radial nodes,
twice the angular Gauss nodes, 193 table points). Then the time of the 19-L optimum curve on
the exact surface (isotropic, the claim `finite-prompt-risk`'s default model). Targets (issue text):
one evaluation <= 0.2 s with relative error <= 1e-5; the 19-L curve <= 30 s.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from softlin.numerics import finite_risk as fr

LS = (10, 100, 1000, 10**4, 10**6)
AUTHORS_LS = list(range(10, 101, 10)) + list(range(200, 1001, 100))


def toeplitz(d: int, r: float) -> np.ndarray:
    return np.array([[r ** abs(i - j) for j in range(d)] for i in range(d)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", dest="json_path")
    args = parser.parse_args()
    S = toeplitz(5, 0.5)
    models = {
        "isotropic": fr.Model(np.eye(5), np.eye(5), 0.2, 0.1),
        "toeplitz_correct": fr.Model(S, S, 0.2, 0.1),
        "toeplitz_authors": fr.Model(S @ S, np.eye(5), 0.2, 0.1),
    }
    rows = []
    for name, model in models.items():
        for L in LS:
            start = time.perf_counter()
            r = fr.exact_risk(model, L, 1.0, 0.4)
            seconds = time.perf_counter() - start
            fine = fr.exact_risk(
                model, L, 1.0, 0.4, radial=480, angular=2 * fr.ANGULAR_NODES, points=193
            )
            row = {
                "model": name,
                "L": L,
                "seconds": seconds,
                "value": r.value,
                "stated_relative_error": r.error / r.value,
                "true_relative_error": abs(r.value - fine.value) / fine.value,
            }
            rows.append(row)
            print(
                f"{name:<17} L = {L:<8} {seconds:6.3f} s  stated "
                f"{row['stated_relative_error']:.1e}  true {row['true_relative_error']:.1e}",
                flush=True,
            )
    start = time.perf_counter()
    curve = [fr.RiskSurface(models["isotropic"], L, 1.0).optimum() for L in AUTHORS_LS]
    curve_seconds = time.perf_counter() - start
    print(f"19-L optimum curve (isotropic): {curve_seconds:.1f} s")
    if args.json_path:
        with open(args.json_path, "w") as fh:
            json.dump(
                {
                    "evaluations": rows,
                    "curve_seconds": curve_seconds,
                    "curve": [
                        {"L": L, "mu": m, "omega": o, "risk": R}
                        for L, (m, o, R) in zip(AUTHORS_LS, curve)
                    ],
                },
                fh,
                indent=1,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
