"""Stand-in claims for tests/test_parallel.py, at module level so that a `verify` worker process
receives them pickled (their functions by reference) and imports this module to run them."""

import os
import time

from softlin.core import budgets, claim as base, progress
from softlin.core.findings import Findings
from softlin.judge import kinds as judge


def _scenario() -> dict:
    return {"seed": 0}


def _validate(s: dict) -> dict:
    return s


def _certificate(claim, scenario, profile, value) -> dict:
    check = judge.exact("the worker's value", "symbolic", id="value", value=value, expected=value)
    cert = base.certificate(claim, scenario, profile, scenario["seed"], Findings([check]))
    cert["quantities"]["pid"] = os.getpid()
    return cert


def _slow_run(scenario, profile, rng):
    for _ in progress.sweep([16, 64, 256], "slow: Monte Carlo", item="L"):
        time.sleep(0.4)
    return _certificate(SLOW, scenario, profile, float(rng.standard_normal()))


def _fast_run(scenario, profile, rng):
    time.sleep(0.2)
    return _certificate(FAST, scenario, profile, float(rng.standard_normal()))


def _failing_run(scenario, profile, rng):
    raise ZeroDivisionError("a stand-in bug")


def _claim(claim_id: str, run, estimate) -> base.Claim:
    return base.Claim(
        claim_id,
        f"Stand-in {claim_id}",
        "Nothing.",
        (),
        run,
        _scenario,
        frozenset({"seed"}),
        validate=_validate,
        estimate=estimate,
    )


def _slow_estimate(s, p):
    return budgets.Estimate("slow-claim", 90.0 / budgets.SECONDS_PER_UNIT, 0.0, "a sweep")


def _fast_estimate(s, p):
    return budgets.Estimate("fast-claim", 1.0 / budgets.SECONDS_PER_UNIT, 0.0, "a sleep")


SLOW = _claim("slow-claim", _slow_run, _slow_estimate)
FAST = _claim("fast-claim", _fast_run, _fast_estimate)
FAILING = _claim("failing-claim", _failing_run, _fast_estimate)
