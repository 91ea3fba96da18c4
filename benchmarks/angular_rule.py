"""The angular rule of the exact finite-L risk (numerics/finite_risk.angular_rule), outside CI.

    OPENBLAS_NUM_THREADS=1 python benchmarks/angular_rule.py [--accuracy]

Timing: on authors-experiment's law (Toeplitz(0.5) sigma, d = 5, correct generator) at L = 100,
the CPU time of a RiskSurface quadratic (three averages at one omega) on the one-dimensional rule
and on the former tensor rule (`tensor_rule`, 10 per Beta variable), on the same table.
Accuracy (--accuracy, a few minutes): `exact_risk` at the default rules against (480 radial, 80
angular, 193 table points) on three anisotropic laws, L = 10, 100, 10^3, 10^6 and three (mu,
omega); prints the stated and true relative errors, their ratio and the three terms of the stated
error (radial halved, angular nodes minus 4, every other table point).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from softlin.numerics import finite_risk as fr


def toeplitz(d: int, r: float) -> np.ndarray:
    return np.array([[r ** abs(i - j) for j in range(d)] for i in range(d)])


S = toeplitz(5, 0.5)
LAWS = {
    "toeplitz-correct": fr.Model(S, S, 0.2, 0.1),
    "toeplitz-authors": fr.Model(S @ S, np.eye(5), 0.2, 0.1),
    "d3-diag(4,1,0.1)": fr.Model(np.diag([4.0, 1.0, 0.1]), np.eye(3), 1 / 3, 0.1),
}


def timing() -> None:
    model = LAWS["toeplitz-correct"]
    surf = fr.RiskSurface(model, 100, 1.0)
    for name, rule in (("one-dimensional", surf.rule), ("tensor", fr.tensor_rule(model))):
        surf.rule, surf._quadratics = rule, {}
        omegas = np.linspace(0.2, 0.9, 8)
        start = time.process_time()
        for om in omegas:
            surf.quadratic(float(om))
        per = (time.process_time() - start) / omegas.size
        print(f"quadratic, {name} rule ({rule.a.size} angular nodes): {per * 1e3:.2f} ms")


def accuracy() -> None:
    worst = 0.0
    for name, model in LAWS.items():
        for L in (10, 100, 1000, 10**6):
            for mu, om in ((1.0, 0.3), (1.0, 0.8), (-0.7, 0.5)):
                r = fr.exact_risk(model, L, mu, om)
                fine = fr.exact_risk(model, L, mu, om, radial=480, angular=80, points=193)
                rule, cr = fr.query_rule(model), fr.query_rule(model, fr.RADIAL_NODES // 2)
                ca = fr.query_rule(model, fr.RADIAL_NODES, fr.ANGULAR_NODES - 4)
                tab = fr.moment_table(L, om**2 * max(x.a.max() * x.Q.max() for x in (rule, cr, ca)))
                v = fr.average(model, rule, tab, mu, om)
                terms = [
                    abs(v - fr.average(model, x, t, mu, om)) / v
                    for x, t in ((cr, tab), (ca, tab), (rule, fr.half_table(tab)))
                ]
                ratio = abs(r.value - fine.value) / r.error
                worst = max(worst, ratio)
                print(
                    f"{name} L={L:<7} mu={mu:<4} omega={om}: stated {r.error / r.value:.1e} "
                    f"true {abs(r.value - fine.value) / fine.value:.1e} ratio {ratio:.3f} | "
                    f"radial {terms[0]:.0e} angular {terms[1]:.0e} table {terms[2]:.0e}",
                    flush=True,
                )
    print(f"largest true / stated: {worst:.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accuracy", action="store_true")
    args = parser.parse_args()
    timing()
    if args.accuracy:
        accuracy()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
