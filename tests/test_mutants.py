"""The mutant suite (tests/mutants/): plausible math slips must turn some verdict.

The default run checks the catalogue itself (cheap): at least 25 mutants, every layer covered, each
mutant's text present exactly once in its file (a refactor that moves the text makes the mutant
stale and this test red, instead of letting the mutant pass unapplied). The slow tier runs CI's
selection (tests/mutants/selection.py: the mutants whose file or killing check's module changed
since the last recorded result, those not yet recorded, and a rotating share; `SOFTLIN_MUTANTS=all`
for the whole catalogue) against their claims at `quick` and requires each to be killed (refuted by
a check, or failed by a named test; a near miss confirmed at three seeds) or a known survivor:
a marginal, undecided, crashed or timed-out mutant fails it, listed apart. The default run also
checks the harness's counting (verdicts, exit bits, near misses, timeout, records, selection).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .mutants import catalogue, hook

REPO = Path(__file__).resolve().parents[1]


def test_the_catalogue_holds_at_least_25_mutants_across_the_three_layers():
    assert len(catalogue.MUTANTS) >= 25
    layers = {m.path.split("/")[0] for m in catalogue.MUTANTS}
    assert {"derivations", "numerics", "softlin"} <= layers
    assert len({m.name for m in catalogue.MUTANTS}) == len(catalogue.MUTANTS)


@pytest.mark.parametrize("mutant", catalogue.MUTANTS, ids=lambda m: m.name)
def test_each_mutant_applies_to_exactly_one_place_and_changes_the_source(mutant):
    source = (REPO / mutant.path).read_text()
    assert hook.apply(mutant, source) != source


@pytest.mark.parametrize("mutant", catalogue.MUTANTS, ids=lambda m: m.name)
def test_each_mutant_names_claims_that_exist(mutant):
    from softlin.core import registry

    for cid in mutant.claims:
        registry.get(cid)


def test_a_stale_mutant_is_refused_not_skipped():
    stale = catalogue.Mutant(
        "stale", "numerics/limits.py", "text that is not there", "x", ("lemma-2.1",), "none"
    )
    with pytest.raises(LookupError, match="stale mutant"):
        hook.apply(stale, (REPO / stale.path).read_text())


@pytest.mark.slow
def test_every_mutant_is_killed_at_quick(tmp_path):
    from .mutants import selection

    out = tmp_path / "mutants.json"
    # CI's time budget (tests/mutants/selection.py, docs/ci.md); SOFTLIN_MUTANT_BUDGET=none lifts it
    budget = os.environ.get("SOFTLIN_MUTANT_BUDGET", str(selection.CI_BUDGET_SECONDS))
    limit = [] if budget == "none" else ["--ci-budget-seconds", budget]
    proc = subprocess.run(
        [sys.executable, "-m", "tests.mutants", "--ci", *limit, "--jobs", "2", "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    log = proc.stdout[-4000:] + proc.stderr[-2000:]
    rows = json.loads(out.read_text()) if out.exists() else {}
    assert rows, log
    # only a refutation or a failed named test is a kill: a marginal, undecided, crashed or
    # timed-out mutant is seen (or stopped), not killed, and each is listed apart
    not_killed = {
        verdict: sorted(
            name
            for name, r in rows.items()
            if r["verdict"] == verdict
            and not (verdict == "SURVIVED" and name in catalogue.SURVIVORS)
        )
        for verdict in (
            "marginal",
            "undecided",
            "crashed",
            "timed-out",
            "SURVIVED",
            "STALE",
            "ERROR",
        )
    }
    not_killed = {verdict: names for verdict, names in not_killed.items() if names}
    assert not not_killed, f"not killed: {not_killed}\n{log}"
    assert proc.returncode == 0, log
    # a deferred mutant did not run (it runs at its share's turn at the latest): not revived
    revived = [
        name
        for name in catalogue.SURVIVORS
        if rows.get(name, {}).get("verdict") not in (None, "SURVIVED", "deferred")
    ]
    assert not revived, f"no longer survivors, remove from catalogue.SURVIVORS: {revived}"


def test_known_survivors_are_catalogued_mutants_with_a_reason():
    names = {m.name for m in catalogue.MUTANTS}
    for name, reason in catalogue.SURVIVORS.items():
        assert name in names and len(reason) > 40, name


def test_ci_selection_holds_every_mutant_of_a_changed_file_and_a_rotating_share(monkeypatch):
    from .mutants import selection

    target = catalogue.MUTANTS[5].path
    monkeypatch.setattr(selection, "changed_files", lambda since: {target})
    names, why = selection.select({})
    assert {m.name for m in catalogue.MUTANTS if m.path == target} <= set(names)
    assert len(names) < len(catalogue.MUTANTS) and "share" in why
    # the share alone (nothing changed, every mutant recorded) is about 1/ROTATION of the
    # catalogue, never empty
    monkeypatch.setattr(selection, "changed_files", lambda since: set())
    monkeypatch.setattr(selection, "read_records", lambda: {m.name: {} for m in catalogue.MUTANTS})
    share, _ = selection.select({})
    assert 1 <= len(share) <= len(catalogue.MUTANTS) // selection.ROTATION + 1


def test_a_layout_comment_or_docstring_edit_is_not_a_change_of_code_but_a_slip_is():
    from .mutants import selection

    before = 'def f(a):\n    """Doc."""\n    return a + "xy"  # why\n'
    relaid = 'def f(a):\n    """Another doc,\n    re-flowed."""\n    # why, on its own line\n'
    relaid += '    return (\n        a\n        + "x" "y"\n    )\n'
    assert selection.program(before) == selection.program(relaid)
    assert selection.program(before) != selection.program(before.replace("a +", "2 * a +"))
    assert selection.program(before) != selection.program(before.replace('"xy"', '"x y"'))


def test_ci_selection_is_the_whole_catalogue_on_request_or_without_history(monkeypatch):
    import subprocess as sp
    from .mutants import selection

    every = [m.name for m in catalogue.MUTANTS]
    assert selection.select({"SOFTLIN_MUTANTS": "all"})[0] == every

    def no_git(*args):
        raise sp.CalledProcessError(128, "git", stderr="fatal: bad revision")

    monkeypatch.setattr(selection, "git", no_git)
    names, why = selection.select({})
    assert names == every and "whole catalogue" in why


def test_the_last_full_run_names_a_commit_of_this_history():
    from .mutants import selection

    commit = selection.recorded_commit()
    proc = subprocess.run(
        ["git", "cat-file", "-t", commit], cwd=REPO, capture_output=True, text=True
    )
    if proc.returncode != 0 and "not a git repository" in proc.stderr:
        pytest.skip("not a git checkout")
    assert proc.stdout.strip() == "commit", proc.stderr


def test_only_a_refutation_or_a_failed_test_is_a_kill():
    from .mutants.__main__ import classify

    assert (
        classify({"lemma-2.1": {"status": "refuted"}, "prop-3.1": {"status": "verified"}})
        == "killed"
    )
    assert (
        classify({"lemma-2.1": {"status": "verified"}, "tests": {"status": "failed"}}) == "killed"
    )
    assert classify({"lemma-2.1": {"status": "inconclusive"}}) == "undecided"
    assert (
        classify({"lemma-2.1": {"status": "crashed"}, "prop-3.1": {"status": "inconclusive"}})
        == "crashed"
    )
    assert (
        classify({"lemma-2.1": {"status": "verified"}, "tests": {"status": "verified"}})
        == "SURVIVED"
    )


def _row(verdict, seeds=(0,)):
    return {"verdict": verdict, "seeds": list(seeds), "margin": None, "check": "", "module": ""}


def test_each_kind_of_non_kill_has_its_own_exit_bit_and_only_kills_pass():
    from .mutants.__main__ import EXIT_BITS, exit_status, summary

    assert exit_status({"a": _row("killed"), "b": _row("killed", (0, 1, 2))}) == 0
    known = next(iter(catalogue.SURVIVORS))
    assert exit_status({known: _row("SURVIVED")}) == 0
    assert exit_status({"not-a-known-survivor": _row("SURVIVED")}) == 1
    for verdict in ("undecided", "crashed", "timed-out", "marginal"):
        assert exit_status({"a": _row("killed"), "b": _row(verdict)}) == EXIT_BITS[verdict]
    assert exit_status({"a": _row("crashed"), "b": _row("timed-out")}) == 8 + 16
    assert (
        len({EXIT_BITS[v] for v in ("SURVIVED", "undecided", "crashed", "timed-out", "marginal")})
        == 5
    )
    line = summary({"a": _row("killed"), "b": _row("crashed"), "c": _row("timed-out")})
    assert "killed 1/3" in line and "1 crashed" in line and "1 timed out" in line


def test_a_near_miss_kill_counts_only_when_the_other_two_seeds_kill(monkeypatch):
    from .mutants import __main__ as harness

    near = {
        "prop-3.1": {
            "status": "refuted",
            "caught_by": ["prop-3.1/x (statistical, failed)"],
            "kill": {
                "id": "prop-3.1/x",
                "module": "softlin/judge/kinds.py",
                "margin": 0.05,
                "small": True,
            },
        }
    }
    clear = {"prop-3.1": {"status": "verified", "caught_by": []}}
    for later, verdict, seeds in ((near, "killed", [0, 1, 2]), (clear, "marginal", [0])):
        calls = []

        def fake(name, seed=0, timeout=harness.TIMEOUT, later=later):
            calls.append(seed)
            return (near if seed == 0 else later), 1.0

        monkeypatch.setattr(harness, "spawn", fake)
        row = harness.judge_mutant("fits-weight-not-squared")
        assert calls == [0, 1, 2] and row["verdict"] == verdict and row["seeds"] == seeds
        assert (
            row["check"] == "prop-3.1/x"
            and row["module"] == "softlin/judge/kinds.py"
            and row["margin"] == 0.05
        )
    # a decisive kill is not re-run
    far = {"prop-3.1": {**near["prop-3.1"], "kill": {**near["prop-3.1"]["kill"], "small": False}}}
    calls = []
    monkeypatch.setattr(
        harness, "spawn", lambda n, seed=0, timeout=0: (calls.append(seed), (far, 1.0))[1]
    )
    assert harness.judge_mutant("fits-weight-not-squared")["verdict"] == "killed" and calls == [0]


def test_a_mutant_past_its_timeout_is_stopped_and_reported_timed_out_not_killed():
    from .mutants import __main__ as harness

    # 0.2 s cannot import softlin, let alone run a claim: the process group is killed
    row = harness.judge_mutant("fits-weight-not-squared", timeout=0.2)
    assert row["verdict"] == "timed-out" and row["seconds"] < 30 and not row["check"]
    assert harness.exit_status({"fits-weight-not-squared": row}) == harness.EXIT_BITS["timed-out"]


def test_a_failed_named_test_is_a_decisive_kill_named_by_its_node_id():
    from .mutants.__main__ import kill_of

    node = "tests/numerics/test_significance.py::test_y"
    kill = kill_of({"tests": {"status": "failed", "caught_by": [f"FAILED {node} - assert 0"]}})
    assert kill == {
        "id": node,
        "module": "tests/numerics/test_significance.py",
        "margin": None,
        "small": False,
    }
    assert kill_of({"c": {"status": "inconclusive", "caught_by": []}}) is None
    # a claim's decisive kill is named before the test; a near miss is not, the test is decisive
    claim = {"id": "c/x", "module": "softlin/judge/kinds.py", "margin": 3.0, "small": False}
    both = {
        "c": {"status": "refuted", "caught_by": [], "kill": claim},
        "tests": {"status": "failed", "caught_by": [f"FAILED {node}"]},
    }
    assert kill_of(both) == claim
    both["c"]["kill"] = {**claim, "margin": 0.01, "small": True}
    assert kill_of(both)["id"] == node
    del both["tests"]
    assert kill_of(both)["small"]


def test_record_lines_round_trip_and_name_the_killing_checks_module():
    from .mutants import selection
    from .mutants.__main__ import record_line

    row = {
        **_row("killed", (0, 1, 2)),
        "check": "prop-3.1/fixed/x",
        "module": "softlin/judge/rules.py",
    }
    row["margin"] = 0.0412
    text = (
        record_line("m", row, "0123456789abcdef")
        + "\n"
        + record_line("n", _row("crashed"), "f" * 40)
    )
    records = selection.read_records(text)
    assert records["m"] == {
        "verdict": "killed",
        "check": "prop-3.1/fixed/x",
        "module": "softlin/judge/rules.py",
        "margin": "0.0412",
        "seeds": "0,1,2",
        "commit": "0123456789",
        "seconds": "-",
    }
    assert records["n"]["check"] == records["n"]["module"] == records["n"]["margin"] == "-"
    with pytest.raises(LookupError, match="malformed"):
        selection.read_records("mutant m killed")


def test_every_record_line_names_a_catalogued_mutant():
    """A line for a mutant that has left the catalogue is stale; a mutant without a line (new, or
    merged from another branch) is not an error: CI's selection runs it until it is recorded."""
    from .mutants import selection

    stale = set(selection.read_records()) - {m.name for m in catalogue.MUTANTS}
    assert not stale, stale


