"""All claims by id, in the order of the paper (then the extensions). A new claim is one import
and one entry in ORDER."""

from __future__ import annotations

from . import (asm33, authors_experiment, finite_prompt_risk, lemma21, mixture, prop31, prop34, thm43,
               thm52)
from .base import Claim

ORDER = (
    lemma21,             # section 2
    prop31,              # section 3: output concentration
    asm33, prop34,       # section 3: gradient concentration
    thm43, thm52,        # sections 4 and 5
    mixture,             # extension: Gaussian-mixture tokens
    finite_prompt_risk,  # extension: exact 1/L risk of the authors' scalar model
    authors_experiment,  # the authors' experiment at CPU scale
)
CLAIMS: dict[str, Claim] = {module.CLAIM.id: module.CLAIM for module in ORDER}


def get(claim_id: str) -> Claim:
    try:
        return CLAIMS[claim_id]
    except KeyError:
        raise ValueError(f"unknown claim id {claim_id!r} (known: {', '.join(CLAIMS)})") from None
