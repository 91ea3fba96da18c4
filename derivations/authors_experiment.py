"""Risks of the authors' one-head experiment (docs/paper.md section 6, claim `authors-experiment`).

Data: prompt inputs x_i ~ N(0, Sigma_p), query x_q ~ N(0, Sigma_q), task beta ~ N(0, tau I_d)
(tau = 1/d in the experiment), labels y = beta^T x + eps with eps ~ N(0, s2) on prompt and query.
The correct generator has Sigma_p = Sigma_q = Sigma; the authors' generator (erratum 5) has
Sigma_p = R Sigma R^T (the root R applied twice), Sigma_q = I. In both cases Sigma_p and Sigma_q
commute, which is the hypothesis of everything below.

Models (one head, parameters mu, omega):
    softmax  yhat = mu sum_i softmax_i(omega s_i) y_i,        s_i = x_i^T x_q
    linear   yhat = mu (1/L) sum_i (omega s_i) y_i            (normalised by 1/L)
Risk: E (y_q - yhat)^2 (the authors' loss, no factor 1/2).

Derivation (SymPy; proved in `proofs`):

1. Coordinates. The models see the inputs only through s_i and y_i, both invariant under a common
   rotation of (x_i, x_q, beta); beta's law is rotation invariant. So write Sigma_p = diag(lam),
   Sigma_q = diag(kap) in their common eigenbasis: x_j = sqrt(lam_j) g_j, q_j = sqrt(kap_j) h_j,
   beta_j = sqrt(tau) b_j with g, h, b independent standard normal coordinates. Expectations of
   polynomials in those coordinates use the derived 1-D moments E g^p (integrals in `tilt`).
2. Infinite prompt. Softmax: the tilt e^{omega x^T q} multiplies the law of each g_j by
   e^{t_j g_j}, t_j = omega sqrt(lam_j) q_j, whose derived tilted mean is t_j (Lemma 2.1), so
   T_soft = mu omega sum_j lam_j beta_j q_j = mu omega beta^T Sigma_p q. Linear: the law of large
   numbers gives mu omega E[s y | beta, q], the same expression (proved). R_inf = E(y_q - T)^2.
3. Finite L, linear attention, exactly: with a_i = s_i y_i iid given (beta, q),
       E (y_q - p abar)^2 = E y_q^2 - 2 p E[y_q a_1] + p^2 (E a_1^2 / L + (1 - 1/L) E a_1 a_2),
   p = mu omega (the only combinatorics: L diagonal and L(L-1) off-diagonal pairs).
4. Trace form. The risks are polynomials in lam, kap, symmetric under permuting the pairs
   (lam_j, kap_j); they are rewritten as polynomials in T(a, b) = tr(Sigma_p^a Sigma_q^b) =
   sum_j lam_j^a kap_j^b by solving for the coefficients of every product of traces of bounded
   degree (a linear system, solved exactly; its solution is unique, checked by its rank). The
   rewriting is derived at n = 3 and n = 4 coordinates and the two trace forms are proved equal,
   so it does not depend on the dimension. The trace forms are what `softlin derive` emits.
5. Gradients of the per-prompt loss (y_q - yhat)^2: derivations/authors_gradients.py (emitted as the
   kernels `authors_sgd_*`, called by numerics/authors_sgd.py).
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import sympy as sp

from . import tilt
from .gaussian_expectations import standard_expectation
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero

mu_sym, omega_sym = sp.symbols("mu omega", real=True)
s2_sym = sp.Symbol("s2", nonnegative=True)
tau_sym = sp.Symbol("tau", positive=True)
L_sym = sp.Symbol("L", positive=True)
dim_sym = sp.Symbol("d", integer=True, positive=True)
SIGMA_P = sp.MatrixSymbol("Sigma_p", dim_sym, dim_sym)
SIGMA_Q = sp.MatrixSymbol("Sigma_q", dim_sym, dim_sym)

# Largest (lam-degree, kap-degree) of the risks: the query enters quadratically (kap^1), the
# prompt inputs at most to the fourth power (lam^2). The ansatz of step 4 covers this box.
DEGREE_BOX = (2, 1)
DIMENSIONS = (3, 4)  # >= the number of trace factors in a product (3): the rewriting is unique


gaussian_expectation = standard_expectation  # E over independent N(0, 1) variables


def coordinates(n: int) -> dict:
    lam = sp.symbols(f"lam1:{n + 1}", positive=True)
    kap = sp.symbols(f"kap1:{n + 1}", positive=True)
    g1 = sp.symbols(f"g1_1:{n + 1}", real=True)  # prompt token 1
    g2 = sp.symbols(f"g2_1:{n + 1}", real=True)  # prompt token 2
    h = sp.symbols(f"h1:{n + 1}", real=True)  # query
    b = sp.symbols(f"b1:{n + 1}", real=True)  # task
    e1, e2, eq = sp.symbols("e1 e2 eq", real=True)  # label noises
    q = [sp.sqrt(k) * hj for k, hj in zip(kap, h)]
    beta = [sp.sqrt(tau_sym) * bj for bj in b]
    x1 = [sp.sqrt(l) * g for l, g in zip(lam, g1)]
    x2 = [sp.sqrt(l) * g for l, g in zip(lam, g2)]
    dot = lambda u, v: sum(ui * vi for ui, vi in zip(u, v))
    noise = sp.sqrt(s2_sym)
    return {
        "n": n,
        "lam": lam,
        "kap": kap,
        "g1": g1,
        "g2": g2,
        "h": h,
        "b": b,
        "e1": e1,
        "e2": e2,
        "eq": eq,
        "q": q,
        "beta": beta,
        "y1": dot(beta, x1) + noise * e1,
        "y2": dot(beta, x2) + noise * e2,
        "yq": dot(beta, q) + noise * eq,
        "s1": dot(x1, q),
        "s2": dot(x2, q),
    }


@lru_cache(maxsize=None)
def infinite_prompt_outputs(n: int) -> tuple[sp.Expr, sp.Expr]:
    """(softmax limit, linear limit) given (beta, q): step 2."""
    c = coordinates(n)
    # Softmax: tilted mean of g_j under e^{t_j g_j}, from the derived 1-D integrals of `tilt`.
    tilted_mean = sp.simplify(tilt.gaussian_moment_1d(1) / tilt.gaussian_moment_1d(0))
    soft = 0
    for lam_j, q_j, beta_j in zip(c["lam"], c["q"], c["beta"]):
        t_j = omega_sym * sp.sqrt(lam_j) * q_j
        soft += (
            beta_j * sp.sqrt(lam_j) * tilted_mean.subs(tilt.t_sym, t_j)
        )  # E_tilted[beta_j x_j]; noise mean 0
    soft = sp.expand(mu_sym * soft)
    lin = mu_sym * omega_sym * gaussian_expectation(c["s1"] * c["y1"], c["g1"] + (c["e1"],))
    return soft, sp.expand(lin)


@lru_cache(maxsize=None)
def infinite_risk_coordinates(n: int) -> sp.Expr:
    """R_inf = E (y_q - T_soft)^2 in the eigen-coordinates."""
    c = coordinates(n)
    soft, _ = infinite_prompt_outputs(n)
    return gaussian_expectation((c["yq"] - soft) ** 2, c["h"] + c["b"] + (c["eq"],))


@lru_cache(maxsize=None)
def linear_risk_coordinates(n: int) -> sp.Expr:
    """Exact finite-L risk of linear attention (step 3) in the eigen-coordinates."""
    c = coordinates(n)
    p = mu_sym * omega_sym
    a1 = c["s1"] * c["y1"]
    tok1 = c["g1"] + (c["e1"],)
    outer = c["h"] + c["b"] + (c["eq"],)
    # Token expectations first (given beta, q), then the outer ones: the polynomials stay small.
    E_a1 = gaussian_expectation(a1, tok1)
    E_a2 = E_a1.subs(dict(zip(c["g1"], c["g2"])))  # same conditional mean for token 2
    E_a1sq = gaussian_expectation(a1**2, tok1)
    yq2 = gaussian_expectation(c["yq"] ** 2, outer)
    yq_a = gaussian_expectation(c["yq"] * E_a1, outer)
    a_sq = gaussian_expectation(E_a1sq, outer)
    a_a = gaussian_expectation(E_a1 * E_a2, outer)
    return sp.expand(yq2 - 2 * p * yq_a + p**2 * (a_sq / L_sym + (1 - 1 / L_sym) * a_a))


def _trace_monomials(box):
    """Products of T(a, b), (a, b) != (0, 0), with total degrees inside `box`; as tuples of
    (a, b)."""
    A, B = box
    factors = [(a, b) for a in range(A + 1) for b in range(B + 1) if (a, b) != (0, 0)]
    out = [()]
    for k in range(1, A + B + 1):
        for combo in itertools.combinations_with_replacement(factors, k):
            if sum(f[0] for f in combo) <= A and sum(f[1] for f in combo) <= B:
                out.append(combo)
    return out


def _trace_value(combo, lam, kap):
    return sp.Mul(*[sum(l**a * k**b for l, k in zip(lam, kap)) for a, b in combo])


T_syms = {(a, b): sp.Symbol(f"T_{a}{b}", positive=True) for a in range(3) for b in range(2)}


def trace_form(expr, n: int, box=DEGREE_BOX) -> sp.Expr:
    """Rewrite a symmetric polynomial in (lam_j, kap_j) as a polynomial in the traces T(a, b)
    (symbols T_ab). Raises ArithmeticError when no or several representations exist."""
    c = coordinates(n)
    lam, kap = c["lam"], c["kap"]
    monos = _trace_monomials(box)
    coeffs = sp.symbols(f"c0:{len(monos)}")
    residual = sp.expand(expr - sum(ck * _trace_value(m, lam, kap) for ck, m in zip(coeffs, monos)))
    equations = sp.Poly(residual, *lam, *kap).coeffs()
    M, rhs = sp.linear_eq_to_matrix(equations, coeffs)
    if M.rank() != len(coeffs):
        raise ArithmeticError(
            f"trace rewriting is not unique at n = {n} (rank {M.rank()} < {len(coeffs)})"
        )
    sol = sp.solve(equations, coeffs, dict=True)
    if len(sol) != 1:
        raise ArithmeticError(
            f"no trace form at n = {n}: the expression is not a polynomial in traces"
        )
    sol = sol[0]
    return sp.expand(
        sum(sp.factor(sol[ck]) * sp.Mul(*[T_syms[f] for f in m]) for ck, m in zip(coeffs, monos))
    )


@lru_cache(maxsize=None)
def infinite_risk_traces() -> sp.Expr:
    return trace_form(infinite_risk_coordinates(DIMENSIONS[-1]), DIMENSIONS[-1])


@lru_cache(maxsize=None)
def linear_risk_traces() -> sp.Expr:
    return trace_form(linear_risk_coordinates(DIMENSIONS[-1]), DIMENSIONS[-1])


def to_matrix_form(expr):
    """T(a, b) -> Trace(Sigma_p^a Sigma_q^b) with MatrixSymbols (for the emitted kernels)."""

    def power(M, k):
        return sp.MatMul(*([M] * k)) if k > 1 else (M if k == 1 else sp.Identity(dim_sym))

    subs = {
        T: sp.Trace(
            sp.MatMul(power(SIGMA_P, a), power(SIGMA_Q, b))
            if a and b
            else (power(SIGMA_P, a) if a else power(SIGMA_Q, b))
        )
        for (a, b), T in T_syms.items()
        if (a, b) != (0, 0)
    }
    return expr.subs(subs)


def evaluate_traces(expr, Sigma_p, Sigma_q, **values) -> sp.Expr:
    """Substitute explicit (SymPy) matrices into a trace form
    (exact when the matrices are rational)."""
    subs = {
        T: (Sigma_p**a * Sigma_q**b).trace() for (a, b), T in T_syms.items() if (a, b) != (0, 0)
    }
    named = {"mu": mu_sym, "omega": omega_sym, "s2": s2_sym, "tau": tau_sym, "L": L_sym}
    subs.update({named[k]: v for k, v in values.items()})
    return sp.simplify(expr.subs(subs))


def optimal_product(risk=None) -> tuple[sp.Expr, sp.Expr]:
    """argmin over p = mu omega of a risk in trace form (default R_inf; the risks depend on
    (mu, omega) through p only) and its minimum: (p*, R*)."""
    p = sp.Symbol("p", real=True)
    R = sp.expand((infinite_risk_traces() if risk is None else risk).subs(mu_sym, p / omega_sym))
    if R.has(omega_sym):
        raise ArithmeticError("the risk depends on (mu, omega) through more than mu omega")
    p_star = sp.solve(sp.diff(R, p), p)
    if len(p_star) != 1 or sp.diff(R, p, 2) == 0:
        raise ArithmeticError(
            f"the risk is not a quadratic with one stationary point in p: {p_star}"
        )
    return sp.simplify(p_star[0]), sp.simplify(R.subs(p, p_star[0]))


@lru_cache(maxsize=None)
def weight_moment() -> tuple[sp.Expr, sp.Expr, sp.Symbol]:
    """(threshold c0, value for c < c0, c): E e^{c h^2} for h ~ N(0, 1), c > 0, by SymPy's integral,
    whose convergence condition c < c0 is read off the result.

    E_q w^2 = E_q e^{omega^2 q^T Sigma_p q} factorises over the eigen-coordinates with c_j =
    omega^2 lam_j kap_j, so the softmax weights' second moment averaged over queries (and with it
    the 1/L term of the softmax risk) is finite iff omega^2 max_j lam_j kap_j < c0."""
    h = sp.Symbol("h", real=True)
    c = sp.Symbol("c", positive=True)
    value = sp.integrate(
        sp.exp(c * h**2) * sp.exp(-(h**2) / 2) / sp.sqrt(2 * sp.pi), (h, -sp.oo, sp.oo)
    )
    if not isinstance(value, sp.Piecewise):
        raise ArithmeticError(f"expected a conditional integral, got {value}")
    expr, cond = value.args[0]
    bounds = [rel.rhs for rel in cond.atoms(sp.StrictLessThan) if rel.lhs == c]
    if len(bounds) != 1:
        raise ArithmeticError(f"no convergence condition c < c0 in {value}")
    c0 = bounds[0]
    below = expr.subs(c, c0 / 2)  # a point of the convergence domain selects the branch
    branch = next(
        e
        for e, k in (expr.args if isinstance(expr, sp.Piecewise) else ((expr, True),))
        if bool(k.subs(c, c0 / 2))
    )
    if sp.simplify(branch.subs(c, c0 / 2) - below) != 0:
        raise ArithmeticError("branch selection failed")
    return c0, branch, c


def proofs() -> list[Proof]:
    out = []
    n = DIMENSIONS[-1]
    soft, lin = infinite_prompt_outputs(n)
    c = coordinates(n)
    out.append(
        prove_zero(
            "infinite prompt: softmax limit (tilted mean, Lemma 2.1) = linear limit "
            "= mu omega beta^T Sigma_p q",
            soft - lin,
        )
    )
    out.append(
        prove_zero(
            "infinite prompt: softmax limit is mu omega sum_j lam_j beta_j q_j",
            soft
            - mu_sym
            * omega_sym
            * sum(l * bj * qj for l, bj, qj in zip(c["lam"], c["beta"], c["q"])),
        )
    )
    R_lin = linear_risk_coordinates(n)
    R_inf = infinite_risk_coordinates(n)
    out.append(
        prove_zero(
            "linear attention risk tends to R_inf as L -> oo (both models share R_inf)",
            sp.limit(R_lin, L_sym, sp.oo) - R_inf,
        )
    )
    K = sp.expand((R_lin - R_inf) * L_sym / (mu_sym * omega_sym) ** 2)
    for v in (L_sym, mu_sym, omega_sym):
        out.append(
            prove_zero(
                f"linear attention: R_L - R_inf = (mu omega)^2 K / L exactly, K free of {v}",
                sp.diff(K, v),
            )
        )
    forms = {}
    for m in DIMENSIONS:
        forms[m] = (
            trace_form(infinite_risk_coordinates(m), m),
            trace_form(linear_risk_coordinates(m), m),
        )
    a, b = DIMENSIONS
    out.append(
        prove_zero(
            f"trace form of R_inf is the same at n = {a} and n = {b} coordinates",
            forms[a][0] - forms[b][0],
        )
    )
    out.append(
        prove_zero(
            f"trace form of the finite-L linear risk is the same at n = {a} and n = {b}",
            forms[a][1] - forms[b][1],
        )
    )
    # The rewriting reproduces the coordinate expression exactly.
    back = {
        T: _trace_value(((ab),), c["lam"], c["kap"]) for ab, T in T_syms.items() if ab != (0, 0)
    }
    out.append(
        prove_zero(
            "trace form of the finite-L linear risk, expanded back, is the derived coordinate "
            "expression",
            linear_risk_traces().subs(back) - R_lin,
        )
    )
    c0, value, c = weight_moment()
    out.append(
        prove_zero(
            "E e^{c h^2} = (1 - 2c)^(-1/2) on its derived convergence domain c < c0, c0 = 1/2",
            sp.Matrix([value - (1 - 2 * c) ** sp.Rational(-1, 2), c0 - sp.Rational(1, 2)]),
        )
    )
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted, Sigma_p and Sigma_q as matrices: the infinite-prompt and exact finite-L
    linear-attention risks in trace form, and their optima in p = mu omega."""
    Sp, Sq, mu, om, s2, tau, L = SIGMA_P, SIGMA_Q, mu_sym, omega_sym, s2_sym, tau_sym, L_sym
    cov, sc = ("(d, d)", "(d, d)"), "scalar"
    p_inf, r_inf = optimal_product()
    p_lin, r_lin = optimal_product(linear_risk_traces())
    m = to_matrix_form
    return [
        KernelSpec(
            "authors_infinite_risk",
            (Sp, Sq, mu, om, s2, tau),
            cov + (sc,) * 4,
            m(infinite_risk_traces()),
            "R_inf(mu, omega) of softmax and linear attention (Gaussian inputs), Sigma_p, Sigma_q "
            "commuting.",
            "authors_experiment",
            "scalar",
        ),
        KernelSpec(
            "authors_linear_risk",
            (Sp, Sq, mu, om, s2, tau, L),
            cov + (sc,) * 5,
            m(linear_risk_traces()),
            "Exact finite-L risk of linear attention mu (1/L) sum_i omega x_i^T x_q y_i.",
            "authors_experiment",
            "scalar",
        ),
        KernelSpec(
            "authors_infinite_optimum",
            (Sp, Sq, s2, tau),
            cov + (sc,) * 2,
            sp.Matrix([[m(p_inf), m(r_inf)]]),
            "(p*, R*_inf): argmin and min of R_inf over p = mu omega.",
            "authors_experiment",
            "(1, 2)",
        ),
        KernelSpec(
            "authors_linear_optimum",
            (Sp, Sq, s2, tau, L),
            cov + (sc,) * 3,
            sp.Matrix([[m(p_lin), m(r_lin)]]),
            "(p*_L, min risk): optimum of the exact finite-L linear-attention risk "
            "over p = mu omega.",
            "authors_experiment",
            "(1, 2)",
        ),
    ]
