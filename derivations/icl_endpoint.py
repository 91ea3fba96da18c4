"""Where the (A, b) gradient flow ends, how fast, and from where
(docs/paper.md section 5, Theorem 5.2).

Endpoint. On the minimiser set {b Sigma A = I} the balanced point (||A||_F = |b|, b > 0) is
    b* = tr(Sigma^-2)^(1/4),   A* = tr(Sigma^-2)^(-1/4) Sigma^-1;
proved: zero risk, zero gradients and balance, for a symbolic diagonal Sigma = diag(l1, l2) and,
exactly, for a rational non-diagonal Sigma (`endpoint_proofs`).

Transverse rate. At a minimiser M = b Sigma A - I = 0, so the second variation of R_inf along
(A + e H, b) is b^2 tr(Sigma H Sigma H^T Sigma) (`icl_hessian.second_variation`); in Sigma's
eigenbasis it is b^2 sum_ij l_i^2 l_j H_ij^2 >= b^2 l_min^3 ||H||_F^2, with equality at
H = e_min e_min^T. The slowest transverse decay rate at the endpoint is therefore
b*^2 lambda_min(Sigma)^3 (proved: the eigenbasis sum, and the value at H = e_1 e_1^T, for
Sigma = diag(l1, l2)). The flows use it to choose their horizon; lambda_min itself is an eigenvalue
computation (numerics/).

Conserved quantity. ||A||_F^2 - b^2 = tr(A^T A) - b^2 (conservation proved in `icl_gradients`).

Initial scale. docs/paper.md section 5 states the range 0 < alpha < sqrt(2) / (d^(1/4) ||Sigma||_op)
(`paper_alpha_bound`, the statement, not derived); the cited linear-attention condition
alpha^2 ||Sigma||_op sqrt(d) < 2 is solved for alpha > 0 (`zfb_alpha_bound`, proved to make the
condition an equality). ||Sigma||_op is an argument s: for SPD Sigma it is the largest eigenvalue.
"""

from __future__ import annotations

import sympy as sp

from .icl_gradients import restricted_gradients
from .icl_risk import paper_risk
from .kernel_spec import KernelSpec
from .matrix_ops import inv, tr
from .proof import Proof, back_substitute, prove_zero

alpha_sym = sp.Symbol("alpha", positive=True)
s_sym = sp.Symbol("s", positive=True)  # ||Sigma||_op
d_sym = sp.Symbol("d", integer=True, positive=True)
lam_sym = sp.Symbol("lam_min", positive=True)  # lambda_min(Sigma)


def endpoint(Sigma: sp.Matrix):
    """b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1 (exact SymPy numbers)."""
    Sinv = inv(Sigma)
    t = tr(Sinv * Sinv)
    return Sinv * t ** sp.Rational(-1, 4), t ** sp.Rational(1, 4)


def _endpoint_residuals(Sigma: sp.Matrix) -> sp.Matrix:
    A, b = endpoint(Sigma)
    gA, gb = restricted_gradients(Sigma, A, b)
    d = Sigma.shape[0]
    balance = sum(A[i, j] ** 2 for i in range(d) for j in range(d)) - b**2
    return sp.Matrix(
        [paper_risk(Sigma, A, b), balance, gb] + list(gA) + list(b * Sigma * A - sp.eye(d))
    )


def endpoint_proofs() -> list[Proof]:
    l1, l2 = sp.symbols("l1 l2", positive=True)
    return [
        prove_zero(
            "endpoint (A*, b*): zero risk, balanced, zero gradients, "
            "b* Sigma A* = I [Sigma = diag(l1, l2)]",
            _endpoint_residuals(sp.diag(l1, l2)).applyfunc(sp.simplify),
        ),
        prove_zero(
            "endpoint (A*, b*): zero risk, balanced, zero gradients, b* Sigma A* = I "
            "[Sigma = [[2, 1], [1, 3]], exact]",
            _endpoint_residuals(sp.Matrix([[2, 1], [1, 3]])).applyfunc(sp.simplify),
        ),
    ]


def transverse_proofs() -> list[Proof]:
    """The second variation at the endpoint in the eigenbasis, and its value at H = e_1 e_1^T."""
    from .icl_hessian import second_variation

    l1, l2 = sp.symbols("l1 l2", positive=True)
    Sigma = sp.diag(l1, l2)
    A, b = endpoint(Sigma)
    H = sp.Matrix(2, 2, sp.symbols("h0:4", real=True))
    q = second_variation(Sigma, A, b, H, 0)
    eig = b**2 * sum(
        Sigma[i, i] ** 2 * Sigma[j, j] * H[i, j] ** 2 for i in range(2) for j in range(2)
    )
    rate = transverse_rate(endpoint(Sigma)[1], l1)
    e11 = sp.Matrix([[1, 0], [0, 0]])
    return [
        prove_zero(
            "second variation at the endpoint along (H, 0) = b*^2 sum_ij l_i^2 l_j H_ij^2 "
            "[Sigma = diag(l1, l2)]",
            sp.simplify(q - eig),
        ),
        prove_zero(
            "it equals the transverse rate b*^2 l1^3 at "
            "H = e_1 e_1^T (||H||_F = 1) [Sigma = diag(l1, l2)]",
            sp.simplify(second_variation(Sigma, A, b, e11, 0) - rate),
        ),
    ]


def transverse_rate(b_star, lam_min):
    """b*^2 lambda_min^3: the smallest second variation per unit ||H||_F^2 at the endpoint."""
    return b_star**2 * lam_min**3


