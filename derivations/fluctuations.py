"""Proposition 3.1, made exact: the 1/L fluctuations of the finite-prompt output and their average
over Gaussian queries, with the finiteness threshold of that average. The sharp rate beyond it is in
fluctuations_exponent.py, the explicit in-expectation bound in fluctuations_bound.py, product laws
in fluctuations_product.py.

**1. First order at a fixed query (any token law with a finite log-mgf Lambda near 2a).** With
w = e^{a^T z'} / Z(a) (E w = 1), mu_a = grad Lambda(a) the tilted mean,
xi = w (z' - mu_a), eta = w - 1,

    T[mu_L](z) - T[mu](z) = V X / D,   X = mean_i xi_i,   D = 1 + mean_i eta_i.

Expanding X / (1 + dD) = X - X dD + O(|dD|^2 |X|) and using E X = 0, E[X dD] = E[xi eta] / L,
E[X X^T] = E[xi xi^T] / L (the terms of total degree >= 3 in the centred means are O(L^-2)):

    b1(z) = lim L (E T[mu_L](z) - T[mu](z)) = -V E[w^2 (z' - mu_a)],
    C1(z) = lim L Cov T[mu_L](z)            =  V E[w^2 (z' - mu_a)(z' - mu_a)^T] V^T.

The doubly tilted law gives both moments for *any* law (`general_law_proofs`, with M the mgf):

    E w^2 = e^{Lambda(2a) - 2 Lambda(a)},
    E[w^2 (z' - mu_a)] = E w^2 (grad Lambda(2a) - grad Lambda(a)),
    E[w^2 (z' - mu_a)(z' - mu_a)^T] = E w^2 (Hess Lambda(2a) + delta delta^T),
    delta = grad Lambda(2a) - grad Lambda(a).

For N(m, Gamma) tokens (Lambda(a) = a^T m + a^T Gamma a / 2, so delta = Gamma a, Hess = Gamma):

    b1(z) = -e^{a^T Gamma a} V Gamma a,
    C1(z) = e^{a^T Gamma a} V (Gamma + Gamma a a^T Gamma) V^T,   a = U z,

and L E||T[mu_L](z) - T[mu](z)||^2 -> tr C1(z) = e^{a^T Gamma a} (tr(V Gamma V^T) + |V Gamma a|^2).

**2. The query average.** For z ~ nu = N(0, Sigma_q), z = S g with S S^T = Sigma_q, g ~ N(0, I),
a^T Gamma a = g^T K g and |V Gamma a|^2 = g^T P g with K = S^T M S, P = S^T N S,
M = U^T Gamma U, N = U^T Gamma V^T V Gamma U. The one-dimensional integrals (s = 1 - 2k > 0)

    E e^{k g^2} = s^{-1/2},   E g^2 e^{k g^2} = s^{-3/2}   (and E e^{k g^2} = infinity for k >= 1/2)

and rotation invariance give, with lambda = lambda_max(K) = lambda_max(M Sigma_q),

    first_order_coefficient = lim_L L E||T[mu_L] - T[mu]||^2_{L2(nu)}
        = det(I - 2 M Sigma_q)^{-1/2} [ tr(V Gamma V^T) + tr(N Sigma_q (I - 2 M Sigma_q)^{-1}) ],

finite if and only if lambda < 1/2 (when V Gamma != 0; otherwise the error is identically 0).
"""

from __future__ import annotations

import sympy as sp

from . import batched, concentration, tilt
from .group import Group
from .kernel_spec import KernelSpec
from .matrix_ops import det, eye_like, inv, tr
from .proof import Proof, prove_zero
from .proof_cache import cached

t_sym = sp.Symbol("t", real=True)
a_sym = sp.Symbol("a", real=True)
eps = sp.Symbol("epsilon", positive=True)
M_fun = sp.Function("M")  # the moment generating function E e^{t x} of a 1-D token law


# ---------------------------------------------------------------------------------------------
# 1. First order at a fixed query.


