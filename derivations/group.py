"""A proof group as its derivation declares it, beside its builders: the one record the catalogue
(catalogue.GROUPS), the derivation report (report_contents.ABOUT, RESULTS), the emitted kernels
(catalogue.kernel_specs) and their filing (report_contents.KERNEL_GROUP) are all read from.

Each group is the attribute GROUP of the module at the top of its family, the module that imports
the others, so the module graph stays acyclic: the derivation's own module when it stands alone
(tilt.py), the family's top otherwise (fluctuations.py, risk.py for jacobians.py,
risk_scalar_variance.py, authors_gradients.py), and a module of its own where no module is the top
(icl.py, authors_sgd.py). catalogue.MODULES lists the declaring modules in the report's order;
tests/derivations/test_registry.py checks that every module defining proofs belongs to a listed
group and that no other module lists the groups again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .proof import Proof


@dataclass(frozen=True)
class Group:
    name: str  # key of catalogue.GROUPS, the report's section id
    title: str  # the report's heading
    hypotheses: str  # what the derivations assume, in words
    proofs: Callable[[], tuple[Proof, ...]]  # the group function, @proof_cache.cached
    parts: tuple[str, ...]  # derivation modules (names) the proofs come from
    # the display.py builder of the derived results the report shows (a name: display.py imports the
    # derivations, so a derivation cannot import it)
    results: str = ""
    # derivation modules whose kernel_specs() are emitted and shown in this group's section
    # (None: parts)
    kernel_parts: tuple[str, ...] | None = None
    # False for a group without a section of its own (the chains' steps show in their groups')
    section: bool = True

    @property
    def kernel_sources(self) -> tuple[str, ...]:
        return self.parts if self.kernel_parts is None else self.kernel_parts
