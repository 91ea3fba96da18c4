"""Checks: the record of one judgement, its tiers and units, and the status they give a claim.

A check's `passed` is True (survived a test that could have failed), False (found a counterexample)
or None (undecided: the test ran and its outcome falls between). A check that could not be judged at
all (its planned power below target, its data absent, the scenario outside its route's reach) is
kept with `judged=False` and its `reason`, and stays out of the verdict: not judged is never
dropped. Its `kind` says how it was computed, its `tier` what its evidence is worth
(docs/certificates.md, "Evidence tiers"):

    proof        a symbolic identity, proved by SymPy
    enclosure    ball arithmetic (python-flint's Arb): the true value is inside, with certainty
    numerical    a deterministic comparison of independent routes (quadrature, ODE, closed form)
                 at a stated tolerance: a formula slip beyond the tolerance fails it, but not
                 rigorously
    statistical  a Monte Carlo test whose false alarm holds under the assumptions it states
    archived     a replay of committed data, with the hash of the code that produced it
    consistency  a cross-check that a plausible formula slip cannot fail: implied by another check,
                 a pure inequality, a self-assessment. Shown, never counted as evidence

The claim's status follows from its judged checks, by the evidence tiers (all but consistency):

    refuted       some evidence check has passed = False
    inconclusive  none failed, but some check is undecided, a consistency check failed, or there is
                  no evidence check at all
    verified      every check passed and at least one is evidence
"""

from __future__ import annotations

import contextlib
import contextvars
import re
from dataclasses import asdict, dataclass
from typing import Any

KINDS = ("symbolic", "emit", "quadrature", "montecarlo", "ode", "control")
TIERS = ("proof", "enclosure", "numerical", "statistical", "archived", "consistency")
EVIDENCE_TIERS = TIERS[:-1]
# A check's id: path segments of lower-case letters, digits and "._=-", joined by "/".
CHECK_ID = re.compile(r"[a-z0-9][a-z0-9._=-]*(?:/[a-z0-9][a-z0-9._=-]*)*")
# The tier a check of each kind has unless it says otherwise. A negative control has none: it names
# how its wrong formula is refuted ("statistical" by Monte Carlo, "numerical" by a deterministic
# route, "consistency" when another check already implies the refutation).
# What a check's value and bound are measured in, shown beside them on the pages (every check names
# one).
UNITS = {
    "identities": "identities reduced to exactly zero, of those stated",
    "|z|": "|estimate - prediction| / standard error (the largest over the points tested; for a "
    "negative control, the smallest, which must exceed it), against the two-sided critical value "
    "at the stated false alarm",
    "z": "signed estimate - prediction (or difference) over its standard error, against the "
    "one-sided critical value",
    "ratio": "the compared quantity divided by its stated tolerance or radius: passes at most 1",
    "relative error": "relative difference between independent routes, against the stated "
    "tolerance",
    "absolute error": "absolute difference between independent routes, against the stated "
    "tolerance",
    "slope": "fitted log-log slope against L, against the derived slope",
    "exponent": "fitted rate exponent kappa, against the derived one",
    "coefficient": "a first-order constant (the limit of L times the error), measured against the "
    "derived one",
    "rejections": "how often a high-probability bound failed (prompts, or prompt lengths whose "
    "binomial test rejected), against what its delta allows",
    "risk": "a risk or risk gap, in the squared units of the labels",
    "norm": "a parameter norm, radius, eigenvalue or curvature, against the stated constant",
    "power": "a negative control's power, computed before it runs, against its target; the control "
    "must then refute its wrong formula",
    "verdict": "a negative control's outcome: its wrong formula must be refuted",
    "exact values": "values compared exactly (rational arithmetic or booleans)",
    "values": "measured values (listed), compared as the check's detail says",
}
KIND_TIER = {
    "symbolic": "proof",
    "emit": "consistency",
    "quadrature": "numerical",
    "montecarlo": "statistical",
    "ode": "numerical",
}


