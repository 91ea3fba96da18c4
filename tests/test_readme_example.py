"""The README's worked example is what the program prints: its scenario block, run through the CLI
as a user would, gives the verdict and the passed / judged / all counts the README shows, and the
limit it quotes (seconds are the machine's and are not compared)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from softlin import cli

README = Path(__file__).resolve().parents[1] / "README.md"


def _example() -> tuple[str, str]:
    """(the my.toml block, the lemma-2.1 row of its verdict table) from the README."""
    text = README.read_text()
    block = re.search(r"\n    # my.toml\n((?:    .*\n)+?)\n", text).group(1)
    toml = "\n".join(line[4:] for line in block.splitlines())
    row = re.search(r"\n    (lemma-2\.1 +\w+ +\d+/\d+/\d+) ", text).group(1)
    return toml, row


@pytest.mark.slow  # a standard run of lemma-2.1 (about 15 s on 2 cores)
def test_the_worked_example_prints_what_the_readme_shows(tmp_path, capsys):
    toml, row = _example()
    (tmp_path / "my.toml").write_text(toml)
    out = tmp_path / "out"
    code = cli.main(
        ["verify", "lemma-2.1", "--scenario", str(tmp_path / "my.toml"), "--out", str(out)]
    )
    printed = capsys.readouterr().out
    assert code == 0
    # the claim, its status and passed / judged / all, as the README's row shows them
    assert row.split() in [line.split()[:3] for line in printed.splitlines()], (row, printed)
    cert = json.loads((out / "certificates" / "lemma-2.1.json").read_text())
    assert cert["quantities"]["limit"] == [0.745, -0.33]  # the README's "[0.745, -0.33]"
