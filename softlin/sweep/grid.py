"""Sweep grids: the file format, the axes, the points and their seeds (docs/design.md, "Sweeps").

A grid names one claim, a base scenario, the axes to vary and a budget:

    claim = "prop-3.1"
    seed = 0                 # the sweep seed (default 0)
    profile = "quick"        # optional; `--profile` overrides it (default standard)
    max_minutes = 30         # optional budget: refuse a grid estimated above it (default 60)
    [scenario]               # optional base scenario: the keys of `softlin verify --scenario`
                             # for the claim
    U = [[0.3, 0.1], [-0.1, 0.25]]
    [axes]                   # one or more axes; the points are their Cartesian product
                             # (first axis slowest)
    lambda = [0.1, 0.25, 1.0, 4.0]
    d = [1, 2, 4]

The axes, applied to the base scenario in this order whatever their order in the file:

- `d`: the token dimension; the matrices are rebuilt for it (scenario.defaults_for_dimension).
- any scalar key of the claim's scenario (`trials`, `delta`): set to the value.
- `sigma`: the sub-Gaussian sigma of N(m, Gamma), sqrt(lambda_max(Gamma)); Gamma is scaled by
  sigma^2 / lambda_max(Gamma).
- `lambda`: the threshold quantity lambda = lambda_max(U^T Gamma U Sigma_q)
  (numerics.query_average.threshold_lambda), which is quadratic in U: U is scaled by
  t = sqrt(lambda / lambda_0). A fixed `query` is divided by t, so a = U z and the fixed-query
  part of a claim stay as in the base scenario and only the query average moves with lambda.

Seeds. Point p of a sweep with seed S runs with the scenario seed
    seed(S, p) = first 31 bits of SHA-256(canonical JSON of {"sweep_seed": S, "params": p}),
so a point's seed does not depend on the grid's other points, their order or the worker that runs
it; the point's certificate is the one `softlin verify CLAIM --scenario <point scenario>` writes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
from pathlib import Path

import numpy as np

from ..core import registry, scenario as scen
from ..numerics import query_average

GRID_KEYS = frozenset({"claim", "seed", "profile", "max_minutes", "scenario", "axes"})
SHAPED_AXES = ("d", "sigma", "lambda")  # axes with a meaning beyond "set the key"
MAX_POINTS = 10_000


def builtin() -> dict[str, dict]:
    """The built-in grids (`softlin sweep --builtin NAME`) by name, declared by their claims
    (Claim.sweeps), each on its claim's own scenario. A grid names one claim (one store, one
    summary per claim), so a figure of several (the phase diagram, render/sweep_page.py) draws
    several sweeps, each recomputed alone. A function, not a constant: reading the claims imports
    them, which `softlin --help` must not."""
    return {
        name: {"claim": claim.id, **grid}
        for claim in registry.CLAIMS.values()
        for name, grid in claim.sweeps.items()
    }


def canonical(value) -> str:
    """The canonical JSON text of a value (sorted keys, no spaces): the input of every hash here."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def point_seed(sweep_seed: int, params: dict) -> int:
    digest = hashlib.sha256(
        canonical({"sweep_seed": sweep_seed, "params": params}).encode()
    ).digest()
    return int.from_bytes(digest[:4], "big") >> 1


def load(path: Path) -> dict:
    """A grid file as a dict (ValueError naming the file when it is missing or not TOML)."""
    return scen.load_toml(path, "sweep grid")


def _number_list(name: str, values) -> list:
    if not isinstance(values, list) or not values:
        raise ValueError(f"grid axis {name} = {values!r} must be a non-empty list")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"grid axis {name}: {v!r} is not a finite number")
    if len(set(values)) != len(values):
        raise ValueError(f"grid axis {name} = {values!r} repeats a value")
    return values


