"""Pieces every claim uses: profile budgets, query sets, the symbolic check, provenance."""

from __future__ import annotations

import importlib.metadata

import numpy as np

from .. import __version__
from ..numerics import kernels
from .base import Check
from .limit.battery import Budget

# Profiles scale the scenario's Monte Carlo budget: quick keeps the first three prompt lengths
# and a quarter of the prompts (at least 200), full doubles the prompts.
PROFILE_QUERIES = {"quick": 2, "standard": 4, "full": 8}


def budget_for(s: dict, profile: str) -> Budget:
    if profile == "quick":
        return Budget(s["L"][:3], max(200, s["trials"] // 4), s["delta"])
    if profile == "full":
        return Budget(s["L"], 2 * s["trials"], s["delta"])
    return Budget(s["L"], s["trials"], s["delta"])


def queries_for(s: dict, profile: str, rng: np.random.Generator) -> np.ndarray:
    """The scenario's query if it gives one, else PROFILE_QUERIES[profile] draws from
    nu = N(0, query_cov)."""
    if s.get("query") is not None:
        return np.asarray(s["query"], dtype=float)[None, :]
    n = PROFILE_QUERIES[profile]
    return rng.multivariate_normal(np.zeros(s["d"]), s["query_cov"], size=n, method="eigh")


def symbolic_check(label: str, proofs: dict, id: str = "proofs") -> Check:
    failed = [name for name, p in proofs.items() if not p.passed]
    return Check(
        f"symbolic proofs: {label}",
        "symbolic",
        not failed,
        len(proofs) - len(failed),
        len(proofs),
        f"{len(proofs)} identities, each reduced to exactly zero (listed in derivations.md)"
        if not failed
        else "not proved: " + "; ".join(failed),
        id=id,
        unit="identities",
    )


def provenance() -> dict:
    """What produced the certificate; no clock, no paths (certificates are byte-reproducible)."""
    versions = {}
    for dist in ("numpy", "scipy", "sympy", "mpmath"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "unknown"
    return {"softlin": __version__, "kernels_input_hash": kernels.INPUT_HASH, **versions}
