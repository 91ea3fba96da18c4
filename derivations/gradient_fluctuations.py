"""First-order (1/L) fluctuations of the Jacobians in V and U (Proposition 3.4, made exact).

From `jacobians`: J_V(T_L) - J_V(T) = (zhat - mu_a)^T kron I_k and
J_U(T_L) - J_U(T) = z^T kron V(C_hat - Gamma), so in Frobenius norm

    ||grad_V T[mu_L] - grad_V T[mu]||^2 = k |zhat - mu_a|^2,
    ||grad_U T[mu_L] - grad_U T[mu]||^2 = |z|^2 ||V (C_hat - Gamma)||_F^2.

With w the normalised weight (E w = 1), zhat - mu_a = X / D, X = mean w_i (z_i - mu_a),
D = mean w_i, and C_hat - Gamma = Y / D - X X^T / D^2 with
Y = mean w_i ((z_i - mu_a)(z_i - mu_a)^T - Gamma), E Y = 0 (the tilted covariance is Gamma). The
leading terms are the centred means X and Y, so

    lim L E||grad_V ...||^2 = k E w^2 |z' - mu_a|^2 = k e^{q} (tr Gamma + |Gamma a|^2),
    lim L E||grad_U ...||^2 = |z|^2 E w^2 ||V((z' - mu_a)(z' - mu_a)^T - Gamma)||_F^2
                            = |z|^2 e^{q} F(Gamma a),

q = a^T Gamma a, a = U z, because under w^2 the token law is e^{q} N(m + 2 Gamma a, Gamma), i.e.
z' - mu_a ~ N(Gamma a, Gamma) (see `concentration`). The Gaussian fourth moments give, with
M = V^T V,

    F(c) = E_{x ~ N(c, Gamma)} ||V (x x^T - Gamma)||_F^2
         = tr(M Gamma) tr Gamma + tr(M Gamma^2) + (c^T M c) tr Gamma + |c|^2 tr(M Gamma)
           + 2 c^T M Gamma c + (c^T M c) |c|^2,

proved below against Stein's recursion on the entries. Averaged over z ~ N(0, Sigma_q) these are
Gaussian integrals of a polynomial times e^{z^T K z}, K = U^T Gamma U: finite iff lambda < 1/2
(`tilted_moments.exp_quadratic_expectation`).

At every finite L the error is exact in six scalars of the weights (`gradient_error_display`,
proved in this group).

At L = 1 (one token, zhat = z_1 ~ N(m, Gamma)) the grad_V error of one prompt is
Y = k |x - b|^2 with x = z_1 - m ~ N(0, Gamma) and b = Gamma U z. Its mean is
k (tr Gamma + |b|^2) (derivations/fluctuations_one_token.py) and its variance over prompts, the
bound of erratum 1's Catoni witness in prop-3.4 (a proven level), is

    Var Y = k^2 (2 tr(Gamma^2) + 4 b^T Gamma b) = k^2 (2 tr(Gamma^2) + 4 (U z)^T Gamma^3 (U z))

(`one_token_grad_V_variance`, proved against Stein's recursion on E Y^2 - (E Y)^2 with symmetric
symbolic Gamma).
"""

from __future__ import annotations

import sympy as sp

from . import batched, gradient_error_display, lemma21
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached
from .gaussian_expectations import gaussian_polynomial_expectation
from .matrix_ops import scalar, tr
from .tilted_moments import exp_quadratic_expectation


def fourth_moment_formula(c: sp.Matrix, Gamma: sp.Matrix, V: sp.Matrix) -> sp.Expr:
    M = V.T * V
    cMc = scalar(c.T * M * c)
    cc = scalar(c.T * c)
    return (
        tr(M * Gamma) * tr(Gamma)
        + tr(M * Gamma * Gamma)
        + cMc * tr(Gamma)
        + cc * tr(M * Gamma)
        + 2 * scalar(c.T * M * Gamma * c)
        + cMc * cc
    )


def fourth_moment_by_stein(c: sp.Matrix, Gamma: sp.Matrix, V: sp.Matrix) -> sp.Expr:
    d = c.rows
    y = list(sp.symbols(f"y0:{d}", real=True))
    x = c + sp.Matrix(y)
    D = V * (x * x.T - Gamma)
    return gaussian_polynomial_expectation(sum(e**2 for e in D), y, Gamma)


