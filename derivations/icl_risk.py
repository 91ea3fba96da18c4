"""In-context linear regression (docs/paper.md section 5, Theorem 5.2): the infinite-prompt risk,
derived.

Tokens z_i = (x_i, y_i) in R^(d+1), x_i ~ N(0, Sigma), y_i = w^T x_i, task w ~ N(0, I_d); query
z_q = (x, 0); prediction = last coordinate of the attention output; loss 1/2 (prediction - w^T x)^2.

Derivation route (nothing below types the known risk in):

1. Given w the tokens are N(0, Gamma_w), Gamma_w = C_w Sigma C_w^T with C_w = [I_d; w^T], i.e.
   Gamma_w = B_w B_w^T with B_w = C_w S for any root Sigma = S S^T (rank d).
2. Lemma 2.1 (`lemma21.gaussian_limit_matrix`, m = 0) gives the infinite-prompt output
   V Gamma_w U z_q; its last coordinate is the prediction.
3. E over x ~ N(0, Sigma) of the squared error uses the second moment E[x x^T] = S S^T, itself the
   zero-tilt second moment of `tilt.tilt_moments_entries` (so derived from the 1-D integrals).
4. E over w ~ N(0, I) of the resulting quartic polynomial: monomials are replaced by products of the
   1-D Gaussian moments E g^p (`tilt.gaussian_moment_1d(p)` at t = 0).

This gives R_inf(U, V) for the full (d+1) x (d+1) parameters with symbolic entries (d = 1, 2). Only
the block U11 = U[:d, :d], the row u^T = U[d, :d], and the last row of V, (v^T, b), can enter (the
query's last coordinate is 0 and only the last output coordinate is read). The suite then *proves*
that the entry derivation equals the matrix form (Sigma symmetric, tau = tr Sigma,
kappa = (tr Sigma)^2 + 2 tr Sigma^2 = E (w^T Sigma w)^2):

    R_full = 1/2 [ P^T Sigma P + tr(M^T Sigma M) + b^2 kappa u^T Sigma u + 2 b tau P^T Sigma u ],
    P = U11^T Sigma v,   M = b U11^T Sigma - I + u v^T Sigma,

and its restriction to U = [[A, 0], [0, 0]], V's last row (0, ..., 0, b), equals docs/paper.md's
R_inf(A, b) = 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T).

The query-to-query spread of the loss: for x ~ N(0, Sigma) the infinite-prompt loss is
(1/2) x^T K x, K = M^T M with M = b Sigma A - I, and
Var = tr((K Sigma)^2) / 2 (`loss_variance_proofs`, from the Gaussian moments; it sizes thm-5.2's
Monte Carlo check of R_inf, and is the variance bound of its Catoni test). The loss-variance check
averages W = (loss - R_inf)^2, whose variance E(loss - R)^4 - Var^2 is
3 tr((K Sigma)^4) + tr((K Sigma)^2)^2 / 2 (`squared_deviation_proofs`: the Gaussian quadratic
form's fourth central moment, kappa_4 + 3 kappa_2^2, in whitened variables g with B = S^T K S, and
the cyclic trace identities tr((K Sigma)^r) = tr(B^r)).
"""

from __future__ import annotations

import sympy as sp

from . import lemma21, tilt
from .gaussian_expectations import standard_expectation
from .kernel_spec import KernelSpec
from .matrix_ops import eye_like, tr
from .proof import Proof, prove_zero

b_sym = sp.Symbol("b", real=True)


# ---------------------------------------------------------------------------------------------
# Gaussian expectations of polynomials, from the derived 1-D moments.

gaussian_expectation = standard_expectation  # E over independent N(0, 1) variables


# ---------------------------------------------------------------------------------------------
# Entry derivation of R_inf(U, V).


