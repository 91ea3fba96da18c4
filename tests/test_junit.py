"""The JUnit XML of `softlin verify --junit`, read back by a real consumer (junitparser) and
validated against the layout CI reporters read (tests/data/junit.xsd, by xmlschema)."""

import copy
import json
from pathlib import Path

import junitparser
import pytest
import xmlschema

from softlin import cli
from softlin.cli.junit import document

REPO = Path(__file__).resolve().parents[1]
SCHEMA = xmlschema.XMLSchema(str(REPO / "tests" / "data" / "junit.xsd"))


def _committed(claim_id="lemma-2.1") -> dict:
    return json.loads((REPO / "reports" / "certificates" / f"{claim_id}.json").read_text())


def test_each_check_is_a_testcase_refuted_a_failure_undecided_skipped(tmp_path):
    cert = copy.deepcopy(_committed())
    cert["checks"][0]["passed"] = False
    cert["checks"][1]["passed"] = None
    path = tmp_path / "r.xml"
    path.write_bytes(document([{"cert": cert, "seconds": 1.5}]))
    xml = junitparser.JUnitXml.fromfile(str(path))
    suite = next(iter(xml))
    assert (suite.name, suite.tests, suite.failures, suite.skipped) == (
        "lemma-2.1",
        len(cert["checks"]),
        1,
        1,
    )
    cases = list(suite)
    assert [c.name for c in cases] == [ch["id"] for ch in cert["checks"]]  # named by the stable ids
    assert cert["checks"][2]["name"] in cases[2].system_out
    assert (
        isinstance(cases[0].result[0], junitparser.Failure)
        and "refuted" in cases[0].result[0].message
    )
    assert isinstance(cases[1].result[0], junitparser.Skipped)
    assert all(not c.result for c in cases[2:])  # passed checks carry no result element
    assert f"bound {cert['checks'][2]['bound']:.8g}" in cases[2].system_out


def test_a_verified_run_has_no_failure_and_no_reproduce_case_outside_check(tmp_path):
    path = tmp_path / "r.xml"
    path.write_bytes(
        document([{"cert": _committed(c), "seconds": 0.0} for c in ("lemma-2.1", "asm-3.3")])
    )
    xml = junitparser.JUnitXml.fromfile(str(path))
    assert [s.name for s in xml] == ["lemma-2.1", "asm-3.3"]
    assert sum(s.failures for s in xml) == 0
    assert not any(case.name == "certificate reproduces" for s in xml for case in s)


def test_junit_to_a_missing_folder_is_refused_before_any_work(tmp_path, capsys):
    code = cli.main(
        [
            "verify",
            "lemma-2.1",
            "--junit",
            str(tmp_path / "no" / "r.xml"),
            "--out",
            str(tmp_path / "o"),
        ]
    )
    assert code == 2 and "--junit" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_github_annotations_name_the_claim_and_check_and_write_the_job_summary(tmp_path):
    from softlin.cli.github import commands, emit

    cert = copy.deepcopy(_committed())
    cert["checks"][0]["passed"] = False
    cert["checks"][1]["passed"] = None
    ids = [ch["id"] for ch in cert["checks"]]
    run = {
        "cert": cert,
        "differences": [f"checks[{ids[2]}].value 1 -> 2", "quantities.x 1.0 -> 2.0"],
        "reproduce": "softlin verify lemma-2.1 --seed 0",
        "path": "reports/certificates/lemma-2.1.json",
    }
    lines = commands([run])
    assert lines[0].startswith(
        f"::error title={ids[0]}%3A refuted::" + cert["checks"][0]["name"].replace("%", "%25")
    )
    assert lines[1].startswith(f"::warning title={ids[1]}%3A undecided::")
    assert lines[2].startswith(
        f"::error title={ids[2]}%3A would change,file=reports/certificates/lemma-2.1.json::"
        f"checks[{ids[2]}].value 1 -> 2"
    )
    # each difference annotated once: the check's on the check, the rest on the certificate
    assert len(lines) == 4 and f"checks[{ids[2]}]" not in lines[3]
    assert lines[3].startswith(
        "::error title=lemma-2.1%3A certificate would change,"
        "file=reports/certificates/lemma-2.1.json::quantities.x 1.0 -> 2.0"
    )
    assert "%0Areproduce: softlin verify lemma-2.1 --seed 0" in lines[3] and "\n" not in "".join(
        lines
    )
    summary = tmp_path / "job-summary"
    emit([run], {"GITHUB_STEP_SUMMARY": str(summary)})
    assert "| `lemma-2.1` | **" in summary.read_text() and "would change (2 differences)" in (
        summary.read_text()
    )


def test_github_with_json_to_stdout_is_refused_before_any_work(tmp_path, capsys):
    assert (
        cli.main(["verify", "lemma-2.1", "--github", "--json", "-", "--out", str(tmp_path / "o")])
        == 2
    )
    assert "--github" in capsys.readouterr().err and not (tmp_path / "o").exists()


def test_every_outcome_validates_against_the_junit_schema(tmp_path):
    """A refuted, an undecided, a not-judged and a changed check, and a certificate that would
    change: every element the writer can produce, in one document the schema accepts."""
    cert = copy.deepcopy(_committed())
    checks = cert["checks"]
    checks[0]["passed"] = False
    checks[1]["passed"] = None
    checks[2].update(passed=None, judged=False, reason="budget too small")
    differences = [f"checks[{checks[3]['id']}].value 1 -> 2"]
    runs = [
        {
            "cert": cert,
            "seconds": 2.0,
            "differences": differences,
            "reproduce": "softlin verify lemma-2.1",
        },
        {"cert": _committed("asm-3.3"), "seconds": 1.0, "differences": []},
    ]
    SCHEMA.validate(document(runs))
    SCHEMA.validate(document([{"cert": _committed("thm-5.2"), "seconds": 0.5}]))


@pytest.mark.parametrize("tamper", ["no-suite-name", "negative-count", "output-before-failure"])
def test_the_schema_refuses_a_document_a_ci_reporter_would_misread(tamper):
    """Negative control: the schema check has the power to fail on what a reader would reject."""
    import xml.etree.ElementTree as ET

    cert = copy.deepcopy(_committed())
    cert["checks"][0]["passed"] = False
    root = ET.fromstring(document([{"cert": cert, "seconds": 1.0}]))
    suite = root.find("testsuite")
    if tamper == "no-suite-name":
        del suite.attrib["name"]
    elif tamper == "negative-count":
        suite.set("failures", "-1")
    else:
        case = suite.find("testcase")
        failure = case.find("failure")
        case.remove(failure)
        case.append(failure)
    assert not SCHEMA.is_valid(ET.tostring(root))
