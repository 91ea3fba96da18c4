"""Erratum 1's witnesses: the exact errors of one-token attention
(Propositions 3.1 and 3.4 at L = 1).

With a single token z_1 ~ N(m, Gamma) the softmax weight is 1, so T[mu_1](z) = V z_1 and the error
against Lemma 2.1's limit V (m + Gamma U z) is V (z_1 - m) - V Gamma U z. For queries
z ~ N(0, Sigma_q) independent of z_1, E|A x|^2 = tr(A S A^T) for x ~ N(0, S) gives

    E||T[mu_1] - T[mu]||^2_{L2(nu)} = tr(V Gamma V^T) + tr(V Gamma U Sigma_q U^T Gamma V^T)
                                      (> 0 unless V Gamma = 0).

For the gradients at a fixed query (docs/paper.md section 3, Proposition 3.4: the errors in
Frobenius norm are k |zhat - mu_a|^2 and |z|^2 ||V (C_hat - Gamma)||_F^2) one token gives zhat = z_1
and C_hat = z_1 z_1^T - zhat zhat^T = 0, so

    E||grad_V err||^2 = k (tr Gamma + |Gamma U z|^2),
    ||grad_U err||^2 = |z|^2 ||V Gamma||_F^2 = |z|^2 tr(V Gamma Gamma V^T).

The paper's right sides vanish at L = 1 (ln 1 = 0); these positive values are the witnesses. The
proofs compute the same expectations entry by entry (d = 2, k = 2, symbolic symmetric Gamma and
Sigma_q) with the exact Gaussian polynomial expectations of `gaussian_expectations`.

The Monte Carlo witness averages, per prompt, the squared error over n_q fresh queries:
Y = (1/n_q) sum_q |e - f_q|^2 with e = V (z_1 - m) ~ N(0, P), P = V Gamma V^T, and
f_q = V Gamma U z_q ~ N(0, Q), Q = V Gamma U Sigma_q U^T Gamma V^T, all independent. Its
variance, the bound of the witness's Catoni test (a proven level), is

    Var Y = 2 tr(P^2) + (4 tr(P Q) + 2 tr(Q^2)) / n_q

(`prompt_variance_proofs`: e = A g, f_q = C h_q with generic A, C and standard normal g, h_q, at the
query counts the budgets use, PROVED_QUERY_COUNTS).
"""

from __future__ import annotations

import sympy as sp

from . import batched, gaussian_expectations, lemma21
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero


def symbols(d=None, k=None, n=None):
    """Lemma 2.1's symbols (m, Gamma, U, V, z with n query columns) plus the query covariance
    Sigma_q."""
    s = lemma21.limit_symbols(d, k, n)
    s["Sigma_q"] = sp.MatrixSymbol("Sigma_q", *s["Gamma"].shape)
    return s


def _mean_square(A: sp.MatrixExpr, S: sp.MatrixExpr) -> sp.Expr:
    """E|A x|^2 = tr(A S A^T) for x ~ N(0, S)."""
    return sp.Trace(A * S * A.T)


def output_error(s=None) -> sp.Expr:
    """E||V z_1 - V (m + Gamma U z)||^2 over z_1 ~ N(m, Gamma), z ~ N(0, Sigma_q): the token's
    spread plus the spread of the limit's query-dependent part V Gamma U z."""
    s = s or symbols()
    V, G, U = s["V"], s["Gamma"], s["U"]
    return _mean_square(V, G) + _mean_square(V * G * U, s["Sigma_q"])


def gradient_V_error(s=None) -> sp.MatrixExpr:
    """k E|z_1 - mu_a|^2 = k (tr Gamma + |Gamma U z_j|^2) for n query columns (1 x n),
    k = rows of V."""
    s = s or symbols()
    G, z = s["Gamma"], s["z"]
    k, n = s["V"].shape[0], z.shape[1]
    return k * (sp.Trace(G) * sp.OneMatrix(1, n) + batched.columnwise_quadratic(s["U"] * z, G * G))


def gradient_U_error(s=None) -> sp.MatrixExpr:
    """|z_j|^2 ||V Gamma||_F^2 for n query columns (1 x n): C_hat = 0 for one token."""
    s = s or symbols()
    z, V, G = s["z"], s["V"], s["Gamma"]
    return _mean_square(V, G * G) * batched.columnwise_quadratic(z, sp.Identity(z.shape[0]))


