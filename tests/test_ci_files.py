"""The CI files a user copies (.github/workflows/softlin-verify.yml, .gitlab-ci.yml; docs/ci.md) are
parsed here and their commands run on one claim, so that they cannot rot: a renamed flag, a
missing report or a step that no longer exits 0 on committed certificates fails this test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import junitparser
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / ".github" / "workflows" / "softlin-verify.yml"
GITLAB = REPO / ".gitlab-ci.yml"
INSTALL = "python -m pip install -e ."
# the claim the commands are run on: cheap at its certificate's profile
CLAIM = "asm-3.3"


def _workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def _gitlab_job() -> dict:
    return yaml.safe_load(GITLAB.read_text())["softlin-verify"]


def test_the_github_workflow_installs_checks_and_uploads_the_junit_report_even_on_failure():
    job = _workflow()["jobs"]["verify"]
    steps = job["steps"]
    assert steps[0]["uses"].startswith("actions/checkout@") and steps[1]["uses"].startswith(
        "actions/setup-python@"
    )
    runs = [s["run"] for s in steps if "run" in s]
    assert runs[0] == INSTALL  # the README's install, without the test extra
    verify = runs[1].split()
    junit = verify[verify.index("--junit") + 1]
    assert verify[:3] == ["softlin", "verify", "--check"] and "--github" in verify
    upload = steps[-1]
    assert upload["uses"].startswith("actions/upload-artifact@") and upload["if"] == "always()"
    assert upload["with"]["path"] == junit
    assert "CLAIMS" in job["env"] and verify[-1] == "$CLAIMS"


def test_the_gitlab_job_reports_the_same_junit_file_it_writes():
    job = _gitlab_job()
    assert job["script"][0] == INSTALL
    verify = job["script"][1].split()
    assert verify[:3] == ["softlin", "verify", "--check"]
    assert job["artifacts"]["reports"]["junit"] == verify[verify.index("--junit") + 1]
    assert job["artifacts"]["when"] == "always" and verify[-1] == "$CLAIMS"


def _run_steps(commands: list[str], tmp_path: Path, env: dict) -> list[subprocess.CompletedProcess]:
    """Each command in bash, as the CI system would, in a checkout-like folder holding the committed
    certificates; the install step is the one `.ci/run` itself runs (pip install -e), so it is not
    repeated here, where it would re-point the test environment's softlin."""
    work = tmp_path / "checkout"
    shutil.copytree(REPO / "reports" / "certificates", work / "reports" / "certificates")
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""), **env}
    done = []
    for command in commands:
        if command == INSTALL:
            continue
        done.append(
            subprocess.run(
                ["bash", "-c", command],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
        )
    return done


# re-runs one claim at its certificate's profile (~10 s) for each of the two files
@pytest.mark.slow
def test_the_github_workflows_steps_pass_on_one_claim_and_leave_a_junit_report(tmp_path):
    job = _workflow()["jobs"]["verify"]
    summary = tmp_path / "job-summary"
    (result,) = _run_steps(
        [s["run"] for s in job["steps"] if "run" in s],
        tmp_path,
        {"CLAIMS": CLAIM, "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "1 certificate file checked: it reproduces" in result.stdout
    report = junitparser.JUnitXml.fromfile(
        str(tmp_path / "checkout" / job["steps"][-1]["with"]["path"])
    )
    (suite,) = list(report)
    assert suite.name == CLAIM and suite.failures == 0
    assert all(
        case.name.startswith(f"{CLAIM}/") for case in suite if case.name != "certificate reproduces"
    )
    assert f"| `{CLAIM}` | **verified** |" in summary.read_text()


@pytest.mark.slow
def test_the_gitlab_jobs_script_passes_on_one_claim(tmp_path):
    job = _gitlab_job()
    (result,) = _run_steps(job["script"], tmp_path, {"CLAIMS": CLAIM})
    assert result.returncode == 0, result.stderr[-2000:]
    report = junitparser.JUnitXml.fromfile(
        str(tmp_path / "checkout" / job["artifacts"]["reports"]["junit"])
    )
    assert [s.name for s in report] == [CLAIM]


def test_a_rotation_share_is_chosen_by_head_or_by_its_number():
    """SOFTLIN_ROTATION=head takes the HEAD commit's turn; a number takes that share (a developer
    trying another commit's turn); anything else is an error, not a silent "run all"."""
    import subprocess

    from tests import rotation

    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=rotation.REPO, capture_output=True, text=True
    ).stdout.strip()
    if head:
        assert rotation.turn("head")[0] == int(head[:12], 16) % rotation.ROTATION
    assert [rotation.turn(str(k))[0] for k in range(rotation.ROTATION)] == [0, 1, 2]
    with pytest.raises(ValueError, match="SOFTLIN_ROTATION"):
        rotation.turn("3")
