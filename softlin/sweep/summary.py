"""A sweep's summary.json: one entry per grid point, read from its certificate (docs/design.md,
"Sweeps").

    {"claim": ..., "seed": <sweep seed>, "profile": ..., "axes": {...},
     "kernels_input_hash": ..., "points": [
        {"index": i, "params": {...}, "seed": <point seed>, "key": <store key>,
         "certificate": "points/<key>.json",
         "status": ..., "checks_not_passed": [{"id", "name", "passed": false | null}, ...],
         "lambda_max": ..., <the claim's fields below>}, ...],
     "series": [...], "curves": {...}}    # a lambda sweep only

Everything the phase diagram (softlin/render/sweep_figure.py) and its page draw is in the summary:
the renderer reads it and computes nothing.

Fields copied from the certificate's `quantities` (the claim's own numbers, named by its
`sweep_fields`; nothing is recomputed):

- prop-3.1: `exponent` (the derived sharp exponent kappa(lambda)),
  `naive_exponent` (min(1, 1/(2 lambda))), `measured_slope` and `measured_slope_stderr` (the
  weighted log-log fit of the query-averaged Monte Carlo MSE over the scenario's L), `exact_slope`
  (the same fit on the exact finite-L MSE at the same L: `predicted_slope_tested_range`),
  `first_order_coefficient` (lim L E err^2, None at and above 1/2), its Monte Carlo estimate
  `first_order_coefficient_monte_carlo` and `..._stderr` (run for lambda <= 2/7), `c2` and `sigma`
  (the paper's constants, so `paper_exponent` = c2 / sigma^2).
- prop-3.4: `lambda_max` (= `threshold_lambda`), `exponent` (= `exponent_V`, the derived
  kappa(lambda), which grad U shares), `naive_exponent`, the first-order coefficients of grad V and
  grad U (None at and above 1/2), and the rates at the scenario's own lambda (its regime `scenario`,
  the one a lambda sweep moves): `measured_slope`, `measured_slope_stderr`, `exact_slope`,
  `exact_slope_stderr` of grad V, and the same with the suffix `_U` for grad U (`measured_slope_U`,
  ...). The certificate's regime slopes are log-log slopes (negative); the summary gives decay
  rates, as prop-3.1's: measured_slope = -slope_V.
- any other claim: `status` and `lambda_max`, computed from the certificate's scenario when the
  claim does not report it (None when the scenario has no U and cov).

A sweep over the one axis `lambda` also carries what its figure draws beside the points:

- `series`: the claim's `sweep_series` (else DEFAULT_SERIES), one object per series with the keys
  SERIES_KEYS: its label, the point fields of the measured slope, its standard error, the exact
  slope and the first-order coefficient, and its colour and marker.
- `curves`: the derived exponents as curves on a grid of CURVE_POINTS lambdas, geometric, from
  min(lambda, 0.05) / 1.25 to max(lambda, 4) * 1.25: `lambda`, `exponent` (kappa(lambda), the
  emitted kernel `sharp_exponent`) and `naive_exponent` (min(1, 1/(2 lambda)), the kernel
  `naive_exponent`).
"""

from __future__ import annotations

import numpy as np

from ..core import registry
from ..core.claim import NEGATE
from ..numerics import kernels, query_average

DEFAULT_FIELDS = {"lambda_max": "lambda_max"}  # a claim that declares no sweep_fields
SERIES_KEYS = ("label", "measured", "stderr", "exact", "first_order", "colour", "marker")
# The series of a claim that declares none (Claim.sweep_series), in the order of SERIES_KEYS.
DEFAULT_SERIES = (
    (
        "measured",
        "measured_slope",
        "measured_slope_stderr",
        "exact_slope",
        "first_order_coefficient",
        "C0",
        "o",
    ),
)
CURVE_POINTS = 400


