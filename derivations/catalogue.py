"""Every symbolic proof the suite runs and every kernel it emits, gathered as the derivations
declare them (used by `softlin derive` and by the claims' symbolic checks). MODULES is the one list
of the groups: each module named there declares its group as GROUP (derivations/group.py), and
GROUPS, the report's titles, hypotheses and results and the filing of the emitted kernels
(report_contents.py) are read from those declarations. The kernels are the `kernel_specs()` of the
modules the groups file kernels from (Group.kernel_sources), so a kernel is emitted exactly when
the report can show it. Each group runs once per process, and once per content hash of the code
across processes when SOFTLIN_PROOF_CACHE is set (derivations/proof_cache.py)."""

from __future__ import annotations

import importlib
from typing import Callable

from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof

# the modules declaring a group, in the order the derivation report shows the groups
MODULES = (
    "tilt",
    "lemma21",
    "mixture",
    "concentration",
    "controls",
    "icl",
    "risk_scalar_variance",
    "risk_scalar_heads",
    "authors_sgd",
    "risk",
    "gradient_fluctuations",
    "tilted_moments",
    "deviation",
    "catoni",
    "fluctuations",
    "authors_gradients",
    "risk_finite",
    "risk_finite_gradient",
    "risk_finite_heads",
    "selfnormalised_error",
    "gronwall",
    "chains",
    "conditional_sampler",
)

DECLARED: tuple[Group, ...] = tuple(
    importlib.import_module(f"{__package__}.{module}").GROUP for module in MODULES
)

GROUPS = {group.name: group.proofs for group in DECLARED}


def __getattr__(name: str) -> Callable[[], tuple[Proof, ...]]:
    """A group's function by its name (`catalogue.icl_proofs()`), as the claims call it."""
    for group in DECLARED:
        if group.proofs.__name__ == name:
            return group.proofs
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def all_proofs() -> dict[str, tuple[Proof, ...]]:
    return {name: group() for name, group in GROUPS.items()}


def kernel_modules() -> tuple[str, ...]:
    """The derivation modules the declared groups file kernels from, each once, in the report's
    order."""
    return tuple(dict.fromkeys(source for group in DECLARED for source in group.kernel_sources))


def kernel_specs() -> list[KernelSpec]:
    """Every emitted kernel: the `kernel_specs()` of each module of kernel_modules() that defines
    one, in that order (emission and the report order them by name)."""
    out = []
    for name in kernel_modules():
        module = importlib.import_module(f"{__package__}.{name}")
        out += getattr(module, "kernel_specs", list)()
    return out
