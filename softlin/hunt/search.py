"""The hunt: search a claim's hypothesis space for a counterexample (docs/hunt.md); the command
`softlin hunt CLAIM` is softlin/cli/hunt.py.

Hypothesis draws scenarios from the claim's space (its `hunt`, a core/hunt_space.py Space) and
runs the claim at a small budget on each (profile `quick` for `--budget quick`, `standard` for
`--budget standard`, seed S fixed in the scenario, so one scenario always gives the same run and
Hypothesis's shrinker sees a deterministic test). An example is

- outside hypotheses: the claim's validation or its structural limits (core/budgets.py) reject it;
  counted per reason, never run; a structural limit that only the run meets (BeyondReach, e.g.
  thm-4.3's finite-L flow leaving its exact route's tables) is counted the same way;
- a counterexample: some check that is not a control has passed = False (refuted). A check with
  passed = None is undecided (unless it was not judged at all), not a counterexample; a failed
  control (a wrong formula that this scenario's Monte Carlo did not refute although its power was
  >= 0.999) is a miss of the test's power, listed in `control_misses` (its id, name and the
  scenario), not evidence against the claim; an exception on a validated scenario is a
  counterexample too (a crash, the failing check `<claim>/crash`);
- otherwise counted in its region (`Space.region`).

On the first counterexample Hypothesis shrinks it (entries towards 0, smaller d, fewer lengths),
re-running the claim on each candidate; the smallest one that still fails is written as
`<out>/<claim>-counterexample.toml` (re-run it with `softlin verify CLAIM --scenario FILE
--profile quick`) and its failing checks as `<out>/<claim>-counterexample.json`.

Multiple testing. The hunt states a family-wise false alarm `--false-alarm A` (default 1e-3) and
runs every claim at the per-check level alpha = min(1e-6, A / (N k)) (judge.check.false_alarm_level;
every statistical check of every claim reads it), k the space's bound on a run's statistical checks.
A run of the correct claim then has a failed statistical check with probability at most k alpha
(union bound; every run's certificate is checked against it). The hunt reports a counterexample on
correct code only if one of the generate phase's runs false-alarms (shrinking starts after one has),
and at most N runs are made there (enforced here, not left to Hypothesis), so the hunt's family-wise
false alarm is at most N k alpha <= A: printed and in the JSON.
Deterministic checks (symbolic, quadrature) carry no false alarm: their failure is a finding.

Exit codes as `verify`: 0 nothing found, 1 counterexample, 2 bad input, 3 internal error.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from .. import certio
from ..core import execute
from ..core import progress, registry
from ..judge.check import CHECK_FALSE_ALARM, false_alarm_level, judged
from ..numerics.validate import BeyondReach
from ..commands import InternalError

DEFAULT_OUT = Path("reports") / "hunt"
PROFILE = {"quick": "quick", "standard": "standard"}
OUTSIDE = "outside hypotheses"


class Counterexample(Exception):
    """Raised inside the Hypothesis test so that it shrinks; carries the failing run."""

    def __init__(self, scenario: dict, failing: list):
        super().__init__(f"{len(failing)} failing checks")
        self.scenario, self.failing = scenario, failing


def classify(claim, user: dict, budget: str) -> tuple[dict | None, str]:
    """(merged scenario, region) or (None, reason) when the claim's hypotheses or limits
    reject it."""
    try:
        planned = execute.plan(claim, user, PROFILE[budget])
    except ValueError as exc:
        return None, reason_key(str(exc))
    space = claim.hunt
    for label, defective in space.known_defects:
        if defective(planned.validated):
            return None, label
    return planned.scenario, space.region(planned.validated)


def reason_key(message: str) -> str:
    """A rejection message without its values (matrices, numbers), so that reasons can be
    counted."""
    return re.sub(r"(?<![\w.-])-?\d[\d.e+-]*", "#", re.sub(r"\[.*\]", "[...]", message))


def judge(cert: dict) -> dict:
    """The hunt's reading of one certificate (module docstring)."""
    checks = cert["checks"]
    return {
        "failing": [c for c in checks if c["passed"] is False and c["kind"] != "control"],
        "control_misses": [
            {"id": c["id"], "name": c["name"]}
            for c in checks
            if c["passed"] is False and c["kind"] == "control"
        ],
        # a check not judged (a control below its planned power) is neither undecided nor a miss
        "undecided": sum(c["passed"] is None and judged(c) for c in checks),
        # the union bound over its statistical decisions, proven and nominal parts together
        "false_alarm": min(1.0, sum(cert["false_alarm"].values())),
    }


