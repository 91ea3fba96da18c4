"""A sweep's summary.json: one entry per grid point, read from its certificate (docs/design.md,
"Sweeps").

    {"claim": ..., "seed": <sweep seed>, "profile": ..., "axes": {...},
     "kernels_input_hash": ..., "points": [
        {"index": i, "params": {...}, "seed": <point seed>, "key": <store key>,
         "certificate": "points/<key>.json",
         "status": ..., "checks_not_passed": [{"id", "name", "passed": false | null}, ...],
         "lambda_max": ..., <the claim's fields below>}, ...]}

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
"""

from __future__ import annotations

import numpy as np

from ..claims import registry
from ..claims.base import NEGATE
from ..numerics import query_average

DEFAULT_FIELDS = {"lambda_max": "lambda_max"}  # a claim that declares no sweep_fields


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


def summary(parsed: dict, entries: list[dict], input_hash: str) -> dict:
    return {
        "claim": parsed["claim"],
        "seed": parsed["seed"],
        "profile": parsed["profile"],
        "axes": parsed["axes"],
        "kernels_input_hash": input_hash,
        "points": sorted(entries, key=lambda e: e["index"]),
    }