def test_a_mutant_is_selected_when_the_module_of_its_killing_check_changes(monkeypatch):
    from .mutants import selection

    names = [m.name for m in catalogue.MUTANTS]
    victim = next(m for m in catalogue.MUTANTS if m.path != "softlin/claims/lemma_2_1/claim.py")
    records = {n: dict.fromkeys(selection.RECORD_FIELDS, "-") for n in names}
    records[victim.name]["module"] = "softlin/claims/lemma_2_1/claim.py"
    monkeypatch.setattr(selection, "read_records", lambda text=None: records)
    monkeypatch.setattr(selection, "changed_files", lambda since: set())
    quiet, _ = selection.select({})
    monkeypatch.setattr(
        selection, "changed_files", lambda since: {"softlin/claims/lemma_2_1/claim.py"}
    )
    moved, why = selection.select({})
    assert victim.name in moved and "1 whose killing check's module changed" in why
    assert set(moved) - set(quiet) <= {victim.name} | {
        m.name for m in catalogue.MUTANTS if m.path == "softlin/claims/lemma_2_1/claim.py"
    }
    # a mutant without a record line (new to the catalogue) is always selected
    del records[names[-1]]
    monkeypatch.setattr(selection, "changed_files", lambda since: set())
    assert names[-1] in selection.select({})[0]


