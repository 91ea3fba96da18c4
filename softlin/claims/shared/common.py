"""Pieces the claims share: the limit claims' budgets and queries, the symbolic check."""

from __future__ import annotations

import math

import numpy as np

from ...numerics.laws import GaussianLaw
from ...judge import kinds as judge
from ...judge.check import Check
from ...core.budgets import SECONDS_PER_UNIT, Estimate
from ...core.setting import Setting
from .limit_battery import Budget


def budget_for(s: dict, profile: str) -> Budget:
    """The limit claims' budget: the profile scales the scenario's Monte Carlo (quick keeps the
    first three prompt lengths and a quarter of the prompts, at least 200; full doubles the
    prompts) and draws 2, 4 or 8 queries from nu, unless the scenario gives its query."""
    fixed = s.get("query") is not None
    if profile == "quick":
        return Budget(tuple(s["L"][:3]), max(200, s["trials"] // 4), s["delta"], 1 if fixed else 2)
    if profile == "full":
        return Budget(tuple(s["L"]), 2 * s["trials"], s["delta"], 1 if fixed else 8)
    return Budget(tuple(s["L"]), s["trials"], s["delta"], 1 if fixed else 4)


def queries_for(setting: Setting, budget: Budget, rng: np.random.Generator) -> np.ndarray:
    """The setting's fixed query if it has one, else the budget's number of draws from its query
    law nu."""
    if setting.query is not None:
        return np.asarray(setting.query, dtype=float)[None, :]
    return setting.queries.sample(rng, (budget.queries,))


def limit_setting(s: dict, tokens=None) -> Setting:
    """The setting of a claim on the common keys (validated, core/scenario.common): tokens
    mu = N(mean, cov) unless `tokens` gives another law, the scenario's U and V, queries
    nu = N(0, query_cov), and the fixed query when the scenario gives one."""
    if tokens is None:
        tokens = GaussianLaw(s["mean"], s["cov"])
    queries = GaussianLaw(np.zeros(s["d"]), s["query_cov"])
    return Setting(s, tokens, s["U"], s["V"], queries, s.get("query"))


def symbolic_check(label: str, proofs: dict, id: str = "proofs") -> Check:
    """The claim's symbolic proofs as one check (softlin.judge.kinds.proofs)."""
    return judge.proofs(label, proofs, id=id)


# The lambdas of the built-in rate sweeps of prop-3.1 and prop-3.4 (Claim.sweeps), drawn together
# on the phase diagram: lambda in [0.05, 4], dense around the threshold 1/2.
RATES_LAMBDAS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.45, 0.55, 0.7, 1.0, 1.5, 2.5, 4.0)


def limit_estimate(
    claim: str,
    s: dict,
    profile: str,
    subjects: int,
    fixed: float = 0.0,
    per_query: float = 0.0,
    seconds_per_unit: float = SECONDS_PER_UNIT,
) -> Estimate:
    """The work of a limit claim (lemma-2.1, mixture): `subjects` Monte Carlo sweeps of its
    budget (budget_for), at `seconds_per_unit` per token and max(d, Q) (the claim's measured rate;
    the model's SECONDS_PER_UNIT by default), after `fixed` seconds of proofs and `per_query`
    seconds of reference limits (quadrature, 40 digits) at each of the budget's queries."""
    b = budget_for(s, profile)
    Q = b.queries
    d, k = s["d"], s["V"].shape[0]
    units = subjects * b.trials * float(sum(b.Ls)) * max(d, Q) * seconds_per_unit / SECONDS_PER_UNIT
    memory = b.trials * Q * (3 + 2 * k) * 8 * 3  # accumulators and the error arrays
    return Estimate(
        claim,
        units,
        memory,
        f"trials = {s['trials']}, L = {s['L']}: {subjects} Monte Carlo sweeps "
        f"of {b.trials} prompts at {profile}",
        fixed + per_query * Q,
    )


def subgaussian_sigma(Gamma) -> float:
    """sigma of the paper for N(m, Gamma) (centred): sqrt(lambda_max(Gamma)), at least 1
    (the paper's range)."""
    return max(1.0, math.sqrt(max(0.0, float(np.max(np.linalg.eigvalsh(Gamma))))))
