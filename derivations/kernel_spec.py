"""The record `softlin derive` emits one kernel from (docs/design.md, "Kernels"): its name,
arguments (SymPy symbols in call order) with the array shapes the emitted code expects, the derived
expression, a one-line docstring, the derivation module it comes from and the shape of the result.
Each derivation module declares its kernels as `kernel_specs() -> list[KernelSpec]` beside its
builders, `source` naming that module; catalogue.kernel_specs() gathers them from the modules the
declared groups file kernels from (Group.kernel_sources).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelSpec:
    name: str
    args: tuple  # SymPy symbols / MatrixSymbols, in call order
    shapes: tuple  # documentation of each argument's array shape
    expr: object  # derived SymPy expression
    doc: str  # one-line mathematics
    source: str  # derivation module, e.g. "lemma21"
    returns: str  # shape of the result
