"""The derived formulas a claim's certificate shows (its `display`, from derivations/display.py),
printed by softlin/mathml.py as LaTeX (`formulas`) and presentation MathML (`formulas_mathml`):
one SymPy object per formula, so the two fields cannot disagree and no page falls back to raw
LaTeX."""

from __future__ import annotations

from typing import Callable

from ...core import registry
from ...core.finish import displayed_formulas


def displayed() -> dict[str, Callable[[], dict]]:
    """{claim id: display function} of the registered claims that declare one (Claim.display)."""
    return {cid: c.display for cid, c in registry.CLAIMS.items() if callable(c.display)}


def for_claim(claim_id: str) -> tuple[dict, dict]:
    """({name: LaTeX}, {name: MathML}) of the registered claim's displayed formulas (fresh dicts;
    core.claim.displayed_formulas, which a claim's `finish` takes by default)."""
    return displayed_formulas(registry.get(claim_id))
