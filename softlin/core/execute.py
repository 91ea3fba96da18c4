"""One way to run a claim (docs/design.md, "Running a claim"):

    merge -> validate -> estimate -> run -> certificate

`softlin verify`, `softlin hunt`, `softlin sweep` and the Python API (`softlin.verify`) all go
through here, so a scenario means the same thing to each of them and gives the same certificate.

- `plan(claim, user, profile, seed=...)` merges the user's keys over the claim's default scenario,
  validates the result once with the claim's validator and estimates the run's work and memory
  (core/budgets.py). It raises the validator's `ValueError`, which names the bad key or value.
  The caller admits the estimates against its caps (`budgets.admit`): the CLI sums them over the
  claims it runs.
- `run(claim, scenario, profile)` runs the claim on the merged scenario with its own random stream
  (`claim_rng(seed, claim id)`), and returns the certificate dict. The claim's exceptions pass
  unchanged: the hunt reads them as verdicts, a sweep's worker reports them.
- `named(claim_id)` and `run_reported(claim, scenario, profile)` give the errors of `plan` and `run`
  as a user is told them (the CLI and the Python API): a `ValueError` that starts with the claim's
  id (exit 2 in the CLI) for a rejected scenario, a structural limit only the run meets
  (`BeyondReach`) or running out of memory; any other exception of a run on a validated scenario is
  a bug, `InternalError` (exit 3).

A claim's `run` takes the merged scenario, not the validated one (its contract, which the claims'
tests call directly): it converts the scenario again itself, which costs well under a millisecond.
A claim that declares its setting (Claim.setting; core/setting.py) is handed instead the Setting
that `run` builds once from the validated scenario (its `run` still accepts a merged scenario,
from which it builds the same Setting: core.setting.setting_of).

The certificate's bytes are `certio.dumps(cert)`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Iterator

from . import budgets, scenario as scen
from .claim import PROFILES, Claim, claim_rng
from .setting import setting_of
from ..commands import InternalError
from ..numerics.validate import BeyondReach


@dataclass(frozen=True)
class Plan:
    """A claim ready to run: the merged scenario its `run` receives, the validated one its estimate
    (and the hunt's regions) read, the profile and the estimate."""

    claim: Claim
    scenario: dict
    validated: dict
    profile: str
    estimate: budgets.Estimate


def plan(claim: Claim, user: dict, profile: str, *, seed: int | None = None) -> Plan:
    """Merge `user` over the claim's default scenario (`seed`, when given, replaces the scenario's,
    as `--seed` does), validate it and estimate the run; ValueError naming what is wrong."""
    merged = scen.merge(claim.default_scenario(), user, claim.scenario_keys)
    if seed is not None:
        merged["seed"] = seed
    return plan_merged(claim, merged, profile)


def plan_merged(claim: Claim, merged: dict, profile: str) -> Plan:
    """`plan` for a scenario that is already merged (a sweep's point, a certificate's own
    scenario)."""
    if profile not in PROFILES:
        raise ValueError(f"profile {profile!r} is not one of {', '.join(PROFILES)}")
    validated = (claim.validate or scen.common)(merged)
    estimate = budgets.estimate_for(claim, validated, profile)
    return Plan(claim, merged, validated, profile, estimate)


def run(claim: Claim, scenario: dict, profile: str) -> dict:
    """The claim's certificate on the merged `scenario` (planned before), with the claim's own
    random stream for the scenario's seed. A claim that declares its setting (Claim.setting)
    receives the Setting, built here once for the run, in place of the scenario."""
    rng = claim_rng(scenario["seed"], claim.id)
    if claim.setting is None:
        return claim.run(scenario, profile, rng)
    return claim.run(setting_of(claim, scenario), profile, rng)


@contextlib.contextmanager
def named(claim_id: str) -> Iterator[None]:
    """Inside the block, a ValueError (a rejected scenario, from `plan`) starts with the claim's
    id."""
    try:
        yield
    except ValueError as exc:
        raise ValueError(f"{claim_id}: {exc}") from None


def run_reported(claim: Claim, scenario: dict, profile: str) -> dict:
    """`run`, its exceptions as the user is told them (module docstring)."""
    try:
        return run(claim, scenario, profile)
    except InternalError:
        raise
    except BeyondReach as exc:  # a structural limit met during the run
        raise ValueError(f"{claim.id}: {exc}") from None
    except MemoryError as exc:  # the estimate let it through: say what to lower
        raise ValueError(
            f"{claim.id}: out of memory ({exc}); lower trials or L, or the scale of U and cov, "
            f"in the scenario"
        ) from None
    except Exception as exc:  # the input passed validation: this is a bug
        raise InternalError(f"{claim.id}: {type(exc).__name__}: {exc}") from exc