def paper_alpha_bound() -> sp.Expr:
    """sqrt(2) / (d^(1/4) s): the range stated with Theorem 5.2 (docs/paper.md section 5), as
    stated."""
    return sp.sqrt(2) / (d_sym ** sp.Rational(1, 4) * s_sym)


def zfb_condition() -> sp.Expr:
    """alpha^2 s sqrt(d) - 2: the cited linear-attention condition is that this is < 0."""
    return alpha_sym**2 * s_sym * sp.sqrt(d_sym) - 2


def zfb_alpha_bound() -> sp.Expr:
    """The positive alpha at which the cited condition becomes an equality (solved, not typed)."""
    (root,) = sp.solve(zfb_condition(), alpha_sym)
    return root


def bound_proofs() -> list[Proof]:
    return [
        back_substitute(
            "the cited condition alpha^2 ||Sigma|| sqrt(d) < 2 holds with equality at "
            "zfb_alpha_bound",
            sp.simplify(zfb_condition().subs(alpha_sym, zfb_alpha_bound())),
        )
    ]


# ---------------------------------------------------------------------------------------------
# Kernel forms (dimension-free, the MatrixSymbols of `icl_kernels.kernel_symbols`).


def kernel_endpoint(k):
    """(A*, b*) as matrix expressions."""
    t = sp.Trace(sp.Inverse(k["Sigma"]) ** 2)
    return t ** sp.Rational(-1, 4) * sp.Inverse(k["Sigma"]), t ** sp.Rational(1, 4)


def kernel_transverse_rate(k):
    return transverse_rate(kernel_endpoint(k)[1], lam_sym)


def kernel_balance(k):
    """||A||_F^2 - b^2, the conserved quantity."""
    return sp.Trace(k["A"].T * k["A"]) - k["b"] ** 2


def kernel_proofs(Sigma: sp.Matrix, tag: str) -> list[Proof]:
    """The kernel forms equal the explicit ones for the given Sigma (symbolic or exact rational)."""
    from .icl_kernels import kernel_symbols

    d = Sigma.shape[0]
    k = kernel_symbols(d)
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    explicit = {k["Sigma"]: sp.ImmutableMatrix(Sigma), k["A"]: sp.ImmutableMatrix(A)}

    def ex(e):
        return (
            sp.Matrix(e.xreplace(explicit).doit())
            if isinstance(e, sp.MatrixExpr)
            else sp.Matrix([e.xreplace(explicit).doit()])
        )

    kA, kb = kernel_endpoint(k)
    A_star, b_star = endpoint(Sigma)
    return [
        prove_zero(
            f"emitted icl_endpoint_A / icl_endpoint_b equal the explicit endpoint [{tag}]",
            sp.Matrix(list(ex(kA) - A_star) + list(ex(kb) - sp.Matrix([b_star]))).applyfunc(
                sp.simplify
            ),
        ),
        prove_zero(
            f"emitted icl_balance equals ||A||_F^2 - b^2 [{tag}]",
            ex(kernel_balance(k)) - sp.Matrix([sum(x**2 for x in A) - k["b"] ** 2]),
        ),
    ]


def proofs() -> list[Proof]:
    return (
        endpoint_proofs()
        + transverse_proofs()
        + bound_proofs()
        + kernel_proofs(sp.Matrix([[sp.Symbol("l1", positive=True)]]), "d=1")
        + kernel_proofs(sp.diag(*sp.symbols("l1 l2", positive=True)), "Sigma = diag(l1, l2)")
        + kernel_proofs(sp.Matrix([[2, 1], [1, 3]]), "Sigma = [[2, 1], [1, 3]], exact")
    )


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the endpoint (A*, b*), the conserved balance, the transverse rate and the two
    alpha ranges."""
    from .icl_kernels import kernel_symbols

    k = kernel_symbols()
    A_star, b_star = kernel_endpoint(k)
    s, d, lam = s_sym, d_sym, lam_sym
    return [
        KernelSpec(
            "icl_endpoint_A",
            (k["Sigma"],),
            ("(d, d) SPD",),
            A_star,
            "A* = tr(Sigma^-2)^(-1/4) Sigma^-1: the balanced minimiser the flow ends at.",
            "icl_endpoint",
            "(d, d)",
        ),
        KernelSpec(
            "icl_endpoint_b",
            (k["Sigma"],),
            ("(d, d) SPD",),
            b_star,
            "b* = tr(Sigma^-2)^(1/4).",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_balance",
            (k["A"], k["b"]),
            ("(d, d)", "scalar"),
            kernel_balance(k),
            "||A||_F^2 - b^2: conserved along the (A, b) gradient flow.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_transverse_rate",
            (k["Sigma"], lam),
            ("(d, d) SPD", "scalar lambda_min(Sigma)"),
            kernel_transverse_rate(k),
            "b*^2 lambda_min^3: the slowest transverse decay rate at the endpoint.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_paper_alpha_bound",
            (s, d),
            ("scalar ||Sigma||_op", "scalar"),
            paper_alpha_bound(),
            "sqrt(2) / (d^(1/4) ||Sigma||_op): the alpha range stated with Theorem 5.2.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_zfb_alpha_bound",
            (s, d),
            ("scalar ||Sigma||_op", "scalar"),
            zfb_alpha_bound(),
            "sqrt(2 / (||Sigma||_op sqrt(d))): where alpha^2 ||Sigma|| sqrt(d) < 2 stops holding.",
            "icl_endpoint",
            "scalar",
        ),
    ]
