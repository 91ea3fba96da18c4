"""What `softlin derive` emits: one KernelSpec per numeric kernel, built from derived expressions.

Each derivation module declares its kernels as `kernel_specs()` beside its builders; `specs()`
gathers them from the modules listed here.
"""

from __future__ import annotations

from . import authors_experiment, authors_gradients, catoni, concentration, controls, deviation
from . import fluctuations, fluctuations_bound, fluctuations_exponent, fluctuations_one_token
from . import fluctuations_power, fluctuations_product, gradient_fluctuations, icl_endpoint
from . import icl_hessian, icl_kernels, icl_risk, jacobians, lemma21, mixture, risk, risk_finite
from . import risk_finite_gradient, risk_finite_heads, risk_scalar, risk_scalar_heads
from . import risk_scalar_variance, selfnormalised_error
from .kernel_spec import KernelSpec

__all__ = ["KernelSpec", "specs"]

MODULES = (
    authors_experiment,
    authors_gradients,
    catoni,
    concentration,
    controls,
    deviation,
    fluctuations,
    fluctuations_bound,
    fluctuations_exponent,
    fluctuations_one_token,
    fluctuations_power,
    fluctuations_product,
    gradient_fluctuations,
    icl_endpoint,
    icl_hessian,
    icl_kernels,
    icl_risk,
    jacobians,
    lemma21,
    mixture,
    risk,
    risk_finite,
    risk_finite_gradient,
    risk_finite_heads,
    risk_scalar,
    risk_scalar_heads,
    risk_scalar_variance,
    selfnormalised_error,
)


def specs() -> list[KernelSpec]:
    return [spec for module in MODULES for spec in module.kernel_specs()]
