"""The command line, in-process and as a subprocess: exit codes, one-line errors, outputs."""

import json
import re
import os
import subprocess
import sys
from pathlib import Path

import pytest

from softlin import cli
from softlin.derivations import emit

REPO = Path(__file__).resolve().parents[1]


def test_list_names_every_claim(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "lemma-2.1" in out and "mixture" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["verify", "lemma-9.9"], "unknown claim id 'lemma-9.9'"),
        (["verify", "--profile", "huge"], "invalid choice"),
        (["verify", "--seed", "-1", "lemma-2.1"], "--seed -1"),
        (["verify", "--scenario", "/nonexistent.toml"], "does not exist"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2_with_one_line(argv, fragment, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_scenario_errors_exit_2_naming_the_key(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text("d = 2\nwobble = 1\n")
    assert cli.main(["verify", "lemma-2.1", "--scenario", str(bad)]) == 2
    assert "wobble" in capsys.readouterr().err
    bad.write_text('cov = [[1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]]\n')
    assert cli.main(["verify", "lemma-2.1", "--scenario", str(bad)]) == 2
    assert "not positive semidefinite" in capsys.readouterr().err
    bad.write_text("L = [16, ")
    assert cli.main(["verify", "lemma-2.1", "--scenario", str(bad)]) == 2
    assert "not valid TOML" in capsys.readouterr().err


def test_verify_on_a_user_scenario_writes_certificate_and_pages(tmp_path, capsys):
    scen = tmp_path / "mine.toml"
    scen.write_text(
        "d = 2\nmean = [0.5, 0.0]\ncov = [[2.0, 0.0], [0.0, 1.0]]\nU = [[0.3, 0.1], [0.0, 0.2]]\n"
        "V = [[1.0, 0.0], [0.0, 1.0]]\nquery = [1.5, 0.0]\nL = [16, 64, 256]\ntrials = 400\n"
    )
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "verify",
                "lemma-2.1",
                "--scenario",
                str(scen),
                "--profile",
                "quick",
                "--out",
                str(out),
                "--json",
                str(tmp_path / "all.json"),
            ]
        )
        == 0
    )
    cert = json.loads((out / "certificates" / "lemma-2.1.json").read_text())
    assert cert["status"] == "verified"
    assert cert["quantities"]["limit"] == pytest.approx(
        [0.5 + 2.0 * 0.3 * 1.5, 0.0], rel=1e-7
    )  # 8 digits written
    assert (out / "lemma-2.1.md").exists() and (out / "index.md").exists()
    assert json.loads((tmp_path / "all.json").read_text())[0]["claim"] == "lemma-2.1"
    assert "verified" in capsys.readouterr().out


def test_a_control_without_power_is_kept_not_judged_on_the_certificate_pages_and_junit(
    tmp_path, capsys
):
    """d = 1: the transposed-U slip is no slip (U^T = U), so its planned power is 0. The control
    stays in the certificate with judged false and its reason, out of the verdict, and the pages,
    the table and JUnit count it (nothing about it may vanish)."""
    from junitparser import JUnitXml, Skipped

    scen = tmp_path / "d1.toml"
    scen.write_text("d = 1\nL = [16, 64]\ntrials = 100\n")
    out = tmp_path / "out"
    assert (
        cli.main(
            [
                "verify",
                "lemma-2.1",
                "--scenario",
                str(scen),
                "--profile",
                "quick",
                "--out",
                str(out),
                "--junit",
                str(tmp_path / "j.xml"),
            ]
        )
        == 0
    )
    cert = json.loads((out / "certificates" / "lemma-2.1.json").read_text())
    unjudged = [c for c in cert["checks"] if c.get("judged") is False]
    assert [c["id"] for c in unjudged] == ["lemma-2.1/control/transposed-u"]
    assert (
        unjudged[0]["passed"] is None
        and "planned power 0.000000 below 0.999" in unjudged[0]["reason"]
    )
    assert cert["status"] == "verified"
    n = len(cert["checks"])
    assert f"{n - 1}/{n - 1}/{n}" in capsys.readouterr().out
    assert f"| {n - 1} / {n - 1} / {n} |" in (out / "index.md").read_text()
    assert "not judged: planned power 0.000000" in (out / "lemma-2.1.md").read_text()
    case = next(
        c
        for suite in JUnitXml.fromfile(str(tmp_path / "j.xml"))
        for c in suite
        if c.name == unjudged[0]["id"]
    )
    assert isinstance(case.result[0], Skipped) and case.result[0].message.startswith(
        "not judged: planned power"
    )


@pytest.mark.slow  # default-run budget (180 s): a full emission; CI runs derive --check itself
def test_derive_check_fails_with_a_diff_and_the_fix_command_when_stale(
    tmp_path, monkeypatch, capsys
):
    # The staleness path, not the proofs (the slow tier and CI run `derive --check` with every
    # proof): one cheap group stands in for the catalogue.
    from softlin.derivations import catalogue

    monkeypatch.setattr(catalogue, "GROUPS", {"deviation": catalogue.GROUPS["deviation"]})
    stale = tmp_path / "_generated.py"
    stale.write_text(emit.generated_source() + "# hand edit\n")
    monkeypatch.setattr(emit, "GENERATED_PATH", stale)
    monkeypatch.setattr(emit.staleness_diff, "__defaults__", (stale,))
    (tmp_path / "reports").mkdir()
    assert cli.main(["derive", "--check", "--out", str(tmp_path / "reports")]) == 1
    captured = capsys.readouterr()
    assert "-# hand edit" in captured.out and "fix: softlin derive" in captured.err


