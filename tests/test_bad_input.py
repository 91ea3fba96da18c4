"""Bad input is refused before any work: exit 2, one line naming the value, no traceback, nothing
written, within seconds; an unexpected exception is exit 3 with one line."""

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from softlin import cli
from softlin.cli import verify as cli_verify
from softlin.core import budgets, registry

REPO = Path(__file__).resolve().parents[1]
SECONDS = 5.0  # in-process: parsing, validation and estimates only (measured well under 1 s)


def refused(argv, capsys, fragments, tmp_path):
    """Run the CLI in-process; exit 2, one line with every fragment, fast, nothing written to
    tmp_path/out."""
    start = time.perf_counter()
    code = cli.main(argv)
    elapsed = time.perf_counter() - start
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("softlin: error: ") and err.count("\n") == 1 and "Traceback" not in err, (
        err
    )
    for fragment in fragments:
        assert fragment in err, err
    assert elapsed < SECONDS
    assert not (tmp_path / "out").exists()
    return err


def scenario(tmp_path, text, name="f.toml"):
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return str(path)


def test_a_memory_bomb_is_refused_naming_trials(tmp_path, capsys):
    f = scenario(
        tmp_path, "trials = 1000000000000\nL = [100, 1000000000]\n"
    )  # two lengths: prop-3.1 fits a rate
    for claim in ("lemma-2.1", "prop-3.1", "mixture"):
        refused(
            ["verify", claim, "--scenario", f, "--out", str(tmp_path / "out")],
            capsys,
            [claim, "trials = 1000000000000", "memory"],
            tmp_path,
        )


def test_a_huge_dimension_is_refused_before_any_matrix_is_built(tmp_path, capsys):
    f = scenario(tmp_path, "d = 1000000\n")
    refused(
        ["verify", "lemma-2.1", "--scenario", f, "--out", str(tmp_path / "out")],
        capsys,
        ["d = 1000000", "64"],
        tmp_path,
    )


@pytest.mark.parametrize(
    "text, estimate",
    [
        ("L = [1000000000000000000000000000000]\n", "years"),
        ("L = [1000000000]\ntrials = 200\n", "days"),
    ],
)
def test_work_that_would_take_hours_is_refused_with_the_estimate(tmp_path, capsys, text, estimate):
    f = scenario(tmp_path, text)
    err = refused(
        ["verify", "lemma-2.1", "--scenario", f, "--out", str(tmp_path / "out")],
        capsys,
        ["estimated", estimate, "--max-minutes", "s per token"],
        tmp_path,
    )
    assert "L = [" in err


def test_max_minutes_raises_the_cap():
    f_args = cli.build_parser().parse_args(["verify", "lemma-2.1", "--max-minutes", "1e9"])
    f_args.profile = "standard"
    user = {"L": [1000000000], "trials": 200}
    claim = registry.get("lemma-2.1")
    from softlin.core import scenario as scen

    s = scen.common(scen.merge(claim.default_scenario(), user, claim.scenario_keys))
    e = budgets.estimate("lemma-2.1", s, "standard")
    assert 3600 < e.seconds < 1e9 * 60
    budgets.admit([e], 1e9)  # accepted with the raised cap
    with pytest.raises(ValueError, match="max-minutes"):
        budgets.admit([e], budgets.DEFAULT_MAX_MINUTES)


def test_a_scenario_bad_for_the_second_claim_stops_the_first_from_running(
    tmp_path, capsys, monkeypatch
):
    ran = []
    claim = registry.get("lemma-2.1")
    monkeypatch.setitem(
        registry.CLAIMS, "lemma-2.1", dataclasses.replace(claim, run=lambda *a, **k: ran.append(1))
    )
    # a singular query covariance: fine for lemma-2.1, not for asm-3.3 (positive definite needed)
    f = scenario(tmp_path, "d = 2\nquery_cov = [[1.0, 0.0], [0.0, 0.0]]\n")
    refused(
        ["verify", "lemma-2.1", "asm-3.3", "--scenario", f, "--out", str(tmp_path / "out")],
        capsys,
        ["asm-3.3", "query_cov", "must be positive definite", "singular at its own scale"],
        tmp_path,
    )
    assert ran == []


def test_output_paths_are_checked_before_the_run(tmp_path, capsys):
    refused(
        [
            "verify",
            "lemma-2.1",
            "--json",
            str(tmp_path / "missing" / "all.json"),
            "--out",
            str(tmp_path / "out"),
        ],
        capsys,
        ["--json", "does not exist"],
        tmp_path,
    )
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    refused(
        ["verify", "lemma-2.1", "--out", str(a_file)],
        capsys,
        ["--out", "is a regular file, not a directory"],
        tmp_path,
    )
    refused(
        ["verify", "lemma-2.1", "--out", str(a_file / "below")],
        capsys,
        ["is a regular file, not a directory"],
        tmp_path,
    )
    refused(["report", "--out", str(tmp_path / "out")], capsys, ["no certificates"], tmp_path)