def ratio_expansion() -> dict:
    """Coefficients of eps^2 (= 1/L) in E[X/D] and E[X^2/D^2] for X = eps x, D = 1 + eps y, where
    x, y are the sqrt(L)-scaled centred means (E x = E y = 0, E x y = c_xy, E x^2 = c_xx; moments of
    degree 3 are O(eps), so eps^3 E[x^i y^j] is O(eps^4))."""
    x, y = sp.symbols("x y", real=True)
    c_xy, c_xx = sp.symbols("c_xy c_xx", real=True)
    first = sp.series(eps * x / (1 + eps * y), eps, 0, 3).removeO()
    second = sp.series((eps * x) ** 2 / (1 + eps * y) ** 2, eps, 0, 3).removeO()

    def expect(expr):
        expr = sp.expand(expr)
        table = {x: 0, y: 0, x * y: c_xy, x**2: c_xx, y**2: sp.Symbol("c_yy")}
        out = 0
        for term in sp.Add.make_args(expr):
            coeff, monomial = term.as_independent(x, y)
            out += coeff * table.get(monomial, sp.Symbol(f"E[{monomial}]"))
        return sp.expand(out)

    return {
        "bias": expect(first).coeff(eps, 2),
        "second": expect(second).coeff(eps, 2),
        "c_xy": c_xy,
        "c_xx": c_xx,
    }


def general_law_moments() -> dict:
    """E w^2, E[w^2 (x - mu_a)], E[w^2 (x - mu_a)^2] of a 1-D law from its mgf M
    (derivatives of M at 2a are E[x^j e^{2 a x}]), and the claimed forms in Lambda = log M."""
    M = M_fun
    Lam = sp.log(M(t_sym))
    dLam, d2Lam = sp.diff(Lam, t_sym), sp.diff(Lam, t_sym, 2)
    dM, d2M = sp.diff(M(t_sym), t_sym), sp.diff(M(t_sym), t_sym, 2)
    at = lambda e, v: e.subs(t_sym, v)
    mu = at(dLam, a_sym)
    Ew2 = M(2 * a_sym) / M(a_sym) ** 2
    direct = {
        "w2": Ew2,
        "w2_centred": (at(dM, 2 * a_sym) - mu * M(2 * a_sym)) / M(a_sym) ** 2,
        "w2_centred2": (at(d2M, 2 * a_sym) - 2 * mu * at(dM, 2 * a_sym) + mu**2 * M(2 * a_sym))
        / M(a_sym) ** 2,
    }
    shift = at(dLam, 2 * a_sym) - at(dLam, a_sym)
    claimed = {
        "w2": sp.exp(at(Lam, 2 * a_sym) - 2 * at(Lam, a_sym)),
        "w2_centred": Ew2 * shift,
        "w2_centred2": Ew2 * (at(d2Lam, 2 * a_sym) + shift**2),
    }
    return {"direct": direct, "claimed": claimed}


def symbols(d=None, k=None, n=None):
    s = concentration.symbols(d, k)
    d = s["a"].shape[0]
    n = n if n is not None else sp.Symbol("n", integer=True, positive=True)
    s["U"] = sp.MatrixSymbol("U", d, d)
    s["z"] = sp.MatrixSymbol("z", d, n)
    return s


def weight_second_moment(s) -> sp.Expr:
    """E w^2 = exp(log Z(2a) - 2 log Z(a)) as a scalar (the 1 x 1 exponent taken as its trace)."""
    return sp.exp(sp.Trace(concentration.log_weight_second_moment(s)))


def bias_first_order(s=None) -> sp.MatrixExpr:
    """b1 = -E w^2 V (mean(2a) - mean(a)) for N(m, Gamma) tokens (k x 1)."""
    s = s or symbols()
    return -weight_second_moment(s) * s["V"] * concentration.tilted_shift(s)


def cov_first_order(s=None) -> sp.MatrixExpr:
    """C1 = E w^2 V (cov(2a) + shift shift^T) V^T for N(m, Gamma) tokens (k x k)."""
    s = s or symbols()
    shift = concentration.tilted_shift(s)
    # Gamma is symmetric: (Gamma a)^T = a^T Gamma.
    outer = (shift * shift.T).xreplace({s["Gamma"].T: s["Gamma"]})
    return weight_second_moment(s) * s["V"] * (tilt.tilted_cov_matrix(s) + outer) * s["V"].T