def fourth_moment_batched(s=None) -> sp.MatrixExpr:
    """F(c_j) for the n query columns z_j, c_j = Gamma U z_j (1 x n), the same formula written with
    the columnwise quadratic forms of `batched`
    (the emitted kernel of the per-query coefficient)."""
    s = s or lemma21.limit_symbols()
    G, V, d, n = s["Gamma"], s["V"], s["Gamma"].shape[0], s["z"].shape[1]
    M = V.T * V
    C = G * s["U"] * s["z"]
    cMc = batched.columnwise_quadratic(C, M)
    cc = batched.columnwise_quadratic(C, sp.Identity(d))
    ones = sp.OneMatrix(1, n)
    return (
        (sp.Trace(M * G) * sp.Trace(G) + sp.Trace(M * G * G)) * ones
        + sp.Trace(G) * cMc
        + sp.Trace(M * G) * cc
        + 2 * batched.columnwise_quadratic(C, M * G)
        + sp.HadamardProduct(cMc, cc)
    )


def coefficient_V(a: sp.Matrix, Gamma: sp.Matrix, k: int) -> sp.Expr:
    Ga = Gamma * a
    return k * sp.exp(scalar(a.T * Ga)) * (tr(Gamma) + scalar(Ga.T * Ga))


def coefficient_U(z: sp.Matrix, U: sp.Matrix, Gamma: sp.Matrix, V: sp.Matrix) -> sp.Expr:
    a = U * z
    return (
        scalar(z.T * z)
        * sp.exp(scalar(a.T * Gamma * a))
        * fourth_moment_formula(Gamma * a, Gamma, V)
    )


def query_averaged_coefficients(Gamma, U, V, Sigma_q) -> tuple:
    """(lim L E||grad_V err||^2_{L2(nu)}, the same for grad_U), exact; sp.oo beyond the
    threshold."""
    Gamma, U, V, Sigma_q = (sp.Matrix(x) for x in (Gamma, U, V, Sigma_q))
    d, k = U.rows, V.rows
    z = list(sp.symbols(f"z0:{d}", real=True))
    zv = sp.Matrix(z)
    a = U * zv
    Ga = Gamma * a
    K = U.T * Gamma * U
    poly_V = k * (Gamma.trace() + (Ga.T * Ga)[0, 0])
    poly_U = (zv.T * zv)[0, 0] * fourth_moment_formula(Ga, Gamma, V)
    return (
        exp_quadratic_expectation(sp.expand(poly_V), z, Sigma_q, K),
        exp_quadratic_expectation(sp.expand(poly_U), z, Sigma_q, K),
    )


def proofs() -> list[Proof]:
    out = []
    for d, k in ((1, 1), (2, 2)):
        c = sp.Matrix(d, 1, sp.symbols(f"c0:{d}", real=True))
        G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
        V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
        out.append(
            prove_zero(
                "E||V(x x^T - Gamma)||_F^2 for x ~ N(c, Gamma): closed form = Stein recursion "
                f"[d={d}, k={k}]",
                fourth_moment_formula(c, G, V) - fourth_moment_by_stein(c, G, V),
            )
        )
    d, k, n = 2, 2, 2
    s = lemma21.limit_symbols(d, k, n)
    G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    Z = sp.Matrix(d, n, lambda i, j: sp.Symbol(f"z{i}{j}", real=True))
    got = sp.Matrix(
        fourth_moment_batched(s)
        .subs({s["Gamma"]: G, s["U"]: U, s["V"]: V, s["z"]: Z})
        .doit()
        .as_explicit()
    )
    want = sp.Matrix(1, n, lambda _, j: fourth_moment_formula(G * U * Z[:, j], G, V))
    out.append(
        prove_zero(
            f"batched F(Gamma U z_j) equals the per-query formula column by column [d={d}, n={n}]",
            got - want,
        )
    )
    # Query average: the exact Gaussian integral against a one-dimensional direct integration.
    g, s = sp.symbols("g s", positive=True)
    u = sp.Rational(1, 3)
    direct = sp.integrate(
        sp.exp(u**2 * g**2) * (g**2 * (u * g) ** 2) * sp.exp(-(g**2) / 2) / sp.sqrt(2 * sp.pi),
        (g, -sp.oo, sp.oo),
    )
    via = exp_quadratic_expectation(g**2 * (u * g) ** 2, [g], sp.Matrix([[1]]), sp.Matrix([[u**2]]))
    out.append(
        prove_zero(
            "E_z e^{z^T K z} poly(z) (tilted Gaussian) = direct integral [d=1, u=1/3]",
            sp.simplify(direct - via),
        )
    )
    return out + gradient_error_display.proofs()


