"""Every verdict can be recomputed by a reader: in every committed certificate each check states its
rule, and `passed` is that rule applied to its `value` and `bound` (softlin/judge/rules.py); the
certificate's family-wise figure is the sum of its statistical decisions' levels; and no module
outside the judge builds a check by hand."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from softlin.judge import levels
from softlin.judge.rules import RULES, decide

REPO = Path(__file__).resolve().parents[2]
CERTIFICATES = sorted((REPO / "reports" / "certificates").glob("*.json"))


def _checks():
    for path in CERTIFICATES:
        cert = json.loads(path.read_text())
        for check in cert["checks"]:
            yield pytest.param(check, id=check["id"])


@pytest.mark.parametrize("check", list(_checks()))
def test_passed_is_the_rule_applied_to_value_and_bound(check):
    assert check.get("rule") in RULES, f"{check['id']} states no rule"
    if not check.get("judged", True):
        assert check["passed"] is None and check["reason"]
        return
    decision = decide(check["rule"], check["value"], check["bound"])
    if check["passed"] is None:
        # undecided: by the rule (a non-finite input) or by a stated reason (a regime not reached)
        assert check.get("reason"), f"{check['id']} is undecided without a reason"
    else:
        assert decision.passed is check["passed"], (check["id"], decision)


@pytest.mark.parametrize("path", CERTIFICATES, ids=[p.stem for p in CERTIFICATES])
def test_every_statistical_decision_states_its_level_and_the_figure_is_their_sum(path):
    cert = json.loads(path.read_text())
    for check in cert["checks"]:
        if check["tier"] == "statistical" and check["kind"] != "control":
            level = check.get("false_alarm")
            assert level and level["kind"] in ("bound", "nominal") and level["assumption"], check
    # certificates write 8 significant digits (softlin/certio.py): the sum of the written alphas
    # agrees with the written sum to that precision
    recomputed = levels.family_wise(cert["checks"])
    assert cert["false_alarm"] == pytest.approx(recomputed, rel=1e-7, abs=0)
    assert "reliability" not in cert  # one family-wise figure, not two


def test_no_module_outside_the_judge_builds_a_check_by_hand():
    """Calls of Check(...) live in softlin/judge only: every claim goes through its kinds."""
    offenders = []
    for path in sorted((REPO / "softlin").rglob("*.py")):
        if "judge" in path.relative_to(REPO / "softlin").parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                if name == "Check":
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not offenders, offenders
