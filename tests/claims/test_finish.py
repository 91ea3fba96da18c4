"""The certificate epilogue is written once (issue 39): every claim's `run` ends in
core.finish.finish, and no module under softlin/claims assembles a certificate itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from softlin.core import registry
from softlin.core.claim import Absent
from softlin.core.findings import Findings
from softlin.core.finish import finish, provenance
from softlin.claims.shared import formulas
from softlin.numerics import kernels
from dataclasses import replace

CLAIMS = Path(__file__).resolve().parents[2] / "softlin" / "claims"


def called_names(source: str) -> set[str]:
    """Names (or attribute names) of everything `source` calls."""
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            f = node.func
            out.add(f.id if isinstance(f, ast.Name) else getattr(f, "attr", ""))
    return out


def test_every_claim_ends_in_finish_and_none_assembles_a_certificate():
    for path in sorted(CLAIMS.glob("*/claim.py")):
        assert "finish" in called_names(path.read_text(encoding="utf-8")), path
    for path in sorted(CLAIMS.rglob("*.py")):
        names = called_names(path.read_text(encoding="utf-8"))
        assert "certificate" not in names and "provenance" not in names, path


def test_the_reader_sees_a_direct_certificate_call():
    # Negative control: the epilogue copied back into a claim is found.
    assert "certificate" in called_names("return certificate(CLAIM, s, p, 0, f)\n")
    assert "certificate" in called_names("return claim.certificate(CLAIM, s, p, 0, f)\n")


def test_finish_takes_the_seed_display_and_provenance():
    claim = registry.get("thm-5.2")
    cert = finish(claim, {"seed": 7, "icl": {}}, "quick", Findings())
    latex, mathml = formulas.for_claim("thm-5.2")
    assert cert["seed"] == 7 and cert["scenario"] == {"seed": 7, "icl": {}}
    assert cert["formulas"] == latex and cert["formulas_mathml"] == mathml and latex
    assert cert["provenance"]["kernels_input_hash"] == kernels.INPUT_HASH
    assert cert["provenance"] == provenance()


def test_finish_takes_given_formulas_and_refuses_a_claim_without_display():
    claim = replace(registry.get("thm-5.2"), display=Absent("typesets its own"))
    cert = finish(
        claim, {"seed": 0}, "quick", Findings(), formulas=({"a": "x"}, {"a": "<mi>x</mi>"})
    )
    assert cert["formulas"] == {"a": "x"} and cert["formulas_mathml"] == {"a": "<mi>x</mi>"}
    with pytest.raises(ValueError, match="declares no displayed formulas"):
        finish(claim, {"seed": 0}, "quick", Findings())
