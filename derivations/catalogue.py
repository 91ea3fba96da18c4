"""Every symbolic proof the suite runs, grouped by derivation module (used by `softlin derive`
and by the claims' symbolic checks). Each group runs once per process, and once per content hash of
the code across processes when SOFTLIN_PROOF_CACHE is set (derivations/proof_cache.py)."""

from __future__ import annotations

from . import batched, concentration, controls, lemma21, mixture, tilt
from . import icl_endpoint, icl_gradients, icl_hessian, icl_kernels, icl_risk
from . import risk_scalar, risk_scalar_variance
from . import gradient_fluctuations, jacobians, risk, tilted_moments
from .proof import Proof
from .proof_cache import cached


@cached
def tilt_proofs() -> tuple[Proof, ...]:
    out = list(tilt.matrix_proofs())
    for d, rank in ((1, 1), (2, 2), (2, 1), (3, 3), (3, 2)):
        out += tilt.entry_proofs(d, rank)
    return tuple(out)


@cached
def lemma21_proofs() -> tuple[Proof, ...]:
    out = list(lemma21.matrix_proofs())
    for d, rank in ((1, 1), (2, 2), (2, 1), (3, 3), (3, 2)):
        out += lemma21.entry_proofs(d, rank)
    out += lemma21.output_second_moment_proofs()
    return tuple(out)


@cached
def deviation_proofs() -> tuple[Proof, ...]:
    from . import deviation

    return tuple(deviation.proofs())


@cached
def catoni_proofs() -> tuple[Proof, ...]:
    from . import catoni

    return tuple(catoni.proofs())


@cached
def mixture_proofs() -> tuple[Proof, ...]:
    out = [batched.proof(), mixture.logit_proof()]
    out += mixture.entry_proofs(1, (1, 1))
    out += mixture.entry_proofs(2, (2, 1))
    out += mixture.entry_proofs(1, (1, 1, 1))
    out += mixture.bound_moment_proofs(1, (1, 1), 1)
    out += mixture.bound_moment_proofs(2, (2, 1), 2)
    return tuple(out)


@cached
def concentration_proofs() -> tuple[Proof, ...]:
    return tuple(concentration.proofs())


@cached
def control_proofs() -> tuple[Proof, ...]:
    return tuple(controls.proofs())


@cached
def icl_proofs() -> tuple[Proof, ...]:
    """In-context regression (derivations/icl_*.py): the risk, the flow facts, the emitted forms, the loss
    variance, then the endpoint, transverse rate and alpha range, and the Lipschitz constant's second variation."""
    out = []
    for d in (1, 2):
        out += icl_risk.full_risk_proofs(d)
    for d in (1, 2, 3):
        out += icl_gradients.gradient_proofs(d)
    for d in (1, 2):
        out += icl_kernels.kernel_proofs(d)
    for d in (1, 2, 3):
        out += icl_risk.loss_variance_proofs(d)
    return tuple(out + icl_endpoint.proofs() + icl_hessian.proofs())


@cached
def risk_scalar_proofs() -> tuple[Proof, ...]:
    # the estimator's variance (budget sizing) builds on the risk's step 2
    return tuple(risk_scalar.proofs()) + tuple(risk_scalar_variance.proofs())


@cached
def authors_sgd_proofs() -> tuple[Proof, ...]:
    """Evaluation pieces of the authors' SGD (derivations/authors_gradients.py, evaluation_proofs)."""
    from . import authors_gradients
    return tuple(authors_gradients.evaluation_proofs())


@cached
def risk_scalar_head_proofs() -> tuple[Proof, ...]:
    """The scalar model's terms summed over heads in matrix form (derivations/risk_scalar_heads.py)."""
    from . import risk_scalar_heads
    return tuple(risk_scalar_heads.proofs())