def _explicit(d: int = 2, k: int = 2) -> dict:
    sym = lambda name, i, j: sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True)
    e = {
        "Gamma": sp.Matrix(d, d, lambda i, j: sym("g", i, j)),
        "Sigma_q": sp.Matrix(d, d, lambda i, j: sym("s", i, j)),
        "U": sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True)),
        "V": sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True)),
        "m": sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"m{i}", real=True)),
        "z": sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"z{i}", real=True)),
    }
    e["x"] = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"x{i}", real=True))  # z_1 - m ~ N(0, Gamma)
    e["y"] = sp.Matrix(
        d, 1, lambda i, _: sp.Symbol(f"y{i}", real=True)
    )  # the query ~ N(0, Sigma_q)
    return e


def _substitute(build, e: dict, d: int, k: int) -> sp.Expr:
    """The derived expression `build(s)` at one query (n = 1) with the explicit entries of `e`."""
    s = symbols(d, k, 1)
    expr = (
        build(s)
        .subs({s[name]: e[name] for name in ("Gamma", "Sigma_q", "U", "V", "m", "z")})
        .doit()
    )
    return expr.as_explicit()[0, 0] if isinstance(expr, sp.MatrixExpr) else sp.Matrix([expr])[0, 0]


def proofs(d: int = 2, k: int = 2) -> list[Proof]:
    e = _explicit(d, k)
    G, Sq, U, V, m, z, x, y = (e[n] for n in ("Gamma", "Sigma_q", "U", "V", "m", "z", "x", "y"))
    joint = sp.diag(G, Sq)  # (z_1 - m, query) independent
    # Output: error V z_1 - V (m + Gamma U y) with z_1 = m + x, squared and averaged exactly.
    err = V * (m + x) - V * (m + G * U * y)
    direct = gaussian_expectations.gaussian_polynomial_expectation(
        (err.T * err)[0, 0], list(x) + list(y), joint
    )
    out = [
        prove_zero(
            "L = 1: E||V z_1 - V(m + Gamma U z)||^2 = tr(V Gamma V^T) "
            f"+ tr(V Gamma U Sigma_q U^T Gamma V^T) [d={d}, k={k}, symmetric Gamma, Sigma_q]",
            sp.expand(direct - _substitute(output_error, e, d, k)),
        )
    ]
    # grad_V: k |z_1 - mu_a|^2 with mu_a = m + Gamma U z (Lemma 2.1 with V = I), averaged over z_1.
    dev = (m + x) - (m + G * U * z)
    direct_V = k * gaussian_expectations.gaussian_polynomial_expectation(
        (dev.T * dev)[0, 0], list(x), G
    )
    out.append(
        prove_zero(
            f"L = 1: k E|z_1 - mu_a|^2 = k (tr Gamma + |Gamma U z|^2) [d={d}, k={k}]",
            sp.expand(direct_V - _substitute(gradient_V_error, e, d, k)),
        )
    )
    # grad_U: one token has zero weighted covariance, so the error is |z|^2 ||V (0 - Gamma)||_F^2.
    z1 = m + x
    C_hat = z1 * z1.T - z1 * z1.T  # sum_i p_i z_i z_i^T - zhat zhat^T, p_1 = 1
    D = V * (C_hat - G)
    direct_U = (z.T * z)[0, 0] * sum(D[i, j] ** 2 for i in range(k) for j in range(d))
    out.append(
        prove_zero(
            "L = 1: |z|^2 ||V (C_hat - Gamma)||_F^2 = |z|^2 tr(V Gamma Gamma V^T), "
            f"C_hat = 0 [d={d}, k={k}]",
            sp.expand(direct_U - _substitute(gradient_U_error, e, d, k)),
        )
    )
    return out + prompt_variance_proofs()


# The per-prompt query counts whose variance formula is proved (prop-3.1's budgets: quick 4,
# standard and full 8); another count leaves the witness on its normal test.
PROVED_QUERY_COUNTS = (4, 8)
n_queries = sp.Symbol("n_q", positive=True)