@dataclass(frozen=True)
class Check:
    name: str
    kind: str
    passed: bool | None
    value: Any = None
    bound: Any = None
    detail: str = ""
    tier: str = ""  # "" takes KIND_TIER[kind]; a control must name its tier
    judged: bool = True
    reason: str = ""  # why the check was not judged (required when judged is False)
    # A short name that stays when the prose, the numbers or the scenario change
    # ("fixed/bias-first-order"); the certificate writes it after the claim id
    # ("prop-3.1/fixed/bias-first-order"), unique there.
    id: str = ""
    unit: str = ""  # what value and bound are measured in: a key of UNITS
    # A statistical check's resolution: the smallest relative slip of the prediction it tests that
    # it detects with power >= 0.999 at this budget (significance.detectable_relative); None
    # elsewhere.
    detectable: float | None = None
    # The rule `passed` follows from (softlin/judge/rules.py): with a rule, `passed` is computed
    # here from value and bound, never taken from the caller; a caller's `passed` must be None.
    rule: str = ""
    # A statistical decision's level (softlin/judge/levels.py FalseAlarm), None elsewhere.
    false_alarm: Any = None
    # A check the judge leaves undecided although its rule could decide (a regime not reached):
    # why. Non-empty only with a rule; `passed` is then None.
    undecided: str = ""

    def __post_init__(self):
        if self.rule:
            self._decide()
        if self.unit and self.unit not in UNITS:
            raise ValueError(
                f"check {self.name!r}: unit {self.unit!r} is not one of {sorted(UNITS)}"
            )
        if self.id and not CHECK_ID.fullmatch(self.id):
            raise ValueError(
                f"check {self.name!r}: id {self.id!r} is not lower-case words joined by '/' "
                "(CHECK_ID)"
            )
        if not self.judged and (self.passed is not None or not self.reason):
            raise ValueError(
                f"check {self.name!r}: a check not judged has passed None and a reason"
            )
        if self.kind not in KINDS:
            raise ValueError(f"check kind {self.kind!r} is not one of {KINDS}")
        if not self.tier:
            if self.kind not in KIND_TIER:
                raise ValueError(f"check {self.name!r}: a {self.kind} check must name its tier")
            object.__setattr__(self, "tier", KIND_TIER[self.kind])
        if self.tier not in TIERS:
            raise ValueError(f"check tier {self.tier!r} is not one of {TIERS}")
        # numpy booleans are not `True`/`False` singletons: normalise, or `passed is False` misses
        # them.
        if self.passed is not None:
            object.__setattr__(self, "passed", bool(self.passed))
        if self.tier == "statistical" and self.rule and self.false_alarm is None:
            if self.kind != "control":
                raise ValueError(f"check {self.name!r}: a statistical check states its false alarm")

    def _decide(self):
        """passed from the rule (the rules module), sound by construction: a non-finite or
        ill-shaped value or bound is undecided with the reason; a judge-built check never carries a
        caller's verdict."""
        from .rules import decide

        if self.passed is not None:
            raise ValueError(f"check {self.name!r}: with a rule, passed is computed, not given")
        if not self.judged:
            return
        decision = decide(self.rule, self.value, self.bound)
        if self.undecided:
            object.__setattr__(self, "reason", self.undecided)
        elif decision.passed is None:
            object.__setattr__(self, "reason", decision.reason)
        else:
            object.__setattr__(self, "passed", decision.passed)


def judged(check) -> bool:
    """Whether a check (a Check or a certificate dict, where `judged` is written only when false)
    enters the verdict."""
    return check.judged if isinstance(check, Check) else check.get("judged", True)


def check_record(check: Check, claim_id: str) -> dict:
    """The certificate's dict of a check, its full id ("<claim>/<check id>") first; `judged` and
    `reason` appear only for a check not judged (and `reason` for an undecided one), `detectable`,
    `rule` and `false_alarm` only for a check that states them."""
    record = asdict(check)
    record = {"id": f"{claim_id}/{record.pop('id')}", **record}
    del record["undecided"]  # written as `reason` (an undecided check's only reason)
    if check.judged:
        del record["judged"]
        if not (check.passed is None and check.reason):
            del record["reason"]
    if check.detectable is None:
        del record["detectable"]
    if not check.rule:
        del record["rule"]
    if check.false_alarm is None:
        del record["false_alarm"]
    else:
        record["false_alarm"] = check.false_alarm.record()
    return record