def entry_symbols(d: int):
    """Symbolic root S of Sigma (lower triangular), full U, V ((d+1) x (d+1)), task w,
    query root g."""
    S = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"s{i}{j}", real=True) if j <= i else 0)
    U = sp.Matrix(d + 1, d + 1, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(d + 1, d + 1, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    w = sp.Matrix(d, 1, sp.symbols(f"w0:{d}", real=True))
    return S, U, V, w


def derived_full_risk(d: int) -> sp.Expr:
    """R_inf(U, V) with symbolic entries, by Lemma 2.1 and Gaussian expectations
    (module docstring)."""
    S, U, V, w = entry_symbols(d)
    C = sp.Matrix.vstack(sp.eye(d), w.T)  # tokens (x, w^T x) = C x
    B_w = C * S  # Gamma_w = B_w B_w^T
    # The prediction is linear in the query x: pred = r^T x with r^T = e_last^T V Gamma_w U [I; 0].
    s = lemma21.limit_symbols(d + 1, d + 1, 1)
    limit = lemma21.gaussian_limit_matrix(s)
    columns = []
    for j in range(d):  # query e_j (last coordinate 0)
        e_j = sp.Matrix(d + 1, 1, lambda i, _: 1 if i == j else 0)
        columns.append(
            limit.subs(
                {
                    s["m"]: sp.zeros(d + 1, 1),
                    s["Gamma"]: B_w * B_w.T,
                    s["U"]: U,
                    s["V"]: V,
                    s["z"]: e_j,
                }
            ).as_explicit()
        )
    T = sp.Matrix.hstack(*columns)
    r = T[d, :].T  # pred = r^T x
    err = r - w  # pred - w^T x = err^T x
    # E_x (err^T x)^2 = err^T E[x x^T] err, E[x x^T] = zero-tilt second moment of x = S g.
    _, _, second = tilt.tilt_moments_entries(sp.zeros(d, 1), sp.zeros(d, 1), S)
    inner = sp.expand((err.T * second * err)[0, 0] / 2)
    return gaussian_expectation(inner, list(w))


def matrix_full_risk(Sigma: sp.Matrix, U11, u, v, b) -> sp.Expr:
    """The matrix form of R_full (module docstring), for explicit matrices."""
    d = Sigma.shape[0]
    tau = Sigma.trace()
    kappa = tau**2 + 2 * (Sigma * Sigma).trace()
    P = U11.T * Sigma * v
    M = b * U11.T * Sigma - sp.eye(d) + u * v.T * Sigma
    return (
        (P.T * Sigma * P)[0, 0]
        + (M.T * Sigma * M).trace()
        + b**2 * kappa * (u.T * Sigma * u)[0, 0]
        + 2 * b * tau * (P.T * Sigma * u)[0, 0]
    ) / 2


def paper_risk(Sigma, A, b) -> sp.Expr:
    """docs/paper.md's R_inf(A, b) = 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T)
    (comparison target only)."""
    M = b * Sigma * A - eye_like(Sigma)
    return tr(M * Sigma * M.T) / 2


def _blocks(U: sp.Matrix, V: sp.Matrix, d: int):
    return U[:d, :d], U[d, :d].T, V[d, :d].T, V[d, d]


def full_risk_proofs(d: int) -> list[Proof]:
    S, U, V, w = entry_symbols(d)
    derived = derived_full_risk(d)
    Sigma = S * S.T
    U11, u, v, b = _blocks(U, V, d)
    tag = f"d={d}"
    out = [
        prove_zero(
            "derived R_inf(U, V) (Lemma 2.1 + Gaussian expectations) equals the matrix form "
            f"R_full [{tag}]",
            derived - matrix_full_risk(Sigma, U11, u, v, b),
        )
    ]
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    bb = sp.Symbol("b", real=True)
    restrict = {
        U[i, j]: (A[i, j] if i < d and j < d else 0) for i in range(d + 1) for j in range(d + 1)
    }
    restrict.update({V[d, j]: 0 for j in range(d)})
    restrict[V[d, d]] = bb
    out.append(
        prove_zero(
            f"derived R_inf restricted to U = [[A,0],[0,0]], V last row (0,..,0,b) equals "
            f"docs/paper.md's 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T) [{tag}]",
            derived.subs(restrict) - paper_risk(Sigma, A, bb),
        )
    )
    # Only U11, u, v, b enter: the derivative in every other entry is zero.
    others = [U[i, d] for i in range(d + 1)] + [V[i, j] for i in range(d) for j in range(d + 1)]
    out.append(
        prove_zero(
            f"R_inf(U, V) does not depend on U's last column nor on V's first d rows [{tag}]",
            sp.Matrix([sp.diff(derived, x) for x in others]),
        )
    )
    return out


def kernel_symbols(d=None):
    d = d if d is not None else sp.Symbol("d", integer=True, positive=True)
    return {
        "Sigma": sp.MatrixSymbol("Sigma", d, d),
        "A": sp.MatrixSymbol("A", d, d),
        "b": b_sym,
        "u": sp.MatrixSymbol("u", d, 1),
        "v": sp.MatrixSymbol("v", d, 1),
        "d": d,
    }


def kernel_loss_variance(k):
    """Var over queries x ~ N(0, Sigma) of the infinite-prompt loss (1/2) x^T K x, K = M^T M,
    M = b Sigma A - I: tr((K Sigma)^2) / 2 (proved in `loss_variance_proofs`)."""
    S, A, b = k["Sigma"], k["A"], k["b"]
    M = b * S * A - sp.Identity(k["d"])
    KS = M.T * M * S
    return sp.Trace(KS * KS) / 2


def loss_variance_proofs(d: int) -> list[Proof]:
    """Var[(1/2) x^T K x] = tr((K Sigma)^2) / 2 for x = S g, g ~ N(0, I), Sigma = S S^T, any
    symmetric K (symbolic entries), with the Gaussian moments of `gaussian_expectations`."""
    S = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"s{i}{j}", real=True) if j <= i else 0)
    K = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"k{min(i, j)}{max(i, j)}", real=True))
    g = sp.symbols(f"g0:{d}", real=True)
    x = S * sp.Matrix(g)
    loss = (x.T * K * x)[0, 0] / 2
    var = standard_expectation(loss**2, g) - standard_expectation(loss, g) ** 2
    KS = K * S * S.T
    return [
        prove_zero(
            f"Var of the loss (1/2) x^T K x, x ~ N(0, Sigma): tr((K Sigma)^2)/2 [d={d}]",
            var - (KS * KS).trace() / 2,
        )
    ]


