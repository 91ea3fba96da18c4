"""The variance model behind the power of prop-3.1's "claimed 1/L rate" control
(docs/paper.md section 3).

At a query with a = U z, q = a^T Gamma a, P = V Gamma V^T and u = V Gamma a, the exact finite-L
second moment of the error err = T[mu_L](z) - T[mu](z) is (numerics/selfnormalised.py)

    S = E err err^T = A_L P + (B_L - A_L) u u^T / q,

so tr S is the exact mean squared error and, with c = (B_L - A_L) / q,

    tr S^2 = A_L^2 tr P^2 + 2 A_L c u^T P u + c^2 |u|^4.

If err were Gaussian with that second moment, E|err|^4 = (tr S)^2 + 2 tr S^2 (Isserlis). The
control's power uses that value as a model of the fourth moment
(stated as a model there, with a margin for heavier tails); this module derives both identities and
the emitted kernel `error_fourth_moment_model` evaluates the second one from the scalars
tr S, A_L, B_L, q, tr P^2, u^T P u, |u|^2 of each query.
"""

from __future__ import annotations

import sympy as sp

from . import gaussian_expectations
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero

mse_sym, A_sym, B_sym = sp.symbols("mse A B", real=True)
q_sym = sp.Symbol("q", positive=True)
trP2_sym, uPu_sym, u2_sym = sp.symbols("trP2 uPu u2", real=True)
ARGS = (mse_sym, A_sym, B_sym, q_sym, trP2_sym, uPu_sym, u2_sym)


def trace_square() -> sp.Expr:
    """tr S^2 for S = A P + c u u^T, c = (B - A) / q, in the scalars
    tr P^2, u^T P u, |u|^2 (P symmetric)."""
    c = (B_sym - A_sym) / q_sym
    return A_sym**2 * trP2_sym + 2 * A_sym * c * uPu_sym + c**2 * u2_sym**2


def error_fourth_moment_model() -> sp.Expr:
    """(tr S)^2 + 2 tr S^2: E|err|^4 for a Gaussian err with second moment S (tr S = mse)."""
    return mse_sym**2 + 2 * trace_square()


def proofs(k: int = 2) -> list[Proof]:
    P = sp.Matrix(k, k, lambda i, j: sp.Symbol(f"p{min(i, j)}{max(i, j)}", real=True))
    u = sp.Matrix(k, 1, lambda i, _: sp.Symbol(f"u{i}", real=True))
    S = A_sym * P + (B_sym - A_sym) / q_sym * u * u.T
    scalars = {trP2_sym: (P * P).trace(), uPu_sym: (u.T * P * u)[0, 0], u2_sym: (u.T * u)[0, 0]}
    out = [
        prove_zero(
            f"tr S^2 for S = A P + (B - A) u u^T / q equals A^2 tr P^2 + 2 A c u^T P u + c^2 |u|^4 "
            f"[k={k}, P symmetric]",
            sp.simplify((S * S).trace() - trace_square().subs(scalars)),
        )
    ]
    # Isserlis: E|e|^4 for e ~ N(0, S), S symmetric with symbolic entries, by exact Gaussian
    # expectation.
    Sg = sp.Matrix(k, k, lambda i, j: sp.Symbol(f"s{min(i, j)}{max(i, j)}", real=True))
    e = sp.symbols(f"e0:{k}", real=True)
    fourth = gaussian_expectations.gaussian_polynomial_expectation(
        sum(x**2 for x in e) ** 2, list(e), Sg
    )
    model = (
        error_fourth_moment_model().subs({mse_sym: Sg.trace()})
        - 2 * trace_square()
        + 2 * (Sg * Sg).trace()
    )
    out.append(
        prove_zero(
            f"E|e|^4 = (tr S)^2 + 2 tr S^2 for e ~ N(0, S) [k={k}, symmetric S]",
            sp.expand(fourth - model),
        )
    )
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted, entrywise: the Gaussian model (tr S)^2 + 2 tr S^2 of E|err|^4."""
    return [
        KernelSpec(
            "error_fourth_moment_model",
            ARGS,
            ("any shape",) * 7,
            error_fourth_moment_model(),
            "(tr S)^2 + 2 tr S^2, S = A P + (B - A) u u^T / q: Gaussian model of E|err|^4 "
            "(entrywise).",
            "fluctuations_power",
            "same as mse",
        ),
    ]
