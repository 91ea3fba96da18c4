"""Claims and certificates (docs/design.md, "Claims and certificates"): the Claim declaration, the
certificate a run returns, and the reproducible stream each claim draws from. A check, its tiers and
the status its checks give a claim are softlin.judge's (softlin/judge/check.py).
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..judge import levels
from ..judge.check import check_records, status_of

FORMAT = 1
PROFILES = ("quick", "standard", "full")


@dataclass(frozen=True)
class Absent:
    """A part a claim states it does not have, and why: the registry's parts test
    (tests/claims/test_registry_parts.py) accepts it where it refuses a part left undeclared."""

    reason: str

    def __post_init__(self):
        if not self.reason.strip():
            raise ValueError("an absent part names its reason")


# The last element of a sweep field's path: the summary reports minus the number (a log-log slope as
# a decay rate).
NEGATE = "negate"


@dataclass(frozen=True)
class Claim:
    id: str
    title: str
    statement: str
    hypotheses: tuple[str, ...]
    run: Callable[..., dict]  # run(scenario, profile, rng) -> certificate
    default_scenario: Callable[[], dict] = field(default=dict)
    scenario_keys: frozenset = frozenset()
    # validate(merged scenario) -> validated scenario, raising ValueError naming a bad value;
    # None means the common keys of docs/design.md (core.scenario.common).
    validate: Callable[[dict], dict] | None = None
    # estimate(validated scenario, profile) -> budgets.Estimate: the work and memory of a run,
    # before it starts (the CLI refuses above --max-minutes and the memory cap). Every claim needs
    # one.
    estimate: Callable[[dict, str], Any] | None = None
    # The documented keys (core.scenario.Key): the top-level names and tables must be
    # scenario_keys.
    keys: tuple = ()
    # The paper's label of the statement ("Proposition 3.1"), "" for softlin's own claims, and the
    # ids of the claims it rests on: the claim graph (softlin/render/graph.py) is drawn from these.
    paper: str = ""
    rests_on: tuple[str, ...] = ()
    # display() -> {name: derivations.display.Display}: the derived formulas its certificate shows,
    # printed as LaTeX and MathML by claims/shared/formulas.py; Absent(why) when the run typesets
    # its own.
    display: Callable[[], dict] | Absent | None = None
    # The figure of its page: the certificate series it is drawn from ("main", "regimes", ...; the
    # renderer picks the figure by that series' shape, render/figures.py), or Absent(why).
    figure: str | Absent | None = None
    # setting(validated scenario) -> core.setting.Setting: mu, U, V, nu of a run, built once by the
    # core (core/execute.py, `run`), which then hands the Setting to `run` in place of the scenario;
    # None: `run` receives the merged scenario and converts it itself.
    setting: Callable[[dict], Any] | None = None
    # Its hunt space (claims/hunt_space.Space: the strategy by "module:function", loaded only by
    # `softlin hunt`, its region classifier and the bound on a run's statistical checks); None: the
    # hunt refuses the claim.
    hunt: Any = None
    # The fields a sweep's summary copies from each point's `quantities` (softlin/sweep/summary.py):
    # name -> key, or a tuple of keys into nested tables ending in NEGATE for minus the number; None
    # copies only `lambda_max`.
    sweep_fields: dict[str, str | tuple] | None = field(default=None, hash=False)
    # What the phase diagram draws from a lambda sweep of it (render/sweep_figure.py): per series
    # (label, measured field, its stderr field, exact field, first-order field, colour, marker);
    # () draws the one series of the default fields.
    sweep_series: tuple[tuple[str, ...], ...] = ()
    # Its built-in sweeps (`softlin sweep --builtin NAME`, softlin/sweep/grid.py): name -> the grid
    # on its own default scenario, every key of a grid file but `claim`.
    sweeps: dict[str, dict] = field(default_factory=dict, hash=False)

    def reads(self, table: str) -> frozenset:
        """The keys of sub-table `table` this claim documents (and so reads)."""
        return frozenset(k.name for k in self.keys if k.table == table)

    def __post_init__(self):
        named = frozenset(k.table or k.name for k in self.keys)
        if self.keys and named != frozenset(self.scenario_keys):
            raise ValueError(
                f"claim {self.id}: documented keys {sorted(named)} differ from the keys it reads "
                f"{sorted(self.scenario_keys)}"
            )


def jsonable(value):
    """Plain JSON types; non-finite floats become the strings "inf", "-inf", "nan" (never
    silent)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return v
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    if value is None or isinstance(value, str):
        return value
    return str(value)


def certificate(
    claim: Claim,
    scenario: dict,
    profile: str,
    seed: int,
    findings: Any,  # a findings.Findings (which builds on Check, defined here)
    *,
    formulas: dict | None = None,
    provenance: dict | None = None,
    formulas_mathml: dict | None = None,
    precision: list | None = None,
) -> dict:
    """The certificate dict of docs/design.md, plus the statement, formulas and figure series that
    the renderer needs (it reads certificates only), from what the claim's steps found: its checks,
    quantities, series and errata.

    `formulas` maps a name to LaTeX (Markdown pages); `formulas_mathml` maps the same names to a
    presentation MathML <math> element (HTML pages; build it with `softlin.mathml.mathml_formula`).
    A formula without MathML is shown in the HTML page as its LaTeX source.

    `precision` (entries of softlin.certio.precision_entry) states the error of the numbers whose
    digits are not all known, e.g. an optimizer's argmin, a gradient at an optimum, an error
    estimate: `verify --check` compares them at that precision, the others at the written eight
    digits."""
    checks = findings.checks
    records = check_records(claim.id, checks)
    return jsonable(
        {
            "format": FORMAT,
            "claim": claim.id,
            "title": claim.title,
            "statement": claim.statement,
            "hypotheses": list(claim.hypotheses),
            "status": status_of(checks),
            "scenario": scenario,
            "profile": profile,
            "seed": seed,
            "quantities": findings.quantities,
            "checks": records,
            "false_alarm": levels.family_wise(records),
            "errata": findings.errata,
            "formulas": formulas or {},
            "formulas_mathml": formulas_mathml or {},
            "series": findings.series,
            "provenance": provenance or {},
            **({"precision": precision} if precision else {}),
        }
    )


def claim_rng(seed: int, claim_id: str) -> np.random.Generator:
    """Independent, reproducible streams per claim: the seed and a checksum of the claim id."""
    return np.random.default_rng([seed, zlib.crc32(claim_id.encode())])