def kernel_squared_deviation_variance(k):
    """Var over queries of W = (loss - R_inf)^2: 3 tr((K Sigma)^4) + tr((K Sigma)^2)^2 / 2 (proved
    in `squared_deviation_proofs`)."""
    S, A, b = k["Sigma"], k["A"], k["b"]
    M = b * S * A - sp.Identity(k["d"])
    KS = M.T * M * S
    return 3 * sp.Trace(KS * KS * KS * KS) + sp.Trace(KS * KS) ** 2 / 2


def squared_deviation_proofs(d: int, traces: bool = True) -> list[Proof]:
    """E[(loss - R)^4] - Var^2 = 3 tr((K Sigma)^4) + tr((K Sigma)^2)^2 / 2 for the loss
    (1/2) x^T K x, x = S g ~ N(0, Sigma), R = tr(K Sigma) / 2: in g the loss is (1/2) g^T B g with
    B = S^T K S (symbolic symmetric entries), so the moment is a polynomial expectation over
    independent N(0, 1) g; and tr((K S S^T)^r) = tr((S^T K S)^r) for r = 2, 4 (symbolic S lower
    triangular and K symmetric; `traces`, costly beyond d = 2)."""
    B = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"b{min(i, j)}{max(i, j)}", real=True))
    g = sp.symbols(f"g0:{d}", real=True)
    G = sp.Matrix(g)
    deviation = (G.T * B * G)[0, 0] / 2 - B.trace() / 2
    var = (B * B).trace() / 2
    out = [
        prove_zero(
            "Var of (loss - R_inf)^2 over x ~ N(0, Sigma): 3 tr((K Sigma)^4) + tr((K Sigma)^2)^2 / "
            f"2, in whitened variables (B = S^T K S) [d={d}]",
            standard_expectation(deviation**4, g)
            - var**2
            - (3 * (B**4).trace() + ((B**2).trace()) ** 2 / 2),
        )
    ]
    if traces:
        S = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"s{i}{j}", real=True) if j <= i else 0)
        K = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"k{min(i, j)}{max(i, j)}", real=True))
        KS, W = K * S * S.T, S.T * K * S
        out.append(
            prove_zero(
                f"tr((K Sigma)^r) = tr((S^T K S)^r) for r = 2, 4 [d={d}]",
                sp.Matrix([(KS**2).trace() - (W**2).trace(), (KS**4).trace() - (W**4).trace()]),
            )
        )
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the variance of the loss over queries, tr((K Sigma)^2) / 2, and that of its squared
    deviation from R_inf, 3 tr((K Sigma)^4) + tr((K Sigma)^2)^2 / 2."""
    k = kernel_symbols()
    return [
        KernelSpec(
            "icl_squared_deviation_variance",
            (k["Sigma"], k["A"], k["b"]),
            ("(d, d)", "(d, d)", "scalar"),
            kernel_squared_deviation_variance(k),
            "Var of W = (loss - R_inf)^2 over queries x ~ N(0, Sigma): 3 tr((K Sigma)^4) + "
            "tr((K Sigma)^2)^2 / 2, K = (b Sigma A - I)^T (b Sigma A - I).",
            "icl_risk",
            "scalar",
        ),
        KernelSpec(
            "icl_loss_variance",
            (k["Sigma"], k["A"], k["b"]),
            ("(d, d)", "(d, d)", "scalar"),
            kernel_loss_variance(k),
            "Var of the loss (1/2) x^T K x over queries x ~ N(0, Sigma): tr((K Sigma)^2) / 2, "
            "K = (b Sigma A - I)^T (b Sigma A - I).",
            "icl_risk",
            "scalar",
        ),
    ]
