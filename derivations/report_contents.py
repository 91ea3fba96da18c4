"""What the derivation report says about each proof group: a title, the hypotheses the derivation
works under, its derived results (Displays of the derivations' own SymPy objects), the chain of
steps for the key derivations (chains.py), and the emitted kernels that come from it.

report.py prints this as Markdown (LaTeX), softlin/render/derivations_page.py as HTML (MathML).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import catalogue, chains, display

# read from the groups' declarations (catalogue.MODULES): group -> (title, hypotheses), group -> the
# builder of its derived results, derivation module of an emitted kernel -> group
ABOUT = {g.name: (g.title, g.hypotheses) for g in catalogue.DECLARED}
RESULTS = {g.name: getattr(display, g.results) for g in catalogue.DECLARED if g.results}
KERNEL_GROUP = {source: g.name for g in catalogue.DECLARED for source in g.kernel_sources}
_NO_SECTION = {g.name for g in catalogue.DECLARED if not g.section}


@dataclass
class Section:
    group: str
    title: str
    hypotheses: str
    results: dict = field(default_factory=dict)  # name -> Display
    chains: list = field(default_factory=list)  # [(title, [chains.Step])]
    kernels: list = field(default_factory=list)  # [KernelSpec]
    proofs: tuple = ()


def kernel_group(source: str) -> str | None:
    """The proof group whose section shows the kernels emitted from derivation module `source`."""
    return KERNEL_GROUP.get(source)


def sections(proofs: dict, specs) -> tuple[list[Section], list]:
    """(one Section per proof group in `proofs`' order, the kernels no group claims); kernels in the
    order of their names, as emitted."""
    out = {
        g: Section(
            g,
            *ABOUT.get(g, (g, "")),
            results=RESULTS.get(g, dict)(),
            chains=list(chains.chains_for(g)),
            proofs=tuple(items),
        )
        for g, items in proofs.items()
        if g not in _NO_SECTION
    }
    orphans = []
    for spec in sorted(specs, key=lambda spec: spec.name):
        group = kernel_group(spec.source)
        (out[group].kernels.append(spec) if group in out else orphans.append(spec))
    return list(out.values()), orphans
