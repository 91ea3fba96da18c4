"""Every symbolic proof the suite runs, grouped by derivation module (used by `softlin derive`
and by the claims' symbolic checks). Each group runs once per process, and once per content hash of
the code across processes when SOFTLIN_PROOF_CACHE is set (derivations/proof_cache.py)."""

from __future__ import annotations

from .authors_gradients import authors_experiment_proofs
from .authors_sgd import authors_sgd_proofs
from .catoni import catoni_proofs
from .chains import chain_proofs
from .concentration import concentration_proofs
from .conditional_sampler import conditional_sampler_proofs
from .controls import control_proofs
from .deviation import deviation_proofs
from .fluctuations import fluctuation_proofs
from .gradient_fluctuations import gradient_fluctuation_proofs
from .gronwall import gronwall_proofs
from .icl import icl_proofs
from .lemma21 import lemma21_proofs
from .mixture import mixture_proofs
from .proof import Proof
from .risk import gradient_proofs
from .risk_finite import risk_finite_proofs
from .risk_finite_gradient import risk_finite_gradient_proofs
from .risk_finite_heads import risk_finite_heads_proofs
from .risk_scalar_heads import risk_scalar_head_proofs
from .risk_scalar_variance import risk_scalar_proofs
from .selfnormalised_error import selfnormalised_error_proofs
from .tilt import tilt_proofs
from .tilted_moments import tilted_moment_proofs


GROUPS = {
    "tilt": tilt_proofs,
    "lemma21": lemma21_proofs,
    "mixture": mixture_proofs,
    "concentration": concentration_proofs,
    "controls": control_proofs,
    "icl": icl_proofs,
    "risk_scalar": risk_scalar_proofs,
    "risk_scalar_heads": risk_scalar_head_proofs,
    "authors_sgd": authors_sgd_proofs,
    "gradients": gradient_proofs,
    "gradient_fluctuations": gradient_fluctuation_proofs,
    "tilted_moments": tilted_moment_proofs,
    "deviation": deviation_proofs,
    "catoni": catoni_proofs,
}


GROUPS["fluctuations"] = fluctuation_proofs


GROUPS["authors_experiment"] = authors_experiment_proofs


GROUPS["risk_finite"] = risk_finite_proofs


GROUPS["risk_finite_gradient"] = risk_finite_gradient_proofs


GROUPS["risk_finite_heads"] = risk_finite_heads_proofs


GROUPS["selfnormalised_error"] = selfnormalised_error_proofs


GROUPS["gronwall"] = gronwall_proofs


GROUPS["chains"] = chain_proofs


GROUPS["conditional_sampler"] = conditional_sampler_proofs


def all_proofs() -> dict[str, tuple[Proof, ...]]:
    return {name: group() for name, group in GROUPS.items()}
