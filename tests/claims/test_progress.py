"""Progress: a bar per claim and per Monte Carlo sweep on a terminal, nothing anywhere else."""

import io

import pytest

from softlin import cli
from softlin.core import claim as base, budgets, progress, registry
from softlin.judge import kinds as judge
from softlin.core.findings import Findings


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def reset_progress():
    yield
    progress.enable(False)


def test_bar_fills_in_proportion_and_clips():
    assert progress.bar(0.5, 10) == "[#####-----]"
    assert (
        progress.bar(0.0, 4) == "[----]"
        and progress.bar(1.7, 4) == "[####]"
        and progress.bar(-1, 4) == "[----]"
    )


def test_status_line_shows_both_bars_and_fits_the_terminal():
    claim = {"name": "mixture", "index": 1, "total": 2, "start": 0.0}
    task = {
        "label": "scenario: Monte Carlo",
        "done": 3,
        "total": 4,
        "fraction": 0.25,
        "item": "L = 1024",
    }
    line = progress.status_line(claim, task, 200, now=75.0)
    assert line == (
        "claims [##--] 2/2 mixture 1:15 | scenario: Monte Carlo [####------------] L = 1024 3/4"
    )
    assert len(progress.status_line(claim, task, 40, now=75.0)) == 39


def test_sweep_moves_the_bar_by_weight_on_a_terminal():
    term = FakeTerminal()
    progress.enable(True, term)
    with progress.claim("lemma-2.1", 0, 1):
        assert list(progress.sweep([16, 48], "MC", weights=[16, 48], item="L")) == [16, 48]
    out = term.getvalue()
    assert "claims [----] 1/1 lemma-2.1" in out  # 0 of 1 claims done, the first running
    assert "MC [----------------] L = 16 0/2" in out  # before the first step
    assert "MC [####------------] L = 48 1/2" in out  # 16 of 64 done
    assert "MC [################] 2/2" in out
    assert out.endswith("\r\033[K")  # the line is cleared after the claim


def test_nothing_is_written_to_a_pipe_or_when_disabled():
    pipe = io.StringIO()
    progress.enable(True, pipe)
    with progress.claim("x", 0, 1):
        list(progress.sweep(range(3), "MC"))
        progress.progress("free text")
    term = FakeTerminal()
    progress.enable(False, term)
    list(progress.sweep(range(3), "MC"))
    assert pipe.getvalue() == "" and term.getvalue() == ""


def test_sweep_rejects_weights_that_do_not_match_the_items():
    with pytest.raises(ValueError, match="weights"):
        list(progress.sweep([1, 2], "MC", weights=[1]))


def _fake_claim():
    def run(scenario, profile, rng):
        for _ in progress.sweep([16, 64], "fake: Monte Carlo", weights=[16, 64], item="L"):
            pass
        check = judge.exact("a check", "symbolic", id="trivial", value=1, expected=1)
        return base.certificate(CLAIM, scenario, profile, scenario["seed"], Findings([check]))

    CLAIM = base.Claim(
        "fake-claim",
        "A fake claim",
        "Nothing.",
        (),
        run,
        lambda: {"seed": 0},
        frozenset({"seed"}),
        validate=lambda s: s,
        estimate=lambda s, p: budgets.Estimate("fake-claim", 1.0, 0.0, "one unit"),
    )
    return CLAIM


@pytest.mark.parametrize("quiet", [False, True])
def test_verify_draws_bars_on_a_terminal_unless_quiet_and_prints_the_timed_table(
    monkeypatch, tmp_path, capsys, quiet
):
    claim = _fake_claim()
    monkeypatch.setattr(registry, "CLAIMS", {claim.id: claim})
    term = FakeTerminal()
    monkeypatch.setattr("sys.stderr", term)
    monkeypatch.setenv("COLUMNS", "200")  # the line is cut to the terminal's width: fix it
    argv = ["verify", "--out", str(tmp_path)] + (["--quiet"] if quiet else [])
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    if quiet:
        assert term.getvalue() == "" and out == ""
    else:
        assert "claims [----] 1/1 fake-claim" in term.getvalue()
        assert "fake: Monte Carlo [###-------------] L = 64 1/2" in term.getvalue()
        lines = out.splitlines()
        assert lines[0].split() == ["claim", "status", "passed/judged/all", "seconds"]
        assert lines[1].split()[:3] == ["fake-claim", "verified", "1/1/1"]
        assert lines[2].split()[0] == "total"