def _failed(rule, value, bound, unit="values", tier="statistical", **kw):
    return {"id": "c/x", "rule": rule, "value": value, "bound": bound, "unit": unit, "tier": tier}


def test_a_margin_is_the_relative_excess_past_the_bound_and_a_near_miss_is_within_the_resolution():
    from .mutants.margins import margin

    # a z statistic: 5.9 against 5.0 is 18 % past but less than 2 units: a near miss; 7.5 is not
    m = margin(_failed("value <= bound", 5.9, 5.0, "|z|"))
    assert m["margin"] == pytest.approx(0.18) and m["small"]
    assert not margin(_failed("value <= bound", 7.5, 5.0, "|z|"))["small"]
    # an error against a tolerance: small below 10 % past it, entrywise the worst entry
    m = margin(_failed("value <= bound", [0.5, 1.05], [1.0, 1.0], "relative error"))
    assert m["margin"] == pytest.approx(0.05) and m["small"]
    assert not margin(_failed("value <= bound", 1.2, 1.0, "relative error"))["small"]
    # a power below its target, a signed deviation past its symmetric tolerance
    assert margin(_failed("value >= bound", 0.9, 1.0, "power"))["margin"] == pytest.approx(0.1)
    assert margin(_failed("|value| <= bound", -3.0, 2.0, "risk"))["margin"] == pytest.approx(0.5)
    # a containment: measured in interval widths (1.5 widths outside is small, 3 is not)
    m = margin(_failed("value in bound", [1.0 + 1.5e-6], [[1.0 - 1e-6, 1.0 + 1e-6]]))
    assert m["small"] and m["margin"] == pytest.approx(5e-7, rel=1e-3)
    assert not margin(_failed("value in bound", [1.0 + 7e-6], [1.0 - 1e-6, 1.0 + 1e-6]))["small"]
    # an exact mismatch has no distance and is never a near miss; a count past 0 is infinitely past
    assert margin(_failed("value == bound", 3, 4, "identities")) == {"margin": None, "small": False}
    assert margin(_failed("value <= bound", 2, 0, "rejections"))["margin"] == float("inf")


