"""False-alarm levels: what a statistical decision states, and a certificate's family-wise figure.

A statistical check (and an archived replay of a statistical decision) states its false alarm, the
probability that correct code fails it:

    {"alpha": 1e-6, "kind": "bound" | "nominal", "assumption": "..."}

`bound` when alpha is a proven finite-sample bound on that probability (an exact binomial tail,
Catoni's estimator with a certified variance bound); `nominal` when alpha is computed from a
limiting or assumed law (a normal critical value for a studentised mean: the central limit theorem;
a Student-t critical value: normal block means), and `assumption` says which.

A certificate's family-wise figure is the union bound over its statistical decisions, split by
kind: {"bound": sum of the proven alphas, "nominal": sum of the nominal ones}, each capped at 1 (a
probability). A negative control is not counted: its failure is a miss of its power, stated beside
it, not a false alarm of correct code.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

LEVEL_KINDS = ("bound", "nominal")

# The assumptions the suite's tests rest on, written once.
NORMAL_MEAN = (
    "the studentised mean is standard normal under the null (central limit theorem over the "
    "independent prompts; the level is asymptotic, not a finite-sample bound)"
)
NORMAL_FIT = (
    "the fitted coefficient's error is normal with the stated standard error (central limit "
    "theorem over the independent prompts behind each point; asymptotic level)"
)
STUDENT_T = (
    "the block means are independent and normal, so the studentised mean is Student t with the "
    "stated degrees of freedom (exact only under that normality)"
)
CHI_SQUARE = (
    "the standardised terms are independent standard normal under the null, so their sum of "
    "squares is chi-square (asymptotic over the independent prompts)"
)
EXACT_BINOMIAL = (
    "the exceedance indicators are independent Bernoulli with probability at most the stated p "
    "(independent prompts): the binomial tail is exact, a proven bound"
)
CATONI = (
    "Catoni's deviation bound for the mean of independent draws, with the variance derived from "
    "the law under test: a proven finite-sample level when the null holds"
)
ARCHIVED = "the archived run's decision, replayed; its level is the one it was made at"


@dataclass(frozen=True)
class FalseAlarm:
    alpha: float
    kind: str
    assumption: str

    def __post_init__(self):
        if not (isinstance(self.alpha, (int, float)) and 0 < self.alpha <= 1):
            raise ValueError(f"false alarm alpha {self.alpha!r} is not in (0, 1]")
        if self.kind not in LEVEL_KINDS:
            raise ValueError(f"false alarm kind {self.kind!r} is not one of {LEVEL_KINDS}")
        if not self.assumption.strip():
            raise ValueError("a false alarm states the assumption its level rests on")

    def record(self) -> dict:
        return {"alpha": float(self.alpha), "kind": self.kind, "assumption": self.assumption}


def nominal(alpha: float, assumption: str) -> FalseAlarm:
    return FalseAlarm(alpha, "nominal", assumption)


def proven(alpha: float, assumption: str) -> FalseAlarm:
    return FalseAlarm(alpha, "bound", assumption)


def counted(record: dict) -> bool:
    """Whether a certificate's check record enters the family-wise figure: a judged statistical or
    archived decision (evidence whose failure would make the claim refuted), not a control, that
    states a false alarm. A consistency check's failure only withholds "verified": not counted."""
    return (
        record.get("judged", True)
        and record.get("kind") != "control"
        and record.get("tier") in ("statistical", "archived")
        and "false_alarm" in record
    )


def family_wise(records: list[dict]) -> dict:
    """The certificate's top-level false alarm (module docstring) from its check records."""
    sums = {"bound": 0.0, "nominal": 0.0}
    for r in records:
        if counted(r):
            sums[r["false_alarm"]["kind"]] += float(r["false_alarm"]["alpha"])
    return {kind: min(1.0, total) if math.isfinite(total) else 1.0 for kind, total in sums.items()}