def log_weight_second_moment_batched(s=None) -> sp.MatrixExpr:
    """a_j^T Gamma a_j for the tilts a_j = U z_j of n query columns (1 x n)."""
    s = s or symbols()
    return batched.columnwise_quadratic(s["U"] * s["z"], s["Gamma"])


def numerator_factor_batched(s=None) -> sp.MatrixExpr:
    """tr(V Gamma V^T) + |V Gamma U z_j|^2 for n query columns (1 x n): tr C1(z_j) / E w^2."""
    s = s or symbols()
    n = s["z"].shape[1]
    G, V = s["Gamma"], s["V"]
    return sp.Trace(V * G * V.T) * sp.OneMatrix(1, n) + batched.columnwise_quadratic(
        s["U"] * s["z"], G * V.T * V * G
    )


def shift_batched(s=None) -> sp.MatrixExpr:
    """V (mean(2a_j) - mean(a_j)) = V Gamma U z_j for n query columns (k x n): the direction of b1
    and, at every L, of the exact bias E[T[mu_L](z) - T[mu](z)] = -E[sum_i p_i^2] V Gamma a
    (Stein)."""
    s = s or symbols()
    return s["V"] * concentration.tilted_shift(s).subs(s["a"], s["U"] * s["z"])


# ---------------------------------------------------------------------------------------------
# 2. The query average and its threshold.

g_sym = sp.Symbol("g", real=True)
s_pos = sp.Symbol("s", positive=True)  # s = 1 - 2k > 0


def combined_exponent() -> sp.Expr:
    """k g^2 - g^2/2 with k = (1 - s)/2: the exponent of e^{k g^2} times the N(0, 1) density."""
    k = (1 - s_pos) / 2
    return sp.expand(k * g_sym**2 - g_sym**2 / 2)


def gaussian_exp_quadratic_moments() -> tuple[sp.Expr, sp.Expr]:
    """E e^{k g^2} and E g^2 e^{k g^2} for g ~ N(0, 1), k = (1 - s)/2, s > 0, by integration."""
    integrand = sp.exp(combined_exponent()) / sp.sqrt(2 * sp.pi)
    I0 = sp.integrate(integrand, (g_sym, -sp.oo, sp.oo))
    I2 = sp.integrate(g_sym**2 * integrand, (g_sym, -sp.oo, sp.oo))
    return sp.simplify(I0), sp.simplify(I2)


def divergence_at_threshold() -> sp.Expr:
    """E e^{g^2 / 2} (k = 1/2): the integrand is the constant 1/sqrt(2 pi); for k > 1/2 it is
    larger."""
    density = sp.exp(-(g_sym**2) / 2) / sp.sqrt(2 * sp.pi)
    return sp.integrate(sp.exp(g_sym**2 / 2) * density, (g_sym, -sp.oo, sp.oo))


def first_order_coefficient_matrix(Gamma, U, V, Sigma_q) -> sp.Expr:
    """det(I - 2 M Sigma_q)^{-1/2} [tr(V Gamma V^T) + tr(N Sigma_q (I - 2 M Sigma_q)^{-1})] for
    explicit SymPy matrices (exact) or matrix symbols (the displayed formula); M = U^T Gamma U,
    N = U^T Gamma V^T V Gamma U."""
    M = U.T * Gamma * U
    N = U.T * Gamma * V.T * V * Gamma * U
    R = eye_like(Gamma) - 2 * M * Sigma_q
    return (det(R) ** sp.Rational(-1, 2)) * (tr(V * Gamma * V.T) + tr(N * Sigma_q * inv(R)))


# ---------------------------------------------------------------------------------------------
# Proofs.