def test_verify_json_to_stdout_is_only_json(monkeypatch, tmp_path, capsys):
    import json

    claim = _fake_claim()
    monkeypatch.setattr(registry, "CLAIMS", {claim.id: claim})
    assert cli.main(["verify", "--out", str(tmp_path), "--json", "-"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["claim"] == "fake-claim"


def test_derive_shows_its_proof_groups_on_a_terminal_and_every_line_fits_the_width(
    monkeypatch, tmp_path, capsys
):
    from softlin.derivations import catalogue, emit
    from softlin.derivations import report as derivation_page

    monkeypatch.setattr(
        catalogue, "GROUPS", {"tilt": lambda: (), "a very long proof group name": lambda: ()}
    )
    monkeypatch.setattr(emit, "staleness_diff", lambda *a, **k: "")
    from softlin.render import derivations_page

    monkeypatch.setattr(derivation_page, "render", lambda proofs: "page\n")
    monkeypatch.setattr(derivations_page, "render_html", lambda proofs: "html page\n")
    (tmp_path / "derivations.md").write_text("page\n")
    (tmp_path / "derivations.html").write_text("html page\n")
    monkeypatch.setenv("COLUMNS", "50")
    term = FakeTerminal()
    monkeypatch.setattr("sys.stderr", term)
    assert cli.main(["derive", "--check", "--out", str(tmp_path)]) == 0
    drawn = term.getvalue()
    assert "derive: proofs [--------" in drawn and "group = tilt" in drawn
    lines = [part.replace("\033[K", "") for part in drawn.split("\r")]
    assert lines and all(len(line) <= 49 for line in lines)
    assert "up to date" in capsys.readouterr().out


def test_the_line_fits_any_terminal_width():
    claim = {"name": "authors-experiment", "index": 8, "total": 9, "start": 0.0}
    task = {
        "label": "correct generator: evaluation",
        "done": 3,
        "total": 7,
        "fraction": 0.4,
        "item": "L = 100",
    }
    for columns in (10, 20, 41, 80, 132):
        assert len(progress.status_line(claim, task, columns, now=5.0)) <= columns - 1


def test_the_heartbeat_line_says_how_far_the_claim_has_got():
    claim = {"name": "prop-3.4", "index": 3, "total": 9, "start": 100.0, "estimate": 65.0}
    task = {"label": "regime Monte Carlo", "done": 2, "total": 5, "fraction": 0.1, "item": "L = 1"}
    assert progress.heartbeat_line(claim, task, now=170.0, start=0.0) == (
        "softlin: running prop-3.4 (4/9); 1:10 of about 1:05 estimated; 2 of 5 steps of regime "
        "Monte Carlo done, running L = 1; 2:50 since the start"
    )
    free = {"label": "random generator: SGD step 3000/6000"}
    assert progress.heartbeat_line(claim, free, now=170.0, start=0.0) == (
        "softlin: running prop-3.4 (4/9); 1:10 of about 1:05 estimated; at random generator: "
        "SGD step 3000/6000; 2:50 since the start"
    )
    assert progress.heartbeat_line(None, None, now=61.0, start=0.0) == (
        "softlin: running between claims; 1:01 since the start"
    )


def test_verify_on_a_pipe_beats_with_the_estimate_and_the_sweep_step(monkeypatch, tmp_path):
    """Driven through the CLI: a claim whose sweep stalls on its second step, heartbeats every
    10 ms on a pipe; a line names the estimate verify planned and the step the claim is at."""
    import dataclasses
    import time

    claim = _fake_claim()

    def slow_run(scenario, profile, rng):
        for L in progress.sweep([16, 64, 256], "fake: Monte Carlo", item="L"):
            if L == 64:
                time.sleep(0.3)
        progress.progress("fake: formulas")
        time.sleep(0.1)
        check = judge.exact("a check", "symbolic", id="trivial", value=1, expected=1)
        return base.certificate(claim, scenario, profile, scenario["seed"], Findings([check]))

    claim = dataclasses.replace(
        claim,
        run=slow_run,
        estimate=lambda s, p: budgets.Estimate("fake-claim", 7.5e7, 0.0, "units"),
    )
    monkeypatch.setattr(registry, "CLAIMS", {claim.id: claim})
    monkeypatch.setattr(progress, "HEARTBEAT_SECONDS", 0.01)
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    assert cli.main(["verify", "--out", str(tmp_path), "--no-cache"]) == 0
    lines = pipe.getvalue().splitlines()
    seconds = 7.5e7 * budgets.SECONDS_PER_UNIT
    estimated = f"0:00 of about {int(seconds) // 60}:{int(seconds) % 60:02d} estimated"
    assert any(
        line.startswith(f"softlin: running fake-claim (1/1); {estimated}; 1 of 3 steps of fake: ")
        and "Monte Carlo done, running L = 64; " in line
        for line in lines
    ), lines
    assert any(f"{estimated}; at fake: formulas; " in line for line in lines), lines
