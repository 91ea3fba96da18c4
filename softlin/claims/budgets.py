"""Work and memory of a claim on a scenario, estimated before anything runs (the CLI refuses above a cap).

Only the parts that grow with the scenario are estimated: Monte Carlo and training sweeps, whose cost
is proportional to the tokens they stream, and the arrays they hold per prompt. The fixed parts
(symbolic proofs, quadrature, the built-in budgets of each claim) take seconds and are left out.

Work model. A sweep over prompt lengths L_1..L_n with P prompts streams P sum_j L_j tokens, and a
token costs about `max(d, Q)` units (drawing d coordinates, scoring Q queries). The rate constant

    SECONDS_PER_UNIT = 2e-7 s

was measured with numerics.attention.sampled_accumulator (d = 3, Q = 2 and 4, P L = 2e6 tokens):
0.96e-7 to 1.4e-7 s per unit on the 2 shared cores of the development machine under load ~2; the
constant doubles the slower figure so that an estimate errs towards refusing a run that is near the cap.

Memory model. Arrays per prompt times prompts (the streamed chunks are bounded separately, by
numerics.attention's working set), against MEMORY_CAP_BYTES.

Structural limits that would otherwise stop a claim in the middle of a run are checked here too:
the Gauss-Hermite route (rank of the token covariance <= 3), the 2^d point masses of the mixture's
degenerate check, the SymPy routes' dimension, and positive definite query covariances.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

import numpy as np

SECONDS_PER_UNIT = 2e-7
MEMORY_CAP_BYTES = 4 * 2**30
DEFAULT_MAX_MINUTES = 60.0
# Dimension limits of the exact routes: SymPy rational matrices (prop-3.1, prop-3.4, asm-3.3) and the
# tensor Gauss-Hermite rule (numerics/quadrature.py supports rank(Gamma) <= 3).
SYMBOLIC_MAX_D = 6
GAUSS_HERMITE_MAX_RANK = 3
MIXTURE_MAX_D = 10       # the degenerate check enumerates the 2^d Rademacher point masses


class BeyondReach(ValueError):
    """A structural limit that shows only during a run (e.g. a finite-L flow leaving the reach of an exact
    route's tables). The CLI reports it like a rejected input (exit 2) and `softlin hunt` counts it
    outside the claim's computable region, by reason; it is not a verdict on the claim."""


@dataclass(frozen=True)
class Estimate:
    claim: str
    units: float          # work units (token x max(d, Q))
    memory: float         # bytes held per sweep
    what: str             # the sweep that dominates, for messages
    shared: str = ""      # estimates with the same non-empty key share one computation (counted once)

    @property
    def seconds(self) -> float:
        return self.units * SECONDS_PER_UNIT


def _rank(cov) -> int:
    return int(np.linalg.matrix_rank(np.asarray(cov, float), tol=1e-10))


def _pd(name: str, claim: str, cov) -> None:
    if float(np.min(np.linalg.eigvalsh(np.asarray(cov, float)))) <= 1e-12:
        raise ValueError(f"{claim} needs a positive definite query_cov, got {np.asarray(cov).tolist()}")


def _max_d(claim: str, d: int, cap: int, why: str) -> None:
    if d > cap:
        raise ValueError(f"d = {d} is too large for {claim} (at most {cap}: {why})")


def _limit_claim(claim: str, s: dict, profile: str, subjects: int) -> Estimate:
    from .common import PROFILE_QUERIES, budget_for
    b = budget_for(s, profile)
    Q = 1 if s.get("query") is not None else PROFILE_QUERIES[profile]
    d, k = s["d"], s["V"].shape[0]
    units = subjects * b.trials * float(sum(b.Ls)) * max(d, Q)
    memory = b.trials * Q * (3 + 2 * k) * 8 * 3          # accumulators and the error arrays
    return Estimate(claim, units, memory, f"trials = {s['trials']}, L = {s['L']}: {subjects} Monte Carlo sweeps "
                    f"of {b.trials} prompts at {profile}")


def lemma21(s: dict, profile: str) -> Estimate:
    r = _rank(s["cov"])
    if r > GAUSS_HERMITE_MAX_RANK:
        raise ValueError(f"cov has rank {r}: lemma-2.1's Gauss-Hermite route supports rank <= "
                         f"{GAUSS_HERMITE_MAX_RANK} (give a lower-rank cov, or d <= 3)")
    return _limit_claim("lemma-2.1", s, profile, 3)


def mixture(s: dict, profile: str) -> Estimate:
    _max_d("mixture", s["d"], MIXTURE_MAX_D, "its degenerate check sums over the 2^d Rademacher point masses")
    for j, cov in enumerate((s.get("mixture") or {}).get("covs") or []):
        r = _rank(cov)
        if r > GAUSS_HERMITE_MAX_RANK:
            raise ValueError(f"mixture.covs[{j}] has rank {r}: the Gauss-Hermite route supports rank <= "
                             f"{GAUSS_HERMITE_MAX_RANK}")
    from .mixture import mixture_law
    mixture_law(s)                                          # validates the [mixture] table
    return _limit_claim("mixture", s, profile, 4)


def prop31(s: dict, profile: str) -> Estimate:
    from . import prop31_common as claim
    _max_d("prop-3.1", s["d"], SYMBOLIC_MAX_D, "the first-order terms are evaluated in exact rational arithmetic")
    b = claim.budget_for(s, profile)
    d, k = s["d"], s["V"].shape[0]
    ls = float(sum(b.Ls))
    averaged = 7 * b.prompts * ls * max(d, b.queries_per_prompt)   # scenario, 3 regimes, 3 token laws
    fixed = b.fixed_prompts * ls * d
    memory = max(b.prompts * b.queries_per_prompt, b.fixed_prompts) * (4 + 2 * k + d) * 8 * 3
    return Estimate("prop-3.1", averaged + fixed, memory,
                    f"trials = {s['trials']}, L = {s['L']}: 7 query-averaged sweeps of {b.prompts} prompts and "
                    f"one of {b.fixed_prompts} at {profile}")


def prop34(s: dict, profile: str) -> Estimate:
    from . import prop34 as claim
    _max_d("prop-3.4", s["d"], SYMBOLIC_MAX_D, "the Jacobians are checked in exact arithmetic")
    _pd("query_cov", "prop-3.4", s["query_cov"])
    b = dict(claim.BUDGETS[profile])
    if profile == "standard":
        b["Ls"], b["prompts"] = s["L"], s["trials"]
    d = s["d"]
    ls = float(sum(b["Ls"]))
    per_token = d * d                                       # weighted second moments
    fixed = b["prompts"] * ls * per_token
    averaged = len(claim.REGIMES) + 1 + 1                  # + 1: the query average at the scenario's own lambda
    averaged *= b["blocks"] * b["block_prompts"] * ls * b["queries"] * per_token
    memory = max(b["prompts"], b["block_prompts"] * b["queries"]) * (d * d + d + 2) * 8 * 4
    source = f"trials = {s['trials']}, L = {s['L']}" if profile == "standard" else f"the {profile} budget"
    return Estimate("prop-3.4", fixed + averaged, memory,
                    f"{source}: a fixed-query sweep of {b['prompts']} prompts and query averages over L = {b['Ls']}")


def asm33(s: dict, profile: str) -> Estimate:
    from . import asm33 as claim
    _max_d("asm-3.3", s["d"], SYMBOLIC_MAX_D, "the tilted moments are computed in exact rational arithmetic")
    _pd("query_cov", "asm-3.3", s["query_cov"])
    n = claim.MC_SAMPLES[profile]
    return Estimate("asm-3.3", 2 * n * s["d"] ** 2, n * s["d"] * 8 * 6, f"2 x {n} Monte Carlo samples")


def icl(claim_id: str):
    def estimate(s: dict, profile: str) -> Estimate:
        from ..numerics import icl_training
        from . import icl_common
        prompts, keep = icl_common.PROFILE[profile]
        Ls = s["Ls"][:keep] if keep else s["Ls"]
        d = s["Sigma"].shape[0]
        cap = inspect.signature(icl_training.PromptSample.__init__).parameters["max_bytes"].default
        need = 4 * prompts * max(Ls) * d * 8                 # the evaluation sample at the largest L
        if need > cap:
            raise ValueError(f"icl.L = {s['Ls']}: {claim_id}'s evaluation sample at L = {max(Ls)} "
                             f"({4 * prompts} prompts x L x d = {d} doubles) needs {_size(need)}, above the "
                             f"{_size(cap)} cap of a training sample")
        steps = 1500                                          # icl_common.training_plan's ceiling
        return Estimate(claim_id, steps * prompts * float(sum(Ls)) * d * d, need,
                        f"icl.L = {s['Ls']}: gradient descent, up to {steps} steps on {prompts} prompts",
                        shared="icl-training")        # thm-4.3 and thm-5.2 share the cached training
    return estimate


def finite_prompt_risk(s: dict, profile: str) -> Estimate:
    from . import finite_prompt_risk as claim
    plan = getattr(claim, "PLAN", {}).get(profile, {})
    n = plan.get("cap") or getattr(claim, "N_PER_L", {}).get(profile, 400_000)   # the most draws per L
    keep = plan.get("n_L", 3 if profile == "quick" else None)
    Ls = s["Ls"][:keep] if keep else s["Ls"]
    width = s["d"] + 2 * s["mu"].size + 2
    memory = 8 * max(Ls) * width * 4                      # one draw's arrays at the largest L
    return Estimate("finite-prompt-risk", n * float(sum(Ls)) * width, memory,
                    f"scalar.L = {s['Ls']}: up to {n} Monte Carlo draws per L")


def authors_experiment(s: dict, profile: str) -> Estimate:
    return Estimate("authors-experiment", 0.0, 0.0, "a fixed plan (its L is capped by the claim)")


ESTIMATORS = {
    "lemma-2.1": lemma21, "mixture": mixture, "prop-3.1": prop31, "prop-3.4": prop34, "asm-3.3": asm33,
    "thm-4.3": icl("thm-4.3"), "thm-5.2": icl("thm-5.2"), "finite-prompt-risk": finite_prompt_risk,
    "authors-experiment": authors_experiment,
}


def estimate(claim_id: str, validated: dict, profile: str) -> Estimate:
    """The estimate for one claim on its validated scenario (ValueError for a structural limit).
    A claim without an estimator (a new claim) counts as fixed work."""
    fn = ESTIMATORS.get(claim_id)
    return fn(validated, profile) if fn else Estimate(claim_id, 0.0, 0.0, "no estimate")


def _size(nbytes: float) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    years = seconds / (365.25 * 86400)
    return f"{seconds / 86400:.0f} days" if years < 1 else f"{years:.2g} years"


def admit(estimates: list[Estimate], max_minutes: float) -> None:
    """Raise ValueError (one line, naming the claim and the estimate) when a claim needs more memory
    than MEMORY_CAP_BYTES, or the run more time than max_minutes."""
    for e in estimates:
        if e.memory > MEMORY_CAP_BYTES:
            raise ValueError(f"{e.claim} would hold about {_size(e.memory)} in memory ({e.what}), above the "
                             f"{_size(MEMORY_CAP_BYTES)} cap: lower trials or L")
    seen, total = set(), 0.0
    for e in estimates:
        if not e.shared or e.shared not in seen:
            total += e.seconds
        seen.add(e.shared)
    if total > max_minutes * 60:
        worst = max(estimates, key=lambda e: e.seconds)
        raise ValueError(f"estimated {_duration(total)} of work, above the {max_minutes:g} min cap: {worst.claim} "
                         f"needs about {_duration(worst.seconds)} ({worst.what}; {SECONDS_PER_UNIT:g} s per token "
                         f"and coordinate); lower L or trials, or raise the cap with --max-minutes")
