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
6. Variance of the per-prompt loss of linear attention (the bound of the Catoni tests of its test
   risk, a proven level). The Monte Carlo's per-prompt loss is Y = D^2 + s2 (query noise averaged)
   with D = f - p abar, f = beta^T q, abar = (1/L) sum_i a_i, a_i = s_i y_i. Given (beta, q) the
   pairs (s_i, y_i) are iid bivariate normal with Var s = A = q^T Sigma_p q,
   Cov(s, y) = C = beta^T Sigma_p q, Var y = B = beta^T Sigma_p beta + s2, so
   (`conditional_loss_moments`):
   - the moments m_j = E[a^j | beta, q], j <= 4, are polynomials in (A, B, C) (Gaussian moments,
     proved against Stein's recursion on the covariance [[A, C], [C, B]]);
   - E[(sum_i a_i)^j] = sum over the set partitions pi of {1..j} of L (L - 1) ... (L - |pi| + 1)
     prod_{b in pi} m_|b| (iid summands; proved against the direct sum over index tuples at
     L = 1..5, which fixes a polynomial of degree <= 4 in L);
   - E[D^j | beta, q] = sum_i binom(j, i) f^(j - i) (-p)^i E[abar^i], emitted for j = 2, 4.
   Var Y = E D^4 - (E D^2)^2, the outer expectations over (beta, q): their integrand is a polynomial
   of degree <= 4 in each eigen-coordinate of beta and of q (numerics/authors_loss_variance.py, a
   3-node Gauss-Hermite rule per coordinate, exact to degree 5). The outer expectation of the
   conditional E[D^2 | beta, q] is proved equal to the derived finite-L risk minus s2 (step 3) at
   n = 3 coordinates.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import sympy as sp

from . import tilt
from .gaussian_expectations import gaussian_polynomial_expectation, standard_expectation
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
    out += loss_variance_proofs()
    c0, value, c = weight_moment()
    out.append(
        prove_zero(
            "E e^{c h^2} = (1 - 2c)^(-1/2) on its derived convergence domain c < c0, c0 = 1/2",
            sp.Matrix([value - (1 - 2 * c) ** sp.Rational(-1, 2), c0 - sp.Rational(1, 2)]),
        )
    )
    return out


A_sym, B_sym, C_sym, f_cond = sp.symbols("A B C f", real=True)
p_sym = sp.Symbol("p", real=True)


@lru_cache(maxsize=None)
def product_moments(k: int = 4) -> tuple[sp.Expr, ...]:
    """(m_1, ..., m_k), m_j = E[(s y)^j] for (s, y) ~ N(0, [[A, C], [C, B]]): s = sqrt(A) u,
    y = (C / sqrt(A)) u + sqrt(B - C^2 / A) v with u, v independent standard normal."""
    u, v = sp.symbols("u v", real=True)
    Ap = sp.Symbol("A", positive=True)
    s = sp.sqrt(Ap) * u
    y = C_sym / sp.sqrt(Ap) * u + sp.sqrt(B_sym - C_sym**2 / Ap) * v
    return tuple(
        sp.expand(sp.simplify(gaussian_expectation(sp.expand((s * y) ** j), (u, v)))).subs(
            Ap, A_sym
        )
        for j in range(1, k + 1)
    )


def iid_sum_moment(j: int, moments, L) -> sp.Expr:
    """E[(a_1 + ... + a_L)^j] for iid a_i with E a^i = moments[i - 1]: the sum over the set
    partitions pi of {1..j} of the falling factorial L^(|pi|) times prod over blocks m_|block|."""
    from sympy.utilities.iterables import multiset_partitions

    if j == 0:
        return sp.Integer(1)
    total = sp.Integer(0)
    for part in multiset_partitions(list(range(j))):
        total += sp.ff(L, len(part)) * sp.Mul(*[moments[len(b) - 1] for b in part])
    return sp.expand(total)


@lru_cache(maxsize=None)
def conditional_loss_moments() -> tuple[sp.Expr, sp.Expr]:
    """(E[D^2 | beta, q], E[D^4 | beta, q]) for D = f - p abar, in (f, A, B, C, p, L)."""
    m = product_moments(4)
    out = []
    for j in (2, 4):
        out.append(
            sp.expand(
                sum(
                    sp.binomial(j, i)
                    * f_cond ** (j - i)
                    * (-p_sym) ** i
                    * iid_sum_moment(i, m, L_sym)
                    / L_sym**i
                    for i in range(j + 1)
                )
            )
        )
    return out[0], out[1]


def loss_variance_proofs() -> list[Proof]:
    """Step 6: the product moments by a second route, the iid-sum formula at L = 1..5, and the
    conditional second moment averaged back to the derived finite-L risk."""
    out = []
    m = product_moments(4)
    s, y = sp.symbols("s y", real=True)
    cov = sp.Matrix([[A_sym, C_sym], [C_sym, B_sym]])
    stein = [gaussian_polynomial_expectation((s * y) ** j, [s, y], cov) for j in range(1, 5)]
    out.append(
        prove_zero(
            "E (s y)^j for (s, y) ~ N(0, [[A, C], [C, B]]), j = 1..4: the factored normals = "
            "Stein's recursion",
            sp.Matrix([sp.expand(a - b) for a, b in zip(m, stein)]),
        )
    )
    ms = sp.symbols("M1:5", real=True)
    diffs = []
    for Lv in range(1, 6):
        for j in range(1, 5):
            direct = sp.Integer(0)
            for idx in itertools.product(range(Lv), repeat=j):
                counts = [idx.count(i) for i in set(idx)]
                direct += sp.Mul(*[ms[c - 1] for c in counts])
            diffs.append(sp.expand(direct - iid_sum_moment(j, ms, Lv)))
    out.append(
        prove_zero(
            "E (a_1 + ... + a_L)^j for iid a_i, j <= 4: the set-partition formula = the direct "
            "sum over index tuples at L = 1..5 (a polynomial of degree <= 4 in L)",
            sp.Matrix(diffs),
        )
    )
    n = DIMENSIONS[0]
    c = coordinates(n)
    dot = lambda u, v: sum(ui * vi for ui, vi in zip(u, v))
    half_q = [sp.sqrt(l) * qj for l, qj in zip(c["lam"], c["q"])]  # Sigma_p^(1/2) q
    half_b = [sp.sqrt(l) * bj for l, bj in zip(c["lam"], c["beta"])]
    values = {
        f_cond: dot(c["beta"], c["q"]),
        A_sym: dot(half_q, half_q),
        C_sym: dot(half_b, half_q),
        B_sym: dot(half_b, half_b) + s2_sym,
        p_sym: mu_sym * omega_sym,
    }
    second, _ = conditional_loss_moments()
    outer = gaussian_expectation(sp.expand(second.subs(values)), c["h"] + c["b"])
    out.append(
        prove_zero(
            f"linear attention: E over (beta, q) of E[D^2 | beta, q] = the finite-L risk - s2 "
            f"(step 3) [n = {n}]",
            sp.expand(outer - (linear_risk_coordinates(n) - s2_sym)),
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
    second, fourth = conditional_loss_moments()
    cond_args = (f_cond, A_sym, B_sym, C_sym, p_sym, L)
    cond_shapes = ("(n,)", "(n,)", "(n,)", "(n,)", "scalar", "scalar")
    return [
        KernelSpec(
            "authors_linear_loss_conditional_second",
            cond_args,
            cond_shapes,
            second,
            "E[(f - p abar)^2 | beta, q] of linear attention: A = q^T Sigma_p q, "
            "B = beta^T Sigma_p beta + s2, C = beta^T Sigma_p q, f = beta^T q.",
            "authors_experiment",
            "(n,)",
        ),
        KernelSpec(
            "authors_linear_loss_conditional_fourth",
            cond_args,
            cond_shapes,
            fourth,
            "E[(f - p abar)^4 | beta, q] of linear attention (A, B, C, f as in the second "
            "moment): the per-prompt loss's second moment given (beta, q).",
            "authors_experiment",
            "(n,)",
        ),
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
