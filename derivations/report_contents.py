"""What the derivation report says about each proof group: a title, the hypotheses the derivation
works under, its derived results (Displays of the derivations' own SymPy objects), the chain of
steps for the key derivations (chains.py), and the emitted kernels that come from it.

report.py prints this as Markdown (LaTeX), softlin/render/derivations_page.py as HTML (MathML). Both
head the page with `content_hash`, a fingerprint of what they show, so the page changes when what it
shows changes and not when the derivations' source changes otherwise (a comment, a proof's timing).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

import sympy as sp

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


def _kernel_record(spec) -> list:
    args = [sp.srepr(a) for a in spec.args]
    return [spec.name, args, spec.doc, spec.source, spec.returns, sp.srepr(spec.expr)]


def _display_record(d) -> list:
    where = [[sp.srepr(a), rel, sp.srepr(b)] for a, rel, b in d.where]
    return [sp.srepr(d.lhs), d.relation, sp.srepr(d.rhs), where, d.note]


def _section_record(s: Section) -> list:
    results = [[name, _display_record(d)] for name, d in s.results.items()]
    chain_steps = [
        [title, [[st.text, sp.srepr(st.lhs), sp.srepr(st.rhs), st.proof.passed] for st in steps]]
        for title, steps in s.chains
    ]
    kernels = [_kernel_record(spec) for spec in s.kernels]
    proofs = [[p.statement, p.passed] for p in s.proofs]
    return [s.group, s.title, s.hypotheses, results, chain_steps, kernels, proofs]


def content_hash(body: list[Section], orphans: list) -> str:
    """SHA-256 of what the derivation report shows, in its order: per section the group, title,
    hypotheses, derived results, chains (each step's text, its two sides and whether it was proved),
    kernels (name, arguments, doc, source module, result shape, expression) and proofs (statement,
    proved or not), then the kernels no group claims. Expressions enter as `sp.srepr`, their exact
    tree; a proof's seconds and unreduced residual, which the report does not show, stay out."""
    record = [_section_record(s) for s in body] + [[_kernel_record(spec) for spec in orphans]]
    return hashlib.sha256(json.dumps(record).encode()).hexdigest()
