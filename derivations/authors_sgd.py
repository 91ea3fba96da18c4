"""The evaluation pieces of the authors' SGD (authors_gradients.evaluation_proofs) as their own
proof group, apart from the authors' experiment."""

from __future__ import annotations

from . import authors_gradients
from .proof import Proof
from .proof_cache import cached


@cached
def authors_sgd_proofs() -> tuple[Proof, ...]:
    """Evaluation pieces of the authors' SGD (derivations/authors_gradients.py, evaluation_proofs)."""
    return tuple(authors_gradients.evaluation_proofs())
