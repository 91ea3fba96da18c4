"""The end of every claim's `run`, written once: `finish` assembles the certificate
(core/claim.py, `certificate`) from what the run's steps found, with the claim's displayed
formulas and the provenance of what produced it.

Apart from core/claim.py because it reads the emitted kernels' input hash and prints SymPy to
MathML, which the renderers (they import core/claim.py for the certificate's vocabulary) must not
pull in.
"""

from __future__ import annotations

import importlib.metadata
from functools import lru_cache
from typing import Any, Callable

from .. import __version__
from ..mathml import formula_dicts
from ..numerics import kernels
from .claim import Claim, certificate


def finish(
    claim: Claim,
    scenario: dict,
    profile: str,
    findings: Any,
    *,
    formulas: tuple[dict, dict] | None = None,
    precision: list | None = None,
) -> dict:
    """The certificate a claim's `run` returns, written once (every claim ends with it): the
    `certificate` of what its steps found on `scenario` (the scenario as the certificate shows it,
    with its seed), its displayed formulas and what produced it (`provenance`).

    `formulas` is (LaTeX by name, MathML by name); None takes the claim's declared display
    (Claim.display, `displayed_formulas`), which a claim that typesets its own, or adds to them,
    passes instead. `precision` as in `certificate`."""
    latex, mathml = formulas if formulas is not None else displayed_formulas(claim)
    return certificate(
        claim,
        scenario,
        profile,
        scenario["seed"],
        findings,
        formulas=latex,
        provenance=provenance(),
        formulas_mathml=mathml,
        precision=precision,
    )


def displayed_formulas(claim: Claim) -> tuple[dict, dict]:
    """({name: LaTeX}, {name: MathML}) of the claim's declared display (fresh dicts), both printed
    from the same SymPy objects (softlin/mathml.py), so the two fields cannot disagree."""
    if not callable(claim.display):
        raise ValueError(f"claim {claim.id} declares no displayed formulas ({claim.display!r})")
    latex, mathml = _printed(claim.display)
    return dict(latex), dict(mathml)


@lru_cache(maxsize=None)
def _printed(display: Callable[[], dict]) -> tuple[dict, dict]:
    # Printing SymPy to MathML takes a while; a display function always shows the same formulas.
    return formula_dicts(display())


def provenance() -> dict:
    """What produced the certificate; no clock, no paths (certificates are byte-reproducible)."""
    versions = {}
    for dist in ("numpy", "scipy", "sympy", "mpmath"):
        try:
            versions[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            versions[dist] = "unknown"
    return {"softlin": __version__, "kernels_input_hash": kernels.INPUT_HASH, **versions}
