"""The derived formulas a claim's certificate shows (its `display`, from derivations/display.py),
printed by softlin/mathml.py as LaTeX (`formulas`) and presentation MathML (`formulas_mathml`):
one SymPy object per formula, so the two fields cannot disagree and no page falls back to raw
LaTeX."""

from __future__ import annotations

from functools import lru_cache
from typing import Callable

from ...mathml import formula_dicts
from ...core import registry


def displayed() -> dict[str, Callable[[], dict]]:
    """{claim id: display function} of the registered claims that declare one (Claim.display)."""
    return {cid: c.display for cid, c in registry.CLAIMS.items() if callable(c.display)}


@lru_cache(maxsize=None)
def _cached(claim_id: str) -> tuple[dict, dict]:
    show = registry.get(claim_id).display
    if not callable(show):
        raise ValueError(f"claim {claim_id} declares no displayed formulas ({show!r})")
    return formula_dicts(show())


def for_claim(claim_id: str) -> tuple[dict, dict]:
    """({name: LaTeX}, {name: MathML}) of the claim's displayed formulas (fresh dicts)."""
    latex, mathml = _cached(claim_id)
    return dict(latex), dict(mathml)
