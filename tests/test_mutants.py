"""The mutant suite (tests/mutants/): plausible math slips must turn some verdict.

The default run checks the catalogue itself (cheap): at least 25 mutants, every layer covered, each
mutant's text present exactly once in its file (a refactor that moves the text makes the mutant
stale and this test red, instead of letting the mutant pass unapplied). The slow tier runs CI's
selection (tests/mutants/selection.py: the mutants whose file changed since the last full run and a
rotating share; `SOFTLIN_MUTANTS=all` for the whole catalogue) against their claims at `quick` and
requires all to be killed.
"""

from __future__ import annotations

import json
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
    out = tmp_path / "mutants.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tests.mutants", "--ci", "--jobs", "2", "--json", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    rows = json.loads(out.read_text()) if out.exists() else {}
    # an undecided or crashed mutant is seen (not silent) but not killed: listed, not counted as a
    # kill
    survivors = {
        name: r
        for name, r in rows.items()
        if r["verdict"] == "SURVIVED" and name not in catalogue.SURVIVORS
    }
    assert proc.returncode == 0 and not survivors, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert rows, proc.stdout[-4000:] + proc.stderr[-2000:]
    revived = [
        name
        for name in catalogue.SURVIVORS
        if rows.get(name, {}).get("verdict") not in (None, "SURVIVED")
    ]
    assert not revived, f"now killed, remove from catalogue.SURVIVORS: {revived}"


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
    # the share alone (nothing changed) is about 1/ROTATION of the catalogue, never empty
    monkeypatch.setattr(selection, "changed_files", lambda since: set())
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
