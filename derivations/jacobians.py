"""Jacobians of the attention output in U and V, for the limit and for finite prompts: the chain
rule of the risks' gradients (derivations/risk.py) and claim prop-3.4's Jacobian checks.

Vectorisation is column-major: vec(X) stacks the columns of X, and
vec(A dX B) = (B^T kron A) vec(dX). A Jacobian is therefore read off the differential: if
dT = sum_j A_j dX B_j then J_X = sum_j B_j^T kron A_j (a k x numel(X) matrix). `vec_jacobian` does
exactly that, mechanically, from SymPy's expansion of T(X + dX) - T(X).

Limit (Lemma 2.1, T = V (m + Gamma U z)):
    dT = V Gamma dU z + dV (m + Gamma U z)
    J_U = z^T kron (V Gamma),   J_V = (m + Gamma U z)^T kron I_k.

Finite prompt (T_L = V zhat, zhat = sum_i p_i z_i, p = softmax(z_i^T U z)): differentiating the
softmax weights, dp_i = p_i (z_i - zhat)^T dU z, so
    dT_L = V C_hat dU z + dV zhat,    C_hat = sum_i p_i (z_i - zhat)(z_i - zhat)^T,
    J_U = z^T kron (V C_hat),   J_V = zhat^T kron I_k:
the limit's form with (m + Gamma U z, Gamma) replaced by the softmax-weighted mean and covariance.
`finite_prompt_proofs` checks this against SymPy's own differentiation of the softmax ratio with
symbolic tokens (the exponentials are replaced by positive symbols so the check is rational
algebra).
"""

from __future__ import annotations

import sympy as sp

from . import lemma21
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero


def vec_jacobian(expr: sp.MatrixExpr, X: sp.MatrixSymbol) -> sp.MatrixExpr:
    """J with vec(dT) = J vec(dX), from the differential of `expr` (linear terms only)."""
    dX = sp.MatrixSymbol("d" + X.name, *X.shape)
    differential = sp.expand((expr.subs(X, X + dX) - expr).doit())
    groups: dict = {}
    for term in sp.Add.make_args(differential):
        factors = list(term.args) if isinstance(term, sp.MatMul) else [term]
        scalar = sp.Mul(*[f for f in factors if not getattr(f, "is_Matrix", False)])
        mats = [f for f in factors if getattr(f, "is_Matrix", False)]
        if mats.count(dX) != 1:
            raise ValueError(f"term {term} is not linear in {dX}")
        i = mats.index(dX)
        left = sp.MatMul(*mats[:i]).doit() if i > 0 else sp.Identity(expr.shape[0])
        right = scalar * (
            sp.MatMul(*mats[i + 1 :]).doit() if i + 1 < len(mats) else sp.Identity(X.shape[1])
        )
        groups.setdefault(left, []).append(right)
    return sp.MatAdd(
        *[
            sp.KroneckerProduct(sp.MatAdd(*rights).T, left)
            if len(rights) > 1
            else sp.KroneckerProduct(rights[0].T, left)
            for left, rights in groups.items()
        ]
    )


def limit_symbols():
    return lemma21.limit_symbols(n=1)


def limit_jacobians(s=None) -> tuple[sp.MatrixExpr, sp.MatrixExpr]:
    """(J_U, J_V) of T = V (m + Gamma U z) for one query."""
    s = s or limit_symbols()
    T = lemma21.gaussian_limit_matrix(s)
    return vec_jacobian(T, s["U"]), vec_jacobian(T, s["V"])


def finite_symbols(d=None, k=None):
    s = limit_symbols() if d is None else lemma21.limit_symbols(d, k, 1)
    d_ = s["U"].shape[0]
    s["zhat"] = sp.MatrixSymbol("zhat", d_, 1)
    s["Chat"] = sp.MatrixSymbol("Chat", d_, d_)
    return s


def finite_jacobians(s=None) -> tuple[sp.MatrixExpr, sp.MatrixExpr]:
    """(J_U, J_V) of T_L = V zhat with the differential dT_L = V Chat dU z + dV zhat."""
    s = s or finite_symbols()
    dU = sp.MatrixSymbol("dU", *s["U"].shape)
    dV = sp.MatrixSymbol("dV", *s["V"].shape)
    # The differential of the finite-prompt output (proved on entries in finite_prompt_proofs);
    # the Jacobians are read off it by the same mechanical rule as for the limit.
    differential_U = s["V"] * s["Chat"] * dU * s["z"]
    differential_V = dV * s["zhat"]
    J_U = vec_jacobian(differential_U.subs(dU, s["U"]), s["U"])
    J_V = vec_jacobian(differential_V.subs(dV, s["V"]), s["V"])
    return J_U, J_V


def _explicit(expr, subs):
    return sp.Matrix(expr.subs(subs).doit().as_explicit())