def judge_scenario(claim_id: str, merged: dict, budget: str, seed: int, per_check: float) -> dict:
    """One claim run at the hunt's per-check level, read by `judge`: a pure function of its
    arguments, so a Dask worker can run it (hunt/cluster.py). {"outside": reason} for a structural
    limit met during the run; an exception on a validated scenario is a crash verdict
    (a counterexample)."""
    claim = registry.get(claim_id)  # by id: a Dask worker receives the id
    if merged["seed"] != seed:  # the claim's stream is drawn from the scenario's seed
        raise InternalError(f"hunt seed {seed} differs from the scenario's seed {merged['seed']}")
    try:
        with false_alarm_level(per_check):
            cert = json.loads(certio.dumps(execute.run(claim, merged, PROFILE[budget])))
    except BeyondReach as exc:
        return {"outside": reason_key(str(exc))}
    except Exception as exc:  # a validated scenario must not crash the claim
        return {
            "failing": [
                {
                    "id": f"{claim_id}/crash",
                    "name": "the claim runs on a validated scenario",
                    "kind": "crash",
                    "passed": False,
                    "value": f"{type(exc).__name__}: {exc}",
                    "bound": None,
                    "detail": "an exception, not a verdict",
                }
            ],
            "control_misses": [],
            "undecided": 0,
            "false_alarm": 0.0,
        }
    return judge(cert)


class Hunt:
    """State of one hunt: counters, the run cap of the generate phase, the last counterexample."""

    def __init__(
        self, claim, n: int, seed: int, budget: str, max_shrink: int = 100, level: float = 1e-3
    ):
        self.claim, self.n, self.seed, self.budget, self.max_shrink = (
            claim,
            n,
            seed,
            budget,
            max_shrink,
        )
        self.space = claim.hunt
        self.level = level
        self.per_check = min(CHECK_FALSE_ALARM, level / (n * self.space.statistical_checks))
        self.per_run = self.space.statistical_checks * self.per_check
        self.regions: dict[str, int] = {}
        self.outside: dict[str, int] = {}
        self.runs = self.shrink_runs = self.undecided_runs = self.skipped = 0
        self.control_misses: list = []
        self.false_alarm = 0.0
        self.found: Counterexample | None = None
        self.error = ""

    def test(self, user: dict) -> None:
        if self.error:
            return  # an internal error: stop judging, reported after the run
        user = {**user, "seed": self.seed}
        merged, region = classify(self.claim, user, self.budget)
        if self.found is None and self.runs >= self.n:
            self.skipped += 1  # never more than N judged runs before a failure
            return
        if self.found is not None and self.shrink_runs >= self.max_shrink:
            if (
                user == self.found.scenario
            ):  # Hypothesis replays the smallest failure: keep it failing
                raise self.found
            return  # shrink budget spent: no candidate is accepted any more
        if merged is None:
            if self.found is None:
                self.outside[region] = self.outside.get(region, 0) + 1
            return
        progress.progress(
            f"hunt {self.claim.id}: example {self.runs + 1}/{self.n}"
            if self.found is None
            else f"hunt {self.claim.id}: shrinking (run {self.shrink_runs + 1})"
        )
        verdict = self.judge(user, merged)
        if "outside" in verdict:  # a structural limit met during the run (BeyondReach)
            if self.found is None:
                self.outside[verdict["outside"]] = self.outside.get(verdict["outside"], 0) + 1
            return
        if self.found is None:
            self.runs += 1
            self.regions[region] = self.regions.get(region, 0) + 1
            self.false_alarm += max(verdict["false_alarm"], self.per_run)
            self.undecided_runs += verdict["undecided"] > 0
            self.control_misses += [
                {**miss, "scenario": user} for miss in verdict["control_misses"]
            ]
            if verdict["false_alarm"] > self.per_run * (1 + 1e-9):
                self.error = (
                    f"{self.claim.id}: a run has family-wise false alarm "
                    f"{verdict['false_alarm']:g} above the hunt's stated {self.per_run:g} per run"
                )
                return
        else:
            self.shrink_runs += 1
        if verdict["failing"]:
            self.found = Counterexample(user, verdict["failing"])
            raise self.found

    scenario_judge = staticmethod(judge_scenario)  # what a Dask worker runs (hunt/cluster.py)

    def judge(self, user: dict, merged: dict) -> dict:
        """The verdict of one claim run (judge_scenario), here; hunt/cluster.py replaces it by a
        cluster's."""
        return judge_scenario(self.claim.id, merged, self.budget, self.seed, self.per_check)

    def run(self) -> None:
        from hypothesis import HealthCheck, Phase, given, seed, settings

        @seed(self.seed)
        @settings(
            max_examples=self.n,
            database=None,
            deadline=None,
            derandomize=False,
            phases=(Phase.generate, Phase.shrink),
            suppress_health_check=list(HealthCheck),
            print_blob=False,
            report_multiple_bugs=False,
            verbosity=_quiet(),
        )
        @given(self.space.scenarios(self.budget))
        def hunt_test(user):
            self.test(user)

        try:
            hunt_test()
        except Counterexample as exc:
            self.found = exc  # Hypothesis re-raises the shrunk (last) failing example
        if self.error:
            raise InternalError(self.error)


