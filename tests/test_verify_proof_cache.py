"""`softlin verify` keeps its proofs across runs in the user's cache (derivations/proof_cache.py),
outside the repository; --no-cache and an empty SOFTLIN_PROOF_CACHE switch it off; `verify --check`
never reads it. Driven with a fake claim whose one check is a proof group's verdict, so what the
cache holds decides the verdict."""

import pytest

from softlin import cli
from softlin.core import budgets, claim as base, registry
from softlin.core.findings import Findings
from softlin.derivations import proof_cache
from softlin.derivations.proof import Proof
from softlin.judge import kinds as judge


@pytest.fixture
def fake(monkeypatch, tmp_path):
    """(calls, new_process): `calls` counts the proofs run; `new_process()` gives the claim a fresh
    proof wrapper, what a new `softlin` process starts with (no in-memory copy)."""
    calls = []
    box = {}

    def fake_proofs():
        calls.append(1)
        return (Proof("x - x = 0", True, 0.0),)

    def new_process():
        box["group"] = proof_cache.cached(fake_proofs)

    def run(scenario, profile, rng):
        (proof,) = box["group"]()
        check = judge.exact(
            "x - x = 0", "symbolic", id="identity", value=int(proof.passed), expected=1
        )
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
    monkeypatch.setattr(registry, "CLAIMS", {CLAIM.id: CLAIM})
    monkeypatch.delenv(proof_cache.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    new_process()
    return calls, new_process


def _verify(out, *extra) -> int:
    return cli.main(["verify", "--out", str(out), "--quiet", *extra])


def test_a_second_run_reads_the_proofs_and_check_proves_them_again(fake, tmp_path, monkeypatch):
    calls, new_process = fake
    folder = tmp_path / "xdg" / "softlin" / "proofs"
    assert proof_cache.default_folder() == folder
    assert _verify(tmp_path / "r") == 0 and calls == [1]
    (stored,) = folder.glob("fake_proofs-*.json")
    new_process()
    assert _verify(tmp_path / "r") == 0 and calls == [1]  # read, not proved
    # the cache decides what a plain run reports: a tampered file is believed ...
    stored.write_text(stored.read_text().replace("true", "false"))
    new_process()
    assert _verify(tmp_path / "tampered") == 1 and calls == [1]
    # ... but not by --check, which proves again and finds the committed certificate reproduced,
    # even when the variable names the folder
    new_process()
    monkeypatch.setenv(proof_cache.ENV, str(folder))
    assert cli.main(["verify", "--check", "--out", str(tmp_path / "r"), "--quiet"]) == 0
    assert calls == [1, 1]


def test_no_cache_and_an_empty_variable_switch_it_off(fake, tmp_path, monkeypatch):
    calls, new_process = fake
    assert _verify(tmp_path / "r", "--no-cache") == 0 and calls == [1]
    new_process()
    monkeypatch.setenv(proof_cache.ENV, "")
    assert _verify(tmp_path / "r") == 0 and calls == [1, 1]
    assert not (tmp_path / "xdg").exists()
    # a folder named by the variable replaces the default one
    new_process()
    monkeypatch.setenv(proof_cache.ENV, str(tmp_path / "mine"))
    assert _verify(tmp_path / "r") == 0 and list((tmp_path / "mine").glob("fake_proofs-*"))
    assert not (tmp_path / "xdg").exists()


def test_an_empty_variable_wins_over_a_chosen_folder(tmp_path, monkeypatch):
    """The mutant harness sets the variable empty: no caller can switch the cache back on."""
    calls = []

    def fake_group():
        calls.append(1)
        return (Proof("1 = 1", True, 0.0),)

    monkeypatch.setenv(proof_cache.ENV, "")
    with proof_cache.use(tmp_path):
        proof_cache.cached(fake_group)()
    assert calls == [1] and not list(tmp_path.iterdir())


def test_a_cache_folder_that_cannot_be_written_leaves_the_run_alone(tmp_path, monkeypatch):
    """The default folder is in the user's home, which may be read-only: the proofs still run."""
    calls = []

    def fake_group():
        calls.append(1)
        return (Proof("1 = 1", True, 0.0),)

    blocker = tmp_path / "a file"
    blocker.write_text("")  # a file where the folder would go: mkdir fails with an OSError
    monkeypatch.delenv(proof_cache.ENV, raising=False)
    with proof_cache.use(blocker / "proofs"):
        assert proof_cache.cached(fake_group)()[0].passed and calls == [1]
    assert blocker.read_text() == ""
