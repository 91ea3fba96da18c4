"""The derived formulas a claim's certificate shows, from derivations/display.py printed by
softlin/mathml.py as LaTeX (`formulas`) and presentation MathML (`formulas_mathml`): one SymPy
object per formula, so the two fields cannot disagree and no page falls back to raw LaTeX."""

from __future__ import annotations

from functools import lru_cache

from ..derivations import display
from ..mathml import formula_dicts

DISPLAYS = {
    "prop-3.1": display.prop31,
    "asm-3.3": display.asm33,
    "prop-3.4": display.prop34,
    "thm-4.3": display.thm43,
    "thm-5.2": display.thm52,
    "finite-prompt-risk": display.finite_prompt_risk,
    "authors-experiment": display.authors_experiment_,
}


@lru_cache(maxsize=None)
def _cached(claim_id: str) -> tuple[dict, dict]:
    return formula_dicts(DISPLAYS[claim_id]())


def for_claim(claim_id: str) -> tuple[dict, dict]:
    """({name: LaTeX}, {name: MathML}) of the claim's displayed formulas (fresh dicts)."""
    latex, mathml = _cached(claim_id)
    return dict(latex), dict(mathml)