def limit_proofs(d: int, k: int = 2) -> list[Proof]:
    """Emitted Kronecker forms equal SymPy's entrywise derivatives of V (m + Gamma U z)."""
    s = lemma21.limit_symbols(d, k, 1)
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    m = sp.Matrix(d, 1, sp.symbols(f"m0:{d}", real=True))
    G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
    z = sp.Matrix(d, 1, sp.symbols(f"z0:{d}", real=True))
    subs = {s["U"]: U, s["V"]: V, s["m"]: m, s["Gamma"]: G, s["z"]: z}
    T = V * (m + G * U * z)
    J_U, J_V = limit_jacobians(s)
    vecU = [U[i, j] for j in range(d) for i in range(d)]  # column-major
    vecV = [V[i, j] for j in range(d) for i in range(k)]
    return [
        prove_zero(
            f"limit J_U = z^T kron V Gamma equals d T / d vec U [d={d}, k={k}]",
            _explicit(J_U, subs) - T.jacobian(vecU),
        ),
        prove_zero(
            f"limit J_V = (m + Gamma U z)^T kron I equals d T / d vec V [d={d}, k={k}]",
            _explicit(J_V, subs) - T.jacobian(vecV),
        ),
    ]


def finite_prompt_proofs(d: int, L: int, k: int = 2) -> list[Proof]:
    """The softmax ratio with symbolic tokens, differentiated by SymPy, against the weighted
    mean/covariance forms."""
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    z = sp.Matrix(d, 1, sp.symbols(f"z0:{d}", real=True))
    tokens = [sp.Matrix(d, 1, sp.symbols(f"x{i}_0:{d}", real=True)) for i in range(L)]
    scores = [(x.T * U * z)[0, 0] for x in tokens]
    weights = [sp.exp(s) for s in scores]
    total = sum(weights)
    T = sum((w * V * x for w, x in zip(weights, tokens)), sp.zeros(k, 1)) / total
    vecU = [U[i, j] for j in range(d) for i in range(d)]
    vecV = [V[i, j] for j in range(d) for i in range(k)]
    p = [w / total for w in weights]
    zhat = sum((pi * x for pi, x in zip(p, tokens)), sp.zeros(d, 1))
    Chat = sum(((pi * (x - zhat) * (x - zhat).T) for pi, x in zip(p, tokens)), sp.zeros(d, d))
    s = finite_symbols(d, k)
    subs = {s["V"]: V, s["z"]: z, s["zhat"]: zhat, s["Chat"]: Chat}
    J_U, J_V = finite_jacobians(s)
    positive = {w: sp.Symbol(f"E{i}", positive=True) for i, w in enumerate(weights)}

    def rational(M):  # exp(score_i) -> E_i: the identity is then one of rational functions
        return M.applyfunc(lambda e: sp.cancel(sp.expand(e.xreplace(positive))))

    return [
        prove_zero(
            f"finite-prompt J_U = z^T kron V C_hat (weighted covariance) [d={d}, L={L}, k={k}]",
            rational(_explicit(J_U, subs) - T.jacobian(vecU)),
        ),
        prove_zero(
            f"finite-prompt J_V = zhat^T kron I (weighted mean) [d={d}, L={L}, k={k}]",
            rational(_explicit(J_V, subs) - T.jacobian(vecV)),
        ),
    ]


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the Jacobians of T (infinite prompt) and T_L (finite prompt) in vec U and vec V."""
    f = finite_symbols()
    JU_lim, JV_lim = limit_jacobians(f)
    JU_fin, JV_fin = finite_jacobians(f)
    return [
        KernelSpec(
            "limit_jacobian_U",
            (f["Gamma"], f["V"], f["z"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            JU_lim,
            "d vec T / d vec U = z^T kron (V Gamma) (column-major vec).",
            "jacobians",
            "(k, d*d)",
        ),
        KernelSpec(
            "limit_jacobian_V",
            (f["m"], f["Gamma"], f["U"], f["V"], f["z"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(d, 1)"),
            JV_lim,
            "d vec T / d vec V = (m + Gamma U z)^T kron I_k.",
            "jacobians",
            "(k, k*d)",
        ),
        KernelSpec(
            "finite_jacobian_U",
            (f["Chat"], f["V"], f["z"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            JU_fin,
            "d vec T_L / d vec U = z^T kron (V C_hat), C_hat the softmax-weighted covariance.",
            "jacobians",
            "(k, d*d)",
        ),
        KernelSpec(
            "finite_jacobian_V",
            (f["zhat"], f["V"]),
            ("(d, 1)", "(k, d)"),
            JV_fin,
            "d vec T_L / d vec V = zhat^T kron I_k, zhat the softmax-weighted mean.",
            "jacobians",
            "(k, k*d)",
        ),
    ]