def _lookup(q: dict, source):
    """q[source], or the nested q[a][b]... for a tuple path (None where a level is missing); a path
    ending in NEGATE gives minus the number."""
    path = source if isinstance(source, tuple) else (source,)
    negate = path[-1] == NEGATE
    for part in path[:-1] if negate else path:
        if not isinstance(q, dict):
            return None
        q = q.get(part)
    if negate:
        return -q if isinstance(q, (int, float)) and not isinstance(q, bool) else None
    return q


def point_entry(point: dict, key: str, cert: dict) -> dict:
    q = cert.get("quantities", {})
    entry = {
        "index": point["index"],
        "params": point["params"],
        "seed": point["seed"],
        "key": key,
        "certificate": f"points/{key}.json",
        "status": cert["status"],
        # why a point is not verified, readable without opening its certificate: each check by its
        # id (None for a stored point computed before certificates carried ids) and its prose
        "checks_not_passed": [
            {"id": c.get("id"), "name": c["name"], "passed": c["passed"]}
            for c in cert.get("checks", [])
            if c["passed"] is not True
        ],
    }
    claim = registry.CLAIMS.get(cert["claim"])
    fields = (claim.sweep_fields if claim is not None else None) or DEFAULT_FIELDS
    for name, source in fields.items():
        entry[name] = _lookup(q, source)
    if entry.get("lambda_max") is None:
        entry["lambda_max"] = scenario_lambda(cert.get("scenario", {}))
    if (
        isinstance(entry.get("c2"), (int, float))
        and isinstance(entry.get("sigma"), (int, float))
        and entry["sigma"]
    ):
        entry["paper_exponent"] = entry["c2"] / entry["sigma"] ** 2
    return entry


def scenario_lambda(s: dict) -> float | None:
    """lambda_max(U^T Gamma U Sigma_q) of a certificate's scenario, for claims that do not report it
    (None when the scenario has no U and cov)."""
    if not isinstance(s.get("U"), list) or not isinstance(s.get("cov"), list):
        return None
    U = np.asarray(s["U"], dtype=float)
    Sq = np.asarray(s.get("query_cov", np.eye(U.shape[0]).tolist()), dtype=float)
    return query_average.threshold_lambda(np.asarray(s["cov"], dtype=float), U, Sq)


def series(claim_id: str) -> list[dict]:
    """The series a lambda sweep of the claim draws (its Claim.sweep_series, else DEFAULT_SERIES),
    each as {key: value} over SERIES_KEYS."""
    claim = registry.CLAIMS.get(claim_id)
    declared = claim.sweep_series if claim is not None and claim.sweep_series else DEFAULT_SERIES
    return [dict(zip(SERIES_KEYS, s, strict=True)) for s in declared]


def curves(lams) -> dict:
    """The derived exponents on a geometric grid that spans the sweep's lambdas and at least
    [0.05, 4], with a margin of 1.25 on each side for the end markers."""
    grid = np.geomspace(min(min(lams), 0.05) / 1.25, max(max(lams), 4.0) * 1.25, CURVE_POINTS)
    return {
        "lambda": [float(x) for x in grid],
        "exponent": [float(kernels.sharp_exponent(x)) for x in grid],
        "naive_exponent": [float(kernels.naive_exponent(x)) for x in grid],
    }


def summary(parsed: dict, entries: list[dict], input_hash: str) -> dict:
    """summary.json of a sweep: its grid, `input_hash` (the kernels its points ran with) and the
    points' entries; for a sweep over lambda alone, also the series and curves its figure draws."""
    out = {
        "claim": parsed["claim"],
        "seed": parsed["seed"],
        "profile": parsed["profile"],
        "axes": parsed["axes"],
        "kernels_input_hash": input_hash,
        "points": sorted(entries, key=lambda e: e["index"]),
    }
    if list(parsed["axes"]) == ["lambda"]:
        out["series"] = series(parsed["claim"])
        out["curves"] = curves([e["params"]["lambda"] for e in entries])
    return out
