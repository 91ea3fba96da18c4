"""Committed evidence is not replaced by weaker evidence silently (issue 41, item 4): a run whose
profile, seed or scenario differs from the certificate already in --out is refused before any work,
in one line, unless --replace; and a folder whose README holds the verdict table never ends up with
certificates of two profiles or seeds. Each case is a command line (`softlin.cli.main`) on a
temporary --out folder holding the committed standard certificate of lemma-2.1."""

import json
import shutil
from pathlib import Path

import pytest

from softlin import cli

pytestmark = pytest.mark.xdist_group("cli-evidence")

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "reports" / "certificates"


def _standard_folder(tmp_path, claims=("lemma-2.1",)) -> Path:
    out = tmp_path / "reports"
    (out / "certificates").mkdir(parents=True)
    for cid in claims:
        shutil.copy(COMMITTED / f"{cid}.json", out / "certificates" / f"{cid}.json")
    assert json.loads((out / "certificates" / "lemma-2.1.json").read_text())["profile"] == (
        "standard"
    )
    return out


def _one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_quick_run_does_not_replace_a_standard_certificate_without_replace(tmp_path, capsys):
    """Before: exit 0, and the standard certificate was silently replaced by a quick one."""
    out = _standard_folder(tmp_path)
    before = (out / "certificates" / "lemma-2.1.json").read_bytes()
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--out", str(out)]
    assert cli.main(argv) == 2
    err = _one_line(capsys)
    assert (
        "this run (quick, seed 0, built-in scenario) would replace the certificate of lemma-2.1 "
        f"in {out}/certificates (made at standard, seed 0, built-in scenario); give --replace"
    ) in err
    assert (out / "certificates" / "lemma-2.1.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["certificates"]  # no page written

    assert cli.main(argv + ["--replace", "--quiet"]) == 0
    cert = json.loads((out / "certificates" / "lemma-2.1.json").read_text())
    assert cert["profile"] == "quick" and (out / "lemma-2.1.md").is_file()


@pytest.mark.parametrize(
    "extra, scenario, run",
    [
        (["--seed", "1"], None, "standard, seed 1, built-in scenario"),
        ([], "trials = 500\n", "standard, seed 0, a user scenario"),
    ],
)
def test_another_seed_or_scenario_is_refused_too(tmp_path, capsys, extra, scenario, run):
    out = _standard_folder(tmp_path)
    if scenario:
        (tmp_path / "mine.toml").write_text(scenario)
        extra = extra + ["--scenario", str(tmp_path / "mine.toml")]
    assert cli.main(["verify", "lemma-2.1", "--dry-run", "--out", str(out)] + extra) == 2
    assert f"this run ({run}) would replace the certificate of lemma-2.1" in _one_line(capsys)


def test_the_same_profile_seed_and_scenario_is_no_replacement(tmp_path, capsys):
    """A plain `softlin verify` in a checkout re-runs the committed certificates: not refused."""
    out = _standard_folder(tmp_path)
    assert cli.main(["verify", "lemma-2.1", "--dry-run", "--out", str(out)]) == 0


def test_a_readme_verdict_table_never_mixes_profiles(tmp_path, capsys):
    """Before: the README's table read "`quick`, seed 0; `standard`, seed 0". Now --replace replaces
    a certificate, but not into a folder whose README would then show two profiles."""
    out = _standard_folder(tmp_path, ("lemma-2.1", "mixture"))
    readme = tmp_path / "README.md"
    readme.write_text("# r\n\n<!-- softlin:verdicts:begin -->\n<!-- softlin:verdicts:end -->\n")
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--replace", "--out", str(out)]
    assert cli.main(argv) == 2
    assert (
        f"{readme}'s verdict table would mix certificates of quick, seed 0 and standard, seed 0"
        in _one_line(capsys)
    )
    # rendering a folder that was mixed by hand is refused as well
    cert = json.loads((out / "certificates" / "mixture.json").read_text())
    (out / "certificates" / "mixture.json").write_text(json.dumps(dict(cert, profile="quick")))
    assert cli.main(["report", "--out", str(out)]) == 2
    assert "would mix certificates of quick, seed 0 and standard, seed 0" in _one_line(capsys)


def test_replace_is_refused_with_check(tmp_path, capsys):
    out = _standard_folder(tmp_path)
    assert cli.main(["verify", "--check", "--replace", "--out", str(out)]) == 2
    assert "drop --replace" in _one_line(capsys)
