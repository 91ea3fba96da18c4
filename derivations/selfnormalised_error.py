"""Exact finite-L error of softmax attention over Gaussian prompts, reduced to two scalars
(Proposition 3.1 at every L; docs/paper.md, section 3; the scalars are computed by
numerics/selfnormalised.py).

Tokens z_i ~ N(m, Gamma), a fixed query with tilt a = U z, c = Gamma a, q = a^T Gamma a > 0. Split
each token along c:

    z_i - m = c u_i / q + r_i,   u_i = a^T (z_i - m) ~ N(0, q),
                                 r_i ~ N(0, P),   P = Gamma - c c^T / q,

with u_i and r_i uncorrelated, hence independent (jointly Gaussian; `split_proofs`). The softmax
weights p_i = e^{u_i} / sum_j e^{u_j} depend on the tokens only through g_i = u_i / sqrt q, and
T[mu](z) = V (m + c) (Lemma 2.1), so with S = sum_i p_i g_i - sqrt q

    err = T[mu_L](z) - T[mu](z) = V c S / sqrt q + V sum_i p_i r_i
                                  (`decomposition_proof`).

Given g the r_i are iid N(0, P), so
E[err err^T | g] = S^2 V c c^T V^T / q + (sum_i p_i^2) V P V^T. With

    A_L(q) = E sum_i p_i^2,   B_L(q) = E S^2,   e = c / sqrt q
                                                (the unit direction; e = 0 when q = 0),

    E[err err^T] = A V (Gamma - e e^T) V^T + B V e e^T V^T,
    E|err|^2     = tr(V Gamma V^T) A + rho (B - A),   rho = |V e|^2 = |V Gamma a|^2 / q.

**Stein's identity.** E[g h(g)] = E[h'(g)] for g ~ N(0, 1)
(integration by parts against the density), and d p_i / d g_i = sqrt q p_i (1 - p_i), so
E sum_i p_i g_i = sqrt q E sum_i p_i (1 - p_i) = sqrt q (1 - A) (sum_i p_i = 1), E S = -sqrt q A,
and the exact bias is

    E err = -A V Gamma a                                                        (`stein_proofs`).

At q = 0 the weights are uniform, c = 0 (Gamma^{1/2} a = 0) and the same kernels hold with e = 0.
"""

from __future__ import annotations

import sympy as sp

from . import tilt
from .gaussian_expectations import gaussian_polynomial_expectation
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

A_sym, B_sym = sp.symbols("A B", nonnegative=True)
trace_sym, rho_sym = sp.symbols("trace rho", nonnegative=True)


def symbols(d=None, k=None):
    d = d if d is not None else sp.Symbol("d", integer=True, positive=True)
    k = k if k is not None else sp.Symbol("k", integer=True, positive=True)
    s = tilt.matrix_symbols(d)
    s["V"] = sp.MatrixSymbol("V", k, d)
    s["e"] = sp.MatrixSymbol("e", d, 1)
    return s


def error_second_moment(s=None) -> sp.MatrixExpr:
    """E[err err^T] = A V (Gamma - e e^T) V^T + B V e e^T V^T (k x k)."""
    s = s or symbols()
    V, G, e = s["V"], s["Gamma"], s["e"]
    return A_sym * V * (G - e * e.T) * V.T + B_sym * V * e * e.T * V.T


def bias(s=None) -> sp.MatrixExpr:
    """E err = -A V Gamma a (k x 1)."""
    s = s or symbols()
    return -A_sym * s["V"] * s["Gamma"] * s["a"]


def mean_squared_error() -> sp.Expr:
    """E|err|^2 = tr(V Gamma V^T) A + rho (B - A): the trace of `error_second_moment`
    (entrywise in its four arguments)."""
    return trace_sym * A_sym + rho_sym * (B_sym - A_sym)


def _explicit(d: int, k: int):
    G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    a = sp.Matrix(d, 1, sp.symbols(f"a0:{d}", real=True))
    return G, V, a


def split_proofs(d: int = 3) -> list[Proof]:
    """Cov(u, r) = 0, Cov(r) = P and P a = 0, for r = (I - c a^T / q)(z' - m) with
    Cov(z') = Gamma."""
    G, _, a = _explicit(d, 1)
    c, q = G * a, (a.T * G * a)[0, 0]
    R = sp.eye(d) - c * a.T / q  # r = R (z' - m)
    P = G - c * c.T / q
    return [
        prove_zero(f"Cov(r, u) = (I - c a^T / q) Gamma a = 0 [d={d}]", R * G * a),
        prove_zero(
            f"Cov(r) = (I - c a^T / q) Gamma (I - a c^T / q) = Gamma - c c^T / q [d={d}]",
            R * G * R.T - P,
        ),
        prove_zero(
            f"z' - m = c u / q + r with u = a^T (z' - m) [d={d}]", (c * a.T / q + R) - sp.eye(d)
        ),
    ]


