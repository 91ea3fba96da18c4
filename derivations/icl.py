"""In-context linear regression (Theorem 5.2) as one proof group: the family's parts are
icl_risk.py, icl_gradients.py, icl_kernels.py, icl_endpoint.py and icl_hessian.py."""

from __future__ import annotations

from . import icl_endpoint, icl_gradients, icl_hessian, icl_kernels, icl_risk
from .group import Group
from .proof import Proof
from .proof_cache import cached


@cached
def icl_proofs() -> tuple[Proof, ...]:
    """In-context regression (derivations/icl_*.py): the risk, the flow facts, the emitted forms,
    the loss variance and its squared deviation's, then the endpoint, transverse rate and alpha
    range, and the Lipschitz constant's second variation."""
    out = []
    for d in (1, 2):
        out += icl_risk.full_risk_proofs(d)
    for d in (1, 2, 3):
        out += icl_gradients.gradient_proofs(d)
    for d in (1, 2):
        out += icl_kernels.kernel_proofs(d)
    for d in (1, 2, 3):
        out += icl_risk.loss_variance_proofs(d)
    for d in (1, 2, 3):
        out += icl_risk.squared_deviation_proofs(d, traces=d < 3)
    return tuple(out + icl_endpoint.proofs() + icl_hessian.proofs())


GROUP = Group(
    "icl",
    title="In-context linear regression (Theorem 5.2): risk, gradients, endpoint, Hessian bound",
    hypotheses="x ~ N(0, Sigma), Sigma invertible, w ~ N(0, I_d), y = w^T x; U = [[A, 0], [0, "
    "0]], V's last row (0, b)",
    proofs=icl_proofs,
    parts=("icl_risk", "icl_gradients", "icl_kernels", "icl_endpoint", "icl_hessian"),
    results="thm52",
)
