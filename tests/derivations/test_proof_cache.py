"""The proof cache (derivations/proof_cache.py): keyed by the code's content, read back when the key
matches, off when SOFTLIN_PROOF_CACHE is unset or empty."""

from softlin.derivations import proof_cache
from softlin.derivations.proof import Proof


def _tree(root, body):
    for package in proof_cache.PACKAGES:
        (root / package).mkdir(parents=True, exist_ok=True)
        (root / package / "catalogue.py").write_text(body)
    return root


def test_the_key_changes_with_any_byte_of_the_code(tmp_path):
    a = proof_cache.source_digest(_tree(tmp_path / "a", "x = 1\n"))
    b = proof_cache.source_digest(_tree(tmp_path / "b", "x = 1\n"))
    (tmp_path / "b" / "numerics" / "catalogue.py").write_text("x = 2\n")
    proof_cache.source_digest.cache_clear()
    assert a == b  # paths are relative: two equal trees share a key ...
    assert proof_cache.source_digest(tmp_path / "a") == a
    assert proof_cache.source_digest(tmp_path / "b") != a  # ... and one changed byte gives another


def _group(calls):
    def sample_group():
        calls.append(1)
        return [Proof("x - x = 0", True, 0.5)]

    return sample_group


def test_a_second_process_reads_the_proofs_instead_of_proving_them(tmp_path, monkeypatch):
    monkeypatch.setenv(proof_cache.ENV, str(tmp_path))
    calls = []
    first = proof_cache.cached(_group(calls))()
    assert calls == [1] and len(list(tmp_path.glob("sample_group-*.json"))) == 1
    again = proof_cache.cached(_group(calls))()  # a fresh wrapper: what another process sees
    assert calls == [1] and again == first
    # what it returns is what the file holds: tamper with it and the tampering comes back
    path = next(tmp_path.glob("sample_group-*.json"))
    path.write_text(path.read_text().replace("true", "false"))
    assert proof_cache.cached(_group(calls))()[0].passed is False and calls == [1]
    path.write_text("not json")  # an unreadable file is proved again
    assert proof_cache.cached(_group(calls))()[0].passed is True and calls == [1, 1]


def test_unset_or_empty_the_cache_is_off(tmp_path, monkeypatch):
    calls = []
    monkeypatch.delenv(proof_cache.ENV, raising=False)
    proof_cache.cached(_group(calls))()
    monkeypatch.setenv(proof_cache.ENV, "")
    proof_cache.cached(_group(calls))()
    assert calls == [1, 1] and not list(tmp_path.iterdir())


def test_the_mutant_harness_turns_the_cache_off():
    """A slip installed in memory leaves the files, and so the key, unchanged: the harness must
    switch the cache off, or a cached proof would hide a planted slip."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import os; from tests.mutants import hook, catalogue; hook.install(catalogue.MUTANTS[0]); "
        "print(repr(os.environ['SOFTLIN_PROOF_CACHE']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", script],
        cwd=Path(__file__).resolve().parents[2],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, proof_cache.ENV: "/somewhere"},
    )
    assert out.stdout.strip() == "''"
