"""Product laws beyond Gaussians: the first-order coefficient for iid-coordinate tokens (part 5).

**5. Beyond Gaussians.** For z' = m + B x with x iid coordinates of log-mgf l (Rademacher: log cosh;
uniform on [-sqrt3, sqrt3]: log(sinh(sqrt3 t) / (sqrt3 t))), section 1 gives, with b = B^T a,
tr C1(z) = e^{sum_j l(2 b_j) - 2 l(b_j)} (sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2);
l(2t) - 2 l(t) and l'' are emitted in stable forms (log(1 + tanh^2 t); log(x / tanh x) and
1/t^2 - 3/sinh^2(sqrt3 t) with Taylor polynomials near 0). The assembly over the coordinates is
emitted too, for a batch of n queries (columns b of the r x n matrix B^T U Z):

    log E w^2 = 1_r^T W,    W_jn = l(2 b_jn) - 2 l(b_jn),
    tr C1 / E w^2 = 1_k^T (VB o VB) K + diag(D^T (VB)^T VB D),   K_jn = l''(2 b_jn),
                                                                 D_jn = l'(2 b_jn) - l'(b_jn),

proved (`assembly_proofs`) against grad and Hess of Lambda(a) = a^T m + sum_j l((B^T a)_j) taken by
SymPy for a generic function l.

The limit itself: grad Lambda(a) = m + B l'(B^T a) (chain rule, proved for a generic l), so
T[mu](z) = V (m + B l'(B^T U z)) with l' applied entrywise (`product_law_limit`, emitted as
`rademacher_affine_limit` and `uniform_affine_limit`, l' the controls' tilted means).
"""

from __future__ import annotations

import sympy as sp

from . import batched, controls, fluctuations_one_token, lemma21
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero


# ---------------------------------------------------------------------------------------------
# 5. Product laws beyond Gaussians: z = m + B x, x with iid coordinates of log-mgf l. Then
#    Lambda(a) = a^T m + sum_j l(b_j), b = B^T a, and section 1 gives
#    tr C1(z) = e^{sum_j l(2 b_j) - 2 l(b_j)}
#               (sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2).


def product_law_log_mgf(kind: str) -> sp.Expr:
    if kind == "rademacher":
        return controls.rademacher_log_mgf()
    if kind == "uniform":
        return controls.uniform_log_mgf()
    raise ValueError(f"unknown product law {kind!r} (known: rademacher, uniform)")


def product_law_log_w2_derived(kind: str) -> sp.Expr:
    """l(2a) - 2 l(a), straight from the log-mgf."""
    a = controls.a_sym
    lam = product_law_log_mgf(kind)
    return lam.subs(a, 2 * a) - 2 * lam


def product_law_curvature_derived(kind: str) -> sp.Expr:
    """l''(a), straight from the log-mgf."""
    return sp.diff(product_law_log_mgf(kind), controls.a_sym, 2)


def _near_zero(exact: sp.Expr) -> sp.Expr:
    """Taylor polynomial near a = 0 for |a| < 1/20 (as the controls' tilted mean), exact form
    elsewhere."""
    a = controls.a_sym
    series = sp.series(exact, a, 0, controls.SERIES_ORDER).removeO()
    return sp.Piecewise((series, sp.Abs(a) < controls.SERIES_RADIUS), (exact, True))


def product_law_log_w2(kind: str) -> sp.Expr:
    """Stable form of l(2a) - 2 l(a): log(1 + tanh^2 a) (Rademacher); log(x / tanh x), x = sqrt3 a,
    with its Taylor polynomial near 0 (uniform; tanh, not coth, so that large |a| does not
    overflow)."""
    a = controls.a_sym
    if kind == "rademacher":
        return sp.log(1 + sp.tanh(a) ** 2)
    x = sp.sqrt(3) * a
    return _near_zero(sp.log(x / sp.tanh(x)))


def product_law_curvature(kind: str) -> sp.Expr:
    """Stable form of l''(a): 1 - tanh^2 a (Rademacher); 1/a^2 - 3 / sinh^2(sqrt3 a) with its Taylor
    polynomial near 0, where the two terms cancel (uniform)."""
    a = controls.a_sym
    if kind == "rademacher":
        return 1 - sp.tanh(a) ** 2
    return _near_zero(1 / a**2 - 3 / sp.sinh(sp.sqrt(3) * a) ** 2)


def product_law_tilted_mean(kind: str) -> sp.Expr:
    """l'(a) in its emitted (stable) form: tanh a, or the uniform law's Taylor / closed-form
    piecewise."""
    if kind == "rademacher":
        return controls.rademacher_tilted_mean()
    if kind == "uniform":
        return controls.uniform_tilted_mean()
    raise ValueError(f"unknown product law {kind!r} (known: rademacher, uniform)")


