"""The in-context regression kernels' dimension-free forms (docs/design.md, "Kernels").

`softlin derive` emits R_inf(A, b), its gradients and R_full with its gradients from MatrixSymbols
of symbolic size d, so one kernel serves every dimension (the loss variance's form sits with its
proof in `icl_risk`, the endpoint's in `icl_endpoint`). `kernel_proofs` expands
each at d = 1, 2 into explicit entries and proves it equal to the expressions proved in `icl_risk`
and `icl_gradients`.
"""

from __future__ import annotations

import sympy as sp

from .icl_gradients import full_gradients, restricted_gradients, sym_sigma
from .icl_risk import b_sym, kernel_symbols, matrix_full_risk, paper_risk
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero


# ---------------------------------------------------------------------------------------------
# Kernel expressions (dimension-free MatrixSymbols).


def kernel_risk(k):
    S, A, b = k["Sigma"], k["A"], k["b"]
    M = b * S * A - sp.Identity(k["d"])
    return sp.Trace(M * S * M.T) / 2


def kernel_grad_A(k):
    S, A, b = k["Sigma"], k["A"], k["b"]
    return b * S * (b * S * A - sp.Identity(k["d"])) * S


def kernel_grad_b(k):
    S, A, b = k["Sigma"], k["A"], k["b"]
    return sp.Trace(S * A * S * (b * S * A - sp.Identity(k["d"])).T)


def kernel_full(k):
    """(R_full, grad_U11, grad_u, grad_v, grad_b) as matrix expressions (U11 is k['A'])."""
    S, U11, u, v, b = k["Sigma"], k["A"], k["u"], k["v"], k["b"]
    I = sp.Identity(k["d"])
    tau = sp.Trace(S)
    kappa = sp.Trace(S) ** 2 + 2 * sp.Trace(S * S)
    P = U11.T * S * v
    M = b * U11.T * S - I + u * v.T * S
    R = (
        sp.Trace(P.T * S * P)
        + sp.Trace(M.T * S * M)
        + b**2 * kappa * sp.Trace(u.T * S * u)
        + 2 * b * tau * sp.Trace(P.T * S * u)
    ) / 2
    gU = S * v * P.T * S + b * S * M.T * S + b * tau * S * v * u.T * S
    gu = S * M * S * v + b**2 * kappa * S * u + b * tau * S * P
    gv = S * U11 * S * P + S * M.T * S * u + b * tau * S * U11 * S * u
    gb = (
        sp.Trace(M.T * S * U11.T * S)
        + b * kappa * sp.Trace(u.T * S * u)
        + tau * sp.Trace(P.T * S * u)
    )
    return R, gU, gu, gv, gb


def kernel_proofs(d: int) -> list[Proof]:
    """The emitted dimension-free expressions equal the proved explicit ones at dimension d."""
    k = kernel_symbols(d)
    Sigma = sym_sigma(d)
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    u = sp.Matrix(d, 1, sp.symbols(f"q0:{d}", real=True))
    v = sp.Matrix(d, 1, sp.symbols(f"r0:{d}", real=True))
    entries = {}
    for name, value in (("Sigma", Sigma), ("A", A), ("u", u), ("v", v)):
        entries.update(
            {
                k[name][i, j]: value[i, j]
                for i in range(value.shape[0])
                for j in range(value.shape[1])
            }
        )

    def ex(e):
        e = e.replace(
            lambda x: isinstance(x, sp.Trace), lambda x: sp.Matrix(x.arg.as_explicit()).trace()
        )
        e = sp.Matrix(e.as_explicit()) if isinstance(e, sp.MatrixExpr) else sp.Matrix([e.doit()])
        return e.applyfunc(lambda x: sp.expand(x.doit().xreplace(entries)))

    gA, gb = restricted_gradients(Sigma, A, b_sym)
    R, gU, gu, gv, gbf = kernel_full(k)
    fU, fu, fv, fb = full_gradients(Sigma, A, u, v, b_sym)
    tag = f"d={d}"
    return [
        prove_zero(
            f"emitted icl_risk / grad kernels equal the proved expressions [{tag}]",
            sp.Matrix(
                list(ex(kernel_risk(k)) - sp.Matrix([paper_risk(Sigma, A, b_sym)]))
                + list(ex(kernel_grad_A(k)) - gA)
                + list(ex(kernel_grad_b(k)) - sp.Matrix([gb]))
            ),
        ),
        prove_zero(
            f"emitted full-risk kernels equal the proved expressions [{tag}]",
            sp.Matrix(
                list(ex(R) - sp.Matrix([matrix_full_risk(Sigma, A, u, v, b_sym)]))
                + list(ex(gU) - fU)
                + list(ex(gu) - fu)
                + list(ex(gv) - fv)
                + list(ex(gbf) - sp.Matrix([fb]))
            ),
        ),
    ]


def kernel_specs() -> list[KernelSpec]:
    """Emitted: R_inf(A, b) with its gradients, and R_full(U11, u, v, b) with its gradients."""
    k = kernel_symbols()
    R, gU, gu, gv, gb = kernel_full(k)
    ab, full = (k["Sigma"], k["A"], k["b"]), (k["Sigma"], k["A"], k["u"], k["v"], k["b"])
    sab, sfull = ("(d, d)", "(d, d)", "scalar"), ("(d, d)", "(d, d)", "(d, 1)", "(d, 1)", "scalar")
    return [
        KernelSpec(
            "icl_risk",
            ab,
            sab,
            kernel_risk(k),
            "R_inf(A, b) = tr((b Sigma A - I) Sigma (b Sigma A - I)^T) / 2.",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_grad_A",
            ab,
            sab,
            kernel_grad_A(k),
            "grad_A R_inf = b Sigma (b Sigma A - I) Sigma.",
            "icl_kernels",
            "(d, d)",
        ),
        KernelSpec(
            "icl_grad_b",
            ab,
            sab,
            kernel_grad_b(k),
            "grad_b R_inf = tr(Sigma A Sigma (b Sigma A - I)^T).",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_full_risk",
            full,
            sfull,
            R,
            "R_inf for full (U, V): U11 = A, u = U[d, :d], (v, b) = last row of V.",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_full_grad_U11", full, sfull, gU, "grad of R_full in U11.", "icl_kernels", "(d, d)"
        ),
        KernelSpec(
            "icl_full_grad_u",
            full,
            sfull,
            gu,
            "grad of R_full in u = U[d, :d]^T.",
            "icl_kernels",
            "(d, 1)",
        ),
        KernelSpec(
            "icl_full_grad_v",
            full,
            sfull,
            gv,
            "grad of R_full in v = V[d, :d]^T.",
            "icl_kernels",
            "(d, 1)",
        ),
        KernelSpec(
            "icl_full_grad_b",
            full,
            sfull,
            gb,
            "grad of R_full in b = V[d, d].",
            "icl_kernels",
            "scalar",
        ),
    ]