def decomposition_proof(d: int = 2, L: int = 3) -> Proof:
    """sum_i p_i z_i - (m + c) = c S / sqrt q + sum_i p_i r_i, with sum_i p_i = 1 and
    u_i = sqrt q g_i."""
    G, _, a = _explicit(d, 1)
    m = sp.Matrix(d, 1, sp.symbols(f"m0:{d}", real=True))
    c = G * a
    q = sp.Symbol("q", positive=True)
    gs = sp.symbols(f"gg0:{L}", real=True)
    ps = list(sp.symbols(f"p0:{L - 1}", real=True))
    ps.append(1 - sum(ps))
    rs = [sp.Matrix(d, 1, sp.symbols(f"r{i}_0:{d}", real=True)) for i in range(L)]
    tokens = [m + c * sp.sqrt(q) * g / q + r for g, r in zip(gs, rs)]
    S = sum(p * g for p, g in zip(ps, gs)) - sp.sqrt(q)
    lhs = sum((p * t for p, t in zip(ps, tokens)), sp.zeros(d, 1)) - (m + c)
    rhs = c * S / sp.sqrt(q) + sum((p * r for p, r in zip(ps, rs)), sp.zeros(d, 1))
    return prove_zero(f"err / V = c S / sqrt q + sum_i p_i r_i [d={d}, L={L}]", lhs - rhs)


def conditional_second_moment_proof(d: int = 2, L: int = 2) -> Proof:
    """E_r[(s c + sum_i p_i r_i)(...)^T] = s^2 c c^T + (sum_i p_i^2) P for r_i iid N(0, P), P
    symbolic (by Stein's recursion on the monomials, gaussian_expectations)."""
    P = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"P{min(i, j)}{max(i, j)}", real=True))
    c = sp.Matrix(d, 1, sp.symbols(f"c0:{d}", real=True))
    s = sp.Symbol("s", real=True)
    ps = sp.symbols(f"p0:{L}", real=True)
    ys = [sp.Matrix(d, 1, sp.symbols(f"y{i}_0:{d}", real=True)) for i in range(L)]
    variables = [y for Y in ys for y in Y]
    Sigma = sp.diag(*([P] * L))
    x = s * c + sum((p * Y for p, Y in zip(ps, ys)), sp.zeros(d, 1))
    outer = x * x.T
    got = outer.applyfunc(lambda e: gaussian_polynomial_expectation(e, variables, Sigma))
    want = s**2 * c * c.T + sum(p**2 for p in ps) * P
    return prove_zero(
        f"E[err err^T | g] = S^2 c c^T / q + (sum p_i^2) P (r_i iid N(0, P)) [d={d}, L={L}]",
        got - want,
    )


def kernel_proofs(d: int = 2, k: int = 2) -> list[Proof]:
    """The emitted forms against the split: e = c / sqrt q turns A V P V^T + B V c c^T V^T / q into
    `error_second_moment`, its trace is `mean_squared_error`, and E[V c S / sqrt q] = -A V c."""
    G, V, a = _explicit(d, k)
    e = sp.Matrix(d, 1, sp.symbols(f"e0:{d}", real=True))
    c, q = G * a, (a.T * G * a)[0, 0]
    s = symbols(d, k)
    subs = {s["Gamma"]: G, s["V"]: V, s["e"]: c / sp.sqrt(q), s["a"]: a}
    kernel = error_second_moment(s).subs(subs).as_explicit()
    split = A_sym * V * (G - c * c.T / q) * V.T + B_sym * V * c * c.T * V.T / q
    generic = error_second_moment(s).subs({s["Gamma"]: G, s["V"]: V, s["e"]: e}).as_explicit()
    Ve = V * e
    mse = mean_squared_error().subs({trace_sym: (V * G * V.T).trace(), rho_sym: (Ve.T * Ve)[0, 0]})
    ES = -sp.sqrt(q) * A_sym  # Stein: E S = sqrt q (1 - A) - sqrt q
    return [
        prove_zero(
            "A V (Gamma - e e^T) V^T + B V e e^T V^T = A V P V^T + B V c c^T V^T / q, "
            f"e = c / sqrt q [d={d}, k={k}]",
            kernel - split,
        ),
        prove_zero(
            f"tr E[err err^T] = tr(V Gamma V^T) A + |V e|^2 (B - A) [d={d}, k={k}]",
            generic.trace() - mse,
        ),
        prove_zero(
            f"E err = V c E[S] / sqrt q = -A V Gamma a [d={d}, k={k}]",
            V * c * ES / sp.sqrt(q) - bias(s).subs(subs).as_explicit(),
        ),
    ]