def parse(grid: dict, *, profile: str | None = None) -> dict:
    """The validated grid: {"claim", "seed", "profile", "max_minutes", "base", "axes"}; ValueError
    (one line, naming the bad key or value) otherwise. The points are `points(parsed)`."""
    unknown = sorted(set(grid) - GRID_KEYS)
    if unknown:
        raise ValueError(f"unknown grid key {unknown[0]!r} (a grid has: {sorted(GRID_KEYS)})")
    if "claim" not in grid:
        raise ValueError("the grid names no claim (claim = \"prop-3.1\", say)")
    claim = registry.get(grid["claim"])
    seed = grid.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"grid seed = {seed!r} must be an integer >= 0")
    prof = profile or grid.get("profile", "standard")
    if prof not in ("quick", "standard", "full"):
        raise ValueError(f"grid profile = {prof!r} must be quick, standard or full")
    max_minutes = grid.get("max_minutes", 60.0)
    if (
        isinstance(max_minutes, bool)
        or not isinstance(max_minutes, (int, float))
        or not max_minutes > 0
    ):
        raise ValueError(f"grid max_minutes = {max_minutes!r} must be a number > 0")
    base_user = grid.get("scenario", {})
    if not isinstance(base_user, dict):
        raise ValueError("grid key scenario must be a table ([scenario])")
    base = scen.merge(claim.default_scenario(), base_user, claim.scenario_keys)
    axes = grid.get("axes")
    if not isinstance(axes, dict) or not axes:
        raise ValueError("the grid has no [axes] table with at least one axis")
    for name, values in axes.items():
        _number_list(name, values)
        if name in ("sigma", "lambda"):
            if not {"U", "cov", "query_cov"} <= claim.scenario_keys:
                raise ValueError(
                    f"grid axis {name}: claim {claim.id} has no U, cov and query_cov to scale"
                )
            if min(values) <= 0:
                raise ValueError(f"grid axis {name} = {values!r}: every value must be > 0")
        elif name not in claim.scenario_keys:
            raise ValueError(
                f"grid axis {name!r}: claim {claim.id} reads no such key "
                f"(axes: lambda, sigma, or one of {sorted(claim.scenario_keys)})"
            )
        elif name != "d" and isinstance(base.get(name), (list, dict)):
            raise ValueError(f"grid axis {name!r} is not a scalar key of the scenario")
    n = math.prod(len(v) for v in axes.values())
    if n > MAX_POINTS:
        raise ValueError(f"the grid has {n} points, above the {MAX_POINTS} cap")
    return {
        "claim": claim.id,
        "seed": seed,
        "profile": prof,
        "max_minutes": float(max_minutes),
        "base": base,
        "axes": {k: list(v) for k, v in axes.items()},
    }


def apply(base: dict, params: dict) -> dict:
    """The base scenario with the axis values of `params` applied (module docstring; ValueError
    when a value cannot be realised, e.g. lambda on a scenario with U^T Gamma U = 0)."""
    s = dict(base)
    if "d" in params:
        s = {**s, "d": params["d"], **scen.defaults_for_dimension(params["d"])}
        s.pop("query", None)
    for key, value in params.items():
        if key not in SHAPED_AXES:
            s[key] = value
    if "sigma" in params:
        cov = np.asarray(s["cov"], dtype=float)
        top = float(np.linalg.eigvalsh((cov + cov.T) / 2)[-1])
        if not top > 0:
            raise ValueError(f"sigma = {params['sigma']}: the base cov is 0 and cannot be scaled")
        s["cov"] = (cov * (params["sigma"] ** 2 / top)).tolist()
    if "lambda" in params:
        U = np.asarray(s["U"], dtype=float)
        lam0 = query_average.threshold_lambda(
            np.asarray(s["cov"], dtype=float),
            U,
            np.asarray(s.get("query_cov", np.eye(U.shape[0]).tolist()), float),
        )
        if not lam0 > 1e-12:
            raise ValueError(
                f"lambda = {params['lambda']}: the base scenario has "
                "lambda_max(U^T Gamma U Sigma_q) = 0, so no scaling of U reaches it"
            )
        t = math.sqrt(params["lambda"] / lam0)
        s["U"] = (U * t).tolist()
        if s.get("query") is not None:
            s["query"] = (np.asarray(s["query"], dtype=float) / t).tolist()
    return s


def points(parsed: dict) -> list[dict]:
    """One dict per grid point: index, params (axis -> value), seed, scenario (merged, with the
    seed)."""
    names = list(parsed["axes"])
    out = []
    for i, values in enumerate(itertools.product(*(parsed["axes"][n] for n in names))):
        params = dict(zip(names, values))
        seed = point_seed(parsed["seed"], params)
        s = apply(parsed["base"], params)
        s["seed"] = seed
        out.append({"index": i, "params": params, "seed": seed, "scenario": s})
    return out