def proofs() -> list[Proof]:
    out = []
    # Delta method.
    exp = ratio_expansion()
    out.append(
        prove_zero(
            "ratio expansion: L E[X/D] -> -E[xi eta] (coefficient of 1/L)",
            exp["bias"] + exp["c_xy"],
        )
    )
    out.append(
        prove_zero(
            "ratio expansion: L E[(X/D)^2] -> E[xi^2] (coefficient of 1/L)",
            exp["second"] - exp["c_xx"],
        )
    )
    # General law, through the mgf.
    mom = general_law_moments()
    for key, text in (
        ("w2", "E w^2 = exp(Lambda(2a) - 2 Lambda(a))"),
        ("w2_centred", "E[w^2 (x - mu_a)] = E w^2 (Lambda'(2a) - Lambda'(a))"),
        (
            "w2_centred2",
            "E[w^2 (x - mu_a)^2] = E w^2 (Lambda''(2a) + (Lambda'(2a) - Lambda'(a))^2)",
        ),
    ):
        out.append(
            prove_zero(
                f"any law with an mgf M: {text}",
                sp.simplify(mom["direct"][key] - mom["claimed"][key]),
            )
        )
    # Gaussian specialisation (matrix form).
    s = symbols()
    a, G, V = s["a"], s["Gamma"], s["V"]
    q = sp.Trace(a.T * G * a)
    out.append(
        prove_zero(
            "Gaussian b1 = -e^(a^T Gamma a) V Gamma a (matrix form)",
            bias_first_order(s) + sp.exp(q) * V * G * a,
        )
    )
    out.append(
        prove_zero(
            "Gaussian C1 = e^(a^T Gamma a) V (Gamma + Gamma a a^T Gamma) V^T (matrix form)",
            cov_first_order(s) - sp.exp(q) * V * (G + G * a * a.T * G) * V.T,
        )
    )
    out.append(
        prove_zero(
            "batched shift V (mean(2a) - mean(a)) = V Gamma U z, a = U z",
            shift_batched(s) - V * G * s["U"] * s["z"],
        )
    )
    # Gaussian entries: E w^2 (z' - mu_a) from the 1-D integrals (d = 2, rank 1 and 2).
    for rank in (1, 2):
        av, m, B = tilt.entry_symbols(2, rank)
        Z1, mu, _ = tilt.tilt_moments_entries(av, m, B)
        Z2, mean2, _ = tilt.tilt_moments_entries(2 * av, m, B)
        Gm = B * B.T
        centred = (mean2 - mu) * Z2 / Z1**2
        claimed = sp.exp((av.T * Gm * av)[0, 0]) * Gm * av
        out.append(
            prove_zero(
                f"E w^2 (z' - mu_a) = e^(a^T Gamma a) Gamma a [d=2, rank={rank}]",
                (centred - claimed).applyfunc(
                    lambda e: sp.expand(sp.powsimp(sp.expand(e), force=True))
                ),
            )
        )
    # Batched forms equal the single-query trace of C1.
    d, k, n = 2, 1, 2
    sb = symbols(d, k, n)
    Gm = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
    Um = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    Vm = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    zm = sp.Matrix(d, n, lambda i, j: sp.Symbol(f"z{i}{j}", real=True))
    subs = {sb["Gamma"]: Gm, sb["U"]: Um, sb["V"]: Vm, sb["z"]: zm}
    logw = log_weight_second_moment_batched(sb).subs(subs).as_explicit()
    num = numerator_factor_batched(sb).subs(subs).as_explicit()
    s1 = symbols(d, k, 1)
    for j in range(n):
        aj = Um * zm[:, j]
        trace_c1 = (
            cov_first_order(s1)
            .subs({s1["Gamma"]: Gm, s1["V"]: Vm, s1["a"]: aj})
            .as_explicit()
            .trace()
        )
        out.append(
            prove_zero(
                f"batched e^(logw) * numerator = tr C1(z_j) [d={d}, k={k}, column {j}]",
                sp.exp(logw[0, j]) * num[0, j] - trace_c1,
            )
        )
    # Query average: the 1-D Gaussian integrals and the threshold.
    out.append(
        prove_zero(
            "e^(k g^2) phi(g) = e^(-s g^2/2) / sqrt(2 pi) with s = 1 - 2k",
            combined_exponent() + s_pos * g_sym**2 / 2,
        )
    )
    I0, I2 = gaussian_exp_quadratic_moments()
    out.append(
        prove_zero(
            "E e^(k g^2) = (1 - 2k)^(-1/2) for k < 1/2 (s = 1 - 2k > 0)",
            I0 - s_pos ** sp.Rational(-1, 2),
        )
    )
    out.append(
        prove_zero(
            "E g^2 e^(k g^2) = (1 - 2k)^(-3/2) for k < 1/2", I2 - s_pos ** sp.Rational(-3, 2)
        )
    )
    out.append(
        Proof(
            "E e^(g^2/2) = infinity (so the average diverges for every k >= 1/2)",
            divergence_at_threshold() == sp.oo,
            0.0,
        )
    )
    # Diagonal d = 2: product of the 1-D integrals equals the det / trace closed form.
    s1, s2 = sp.symbols("s1 s2", positive=True)  # s_j = 1 - 2 k_j > 0
    k1, k2 = (1 - s1) / 2, (1 - s2) / 2
    p11, p22, p12, tV = sp.symbols("p11 p22 p12 t_V", real=True)
    one = lambda sj: sj ** sp.Rational(-1, 2)
    three = lambda sj: sj ** sp.Rational(-3, 2)
    product = tV * one(s1) * one(s2) + p11 * three(s1) * one(s2) + p22 * one(s1) * three(s2)
    Kd = sp.diag(k1, k2)
    P = sp.Matrix([[p11, p12], [p12, p22]])
    closed = (sp.eye(2) - 2 * Kd).det() ** sp.Rational(-1, 2) * (
        tV + (P * (sp.eye(2) - 2 * Kd).inv()).trace()
    )
    out.append(
        prove_zero(
            "E e^(g^T K g)(t + g^T P g) = det(I - 2K)^(-1/2) (t + tr(P (I - 2K)^(-1))) "
            "[K diagonal, d=2]",
            sp.simplify(product - closed),
        )
    )
    # Rotation invariance (d = 2): det and trace are unchanged by g -> R g. Every rotation but the
    # half turn is R(u) = [[c, -s], [s, c]] with c = (1 - u^2)/(1 + u^2), s = 2u/(1 + u^2)
    # (rational in u, so the identities reduce by cancellation; the half turn R = -I changes
    # nothing).
    u = sp.Symbol("u", real=True)
    c, sn = (1 - u**2) / (1 + u**2), 2 * u / (1 + u**2)
    R = sp.Matrix([[c, -sn], [sn, c]])
    K = R * Kd * R.T
    out.append(
        prove_zero(
            "R(u) is a rotation: R R^T = I [rational parametrisation]",
            sp.simplify(R * R.T - sp.eye(2)),
        )
    )
    out.append(
        prove_zero(
            "det(I - 2 R K R^T) = det(I - 2K) for a rotation R [d=2]",
            sp.cancel((sp.eye(2) - 2 * K).det() - (sp.eye(2) - 2 * Kd).det()),
        )
    )
    out.append(
        prove_zero(
            "tr(P (I - 2 R K R^T)^(-1)) = tr(R^T P R (I - 2K)^(-1)) [d=2]",
            sp.cancel(
                (P * (sp.eye(2) - 2 * K).inv()).trace()
                - (R.T * P * R * (sp.eye(2) - 2 * Kd).inv()).trace()
            ),
        )
    )
    # Push-through: the root S drops out (K = S M S, P = S N S with S symmetric, Sigma_q = S^2).
    # M = U^T Gamma U and N = U^T Gamma V^T V Gamma U enter only as symmetric matrices.
    sym2 = lambda name: sp.Matrix(
        2, 2, lambda i, j: sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True)
    )
    S, M, N = sym2("s"), sym2("m"), sym2("n")
    Kq, Pq, Sq = S * M * S, S * N * S, S * S
    out.append(
        prove_zero(
            "det(I - 2 S M S) = det(I - 2 M Sigma_q), Sigma_q = S S [d=2]",
            sp.expand((sp.eye(2) - 2 * Kq).det() - (sp.eye(2) - 2 * M * Sq).det()),
        )
    )
    lhs = (Pq * (sp.eye(2) - 2 * Kq).adjugate()).trace() * (sp.eye(2) - 2 * M * Sq).det()
    rhs = (N * Sq * (sp.eye(2) - 2 * M * Sq).adjugate()).trace() * (sp.eye(2) - 2 * Kq).det()
    out.append(
        prove_zero(
            "tr(S N S (I - 2 S M S)^(-1)) = tr(N Sigma_q (I - 2 M Sigma_q)^(-1)) "
            "[d=2, denominators cleared]",
            sp.expand(lhs - rhs),
        )
    )
    return out