def product_law_limit(kind: str, s=None) -> sp.MatrixExpr:
    """T[mu](z_j) = V (m + B l'(B^T U z_j)) for tokens m + B x, x iid of log-mgf l, n query columns
    (k x n)."""
    s = s or lemma21.limit_symbols()
    B = sp.MatrixSymbol("B", *s["Gamma"].shape)
    n = s["z"].shape[1]
    lprime = sp.Lambda(controls.a_sym, product_law_tilted_mean(kind))
    return s["V"] * (s["m"] * sp.OneMatrix(1, n) + B * (B.T * s["U"] * s["z"]).applyfunc(lprime))


def limit_chain_rule_proof(d: int = 2) -> Proof:
    """grad_a [a^T m + sum_j l((B^T a)_j)] = m + B l'(B^T a) for a generic smooth l
    (explicit d x d B)."""
    a = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"a{i}", real=True))
    m = sp.Matrix(d, 1, lambda i, _: sp.Symbol(f"m{i}", real=True))
    B = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"b{i}{j}", real=True))
    l = sp.Function("l")
    b = B.T * a
    Lam = (a.T * m)[0, 0] + sum(l(b[j]) for j in range(d))
    grad = sp.Matrix([sp.diff(Lam, a[i]) for i in range(d)])
    claimed = m + B * sp.Matrix(
        [
            sp.Subs(sp.Derivative(l(controls.a_sym), controls.a_sym), controls.a_sym, b[j])
            for j in range(d)
        ]
    )
    return prove_zero(
        f"product law: grad Lambda(a) = m + B l'(B^T a) for a generic l [d={d}]",
        sp.simplify((grad - claimed).doit()),
    )


def product_law_proofs() -> list[Proof]:
    a = controls.a_sym
    pos = sp.Symbol("t", positive=True)
    out = []
    for kind in ("rademacher", "uniform"):
        exact_w2 = product_law_log_w2(kind)
        exact_c = product_law_curvature(kind)
        if isinstance(exact_w2, sp.Piecewise):
            exact_w2, exact_c = exact_w2.args[1][0], exact_c.args[1][0]
        derived_w2 = product_law_log_w2_derived(kind).subs(a, pos)
        out.append(
            prove_zero(
                f"{kind}: l(2a) - 2 l(a) equals its stable form (a > 0; both even)",
                sp.simplify((sp.exp(derived_w2) - sp.exp(exact_w2.subs(a, pos))).rewrite(sp.exp)),
            )
        )
        out.append(
            prove_zero(
                f"{kind}: l''(a) equals its stable form",
                sp.simplify((product_law_curvature_derived(kind) - exact_c).rewrite(sp.exp)),
            )
        )
    x = sp.Symbol("x", real=True)
    out.append(
        prove_zero(
            "uniform curvature series starts 1 - 3 a^2 / 5 = 1 + kappa4 a^2 / 2 (variance 1, "
            "fourth cumulant -6/5)",
            sp.series(1 / x**2 - 3 / sp.sinh(sp.sqrt(3) * x) ** 2, x, 0, 3).removeO()
            - (1 - sp.Rational(3, 5) * x**2),
        )
    )
    return out


# ---------------------------------------------------------------------------------------------
# The assembly over coordinates, batched over queries (columns).


def assembly_symbols(r=None, k=None, n=None) -> dict:
    r = r if r is not None else sp.Symbol("r", integer=True, positive=True)
    k = k if k is not None else sp.Symbol("k", integer=True, positive=True)
    n = n if n is not None else sp.Symbol("n", integer=True, positive=True)
    return {
        "W": sp.MatrixSymbol("W", r, n),
        "K": sp.MatrixSymbol("K", r, n),
        "D": sp.MatrixSymbol("D", r, n),
        "VB": sp.MatrixSymbol("VB", k, r),
    }


def product_log_weight(s=None) -> sp.MatrixExpr:
    """log E w^2 = sum_j (l(2 b_j) - 2 l(b_j)) per query column (1 x n), from
    W_jn = l(2 b_jn) - 2 l(b_jn)."""
    s = s or assembly_symbols()
    return sp.OneMatrix(1, s["W"].shape[0]) * s["W"]


def product_trace_factor(s=None) -> sp.MatrixExpr:
    """tr C1 / E w^2 = sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2 per query column
    (1 x n)."""
    s = s or assembly_symbols()
    VB = s["VB"]
    return sp.OneMatrix(1, VB.shape[0]) * sp.HadamardPower(VB, 2) * s[
        "K"
    ] + batched.columnwise_quadratic(s["D"], VB.T * VB)


