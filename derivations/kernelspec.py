"""The record `softlin derive` emits from: one KernelSpec per numeric kernel (a leaf module, so the
spec lists of derivations/kernelspecs*.py can all use it)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KernelSpec:
    name: str
    args: tuple            # SymPy symbols / MatrixSymbols, in call order
    shapes: tuple          # documentation of each argument's array shape
    expr: object           # derived SymPy expression
    doc: str               # one-line mathematics
    source: str            # derivation module, e.g. "lemma21"
    returns: str           # shape of the result