def test_the_killing_check_is_the_most_decisive_failed_evidence_check():
    from .mutants.margins import killing_check

    near = {**_failed("value <= bound", 5.5, 5.0, "|z|"), "id": "c/near", "passed": False}
    far = {**_failed("value <= bound", 1.5, 1.0, "relative error"), "id": "c/far", "passed": False}
    consistency = {**far, "id": "c/cons", "tier": "consistency", "value": 100.0}
    unjudged = {**far, "id": "c/unjudged", "judged": False, "value": 100.0}
    passed = {**far, "id": "c/ok", "passed": True}
    assert killing_check([near, far, consistency, unjudged, passed])["id"] == "c/far"
    assert killing_check([near, passed]) == {
        "id": "c/near",
        "margin": pytest.approx(0.1),
        "small": True,
    }
    assert killing_check([consistency, unjudged, passed]) is None


def test_the_module_that_builds_a_check_is_recorded(monkeypatch):
    from softlin.judge import kinds
    from softlin.judge.check import Check

    from .mutants import origins

    monkeypatch.setattr(Check, "__post_init__", Check.__post_init__)  # restored afterwards
    origins.record()
    origins.running("toy")
    kinds.agreement("a", "quadrature", id="here/agreement", error=0.1, tolerance=1.0)
    assert origins.origin("toy/here/agreement") == "tests/test_mutants.py"
    assert origins.origin("toy/not-built") == ""


