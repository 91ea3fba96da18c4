"""A toy claim that lives in the tests only: the sum of the first L odd numbers is L^2.

It declares every part a claim has (docs/contributing.md, "Adding a claim") and nothing else, so
that tests/claims/test_toy_claim.py can register it and see each stage of the pipeline pick it up
from the claim alone: `softlin list`, its [toy] scenario table, its estimate, its hunt space, its
pages.
"""

from __future__ import annotations

import math

import sympy as sp

from softlin.core import budgets, scenario as scen
from softlin.judge.check import Check
from softlin.core.claim import Claim
from softlin.core.finish import finish
from softlin.core.findings import Findings
from softlin.core.hunt_space import Space
from softlin.derivations.display import Display

ID = "toy"
TITLE = "Toy: the first L odd numbers sum to L^2"
_k, _L = sp.symbols("k L", integer=True, positive=True)


def display() -> dict[str, Display]:
    """The sum in closed form, as SymPy derives it."""
    return {"sum": Display(sp.Sum(2 * _k - 1, (_k, 1, _L)), sp.summation(2 * _k - 1, (_k, 1, _L)))}


def default_scenario() -> dict:
    return {"seed": 0, "toy": {"L": [4, 16, 64]}}


def validate(s: dict) -> dict:
    Ls = s.get("toy", {}).get("L")
    if not isinstance(Ls, list) or not Ls or not all(isinstance(L, int) and L >= 1 for L in Ls):
        raise ValueError(f"toy.L = {Ls!r} must be a non-empty list of integers >= 1")
    return {**s, "seed": scen.seed_of(s), "Ls": sorted(Ls)}


def estimate(s: dict, profile: str) -> budgets.Estimate:
    return budgets.Estimate(
        ID, float(sum(s["Ls"])), 8.0 * len(s["Ls"]), f"{len(s['Ls'])} direct sums"
    )


def run_with(closed_form):
    """The claim's run, comparing the direct sum with `closed_form(L)` (a test passes a wrong
    one)."""

    def run(s: dict, profile: str, rng) -> dict:
        v = validate(s)
        symbolic = sp.simplify(display()["sum"].rhs - _L**2) == 0
        errors = [abs(sum(range(1, 2 * L, 2)) - closed_form(L)) / L**2 for L in v["Ls"]]
        checks = [
            Check(
                "the closed form is L^2",
                "symbolic",
                symbolic,
                int(symbolic),
                1,
                "SymPy's summation minus L^2",
                id="closed-form",
                unit="identities",
            ),
            Check(
                "direct sums equal the closed form",
                "quadrature",
                max(errors) <= 1e-12,
                max(errors),
                1e-12,
                "largest relative error over the scenario's L",
                id="direct",
                unit="relative error",
            ),
        ]
        series = {"main": {"L": v["Ls"], "rmse": [1 / math.sqrt(L) for L in v["Ls"]]}}
        found = Findings(checks, {"largest_relative_error": max(errors)}, series)
        return finish(CLAIM, {**scen.for_certificate(s), "seed": v["seed"]}, profile, found)

    return run


def region(s: dict) -> str:
    return "one length" if len(s["Ls"]) == 1 else "several lengths"


def scenarios(budget: str):
    """[toy] tables of one to three lengths, 0 included (outside the hypotheses)."""
    from hypothesis import strategies as st

    return st.sets(st.integers(0, 64), min_size=1, max_size=3).map(
        lambda Ls: {"toy": {"L": sorted(Ls)}}
    )


CLAIM = Claim(
    ID,
    TITLE,
    "sum_{k=1}^L (2k - 1) = L^2 for every L >= 1",
    ("L a positive integer",),
    run_with(lambda L: L**2),
    default_scenario,
    frozenset({"seed", "toy"}),
    validate=validate,
    estimate=estimate,
    keys=(
        scen.Key("", "seed", "integer >= 0", "the random seed"),
        scen.Key("toy", "L", "integers >= 1", "the lengths summed"),
    ),
    display=display,
    figure="main",
    hunt=Space(
        "tests.claims.toy_claim:scenarios", region, 1, regions=("one length", "several lengths")
    ),
)