@cached
def fluctuation_proofs() -> tuple[Proof, ...]:
    """Proposition 3.1 (derivations/fluctuations.py and its parts
    _exponent, _bound, _product, _one_token, _power)."""
    from . import fluctuations_bound, fluctuations_exponent, fluctuations_product
    from . import fluctuations_one_token, fluctuations_power

    return (
        tuple(proofs())
        + tuple(fluctuations_exponent.proofs())
        + tuple(fluctuations_bound.proofs())
        + tuple(fluctuations_product.proofs())
        + tuple(fluctuations_one_token.proofs())
        + tuple(fluctuations_power.proofs())
    )


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the first-order (1/L) bias b1 and covariance C1 at a = U z, the log second moment
    of the weight and tr C1 / E w^2 per query column, and the direction of the bias."""
    fl = symbols()
    return [
        KernelSpec(
            "bias_first_order",
            (fl["Gamma"], fl["V"], fl["a"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            bias_first_order(fl),
            "b1 = lim L (E T[mu_L](z) - T[mu](z)) = -e^{a^T Gamma a} V Gamma a, a = U z.",
            "fluctuations",
            "(k, 1)",
        ),
        KernelSpec(
            "cov_first_order",
            (fl["Gamma"], fl["V"], fl["a"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            cov_first_order(fl),
            "C1 = lim L Cov T[mu_L](z) = e^{a^T Gamma a} V (Gamma + Gamma a a^T Gamma) V^T.",
            "fluctuations",
            "(k, k)",
        ),
        KernelSpec(
            "first_order_log_weight",
            (fl["Gamma"], fl["U"], fl["z"]),
            ("(d, d)", "(d, d)", "(d, n)"),
            log_weight_second_moment_batched(fl),
            "log E w^2 = a^T Gamma a for each query column (a = U z).",
            "fluctuations",
            "(1, n)",
        ),
        KernelSpec(
            "first_order_numerator",
            (fl["Gamma"], fl["V"], fl["U"], fl["z"]),
            ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
            numerator_factor_batched(fl),
            "tr C1(z) / E w^2 = tr(V Gamma V^T) + |V Gamma U z|^2 for each query column.",
            "fluctuations",
            "(1, n)",
        ),
        KernelSpec(
            "first_order_shift",
            (fl["Gamma"], fl["V"], fl["U"], fl["z"]),
            ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
            shift_batched(fl),
            "V (mean(2a) - mean(a)) = V Gamma U z per query column: the direction of the bias "
            "(Stein).",
            "fluctuations",
            "(k, n)",
        ),
    ]


GROUP = Group(
    "fluctuations",
    title="Proposition 3.1 made exact: 1/L fluctuations, threshold, sharp rate, explicit bound",
    hypotheses="fixed query: any token law with a finite log-mgf near 2a; query average: N(m, "
    "Gamma) tokens, nu = N(0, Sigma_q), finite iff lambda_max(U^T Gamma U Sigma_q) < "
    "1/2",
    proofs=fluctuation_proofs,
    parts=(
        "fluctuations",
        "fluctuations_exponent",
        "fluctuations_bound",
        "fluctuations_product",
        "fluctuations_one_token",
        "fluctuations_power",
    ),
    results="prop31",
)
