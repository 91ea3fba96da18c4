"""Matrix operations that work on explicit SymPy matrices and on matrix symbols alike.

A derivation written with these (`tr`, `eye_like`, `inv`, `det`, `scalar`) evaluates exactly on
explicit matrices (the proofs and kernels) and stays a readable matrix expression on `MatrixSymbol`s
(the formulas shown on the pages), so one function serves both and nothing is retyped for display.
`scalar(X)` is the entry of a 1 x 1 product: X[0, 0] explicitly, tr(X) symbolically (the printers
show the trace of a 1 x 1 product as the product itself, the paper's a^T Gamma a).
"""

from __future__ import annotations

import sympy as sp


def _explicit(X) -> bool:
    return isinstance(X, sp.MatrixBase)


def tr(X):
    return X.trace() if _explicit(X) else sp.Trace(X)


def eye_like(X):
    return sp.eye(X.shape[0]) if _explicit(X) else sp.Identity(X.shape[0])


def inv(X):
    return X.inv() if _explicit(X) else sp.Inverse(X)


def det(X):
    return X.det() if _explicit(X) else sp.Determinant(X)


def scalar(X):
    return X[0, 0] if _explicit(X) else sp.Trace(X)