def prompt_variance(s=None, n_q=n_queries) -> sp.Expr:
    """Var over prompts of (1/n_q) sum_q |V z_1 - V (m + Gamma U z_q)|^2 at L = 1:
    2 tr(P^2) + (4 tr(P Q) + 2 tr(Q^2)) / n_q, P = V Gamma V^T,
    Q = V Gamma U Sigma_q U^T Gamma V^T."""
    s = s or symbols()
    V, G, U = s["V"], s["Gamma"], s["U"]
    P = V * G * V.T
    Q = V * G * U * s["Sigma_q"] * U.T * G * V.T
    return 2 * sp.Trace(P * P) + (4 * sp.Trace(P * Q) + 2 * sp.Trace(Q * Q)) / n_q


def prompt_variance_proofs(k: int = 2, r: int = 2) -> list[Proof]:
    """The per-prompt variance for e = A g ~ N(0, A A^T), f_q = C h_q ~ N(0, C C^T) (generic
    symbolic A, C of shape (k, r); g, h_q independent standard normal), at each proved n_q."""
    A = sp.Matrix(k, r, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    C = sp.Matrix(k, r, lambda i, j: sp.Symbol(f"c{i}{j}", real=True))
    P, Q = A * A.T, C * C.T
    out = []
    for n_q in PROVED_QUERY_COUNTS:
        g = sp.symbols(f"g0:{r}", real=True)
        hs = [sp.symbols(f"h{q}_0:{r}", real=True) for q in range(n_q)]
        e = A * sp.Matrix(g)
        Y = sum(((e - C * sp.Matrix(h)).T * (e - C * sp.Matrix(h)))[0, 0] for h in hs) / n_q
        # the square expanded in the expectation's polynomial ring, not here (12 s at n_q = 8)
        variance = gaussian_expectations.standard_expectation(
            (Y - P.trace() - Q.trace()) ** 2, list(g) + [x for h in hs for x in h]
        )
        out.append(
            prove_zero(
                "L = 1: Var of the per-prompt mean over n_q queries of |e - f_q|^2 is 2 tr(P^2) "
                f"+ (4 tr(P Q) + 2 tr(Q^2)) / n_q [n_q={n_q}, k={k}, r={r}, generic roots]",
                sp.expand(
                    variance
                    - 2 * (P * P).trace()
                    - (4 * (P * Q).trace() + 2 * (Q * Q).trace()) / n_q
                ),
            )
        )
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the output error and the gradient errors in V and U at L = 1, and the per-prompt
    variance of the output error's Monte Carlo."""
    ot = symbols()
    G, U, V, z = ot["Gamma"], ot["U"], ot["V"], ot["z"]
    return [
        KernelSpec(
            "output_error_one_token_prompt_variance",
            (G, U, V, ot["Sigma_q"], n_queries),
            ("(d, d)", "(d, d)", "(k, d)", "(d, d)", "scalar"),
            prompt_variance(ot),
            "Var over prompts of the mean over n_q queries of |T[mu_1](z) - T[mu](z)|^2: "
            "2 tr(P^2) + (4 tr(P Q) + 2 tr(Q^2)) / n_q.",
            "fluctuations_one_token",
            "scalar",
        ),
        KernelSpec(
            "output_error_one_token",
            (G, U, V, ot["Sigma_q"]),
            ("(d, d)", "(d, d)", "(k, d)", "(d, d)"),
            output_error(ot),
            "E||T[mu_1] - T[mu]||^2_{L2(nu)} = tr(V Gamma V^T) "
            "+ tr(V Gamma U Sigma_q U^T Gamma V^T).",
            "fluctuations_one_token",
            "scalar",
        ),
        KernelSpec(
            "gradient_V_error_one_token",
            (G, V, U, z),
            ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
            gradient_V_error(ot),
            "E||grad_V err||^2 at L = 1: k (tr Gamma + |Gamma U z|^2) per query column.",
            "fluctuations_one_token",
            "(1, n)",
        ),
        KernelSpec(
            "gradient_U_error_one_token",
            (G, V, z),
            ("(d, d)", "(k, d)", "(d, n)"),
            gradient_U_error(ot),
            "||grad_U err||^2 at L = 1: |z|^2 ||V Gamma||_F^2 per query column (C_hat = 0).",
            "fluctuations_one_token",
            "(1, n)",
        ),
    ]