def supported() -> tuple[str, ...]:
    """The registered claims that declare a hunt space, in the registry's order."""
    return tuple(cid for cid, claim in registry.CLAIMS.items() if claim.hunt is not None)


def _quiet():
    from hypothesis import Verbosity

    return Verbosity.quiet


def summary(h: Hunt, seconds: float) -> dict:
    space = h.space
    out = {
        "format": 1,
        "command": "hunt",
        "claim": h.claim.id,
        "examples": h.n,
        "seed": h.seed,
        "budget": h.budget,
        "profile": PROFILE[h.budget],
        "result": "counterexample" if h.found else "nothing found",
        "runs": h.runs,
        "shrink_runs": h.shrink_runs,
        "seconds": round(seconds, 1),
        "regions": dict(sorted(h.regions.items())),
        OUTSIDE.replace(" ", "_"): dict(sorted(h.outside.items())),
        "undecided_runs": h.undecided_runs,
        "control_misses": h.control_misses,
        "false_alarm": {
            "level": h.level,
            "per_check": h.per_check,
            "per_run": h.per_run,
            "statistical_checks_per_run": space.statistical_checks,
            "family_wise": h.false_alarm,
            "stated": h.n * h.per_run,
            "how": "union bound over the generate phase's claim runs (at most N), each at most its "
            "statistical checks x per_check; per_check = min(1e-6, level / (N x checks))",
        },
    }
    if h.found:
        out["counterexample"] = {"scenario": h.found.scenario, "failing_checks": h.found.failing}
    from ..core.finish import provenance

    out["provenance"] = {**provenance(), "source_commit": source_commit()}
    return out


def source_commit() -> str | None:
    """The git commit of the softlin source that ran the hunt (with "+changes" when its tree
    differs from it), or None outside softlin's own checkout (an installed copy inside another
    repository must not report that repository's commit): a hunt's "nothing found" is a statement
    about that code."""
    root = Path(__file__).resolve().parents[2]  # softlin/hunt/search.py -> the checkout
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        if Path(top).resolve() != root:
            return None
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+changes" if dirty else "")