def test_record_lines_keep_the_mutants_seconds_and_older_lines_read_without_them():
    from .mutants import selection
    from .mutants.__main__ import record_line

    row = {
        **_row("killed"),
        "check": "c/x",
        "module": "tests/mutants/catalogue.py",
        "seconds": 41.6,
    }
    records = selection.read_records(
        record_line("m", row, "0123456789abcdef")
        + "\nmutant old killed c/y tests/mutants/catalogue.py 2.5 0 0123456789\n"
    )
    assert records["m"]["seconds"] == "42" and records["old"]["seconds"] == "-"
    with pytest.raises(LookupError, match="malformed"):
        selection.read_records(
            "mutant m killed c/x tests/mutants/catalogue.py - 0 0123456789 41 extra"
        )


def _fake_records(seconds):
    """A fake LAST_FULL_RUN record: every catalogued mutant killed, with `seconds` each (a dict by
    name, or one number for all)."""
    from .mutants import selection

    return {
        m.name: dict(
            zip(
                selection.RECORD_FIELDS + selection.OPTIONAL_FIELDS,
                ["killed", "c/x", "tests/mutants/catalogue.py", "-", "0", "0123456789"]
                + [str(seconds[m.name] if isinstance(seconds, dict) else seconds)],
            )
        )
        for m in catalogue.MUTANTS
    }


def test_the_ci_budget_runs_the_share_whole_and_fits_the_rest_longest_waiting_first():
    from .mutants import selection

    every = [m.name for m in catalogue.MUTANTS]
    R = selection.ROTATION
    records = _fake_records(100)
    seconds = {n: selection.estimated_seconds(n, records)[0] for n in every}
    assert set(seconds.values()) == {100.0}
    # everything selected (a merge that touched every file), turn 3
    share = [n for i, n in enumerate(every) if i % R == 3]
    run, deferred = selection.fit(every, 3, 100 * len(share) + 250, seconds)
    assert set(share) <= set(run) and len(run) == len(share) + 2
    assert sorted(run + deferred, key=every.index) == every and not set(run) & set(deferred)
    # the two extra are those whose share's turn is furthest away: slice 2 (turn 3 - 1), first
    extra = [n for n in run if n not in share]
    assert all(every.index(n) % R == 2 for n in extra)
    assert extra == [n for i, n in enumerate(every) if i % R == 2][:2]
    # a budget below the share's own cost still runs the share (the guarantee rests on it),
    # nothing else; a generous one defers nothing; a mutant too long is passed over for
    # cheaper ones
    assert selection.fit(every, 3, 0, seconds)[0] == share
    assert selection.fit(every, 3, 1e9, seconds) == (every, [])
    long = {**seconds, next(n for i, n in enumerate(every) if i % R == 2): 1e6}
    run, _ = selection.fit(every, 3, 100 * len(share) + 250, long)
    assert len(run) == len(share) + 2 and all(long[n] == 100 for n in run)
    # the whole catalogue requested (or no history): no budget applies
    assert selection.fit(every, None, 0, seconds) == (every, [])


