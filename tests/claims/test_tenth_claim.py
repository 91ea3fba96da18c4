"""What a tenth claim touches (docs/contributing.md, "Adding a claim"): its package and one entry in
the registry's ORDER. Here the toy claim (tests/claims/toy_claim.py) is given a package
softlin/claims/toy/ (in a temporary folder joined to softlin.claims' search path) and its id is
appended to ORDER; nothing else is edited, and the registry, `softlin list`, the execute path and
the claim graph's premises see it. (A claim with a derivation adds one entry to
derivations/catalogue.py's MODULES: tests/derivations/test_registry.py refuses a derivation with
proofs that is not listed there.)"""

from __future__ import annotations

import softlin.claims
from softlin import cli
from softlin.core import execute, registry

from . import toy_claim

PACKAGE = f'''ID = "toy"
TITLE = {toy_claim.TITLE!r}

from tests.claims.toy_claim import CLAIM  # noqa: E402,F401
'''


def test_a_package_and_one_order_entry_make_a_claim(tmp_path, monkeypatch, capsys):
    registry.get("lemma-2.1")  # CLAIMS loaded before ORDER changes, so that the undo restores it
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "__init__.py").write_text("")
    (tmp_path / "toy" / "claim.py").write_text(PACKAGE)
    monkeypatch.setattr(softlin.claims, "__path__", [*softlin.claims.__path__, str(tmp_path)])
    monkeypatch.setattr(registry, "ORDER", (*registry.ORDER, "toy"))
    monkeypatch.delattr(registry, "CLAIMS")  # built again from ORDER on first use
    assert registry.headlines()[-1] == ("toy", toy_claim.TITLE)  # read without importing it
    assert list(registry.CLAIMS)[-1] == "toy" and registry.get("toy") is toy_claim.CLAIM
    assert cli.main(["list"]) == 0
    assert any(line.split()[:1] == ["toy"] for line in capsys.readouterr().out.splitlines())
    planned = execute.plan(registry.get("toy"), {"toy": {"L": [3, 5]}}, "quick")
    assert execute.run(planned.claim, planned.scenario, "quick")["status"] == "verified"


def test_without_its_order_entry_the_package_is_not_a_claim(tmp_path, monkeypatch):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "claim.py").write_text(PACKAGE)
    monkeypatch.setattr(softlin.claims, "__path__", [*softlin.claims.__path__, str(tmp_path)])
    registry.get("lemma-2.1")
    monkeypatch.delattr(registry, "CLAIMS")
    assert "toy" not in registry.CLAIMS


def test_the_registry_is_restored_after_the_tenth_claim():
    assert "toy" not in registry.CLAIMS and "toy" not in registry.ORDER
