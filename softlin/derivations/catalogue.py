"""Every symbolic proof the suite runs, grouped by derivation module (used by `softlin derive`
and by the claims' symbolic checks)."""

from __future__ import annotations

from functools import lru_cache

from . import batched, concentration, controls, lemma21, mixture, tilt
from .proof import Proof


@lru_cache(maxsize=None)
def tilt_proofs() -> tuple[Proof, ...]:
    out = list(tilt.matrix_proofs())
    for d, rank in ((1, 1), (2, 2), (2, 1), (3, 3), (3, 2)):
        out += tilt.entry_proofs(d, rank)
    return tuple(out)


@lru_cache(maxsize=None)
def lemma21_proofs() -> tuple[Proof, ...]:
    out = list(lemma21.matrix_proofs())
    for d, rank in ((1, 1), (2, 2), (2, 1), (3, 3), (3, 2)):
        out += lemma21.entry_proofs(d, rank)
    return tuple(out)


@lru_cache(maxsize=None)
def mixture_proofs() -> tuple[Proof, ...]:
    out = [batched.proof(), mixture.logit_proof()]
    out += mixture.entry_proofs(1, (1, 1))
    out += mixture.entry_proofs(2, (2, 1))
    out += mixture.entry_proofs(1, (1, 1, 1))
    return tuple(out)


@lru_cache(maxsize=None)
def concentration_proofs() -> tuple[Proof, ...]:
    return tuple(concentration.proofs())


@lru_cache(maxsize=None)
def control_proofs() -> tuple[Proof, ...]:
    return tuple(controls.proofs())


GROUPS = {
    "tilt": tilt_proofs,
    "lemma21": lemma21_proofs,
    "mixture": mixture_proofs,
    "concentration": concentration_proofs,
    "controls": control_proofs,
}


def all_proofs() -> dict[str, tuple[Proof, ...]]:
    return {name: group() for name, group in GROUPS.items()}
