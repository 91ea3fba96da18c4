"""CI output complete (issue 41, item 7), each case a command line (`softlin.cli.main`): JUnit
testcases carry times (the claim's run time shared equally, adding up to the suite's time), the
JUnit properties name the version of every dependency pyproject.toml declares, one GitHub
annotation per changed check, correct plurals, no empty column in the job summary; `--dry-run`
writes memory in one unit style."""

import json
import re
import tomllib
from pathlib import Path

import pytest
from junitparser import JUnitXml

from softlin import cli

pytestmark = pytest.mark.xdist_group("cli-ci-output")

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick_cert(tmp_path_factory):
    out = tmp_path_factory.mktemp("quick")
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--quiet", "--out", str(out)]
    assert cli.main(argv) == 0
    return json.loads((out / "certificates" / "lemma-2.1.json").read_text())


def _tampered(tmp_path, cert, check=True, quantity=False) -> Path:
    """A certificates folder holding `cert` with one check's value (and/or one quantity) changed
    by half, as a hand edit or a changed computation would."""
    cert = json.loads(json.dumps(cert))
    if check:
        target = next(c for c in cert["checks"] if isinstance(c["value"], float) and c["value"])
        target["value"] *= 1.5
    if quantity:
        _scale_first_float(cert["quantities"])
    out = tmp_path / "reports"
    (out / "certificates").mkdir(parents=True)
    (out / "certificates" / "lemma-2.1.json").write_text(json.dumps(cert, indent=2))
    return out


def _scale_first_float(node) -> bool:
    """Multiply the first non-zero float found in `node` (nested dicts and lists) by 1.5."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        if isinstance(value, float) and value:
            node[key] = value * 1.5
            return True
        if isinstance(value, (dict, list)) and _scale_first_float(value):
            return True
    return False


def _check(out, tmp_path, monkeypatch, capsys):
    summary = tmp_path / "job-summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    junit = tmp_path / "j.xml"
    argv = ["verify", "--check", "--quiet", "--github", "--junit", str(junit), "--out", str(out)]
    code = cli.main(argv)
    captured = capsys.readouterr()
    errors = [line for line in captured.out.splitlines() if line.startswith("::error")]
    return code, errors, JUnitXml.fromfile(str(junit)), summary.read_text(), captured.err


def _no_empty_cell(table: str) -> None:
    rows = [line for line in table.splitlines() if line.startswith("|")]
    assert rows
    for row in rows:
        assert all(cell.strip() for cell in row.strip().strip("|").split("|")), row


def test_one_changed_number_gives_one_annotation_and_a_complete_junit_report(
    tmp_path, quick_cert, monkeypatch, capsys
):
    """Before: two ::error annotations for one number, every testcase time="0", no
    python-flint (nor matplotlib, hypothesis, python) version, "1 differences", and an empty
    cell in the summary of a run without --check."""
    out = _tampered(tmp_path, quick_cert)
    code, errors, xml, summary, err = _check(out, tmp_path, monkeypatch, capsys)
    assert code == 1
    assert len(errors) == 1 and "would change" in errors[0] and "/battery/" in errors[0]
    assert "1 certificate file checked: 1 would change" in err

    (suite,) = list(xml)
    cases = list(suite)
    assert suite.time > 0 and all(case.time > 0 for case in cases)
    # equal shares of the claim's run, adding up to the suite's time
    assert len({case.time for case in cases}) == 1
    # (the suite's time is written to 3 decimals)
    assert sum(case.time for case in cases) == pytest.approx(suite.time, abs=6e-4)

    props = {p.name: p.value for p in suite.properties()}
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for requirement in declared:
        name = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
        assert props.get(f"version.{name}") not in (None, "", "not installed"), name
    assert "version.python-flint" in props and "version.python" in props

    reproduces = next(case for case in cases if case.name == "certificate reproduces")
    message = reproduces.result[0].message
    assert message.startswith("1 difference; seed 0;"), message

    assert "| certificate |" in summary and "would change (1 difference)" in summary
    _no_empty_cell(summary)


def test_a_changed_quantity_and_a_changed_check_are_annotated_once_each(
    tmp_path, quick_cert, monkeypatch, capsys
):
    out = _tampered(tmp_path, quick_cert, check=True, quantity=True)
    code, errors, _, summary, _ = _check(out, tmp_path, monkeypatch, capsys)
    assert code == 1 and len(errors) == 2
    check_line, certificate_line = errors
    assert "checks[" in check_line and "quantities." not in check_line
    assert "certificate would change" in certificate_line
    assert "quantities." in certificate_line and "checks[" not in certificate_line
    assert "would change (2 differences)" in summary


def test_the_summary_of_a_run_without_check_has_no_empty_column(tmp_path, monkeypatch, capsys):
    summary = tmp_path / "job-summary"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--quiet", "--github"]
    assert cli.main(argv + ["--out", str(tmp_path / "out")]) == 0
    table = summary.read_text()
    assert "certificate" not in table.splitlines()[2]  # the header row
    _no_empty_cell(table)


def test_dry_run_writes_memory_in_one_unit_style(tmp_path, capsys):
    """Before: "384000 B" beside "4.58 MiB". Now binary units, three significant digits."""
    f = tmp_path / "s.toml"
    f.write_text("trials = 600\n")
    argv = ["verify", "lemma-2.1", "prop-3.1", "--scenario", str(f), "--dry-run"]
    assert cli.main(argv + ["--profile", "quick"]) == 0
    assert cli.main(argv) == 0
    lines = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith(("lemma", "prop"))
    ]
    memories = [re.split(r"\s{2,}", line)[2] for line in lines]
    assert len(memories) == 4 and "65.6 KiB" in memories
    for memory in memories:
        assert re.fullmatch(r"\d{1,3}(\.\d+)? (B|KiB|MiB|GiB)", memory), memory