def test_a_directory_or_a_non_utf8_file_as_scenario_is_named(tmp_path, capsys):
    (tmp_path / "adir").mkdir()
    refused(
        ["verify", "--scenario", str(tmp_path / "adir"), "--out", str(tmp_path / "out")],
        capsys,
        ["is a directory"],
        tmp_path,
    )
    f = scenario(tmp_path, b"d = 2\n\xff = 1\n", "latin1.toml")
    refused(
        ["verify", "--scenario", f, "--out", str(tmp_path / "out")],
        capsys,
        ["latin1.toml", "not UTF-8"],
        tmp_path,
    )


def test_a_scenario_without_claims_runs_the_claims_that_read_its_keys(tmp_path, capsys):
    f = scenario(
        tmp_path,
        "seed = 3\n[scalar]\nd = 3\nnoise = 0.1\nmu = [1.0]\nomega = [0.3]\nL = [20, 40]\n",
    )
    args = cli.build_parser().parse_args(
        ["verify", "--scenario", f, "--out", str(tmp_path / "out")]
    )
    claims, scenarios, _ = cli_verify.plan(args)
    assert [c.id for c in claims] == ["finite-prompt-risk"]
    err = capsys.readouterr().err
    assert "runs finite-prompt-risk" in err and "lemma-2.1 does not read [scalar]" in err
    assert "thm-5.2 does not read [scalar]" in err and err.count("\n") == 1
    f = scenario(tmp_path, "d = 2\n[scalar]\nd = 3\n", "mixed.toml")
    refused(
        ["verify", "--scenario", f, "--out", str(tmp_path / "out")],
        capsys,
        [
            "no claim reads every key",
            "lemma-2.1 does not read [scalar]",
            "finite-prompt-risk does not read d",
        ],
        tmp_path,
    )


@pytest.mark.parametrize(
    "claim_id, text, fragment",
    [
        (
            "finite-prompt-risk",
            "[scalar]\nnoise = true\n",
            "scalar.noise = true: scalar.noise is a boolean",
        ),
        ("thm-5.2", "[icl]\neps = [true, 0.1]\n", "icl.eps[0] is a boolean (true), not a number"),
        ("thm-4.3", "[icl]\nL = [10, 10, 30]\n", "icl.L = [10, 10, 30]"),
        # one length was an internal error in thm-5.2's decay fit (exit 3)
        (
            "thm-5.2",
            "[icl]\nL = [100]\n",
            "icl.L = [100] must be a strictly increasing list of at least 2",
        ),
        ("thm-4.3", "[icl]\nL = [100]\n", "at least 2 integers"),
        ("authors-experiment", "[icl]\nL = [1, 10]\n", "integers >= 2"),
        ("lemma-2.1", "delta = 1.0\n", "delta = 1.0"),
        ("lemma-2.1", "seed = true\n", "seed = true: seed is a boolean"),
    ],
)
def test_a_boolean_or_out_of_range_value_is_refused_naming_its_key(
    tmp_path, capsys, claim_id, text, fragment
):
    f = scenario(tmp_path, text)
    argv = ["verify", claim_id, "--scenario", f, "--dry-run", "--out", str(tmp_path / "out")]
    refused(argv, capsys, [fragment], tmp_path)


def test_every_built_in_scenario_is_admitted_at_every_profile(tmp_path):
    for profile in ("quick", "standard", "full"):
        # an empty --out: the committed standard certificates would refuse quick and full
        argv = ["verify", "--profile", profile, "--out", str(tmp_path / "out")]
        args = cli.build_parser().parse_args(argv)
        claims, _, _ = cli_verify.plan(args)
        assert len(claims) == len(registry.CLAIMS)


def test_an_unexpected_exception_is_exit_3_with_one_line(tmp_path, capsys, monkeypatch):
    claim = registry.get("lemma-2.1")

    def boom(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setitem(registry.CLAIMS, "lemma-2.1", dataclasses.replace(claim, run=boom))
    assert cli.main(["verify", "lemma-2.1", "--out", str(tmp_path / "out"), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert err.startswith("softlin: internal error: lemma-2.1: KeyError") and "report" in err
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_the_installed_command_prints_no_traceback(tmp_path):
    f = scenario(tmp_path, "trials = 1000000000000\nL = [1000000000]\n")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "softlin.cli",
            "verify",
            "lemma-2.1",
            "--scenario",
            f,
            "--out",
            str(tmp_path / "out"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        result.returncode == 2
        and result.stderr.count("\n") == 1
        and "Traceback" not in result.stderr
    )
    assert not (tmp_path / "out").exists()
