"""`softlin verify --check` checks every file of the certificates folder (issue 41, item 2): a
certificate is known by its file name, so a file whose inner claim differs from its name, a file no
claim owns and a second copy of a claim are each an error naming the file (exit 1), a malformed
folder exit 2; the count printed is the number of files checked."""

import json
import shutil

import pytest
from junitparser import Failure, JUnitXml

from softlin import cli

pytestmark = pytest.mark.xdist_group("cli-check-files")


@pytest.fixture(scope="module")
def quick_cert(tmp_path_factory):
    """lemma-2.1's certificate at quick (the cheapest claim to re-run), as a user makes it."""
    out = tmp_path_factory.mktemp("quick")
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--quiet", "--out", str(out)]
    assert cli.main(argv) == 0
    return out / "certificates" / "lemma-2.1.json"


def _folder(tmp_path, files: dict[str, dict | str]):
    folder = tmp_path / "certificates"
    folder.mkdir()
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / name).write_text(text)
    return tmp_path


def test_a_copy_saved_under_another_claims_name_fails_the_check(tmp_path, quick_cert, capsys):
    """Before: exit 0, "1 certificate reproduces" (keyed by the inner claim), and `--check mixture`
    said the file did not exist."""
    out = _folder(tmp_path, {"mixture.json": json.loads(quick_cert.read_text())})
    for extra in ([], ["mixture"]):
        assert cli.main(["verify", "--check", "--quiet", "--out", str(out)] + extra) == 1
        err = capsys.readouterr().err
        assert (
            f"{out}/certificates/mixture.json: holds the certificate of claim 'lemma-2.1', not of "
            "'mixture'" in err
        )
        assert "1 certificate file checked: 1 is not a valid certificate" in err
        assert "reproduces" not in err


def test_a_file_no_claim_owns_fails_the_check(tmp_path, quick_cert, capsys):
    """Before: exit 2, "unknown claim id 'foo'", which named neither the file nor the folder."""
    cert = dict(json.loads(quick_cert.read_text()), claim="foo")
    out = _folder(tmp_path, {"foo.json": cert})
    assert cli.main(["verify", "--check", "--quiet", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{out}/certificates/foo.json: no claim 'foo' owns this file" in err
    assert "1 certificate file checked: 1 is not a valid certificate" in err


def test_a_duplicate_claim_is_named_and_the_good_file_still_checked(tmp_path, quick_cert, capsys):
    cert = json.loads(quick_cert.read_text())
    out = _folder(tmp_path, {"lemma-2.1.json": cert, "mixture.json": cert})
    junit = tmp_path / "j.xml"
    argv = ["verify", "--check", "--quiet", "--out", str(out), "--github", "--junit", str(junit)]
    assert cli.main(argv) == 1
    captured = capsys.readouterr()
    assert (
        "mixture.json: holds the certificate of claim 'lemma-2.1', not of 'mixture' (a "
        "certificate file is named after its claim); lemma-2.1.json holds it too" in captured.err
    )
    assert "2 certificate files checked: 1 is not a valid certificate" in captured.err
    errors = [line for line in captured.out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "mixture.json" in errors[0]
    suites = {s.name: s for s in JUnitXml.fromfile(str(junit))}
    assert set(suites) == {"lemma-2.1", "certificate files"}
    (case,) = list(suites["certificate files"])
    assert case.name.endswith("mixture.json") and isinstance(case.result[0], Failure)
    assert suites["lemma-2.1"].failures == 0


def test_every_valid_file_is_counted(tmp_path, quick_cert, capsys):
    out = _folder(tmp_path, {"lemma-2.1.json": json.loads(quick_cert.read_text())})
    assert cli.main(["verify", "--check", "--quiet", "--out", str(out)]) == 0
    assert capsys.readouterr().out.startswith("1 certificate file checked: it reproduces")


@pytest.mark.parametrize(
    "files, fragment",
    [
        ({"x.json": "{"}, "x.json is not valid JSON"),
        ({"x.json": "[1, 2]"}, "x.json is not a JSON object with a string 'claim'"),
        ({"x.json": {"format": 1}}, "x.json is not a JSON object with a string 'claim'"),
        ({"notes.txt": "hello"}, "no *.json file in"),
    ],
)
def test_a_malformed_folder_exits_2_naming_the_file(tmp_path, capsys, files, fragment):
    out = _folder(tmp_path, files)
    assert cli.main(["verify", "--check", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1


def test_verify_and_report_refuse_a_misnamed_certificate_before_any_work(
    tmp_path, quick_cert, capsys
):
    """The pages would show lemma-2.1 twice, once under mixture's name."""
    out = tmp_path / "out"
    (out / "certificates").mkdir(parents=True)
    shutil.copy(quick_cert, out / "certificates" / "mixture.json")
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--out", str(out)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "mixture.json: holds the certificate of claim 'lemma-2.1'" in err
    assert sorted(p.name for p in (out / "certificates").iterdir()) == ["mixture.json"]
    assert cli.main(["report", "--out", str(out)]) == 2
    assert "holds claim 'lemma-2.1': a certificate file is named after its claim" in (
        capsys.readouterr().err
    )