def test_under_the_budget_every_mutant_runs_within_rotation_consecutive_commits():
    """Consecutive commits have consecutive turns (the first-parent count); a selection that
    never fits (every file changed, budget 0) still runs each mutant at its share's turn."""
    from .mutants import selection

    every = [m.name for m in catalogue.MUTANTS]
    seconds = dict.fromkeys(every, 60.0)
    for first in (0, 5):
        ran = set()
        for commit in range(first, first + selection.ROTATION):
            ran |= set(selection.fit(every, commit % selection.ROTATION, 0, seconds)[0])
        assert ran == set(every)


def test_a_mutant_without_recorded_seconds_is_estimated_from_its_claims_quick_estimates():
    from softlin.core import execute, registry

    from .mutants import selection

    mutant = next(m for m in catalogue.MUTANTS if m.claims == ("thm-5.2",) and not m.tests)
    quick = execute.plan(registry.get("thm-5.2"), {}, "quick").estimate.seconds
    records = _fake_records("-")
    seconds, how = selection.estimated_seconds(mutant.name, records)
    assert how == "estimated" and seconds == pytest.approx(selection.START_SECONDS + quick)
    # a near miss confirmed at three seeds costs three runs of its claims
    records[mutant.name]["seeds"] = "0,1,2"
    assert selection.estimated_seconds(mutant.name, records)[0] == pytest.approx(
        selection.START_SECONDS + 3 * quick
    )
    tested = next(m for m in catalogue.MUTANTS if m.tests)
    assert selection.estimated_seconds(tested.name, records)[0] >= selection.NAMED_TEST_SECONDS
    records[mutant.name]["seconds"] = "33"
    assert selection.estimated_seconds(mutant.name, records) == (33.0, "recorded")


def test_deferred_mutants_are_reported_apart_and_never_counted(monkeypatch, tmp_path, capsys):
    from .mutants import __main__ as harness
    from .mutants import selection

    every = [m.name for m in catalogue.MUTANTS]
    monkeypatch.setattr(
        selection, "select_with_share", lambda environ=None: (every, "everything (fake)", 1)
    )
    monkeypatch.setattr(selection, "read_records", lambda text=None: _fake_records(50))
    monkeypatch.setattr(selection, "git", lambda *a: "f" * 40 + "\n")
    ran = []

    def judged(name, timeout=harness.TIMEOUT):
        ran.append(name)
        return {
            **_row("killed"),
            "check": "c/x",
            "module": "tests/mutants/catalogue.py",
            "seconds": 1.0,
            "detail": "",
        }

    monkeypatch.setattr(harness, "judge_mutant", judged)
    out = tmp_path / "rows.json"
    share = [n for i, n in enumerate(every) if i % selection.ROTATION == 1]
    code = harness.main(
        ["--ci", "--ci-budget-seconds", str(50 * len(share) + 60), "--jobs", "1"]
        + ["--json", str(out), "--record"]
    )
    text = capsys.readouterr().out
    rows = json.loads(out.read_text())
    deferred = [n for n, r in rows.items() if r["verdict"] == "deferred"]
    assert code == 0 and len(ran) == len(share) + 1 and set(share) <= set(ran)
    assert len(deferred) == len(every) - len(ran) and not set(deferred) & set(ran)
    assert f"killed {len(ran)}/{len(ran)}" in text and "deferred (not run, not counted) " in text
    # the record lines name only the mutants that ran, under a warning that the run is partial
    lines = [line for line in text.splitlines() if line.startswith("mutant ")]
    assert len(lines) == len(ran) and "no complete entry" in text
    with pytest.raises(SystemExit):
        harness.main(["--ci-budget-seconds", "10"])