def stein_proofs(L: int = 3) -> list[Proof]:
    """The three steps of E sum_i p_i g_i = sqrt q (1 - A): Gaussian integration by parts
    (exact, for any h: g phi h = phi h' - (phi h)', the last term integrating to 0), the softmax
    derivative, and sum_i p_i (1 - p_i) = 1 - sum_i p_i^2."""
    g = sp.Symbol("g", real=True)
    h = sp.Function("h")
    phi = sp.exp(-(g**2) / 2) / sp.sqrt(2 * sp.pi)
    rq = sp.Symbol("sqrt_q", positive=True)
    gs = sp.symbols(f"gg0:{L}", real=True)
    den = sum(sp.exp(rq * x) for x in gs)
    p = [sp.exp(rq * x) / den for x in gs]
    ps = list(sp.symbols(f"p0:{L - 1}", real=True))
    ps.append(1 - sum(ps))
    t = sp.Symbol("t", real=True)
    mgf_check = sp.integrate(g * sp.exp(t * g) * phi, (g, -sp.oo, sp.oo)) - sp.integrate(
        t * sp.exp(t * g) * phi, (g, -sp.oo, sp.oo)
    )
    return [
        prove_zero(
            "Gaussian integration by parts: g phi(g) h(g) = phi(g) h'(g) - d/dg (phi(g) h(g))",
            g * phi * h(g) - phi * sp.diff(h(g), g) + sp.diff(phi * h(g), g),
        ),
        prove_zero(
            "Stein on h = e^{t g}: E[g e^{t g}] = E[t e^{t g}] (the boundary term vanishes)",
            mgf_check,
        ),
        *[
            prove_zero(
                f"softmax: d p_{i} / d g_{i} = sqrt q p_{i} (1 - p_{i}) [L={L}]",
                sp.diff(p[i], gs[i]) - rq * p[i] * (1 - p[i]),
            )
            for i in range(L)
        ],
        prove_zero(
            f"sum_i p_i (1 - p_i) = 1 - sum_i p_i^2 when sum_i p_i = 1 [L={L}]",
            sum(x * (1 - x) for x in ps) - (1 - sum(x**2 for x in ps)),
        ),
    ]


def proofs() -> list[Proof]:
    return (
        split_proofs(3)
        + [decomposition_proof(2, 3), conditional_second_moment_proof(2, 2)]
        + kernel_proofs(2, 2)
        + kernel_proofs(3, 1)
        + stein_proofs(3)
    )


@cached
def selfnormalised_error_proofs() -> tuple[Proof, ...]:
    """The exact finite-L error from A_L and B_L (derivations/selfnormalised_error.py)."""
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the exact finite-L error's second moment, bias and mean square from the scalars
    A_L(q), B_L(q)."""
    s = symbols()
    A, B = A_sym, B_sym
    return [
        KernelSpec(
            "selfnormalised_error_second_moment",
            (s["Gamma"], s["V"], s["e"], A, B),
            ("(d, d)", "(k, d)", "(d, 1)", "scalar", "scalar"),
            error_second_moment(s),
            "E[err err^T] = A V (Gamma - e e^T) V^T + B V e e^T V^T, "
            "e = Gamma a / sqrt q (0 at q = 0).",
            "selfnormalised_error",
            "(k, k)",
        ),
        KernelSpec(
            "selfnormalised_bias",
            (s["Gamma"], s["V"], s["a"], A),
            ("(d, d)", "(k, d)", "(d, 1)", "scalar"),
            bias(s),
            "E err = -A V Gamma a (Stein's identity), exact at every L.",
            "selfnormalised_error",
            "(k, 1)",
        ),
        KernelSpec(
            "selfnormalised_mse",
            (trace_sym, rho_sym, A, B),
            ("any shape",) * 4,
            mean_squared_error(),
            "E|err|^2 = tr(V Gamma V^T) A + rho (B - A), rho = |V Gamma a|^2 / q.",
            "selfnormalised_error",
            "broadcast shape",
        ),
    ]


GROUP = Group(
    "selfnormalised_error",
    title="Exact finite-L error of softmax attention, reduced to two scalars",
    hypotheses="tokens N(m, Gamma), fixed query with q = a^T Gamma a > 0",
    proofs=selfnormalised_error_proofs,
    parts=("selfnormalised_error",),
)
