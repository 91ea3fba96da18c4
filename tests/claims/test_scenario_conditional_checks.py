"""Checks that a scenario does not reach are kept in its certificate, unjudged, with the reason
(issue 40 item 6), not dropped: here finite-prompt-risk's isotropic-only checks (C1's expansion,
the heuristic's optimum, the two heads, the rate), reached as a user does (a TOML scenario with a
non-identity `[scalar] sigma`, through the CLI)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from softlin.claims.finite_prompt_risk import exact

REPO = Path(__file__).resolve().parents[2]
PLACEHOLDERS = (exact.EXPANSION, exact.HEURISTIC_OPTIMUM, *exact.TWO_HEADS, exact.RATE)


def test_each_placeholder_names_the_check_an_isotropic_scenario_judges():
    """The committed (isotropic) certificate judges every check a placeholder stands for, under
    the same id, kind and unit, and a name the placeholder's begins."""
    cert = json.loads((REPO / "reports/certificates/finite-prompt-risk.json").read_text())
    judged = {c["id"]: c for c in cert["checks"]}
    for name, kind, id, unit in PLACEHOLDERS:
        check = judged[f"finite-prompt-risk/{id}"]
        assert check.get("judged", True) and check["passed"] is not None, id
        assert (check["kind"], check["unit"]) == (kind, unit), id
        assert check["name"].startswith(name), (check["name"], name)


@pytest.mark.slow
def test_a_non_isotropic_scenario_keeps_the_isotropic_checks_unjudged(tmp_path):
    """~25 s of CPU at quick."""
    scenario = tmp_path / "anisotropic.toml"
    scenario.write_text(
        "seed = 0\n[scalar]\nd = 2\nnoise = 0.1\nmu = [-1.0]\nomega = [0.25]\n"
        "L = [25, 50, 100]\nsigma = [[1.2, 0.3], [0.3, 0.8]]\n"
    )
    out = tmp_path / "out"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "softlin.cli",
            "verify",
            "finite-prompt-risk",
            "--scenario",
            str(scenario),
            "--profile",
            "quick",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode in (0, 1), run.stderr
    (path,) = out.rglob("finite-prompt-risk.json")
    checks = {c["id"]: c for c in json.loads(path.read_text())["checks"]}
    for _, _, id, _ in PLACEHOLDERS:
        check = checks[f"finite-prompt-risk/{id}"]
        assert check["judged"] is False and check["passed"] is None
        assert "isotropic inputs only" in check["reason"]