def one_token_grad_V_variance(s=None) -> sp.MatrixExpr:
    """Var over prompts of k |z_1 - mu_a|^2 at L = 1 for n query columns (1 x n):
    k^2 (2 tr(Gamma^2) + 4 (U z_j)^T Gamma^3 (U z_j)), k = rows of V."""
    s = s or lemma21.limit_symbols()
    G, z = s["Gamma"], s["z"]
    k, n = s["V"].shape[0], z.shape[1]
    return k**2 * (
        2 * sp.Trace(G * G) * sp.OneMatrix(1, n)
        + 4 * batched.columnwise_quadratic(s["U"] * z, G * G * G)
    )


def one_token_variance_proofs(d: int = 2, k: int = 2) -> list[Proof]:
    """E Y^2 - (E Y)^2 of Y = k |x - Gamma U z|^2, x ~ N(0, Gamma) (symmetric symbolic Gamma,
    generic U and z), by Stein's recursion, against the emitted expression."""
    G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    z = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"z{i}", real=True))
    x = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"x{i}", real=True))
    dev = x - G * U * z
    Y = k * scalar(dev.T * dev)
    mean = gaussian_polynomial_expectation(Y, list(x), G)
    variance = gaussian_polynomial_expectation(sp.expand(Y**2), list(x), G) - mean**2
    s = lemma21.limit_symbols(d, k, 1)
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    emitted = (
        one_token_grad_V_variance(s)
        .subs({s["Gamma"]: G, s["U"]: U, s["V"]: V, s["z"]: z})
        .doit()
        .as_explicit()[0, 0]
    )
    return [
        prove_zero(
            "L = 1: Var k |z_1 - mu_a|^2 = k^2 (2 tr(Gamma^2) + 4 (U z)^T Gamma^3 U z) "
            f"[d={d}, k={k}, symmetric Gamma]",
            sp.expand(variance - emitted),
        )
    ]


@cached
def gradient_fluctuation_proofs() -> tuple[Proof, ...]:
    return tuple(proofs()) + tuple(one_token_variance_proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: F(Gamma U z_j) = E||V(x x^T - Gamma)||_F^2 for each query column."""
    lim = lemma21.limit_symbols()
    return [
        KernelSpec(
            "gradient_V_error_one_token_variance",
            (lim["Gamma"], lim["V"], lim["U"], lim["z"]),
            ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
            one_token_grad_V_variance(lim),
            "Var over prompts of ||grad_V err||^2 = k |z_1 - mu_a|^2 at L = 1: "
            "k^2 (2 tr(Gamma^2) + 4 (U z)^T Gamma^3 (U z)) per query column.",
            "gradient_fluctuations",
            "(1, n)",
        ),
        KernelSpec(
            "gradient_U_fourth_moment",
            (lim["Gamma"], lim["V"], lim["U"], lim["z"]),
            ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
            fourth_moment_batched(lim),
            "F(Gamma U z_j) = E||V(x x^T - Gamma)||_F^2, x ~ N(Gamma U z_j, Gamma), for n query "
            "columns.",
            "gradient_fluctuations",
            "(1, n)",
        ),
    ]


GROUP = Group(
    "gradient_fluctuations",
    title="Proposition 3.4: first-order coefficients of the gradient error",
    hypotheses="tokens N(m, Gamma), fixed query z, a = U z",
    proofs=gradient_fluctuation_proofs,
    parts=("gradient_fluctuations", "gradient_error_display"),
    results="prop34_coefficients",
)