def check_path(claim_id: str, check: Check) -> str:
    """Where a check sits in its certificate, for `precision` declarations and `verify --check`:
    checks[<claim>/<check id>] (certio.differences walks the checks by id)."""
    return f"checks[{claim_id}/{check.id}]"


def check_records(claim_id: str, checks: list[Check]) -> list[dict]:
    """The certificate's list of checks; every check needs an id, unique within the claim, so that
    tests, `verify --check` and CI reports can name it whatever its prose or numbers."""
    seen: dict[str, str] = {}
    for check in checks:
        if not check.id:
            raise ValueError(f"claim {claim_id}: check {check.name!r} has no id")
        if not check.unit:
            raise ValueError(
                f"claim {claim_id}: check {check.id!r} names no unit (softlin.core.claim.UNITS)"
            )
        if check.id in seen:
            raise ValueError(
                f"claim {claim_id}: checks {seen[check.id]!r} and {check.name!r} share the id "
                f"{check.id!r}"
            )
        seen[check.id] = check.name
    return [check_record(c, claim_id) for c in checks]


def unjudged(
    name: str,
    kind: str,
    reason: str,
    *,
    tier: str = "",
    value: Any = None,
    bound: Any = None,
    detail: str = "",
    id: str = "",
    unit: str = "",
    rule: str = "",
) -> Check:
    """A check that could not be judged here, kept in the certificate with its reason (and the
    rule it would be judged by, which a certificate's check states)."""
    return Check(
        name,
        kind,
        None,
        value,
        bound,
        detail or f"not judged: {reason}",
        tier,
        judged=False,
        reason=reason,
        id=id,
        unit=unit,
        rule=rule,
    )


def status_of(checks) -> str:
    """The claim's status (module docstring) from its judged checks, Check objects or certificate
    dicts."""
    rows = [
        (c.passed, c.tier) if isinstance(c, Check) else (c["passed"], c["tier"])
        for c in checks
        if judged(c)
    ]
    evidence = [passed for passed, tier in rows if tier != "consistency"]
    if any(passed is False for passed in evidence):
        return "refuted"
    if not evidence or any(passed is not True for passed, _ in rows):
        return "inconclusive"
    return "verified"


# Every statistical check (kind "montecarlo") is run at a false alarm of at most this, Bonferroni
# inside the check over its L values, queries and coordinates; a claim's family-wise false alarm is
# then at most this times its number of statistical checks (union bound).
# A caller that runs many claims (`softlin hunt`) lowers it for the runs it makes with
# `false_alarm_level(alpha)`: every statistical check reads `check_false_alarm()` when it runs.
CHECK_FALSE_ALARM = 1e-6
_LEVEL: contextvars.ContextVar[float] = contextvars.ContextVar(
    "softlin_check_false_alarm", default=CHECK_FALSE_ALARM
)


def check_false_alarm() -> float:
    """The false alarm every statistical check is run at now (CHECK_FALSE_ALARM unless lowered)."""
    return _LEVEL.get()


@contextlib.contextmanager
def false_alarm_level(alpha: float):
    """Run the statistical checks inside the block at per-check false alarm `alpha`
    (0 < alpha <= 1e-6: a caller may make the checks stricter, never looser than the certificates'
    standard)."""
    if not (isinstance(alpha, (int, float)) and 0 < alpha <= CHECK_FALSE_ALARM):
        raise ValueError(f"per-check false alarm {alpha!r} must be in (0, {CHECK_FALSE_ALARM:g}]")
    token = _LEVEL.set(float(alpha))
    try:
        yield
    finally:
        _LEVEL.reset(token)


def union_bound(count: int, alpha: float) -> float:
    """P(any of `count` events of probability <= alpha each) <= min(1, count alpha): a probability,
    so a sum above 1 is written as the vacuous 1."""
    return min(1.0, count * alpha)