def _run(args, cwd):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "softlin.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# ~80 s (re-runs every proof): CI's check that the committed kernels and derivation report are fresh
@pytest.mark.slow
def test_subprocess_derive_check_passes_on_the_committed_tree():
    result = _run(["derive", "--check"], REPO)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]


# ~11 s (a real subprocess run; in-process, --json to a file and bad input are covered by the
# default run)
@pytest.mark.slow
def test_subprocess_verify_json_to_stdout_and_bad_claim(tmp_path):
    result = _run(
        ["verify", "mixture", "--profile", "quick", "--out", str(tmp_path), "--json", "-"], tmp_path
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)[0]["status"] == "verified"
    # on a pipe: no status line (no carriage returns), only heartbeat lines: a "running" line a
    # minute (a slow machine) and one line for the finished claim; no estimate line for a run
    # estimated under a minute
    assert "\r" not in result.stderr
    assert re.fullmatch(
        r"(softlin: running mixture \(1/1\); [^\n]* since the start\n)*"
        r"softlin: mixture verified in \d+\.\d s \(1/1 claims done\)\n",
        result.stderr,
    ), result.stderr
    bad = _run(["verify", "nope"], tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert bad.stderr.startswith(
        "softlin: error: unknown claim id 'nope' (known: lemma-2.1, prop-3.1,"
    )


# ~20 s (three quick runs); the JUnit and annotation shapes of a failure stay in tests/test_junit.py
@pytest.mark.slow
def test_verify_check_passes_on_fresh_certificates_and_names_every_changed_one(tmp_path, capsys):
    out = tmp_path / "reports"
    assert (
        cli.main(
            ["verify", "finite-prompt-risk", "--profile", "quick", "--out", str(out), "--quiet"]
        )
        == 0
    )
    path = out / "certificates" / "finite-prompt-risk.json"
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    capsys.readouterr()
    assert cli.main(["verify", "--check", "--out", str(out), "--quiet"]) == 0
    assert "1 certificate file checked: it reproduces at its scenario" in capsys.readouterr().out
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before  # nothing written
    cert = json.loads(path.read_text())
    i = next(
        i
        for i, ch in enumerate(cert["checks"])
        if isinstance(ch["value"], float) and abs(ch["value"]) > 1e-3
    )
    j = next(j for j in range(len(cert["checks"])) if j != i)
    cert["checks"][i]["value"] *= 1.001  # a number beyond the stated precision
    cert["checks"][j]["passed"] = not cert["checks"][j]["passed"]
    path.write_text(json.dumps(cert))
    junit = tmp_path / "verify.xml"
    assert (
        cli.main(
            ["verify", "--check", "--out", str(out), "--quiet", "--junit", str(junit), "--github"]
        )
        == 1
    )
    printed = capsys.readouterr()
    err = printed.err
    ids = cert["checks"][i]["id"], cert["checks"][j]["id"]
    assert f"would change: {path} (seed 0, profile quick)" in err
    assert f"checks[{ids[0]}].value" in err and f"checks[{ids[1]}].passed" in err
    # each changed check is annotated by its id, and once: both changes are in checks, so the
    # certificate has no annotation of its own
    errors = [line for line in printed.out.splitlines() if line.startswith("::error")]
    assert len(errors) == 2
    assert f"::error title={ids[0]}%3A would change,file={path}::" in printed.out
    assert f"::error title={ids[1]}%3A would change,file={path}::" in printed.out
    # the JUnit report as a CI system reads it (junitparser): the tampered certificate is a failure
    # naming both changed entries and the command that reproduces the run
    import junitparser

    xml = junitparser.JUnitXml.fromfile(str(junit))
    suite = next(iter(xml))
    assert suite.name == "finite-prompt-risk" and suite.tests == len(cert["checks"]) + 1
    props = {p.name: p.value for p in suite.properties()}
    assert (
        props["profile"] == "quick"
        and props["seed"] == str(cert["seed"])
        and "kernels_input_hash" in props
    )
    reproduces = next(case for case in suite if case.name == "certificate reproduces")
    failure = reproduces.result[0]
    assert (
        isinstance(failure, junitparser.Failure)
        and "reproduce: softlin verify finite-prompt-risk" in failure.message
    )
    assert f"checks[{ids[0]}].value" in failure.text and f"checks[{ids[1]}].passed" in failure.text
    # the changed checks' own testcases, named by id, fail as "would change" with old and new value
    for check_id in ids:
        (case,) = [case for case in suite if case.name == check_id]
        assert case.result[0].type == "would change" and check_id in case.result[0].message
    refuted = [
        case for case in suite if case.result and isinstance(case.result[0], junitparser.Failure)
    ]
    assert suite.failures == len(refuted) >= 1
    assert cli.main(["verify", "--check", "--profile", "quick", "--out", str(out)]) == 2
    assert "drop --profile" in capsys.readouterr().err


def test_the_readme_commands_block_names_every_option_of_every_subcommand():
    """Generated from the parser (softlin report writes it, report --check fails when stale)."""
    import argparse

    block = cli.commands_block()
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert block.strip() in readme
    parser = cli.build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subs.choices.items():
        assert f"softlin {name}" in block
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in block, (name, flag)
    assert max(len(line) for line in block.splitlines()) <= cli.COMMANDS_WIDTH