def assembly_proofs(d: int = 2, r: int = 2, k: int = 2, n: int = 2) -> list[Proof]:
    """Section 1's E w^2 = e^{Lambda(2a) - 2 Lambda(a)} and
    tr C1 / E w^2 = tr(V Hess Lambda(2a) V^T) + |V (grad Lambda(2a) - grad Lambda(a))|^2, with
    Lambda(a) = a^T m + sum_j l((B^T a)_j) for a generic l, equal the batched kernels column by
    column."""
    l, y = sp.Function("l"), sp.Symbol("y", real=True)
    lp = lambda x: sp.diff(l(y), y).subs(y, x)
    lpp = lambda x: sp.diff(l(y), y, 2).subs(y, x)
    m = sp.Matrix(d, 1, sp.symbols(f"m0:{d}", real=True))
    B = sp.Matrix(d, r, lambda i, j: sp.Symbol(f"b{i}{j}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    a = sp.Matrix(d, 1, sp.symbols(f"a0:{d}", real=True))
    A = sp.Matrix(
        d, n, lambda i, j: sp.Symbol(f"q{i}{j}", real=True)
    )  # query tilts, one per column
    Lam = (a.T * m)[0, 0] + sum(l(x) for x in B.T * a)
    grad = sp.Matrix([sp.diff(Lam, x) for x in a])
    hess = sp.hessian(Lam, list(a))
    s = assembly_symbols(r, k, n)
    Bt = B.T * A
    W = Bt.applyfunc(lambda x: l(2 * x) - 2 * l(x))
    K = Bt.applyfunc(lambda x: lpp(2 * x))
    D = Bt.applyfunc(lambda x: lp(2 * x) - lp(x))
    subs = {s["W"]: W, s["K"]: K, s["D"]: D, s["VB"]: V * B}
    log_w, factor = (
        e.subs(subs).as_explicit() for e in (product_log_weight(s), product_trace_factor(s))
    )
    tag = f"d={d}, r={r}, k={k}, n={n}"
    out_w, out_f = [], []
    for j in range(n):
        at = lambda e, c: e.subs({x: c * A[i, j] for i, x in enumerate(a)}, simultaneous=True)
        delta = V * (at(grad, 2) - at(grad, 1))
        direct = (V * at(hess, 2) * V.T).trace() + (delta.T * delta)[0, 0]
        out_w.append(log_w[0, j] - (at(Lam, 2) - 2 * at(Lam, 1)))
        out_f.append(sp.expand(factor[0, j] - direct))
    return [
        prove_zero(
            f"product law: log E w^2 = Lambda(2a) - 2 Lambda(a) = 1^T W [{tag}]", sp.Matrix(out_w)
        ),
        prove_zero(
            "product law: tr(V Hess Lambda(2a) V^T) + |V delta|^2 "
            f"= 1^T (VB o VB) K + |VB D|^2 [{tag}]",
            sp.Matrix(out_f),
        ),
    ]


def proofs() -> list[Proof]:
    return (
        product_law_proofs()
        + [limit_chain_rule_proof()]
        + assembly_proofs(2, 2, 2, 2)
        + assembly_proofs(3, 1, 2, 1)
    )


def kernel_specs() -> list[KernelSpec]:
    """Emitted, for Rademacher and uniform coordinates: l(2a) - 2 l(a) and l''(a) entrywise, their
    assembly over r coordinates into log E w^2 and tr C1 / E w^2, and the limit
    V (m + B l'(B^T U z))."""
    pa = assembly_symbols()  # tr C1 assembled over r coordinates
    ot = fluctuations_one_token.symbols()
    B = sp.MatrixSymbol("B", *ot["Gamma"].shape)
    return (
        [
            KernelSpec(
                f"{kind}_{what}",
                (controls.a_sym,),
                ("any shape",),
                expr(kind),
                f"{doc} ({kind}, entrywise).",
                "fluctuations_product",
                "same as a",
            )
            for kind in ("rademacher", "uniform")
            for what, expr, doc in (
                (
                    "log_weight_second_moment",
                    product_law_log_w2,
                    "l(2a) - 2 l(a) = log E w^2 of one coordinate, l its log-mgf",
                ),
                (
                    "curvature",
                    product_law_curvature,
                    "l''(a): the tilted variance",
                ),
            )
        ]
        + [
            KernelSpec(
                "product_law_log_weight",
                (pa["W"],),
                ("(r, n)",),
                product_log_weight(pa),
                "log E w^2 = sum_j (l(2 b_j) - 2 l(b_j)) per column, W = l(2b) - 2 l(b) entrywise.",
                "fluctuations_product",
                "(1, n)",
            ),
            KernelSpec(
                "product_law_trace_factor",
                (pa["K"], pa["D"], pa["VB"]),
                ("(r, n)", "(r, n)", "(k, r)"),
                product_trace_factor(pa),
                "tr C1 / E w^2 = sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2 per "
                "column.",
                "fluctuations_product",
                "(1, n)",
            ),
        ]
        + [
            KernelSpec(
                f"{kind}_affine_limit",
                (ot["m"], B, ot["U"], ot["V"], ot["z"]),
                ("(d, 1)", "(d, r)", "(d, d)", "(k, d)", "(d, n)"),
                product_law_limit(kind, ot),
                f"T[mu](z) = V (m + B l'(B^T U z)) for tokens m + B x, x iid {kind} "
                "(l' entrywise).",
                "fluctuations_product",
                "(k, n)",
            )
            for kind in ("rademacher", "uniform")
        ]
    )
