"""The evaluation pieces of the authors' SGD (authors_gradients.evaluation_proofs) as their own
proof group, apart from the authors' experiment."""

from __future__ import annotations

from . import authors_gradients
from .group import Group
from .proof import Proof
from .proof_cache import cached


@cached
def authors_sgd_proofs() -> tuple[Proof, ...]:
    """Evaluation pieces of the authors' SGD (authors_gradients.evaluation_proofs)."""
    return tuple(authors_gradients.evaluation_proofs())


GROUP = Group(
    "authors_sgd",
    title="Per-prompt SGD gradients of the authors' one-head models",
    hypotheses="one prompt of L tokens, scores s_i = x_i^T x_q, squared loss without the factor "
    "1/2",
    proofs=authors_sgd_proofs,
    parts=("authors_gradients",),
    # its kernels show with the authors' experiment, whose proofs cover the rest of the module
    kernel_parts=(),
)
