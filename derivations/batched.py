"""Quadratic forms for a batch of queries.

A kernel receives n queries as the columns of a d x n matrix X. The per-column quadratic form
x_j^T M x_j is the row vector 1_d^T (X o (M X)) (o: entrywise product), which is what the emitted
code evaluates. `proof` checks the rewrite on explicit entries.
"""

from __future__ import annotations

import sympy as sp

from .proof import Proof, prove_zero


def columnwise_quadratic(X: sp.MatrixExpr, M: sp.MatrixExpr) -> sp.MatrixExpr:
    """1 x n row of x_j^T M x_j for the columns x_j of X."""
    return sp.OneMatrix(1, X.shape[0]) * sp.HadamardProduct(X, M * X)


def proof(d: int = 2, n: int = 2) -> Proof:
    X = sp.Matrix(d, n, lambda i, j: sp.Symbol(f"x{i}{j}", real=True))
    M = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"q{i}{j}", real=True))
    Xs, Ms = sp.MatrixSymbol("X", d, n), sp.MatrixSymbol("M", d, d)
    batched = columnwise_quadratic(Xs, Ms).subs({Xs: X, Ms: M}).as_explicit()
    direct = sp.Matrix(1, n, lambda _, j: (X[:, j].T * M * X[:, j])[0, 0])
    return prove_zero(
        f"columnwise quadratic form 1^T (X o M X) = diag(X^T M X) [d={d}, n={n}]", batched - direct
    )