@cached
def gradient_proofs() -> tuple[Proof, ...]:
    out = []
    for d, k in ((1, 1), (2, 2), (3, 2)):
        out += jacobians.limit_proofs(d, k)
    out += jacobians.finite_prompt_proofs(1, 2, 1) + jacobians.finite_prompt_proofs(2, 3, 2)
    out += risk.proofs()
    return tuple(out)


@cached
def gradient_fluctuation_proofs() -> tuple[Proof, ...]:
    return tuple(gradient_fluctuations.proofs())


@cached
def tilted_moment_proofs() -> tuple[Proof, ...]:
    return tuple(tilted_moments.proofs())


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


@cached
def fluctuation_proofs() -> tuple[Proof, ...]:
    """Proposition 3.1 (derivations/fluctuations.py and its parts _exponent, _bound, _product, _one_token, _power)."""
    from . import fluctuations, fluctuations_bound, fluctuations_exponent, fluctuations_product
    from . import fluctuations_one_token, fluctuations_power
    return tuple(fluctuations.proofs()) + tuple(fluctuations_exponent.proofs()) \
        + tuple(fluctuations_bound.proofs()) + tuple(fluctuations_product.proofs()) \
        + tuple(fluctuations_one_token.proofs()) + tuple(fluctuations_power.proofs())


GROUPS["fluctuations"] = fluctuation_proofs


@cached
def authors_experiment_proofs() -> tuple[Proof, ...]:
    """The authors' one-head experiment (derivations/authors_experiment.py, authors_gradients.py)."""
    from . import authors_experiment, authors_gradients
    return tuple(authors_experiment.proofs()) + tuple(authors_gradients.proofs())


GROUPS["authors_experiment"] = authors_experiment_proofs


@cached
def risk_finite_proofs() -> tuple[Proof, ...]:
    """The exact finite-L risk of the authors' one-head model (derivations/risk_finite.py)."""
    from . import risk_finite
    return tuple(risk_finite.proofs())


GROUPS["risk_finite"] = risk_finite_proofs


@cached
def risk_finite_gradient_proofs() -> tuple[Proof, ...]:
    """Gradient of the exact finite-L risk and the SGD noise floor (derivations/risk_finite_gradient.py)."""
    from . import risk_finite_gradient
    return tuple(risk_finite_gradient.proofs())


GROUPS["risk_finite_gradient"] = risk_finite_gradient_proofs


@cached
def risk_finite_heads_proofs() -> tuple[Proof, ...]:
    """The exact finite-L risk of the authors' two-head model (derivations/risk_finite_heads.py)."""
    from . import risk_finite_heads
    return tuple(risk_finite_heads.proofs())


GROUPS["risk_finite_heads"] = risk_finite_heads_proofs


@cached
def selfnormalised_error_proofs() -> tuple[Proof, ...]:
    """The exact finite-L error from A_L and B_L (derivations/selfnormalised_error.py)."""
    from . import selfnormalised_error
    return tuple(selfnormalised_error.proofs())


GROUPS["selfnormalised_error"] = selfnormalised_error_proofs


@cached
def gronwall_proofs() -> tuple[Proof, ...]:
    """Theorem 4.3's transfer bound (derivations/gronwall.py)."""
    from . import gronwall
    return tuple(gronwall.proofs())


GROUPS["gronwall"] = gronwall_proofs


@cached
def chain_proofs() -> tuple[Proof, ...]:
    """The steps of the key derivations shown in the report (derivations/chains.py)."""
    from . import chains
    return tuple(chains.proofs())


GROUPS["chains"] = chain_proofs


@cached
def conditional_sampler_proofs() -> tuple[Proof, ...]:
    """The exact conditional sampler of Gaussian prompts (derivations/conditional_sampler.py)."""
    from . import conditional_sampler
    return tuple(conditional_sampler.proofs())


GROUPS["conditional_sampler"] = conditional_sampler_proofs


def all_proofs() -> dict[str, tuple[Proof, ...]]:
    return {name: group() for name, group in GROUPS.items()}

