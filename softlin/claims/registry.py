"""All claims by id, in the order of the paper. A new claim is one import and one entry here."""

from __future__ import annotations

from . import lemma21, mixture
from .base import Claim

CLAIMS: dict[str, Claim] = {c.id: c for c in (lemma21.CLAIM, mixture.CLAIM)}


def get(claim_id: str) -> Claim:
    try:
        return CLAIMS[claim_id]
    except KeyError:
        raise ValueError(f"unknown claim id {claim_id!r} (known: {', '.join(CLAIMS)})") from None
