"""Proposition 3.1, made exact: the 1/L fluctuations of the finite-prompt output, their average over
Gaussian queries, the finiteness threshold of that average, and the sharp rate beyond it.

**1. First order at a fixed query (any token law with a finite log-mgf Lambda near 2a).** With
w = e^{a^T z'} / Z(a) (E w = 1), mu_a = grad Lambda(a) the tilted mean, xi = w (z' - mu_a), eta = w - 1,

    T[mu_L](z) - T[mu](z) = V X / D,   X = mean_i xi_i,   D = 1 + mean_i eta_i.

Expanding X / (1 + dD) = X - X dD + O(|dD|^2 |X|) and using E X = 0, E[X dD] = E[xi eta] / L,
E[X X^T] = E[xi xi^T] / L (the terms of total degree >= 3 in the centred means are O(L^-2)):

    b1(z) = lim L (E T[mu_L](z) - T[mu](z)) = -V E[w^2 (z' - mu_a)],
    C1(z) = lim L Cov T[mu_L](z)            =  V E[w^2 (z' - mu_a)(z' - mu_a)^T] V^T.

The doubly tilted law gives both moments for *any* law (`general_law_proofs`, with M the mgf):

    E w^2 = e^{Lambda(2a) - 2 Lambda(a)},   E[w^2 (z' - mu_a)] = E w^2 (grad Lambda(2a) - grad Lambda(a)),
    E[w^2 (z' - mu_a)(z' - mu_a)^T] = E w^2 (Hess Lambda(2a) + delta delta^T),  delta = grad Lambda(2a) - grad Lambda(a).

For N(m, Gamma) tokens (Lambda(a) = a^T m + a^T Gamma a / 2, so delta = Gamma a, Hess = Gamma):

    b1(z) = -e^{a^T Gamma a} V Gamma a,     C1(z) = e^{a^T Gamma a} V (Gamma + Gamma a a^T Gamma) V^T,   a = U z,

and L E||T[mu_L](z) - T[mu](z)||^2 -> tr C1(z) = e^{a^T Gamma a} (tr(V Gamma V^T) + |V Gamma a|^2).

**2. The query average.** For z ~ nu = N(0, Sigma_q), z = S g with S S^T = Sigma_q, g ~ N(0, I),
a^T Gamma a = g^T K g and |V Gamma a|^2 = g^T P g with K = S^T M S, P = S^T N S,
M = U^T Gamma U, N = U^T Gamma V^T V Gamma U. The one-dimensional integrals (s = 1 - 2k > 0)

    E e^{k g^2} = s^{-1/2},   E g^2 e^{k g^2} = s^{-3/2}   (and E e^{k g^2} = infinity for k >= 1/2)

and rotation invariance give, with lambda = lambda_max(K) = lambda_max(M Sigma_q),

    first_order_coefficient = lim_L L E||T[mu_L] - T[mu]||^2_{L2(nu)}
        = det(I - 2 M Sigma_q)^{-1/2} [ tr(V Gamma V^T) + tr(N Sigma_q (I - 2 M Sigma_q)^{-1}) ],

finite if and only if lambda < 1/2 (when V Gamma != 0; otherwise the error is identically 0).

**3. The sharp exponent.** At a fixed query write q = a^T Gamma a and L = e^{gamma q}. The inverse
effective sample size E sum_i p_i^2 (p the softmax weights) behaves as e^{-q h(gamma)}, h derived
below by the Laplace principle from the two ways the weights can contribute: the bulk (all weights
below L, sum of weights ~ L: exponent of E[w^2 1{w < L}] / L) and a single dominant token (w > L,
exponent of L P(w > L)); below gamma = 1/2 the tilted mode is never sampled and nothing decays:

    h(gamma) = 0 (gamma <= 1/2),  (gamma - 1/2)^2 / 2 (1/2 <= gamma <= 3/2),  gamma - 1 (gamma >= 3/2).

The naive estimate min(1, e^q / L) corresponds to max(0, gamma - 1) <= h: it overstates the error on
1/2 < gamma < 3/2. Averaging over queries, q has tail density e^{-q / (2 lambda)}; with q = x ln L
the error is L^{-G(x)} with G(x) = x h(1/x) + x / (2 lambda), and the sharp exponent is min_x G:

    kappa(lambda) = 1                                  for lambda <= 1/2,
    kappa(lambda) = (sqrt(1 + 4 / lambda) - 1) / 2    for lambda >= 1/2   (x* = 2 sqrt(lambda / (lambda + 4))),

continuous at the threshold, strictly above the naive 1/(2 lambda) beyond it, and lambda kappa -> 1.
With Gamma = sigma^2 Gamma0, lambda = sigma^2 lambda0: this is the paper's c2 / sigma^2 made explicit,
and sigma^2 kappa(sigma) increases with sigma, so c2 = kappa(sigma = 1) serves every sigma >= 1.
Below the threshold the same picture gives the approach to the first order: the queries with
q > (2/3) ln L (gamma < 3/2) are where e^q / L overstates the error, so
L E||err||^2 = first_order_coefficient - O(L^-rho), rho = min(1, (1 - 2 lambda) / (3 lambda)):
slower than 1/L as soon as lambda > 1/5, and arbitrarily slow near the threshold.

**5. Beyond Gaussians.** For z' = m + B x with x iid coordinates of log-mgf l (Rademacher: log cosh;
uniform on [-sqrt3, sqrt3]: log(sinh(sqrt3 t) / (sqrt3 t))), section 1 gives, with b = B^T a,
tr C1(z) = e^{sum_j l(2 b_j) - 2 l(b_j)} (sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2);
l(2t) - 2 l(t) and l'' are emitted in stable forms (log(1 + tanh^2 t); log(x / tanh x) and
1/t^2 - 3/sinh^2(sqrt3 t) with Taylor polynomials near 0).

**4. An explicit in-expectation bound (L >= 2).** On {D >= 1/2}, |V X / D|^2 <= 4 |V X|^2; on
{D < 1/2}, the output is a convex combination of the V z_i, so the error is at most max_i |V(z_i - mu_a)|
and max^2 <= sum_i; {D < 1/2} lies in {D_{-i} < 1/2} (D_{-i} without token i, independent of z_i), and
Maurer's lower tail for L - 1 nonnegative weights with t = (L - 2) / (2(L - 1)) gives

    E|T[mu_L](z) - T[mu](z)|^2 <= (tr(V Gamma V^T) + |V Gamma a|^2)
                                 (4 e^{q} / L + L exp(-(L - 2)^2 / (8 (L - 1) e^{q}))).
"""

from __future__ import annotations

import sympy as sp

from . import batched, concentration, controls, tilt
from .proof import Proof, prove_zero

t_sym = sp.Symbol("t", real=True)
a_sym = sp.Symbol("a", real=True)
eps = sp.Symbol("epsilon", positive=True)
M_fun = sp.Function("M")            # the moment generating function E e^{t x} of a 1-D token law


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

    return {"bias": expect(first).coeff(eps, 2), "second": expect(second).coeff(eps, 2),
            "c_xy": c_xy, "c_xx": c_xx}


def general_law_moments() -> dict:
    """E w^2, E[w^2 (x - mu_a)], E[w^2 (x - mu_a)^2] of a 1-D law from its mgf M (derivatives of M at
    2a are E[x^j e^{2 a x}]), and the claimed forms in Lambda = log M."""
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
        "w2_centred2": (at(d2M, 2 * a_sym) - 2 * mu * at(dM, 2 * a_sym) + mu**2 * M(2 * a_sym)) / M(a_sym) ** 2,
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
    return (sp.Trace(V * G * V.T) * sp.OneMatrix(1, n)
            + batched.columnwise_quadratic(s["U"] * s["z"], G * V.T * V * G))


# ---------------------------------------------------------------------------------------------
# 2. The query average and its threshold.

g_sym = sp.Symbol("g", real=True)
s_pos = sp.Symbol("s", positive=True)       # s = 1 - 2k > 0


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
    """E e^{g^2 / 2} (k = 1/2): the integrand is the constant 1/sqrt(2 pi); for k > 1/2 it is larger."""
    density = sp.exp(-g_sym**2 / 2) / sp.sqrt(2 * sp.pi)
    return sp.integrate(sp.exp(g_sym**2 / 2) * density, (g_sym, -sp.oo, sp.oo))


def first_order_coefficient_matrix(Gamma, U, V, Sigma_q) -> sp.Expr:
    """det(I - 2 M Sigma_q)^{-1/2} [tr(V Gamma V^T) + tr(N Sigma_q (I - 2 M Sigma_q)^{-1})] for
    explicit (SymPy) matrices; M = U^T Gamma U, N = U^T Gamma V^T V Gamma U."""
    d = Gamma.shape[0]
    I = sp.eye(d)
    M = U.T * Gamma * U
    N = U.T * Gamma * V.T * V * Gamma * U
    R = I - 2 * M * Sigma_q
    return (R.det() ** sp.Rational(-1, 2)) * ((V * Gamma * V.T).trace() + (N * Sigma_q * R.inv()).trace())


# ---------------------------------------------------------------------------------------------
# 3. The sharp exponent (Laplace principle).

gamma_sym = sp.Symbol("gamma", positive=True)     # ln L / q
y_sym = sp.Symbol("y", real=True)                  # u / q, u = log-weight + q/2 of a token
lam_sym = sp.Symbol("lambda", positive=True)       # lambda_max(M Sigma_q)
x_sym = sp.Symbol("x", positive=True)              # q / ln L


def bulk_exponent() -> sp.Expr:
    """(1/q) log of E[w^2 1{w < L}] / L at u = q y (Gaussian u ~ N(0, q), w = e^{u - q/2})."""
    return 2 * y_sym - 1 - y_sym**2 / 2 - gamma_sym


def single_exponent() -> sp.Expr:
    """(1/q) log of L P(w > L) at u = q y: gamma - y^2 / 2 (y >= gamma + 1/2)."""
    return gamma_sym - y_sym**2 / 2


def rate_middle() -> sp.Expr:
    return (gamma_sym - sp.Rational(1, 2)) ** 2 / 2


def rate_high() -> sp.Expr:
    return gamma_sym - 1


def rate_function(gamma):
    """h(gamma) as a Python function of a number (for numerics and tests)."""
    if gamma <= 0.5:
        return 0.0
    if gamma <= 1.5:
        return (gamma - 0.5) ** 2 / 2
    return gamma - 1.0


def exponent_middle() -> sp.Expr:
    """G(x) on 2/3 <= x <= 2 (gamma = 1/x in [1/2, 3/2])."""
    return x_sym * rate_middle().subs(gamma_sym, 1 / x_sym) + x_sym / (2 * lam_sym)


def sharp_exponent_expr() -> sp.Expr:
    """kappa(lambda) for lambda >= 1/2."""
    return (sp.sqrt(1 + 4 / lam_sym) - 1) / 2


def sharp_exponent(lam: float) -> float:
    """kappa(lambda) = 1 below the threshold, (sqrt(1 + 4/lambda) - 1)/2 above (lambda >= 0)."""
    import math
    if lam < 0 or lam != lam:
        raise ValueError(f"lambda = {lam!r} must be a number >= 0")
    return 1.0 if lam <= 0.5 else (math.sqrt(1.0 + 4.0 / lam) - 1.0) / 2.0


def naive_exponent(lam: float) -> float:
    """What min(1, e^q / L) predicts: min(1, 1/(2 lambda)) (the heuristic the derivation corrects)."""
    return 1.0 if lam <= 0.5 else 1.0 / (2.0 * lam)


lam_arg = sp.Symbol("lam", positive=True)       # lambda as a kernel argument ("lambda" is a Python keyword)


def sharp_exponent_piecewise() -> sp.Expr:
    """kappa(lambda) on lambda > 0 as one expression (emitted as the kernel `sharp_exponent`)."""
    return sp.Piecewise((sp.Integer(1), lam_sym <= sp.Rational(1, 2)), (sharp_exponent_expr(), True)).subs(lam_sym, lam_arg)


def naive_exponent_piecewise() -> sp.Expr:
    """min(1, 1/(2 lambda)) (emitted as `naive_exponent`: the heuristic a control must refute)."""
    return sp.Piecewise((sp.Integer(1), lam_sym <= sp.Rational(1, 2)), (1 / (2 * lam_sym), True)).subs(lam_sym, lam_arg)


def remainder_exponent_piecewise() -> sp.Expr:
    """rho(lambda): 1 up to 1/5, (1 - 2 lambda)/(3 lambda) up to 1/2, 0 beyond (emitted as `remainder_exponent`)."""
    return sp.Piecewise((sp.Integer(1), lam_sym <= sp.Rational(1, 5)),
                        (remainder_exponent_expr(), lam_sym < sp.Rational(1, 2)),
                        (sp.Integer(0), True)).subs(lam_sym, lam_arg)


def minimiser() -> sp.Expr:
    return 2 * sp.sqrt(lam_sym / (lam_sym + 4))


def remainder_exponent_expr() -> sp.Expr:
    """Below the threshold, L E||err||^2 = first_order_coefficient - D(L). The first-order term
    e^q / L overstates the error exactly where h(gamma) > gamma - 1, i.e. gamma < 3/2 (q > 2 ln L / 3),
    so D(L) ~ E[e^q 1{q > 2 ln L / 3}] ~ L^{-(2/3)(1/(2 lambda) - 1)}, next to the regular O(1/L) term:
    D(L) ~ L^{-rho}, rho = min(1, (1 - 2 lambda) / (3 lambda)) (rho = 1 for lambda <= 1/5)."""
    return (1 - 2 * lam_sym) / (3 * lam_sym)


def remainder_exponent(lam: float) -> float:
    if lam < 0 or lam != lam:
        raise ValueError(f"lambda = {lam!r} must be a number >= 0")
    if lam >= 0.5:
        return 0.0
    return 1.0 if lam <= 0.2 else (1.0 - 2.0 * lam) / (3.0 * lam)


# ---------------------------------------------------------------------------------------------
# 4. The in-expectation bound.

L_sym = sp.Symbol("L", positive=True)
q_sym = sp.Symbol("q", nonnegative=True)


D_sym = sp.Symbol("D", positive=True)
GOOD_EVENT = sp.Interval(sp.Rational(1, 2), sp.oo)      # {D >= 1/2}: the denominator is not small


def good_event_constant() -> sp.Expr:
    """sup over the good event D >= 1/2 of |error|^2 / |V X|^2 = sup 1/D^2 (= 4), computed, not typed:
    on that event |V X / D|^2 <= sup(1/D^2) |V X|^2."""
    return sp.calculus.util.maximum(1 / D_sym**2, D_sym, GOOD_EVENT)


def expectation_bound_factor() -> sp.Expr:
    """eps_L^2(z) / (tr(V Gamma V^T) + |V Gamma a|^2): on {D >= 1/2}, sup(1/D^2) E|V X|^2 with
    E|V X|^2 = e^q (tr(V Gamma V^T) + |V Gamma a|^2) / L; off it, the error is at most L times that
    scale, with P(D < 1/2) <= exp(-(L - 1) t^2 / (2 e^q)) at t = (L - 2) / (2 (L - 1))."""
    t = (L_sym - 2) / (2 * (L_sym - 1))
    return good_event_constant() * sp.exp(q_sym) / L_sym + L_sym * sp.exp(-(L_sym - 1) * t**2 / (2 * sp.exp(q_sym)))


# ---------------------------------------------------------------------------------------------
# 5. Product laws beyond Gaussians: z = m + B x, x with iid coordinates of log-mgf l. Then
#    Lambda(a) = a^T m + sum_j l(b_j), b = B^T a, and section 1 gives
#    tr C1(z) = e^{sum_j l(2 b_j) - 2 l(b_j)} (sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2).

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
    """Taylor polynomial near a = 0 for |a| < 1/20 (as the controls' tilted mean), exact form elsewhere."""
    a = controls.a_sym
    series = sp.series(exact, a, 0, controls.SERIES_ORDER).removeO()
    return sp.Piecewise((series, sp.Abs(a) < controls.SERIES_RADIUS), (exact, True))


def product_law_log_w2(kind: str) -> sp.Expr:
    """Stable form of l(2a) - 2 l(a): log(1 + tanh^2 a) (Rademacher); log(x / tanh x), x = sqrt3 a,
    with its Taylor polynomial near 0 (uniform; tanh, not coth, so that large |a| does not overflow)."""
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
        out.append(prove_zero(f"{kind}: l(2a) - 2 l(a) equals its stable form (a > 0; both even)",
                              sp.simplify((sp.exp(derived_w2) - sp.exp(exact_w2.subs(a, pos))).rewrite(sp.exp))))
        out.append(prove_zero(f"{kind}: l''(a) equals its stable form",
                              sp.simplify((product_law_curvature_derived(kind) - exact_c).rewrite(sp.exp))))
    x = sp.Symbol("x", real=True)
    out.append(prove_zero("uniform curvature series starts 1 - 3 a^2 / 5 = 1 + kappa4 a^2 / 2 (variance 1, "
                          "fourth cumulant -6/5)",
                          sp.series(1 / x**2 - 3 / sp.sinh(sp.sqrt(3) * x) ** 2, x, 0, 3).removeO()
                          - (1 - sp.Rational(3, 5) * x**2)))
    return out


# ---------------------------------------------------------------------------------------------
# Proofs.

def proofs() -> list[Proof]:
    out = []
    # The in-expectation bound's constant: squaring commutes with the sup of the positive 1/D.
    out.append(prove_zero("in-expectation bound: sup_{D >= 1/2} 1/D^2 = (sup_{D >= 1/2} 1/D)^2 (= 4)",
                          good_event_constant() - sp.calculus.util.maximum(1 / D_sym, D_sym, GOOD_EVENT) ** 2))
    # Delta method.
    exp = ratio_expansion()
    out.append(prove_zero("ratio expansion: L E[X/D] -> -E[xi eta] (coefficient of 1/L)", exp["bias"] + exp["c_xy"]))
    out.append(prove_zero("ratio expansion: L E[(X/D)^2] -> E[xi^2] (coefficient of 1/L)", exp["second"] - exp["c_xx"]))
    # General law, through the mgf.
    mom = general_law_moments()
    for key, text in (("w2", "E w^2 = exp(Lambda(2a) - 2 Lambda(a))"),
                      ("w2_centred", "E[w^2 (x - mu_a)] = E w^2 (Lambda'(2a) - Lambda'(a))"),
                      ("w2_centred2", "E[w^2 (x - mu_a)^2] = E w^2 (Lambda''(2a) + (Lambda'(2a) - Lambda'(a))^2)")):
        out.append(prove_zero(f"any law with an mgf M: {text}", sp.simplify(mom["direct"][key] - mom["claimed"][key])))
    # Gaussian specialisation (matrix form).
    s = symbols()
    a, G, V = s["a"], s["Gamma"], s["V"]
    q = sp.Trace(a.T * G * a)
    out.append(prove_zero("Gaussian b1 = -e^(a^T Gamma a) V Gamma a (matrix form)",
                          bias_first_order(s) + sp.exp(q) * V * G * a))
    out.append(prove_zero("Gaussian C1 = e^(a^T Gamma a) V (Gamma + Gamma a a^T Gamma) V^T (matrix form)",
                          cov_first_order(s) - sp.exp(q) * V * (G + G * a * a.T * G) * V.T))
    # Gaussian entries: E w^2 (z' - mu_a) from the 1-D integrals (d = 2, rank 1 and 2).
    for rank in (1, 2):
        av, m, B = tilt.entry_symbols(2, rank)
        Z1, mu, _ = tilt.tilt_moments_entries(av, m, B)
        Z2, mean2, _ = tilt.tilt_moments_entries(2 * av, m, B)
        Gm = B * B.T
        centred = (mean2 - mu) * Z2 / Z1**2
        claimed = sp.exp((av.T * Gm * av)[0, 0]) * Gm * av
        out.append(prove_zero(f"E w^2 (z' - mu_a) = e^(a^T Gamma a) Gamma a [d=2, rank={rank}]",
                              (centred - claimed).applyfunc(lambda e: sp.expand(sp.powsimp(sp.expand(e), force=True)))))
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
        trace_c1 = cov_first_order(s1).subs({s1["Gamma"]: Gm, s1["V"]: Vm, s1["a"]: aj}).as_explicit().trace()
        out.append(prove_zero(f"batched e^(logw) * numerator = tr C1(z_j) [d={d}, k={k}, column {j}]",
                              sp.exp(logw[0, j]) * num[0, j] - trace_c1))
    # Query average: the 1-D Gaussian integrals and the threshold.
    out.append(prove_zero("e^(k g^2) phi(g) = e^(-s g^2/2) / sqrt(2 pi) with s = 1 - 2k",
                          combined_exponent() + s_pos * g_sym**2 / 2))
    I0, I2 = gaussian_exp_quadratic_moments()
    out.append(prove_zero("E e^(k g^2) = (1 - 2k)^(-1/2) for k < 1/2 (s = 1 - 2k > 0)", I0 - s_pos ** sp.Rational(-1, 2)))
    out.append(prove_zero("E g^2 e^(k g^2) = (1 - 2k)^(-3/2) for k < 1/2", I2 - s_pos ** sp.Rational(-3, 2)))
    out.append(Proof("E e^(g^2/2) = infinity (so the average diverges for every k >= 1/2)",
                     divergence_at_threshold() == sp.oo, 0.0))
    # Diagonal d = 2: product of the 1-D integrals equals the det / trace closed form.
    s1, s2 = sp.symbols("s1 s2", positive=True)              # s_j = 1 - 2 k_j > 0
    k1, k2 = (1 - s1) / 2, (1 - s2) / 2
    p11, p22, p12, tV = sp.symbols("p11 p22 p12 t_V", real=True)
    one = lambda sj: sj ** sp.Rational(-1, 2)
    three = lambda sj: sj ** sp.Rational(-3, 2)
    product = tV * one(s1) * one(s2) + p11 * three(s1) * one(s2) + p22 * one(s1) * three(s2)
    Kd = sp.diag(k1, k2)
    P = sp.Matrix([[p11, p12], [p12, p22]])
    closed = (sp.eye(2) - 2 * Kd).det() ** sp.Rational(-1, 2) * (tV + (P * (sp.eye(2) - 2 * Kd).inv()).trace())
    out.append(prove_zero("E e^(g^T K g)(t + g^T P g) = det(I - 2K)^(-1/2) (t + tr(P (I - 2K)^(-1))) [K diagonal, d=2]",
                          sp.simplify(product - closed)))
    # Rotation invariance (d = 2): det and trace are unchanged by g -> R g. Every rotation but the half
    # turn is R(u) = [[c, -s], [s, c]] with c = (1 - u^2)/(1 + u^2), s = 2u/(1 + u^2) (rational in u, so
    # the identities reduce by cancellation; the half turn R = -I changes nothing).
    u = sp.Symbol("u", real=True)
    c, sn = (1 - u**2) / (1 + u**2), 2 * u / (1 + u**2)
    R = sp.Matrix([[c, -sn], [sn, c]])
    K = R * Kd * R.T
    out.append(prove_zero("R(u) is a rotation: R R^T = I [rational parametrisation]", sp.simplify(R * R.T - sp.eye(2))))
    out.append(prove_zero("det(I - 2 R K R^T) = det(I - 2K) for a rotation R [d=2]",
                          sp.cancel((sp.eye(2) - 2 * K).det() - (sp.eye(2) - 2 * Kd).det())))
    out.append(prove_zero("tr(P (I - 2 R K R^T)^(-1)) = tr(R^T P R (I - 2K)^(-1)) [d=2]",
                          sp.cancel((P * (sp.eye(2) - 2 * K).inv()).trace()
                                    - (R.T * P * R * (sp.eye(2) - 2 * Kd).inv()).trace())))
    # Push-through: the root S drops out (K = S M S, P = S N S with S symmetric, Sigma_q = S^2).
    # M = U^T Gamma U and N = U^T Gamma V^T V Gamma U enter only as symmetric matrices.
    sym2 = lambda name: sp.Matrix(2, 2, lambda i, j: sp.Symbol(f"{name}{min(i, j)}{max(i, j)}", real=True))
    S, M, N = sym2("s"), sym2("m"), sym2("n")
    Kq, Pq, Sq = S * M * S, S * N * S, S * S
    out.append(prove_zero("det(I - 2 S M S) = det(I - 2 M Sigma_q), Sigma_q = S S [d=2]",
                          sp.expand((sp.eye(2) - 2 * Kq).det() - (sp.eye(2) - 2 * M * Sq).det())))
    lhs = (Pq * (sp.eye(2) - 2 * Kq).adjugate()).trace() * (sp.eye(2) - 2 * M * Sq).det()
    rhs = (N * Sq * (sp.eye(2) - 2 * M * Sq).adjugate()).trace() * (sp.eye(2) - 2 * Kq).det()
    out.append(prove_zero("tr(S N S (I - 2 S M S)^(-1)) = tr(N Sigma_q (I - 2 M Sigma_q)^(-1)) [d=2, denominators cleared]",
                          sp.expand(lhs - rhs)))
    # Sharp exponent: the rate function from the two Laplace exponents.
    bulk, single = bulk_exponent(), single_exponent()
    y_bulk = sp.solve(sp.diff(bulk, y_sym), y_sym)
    out.append(prove_zero("bulk exponent is maximal at y = 2 (the doubly tilted mode)", y_bulk[0] - 2))
    boundary = gamma_sym + sp.Rational(1, 2)          # w = L  <=>  u - q/2 = gamma q
    out.append(prove_zero("bulk (y = 2 feasible, gamma >= 3/2) gives h = gamma - 1", -bulk.subs(y_sym, 2) - rate_high()))
    out.append(prove_zero("bulk at the boundary y = gamma + 1/2 gives h = (gamma - 1/2)^2 / 2",
                          -bulk.subs(y_sym, boundary) - rate_middle()))
    out.append(prove_zero("single dominant token (y >= gamma + 1/2, maximal at the boundary) gives the same rate",
                          -single.subs(y_sym, boundary) - rate_middle()))
    out.append(prove_zero("on gamma >= 3/2 the bulk dominates: (gamma-1/2)^2/2 - (gamma-1) = (gamma-3/2)^2/2 >= 0",
                          rate_middle() - rate_high() - (gamma_sym - sp.Rational(3, 2)) ** 2 / 2))
    out.append(prove_zero("h is continuous at gamma = 1/2 and 3/2",
                          sp.Abs(rate_middle().subs(gamma_sym, sp.Rational(1, 2)))
                          + sp.Abs((rate_middle() - rate_high()).subs(gamma_sym, sp.Rational(3, 2)))))
    out.append(prove_zero("h exceeds the naive rate on 1/2 < gamma < 3/2: (gamma-1/2)^2/2 - (gamma-1) = (gamma-3/2)^2/2",
                          rate_middle() - (gamma_sym - 1) - (gamma_sym - sp.Rational(3, 2)) ** 2 / 2))
    # Query average of the rate: minimise G(x).
    G = exponent_middle()
    xs = [r for r in sp.solve(sp.diff(G, x_sym), x_sym) if r.is_positive is not False]
    out.append(prove_zero("G'(x) = 0 at x* = 2 sqrt(lambda / (lambda + 4))", sp.simplify(xs[0] - minimiser())))
    out.append(prove_zero("G(x*) = (sqrt(1 + 4/lambda) - 1)/2",
                          sp.simplify(sp.radsimp(G.subs(x_sym, minimiser()) - sharp_exponent_expr()))))
    out.append(prove_zero("G''(x) = 1/x^3 > 0 on the middle branch (x* is its minimum)",
                          sp.simplify(sp.diff(G, x_sym, 2) - 1 / x_sym**3)))
    out.append(prove_zero("x* = 2/3 exactly at lambda = 1/2 (x* in the middle branch iff lambda >= 1/2)",
                          minimiser().subs(lam_sym, sp.Rational(1, 2)) - sp.Rational(2, 3)))
    out.append(prove_zero("kappa(1/2) = 1: continuous at the threshold",
                          sharp_exponent_expr().subs(lam_sym, sp.Rational(1, 2)) - 1))
    out.append(prove_zero("branch x <= 2/3: G = 1 - x (1 - 1/(2 lambda)), G(0) = 1 and G(2/3) = G_middle(2/3)",
                          sp.simplify((1 - x_sym * (1 - 1 / (2 * lam_sym))).subs(x_sym, sp.Rational(2, 3))
                                      - G.subs(x_sym, sp.Rational(2, 3)))))
    out.append(prove_zero("branch x >= 2: G = x/(2 lambda), G(2) = G_middle(2)",
                          sp.simplify(G.subs(x_sym, 2) - 1 / lam_sym)))
    out.append(prove_zero("below the threshold the first-order deficit E[e^q 1{q > 2 ln L / 3}] decays as L^-rho, "
                          "rho = (2/3)(1/(2 lambda) - 1) = (1 - 2 lambda)/(3 lambda)",
                          sp.simplify(sp.Rational(2, 3) * (1 / (2 * lam_sym) - 1) - remainder_exponent_expr())))
    out.append(prove_zero("rho = 1 exactly at lambda = 1/5 (below: the regular O(1/L) term dominates)",
                          remainder_exponent_expr().subs(lam_sym, sp.Rational(1, 5)) - 1))
    out.append(prove_zero("lambda kappa(lambda) -> 1 as lambda -> infinity (the paper's c2/sigma^2 scaling)",
                          sp.limit(lam_sym * sharp_exponent_expr(), lam_sym, sp.oo) - 1))
    yv = sp.Symbol("y", positive=True)
    out.append(prove_zero("kappa > 1/(2 lambda) beyond the threshold: (1 + 1/lambda)^2 - (1 + 4/lambda) = (1/lambda)(1/lambda - 2)",
                          sp.expand((1 + 1 / lam_sym) ** 2 - (1 + 4 / lam_sym) - (1 / lam_sym) * (1 / lam_sym - 2))))
    out.append(prove_zero("sigma^2 kappa increases in sigma: d/dy (sqrt(y^2 + 4y) - y) = (y + 2)/sqrt(y^2 + 4y) - 1, "
                          "and (y + 2)^2 - (y^2 + 4y) = 4 > 0",
                          sp.simplify(sp.diff(sp.sqrt(yv**2 + 4 * yv) - yv, yv) - ((yv + 2) / sp.sqrt(yv**2 + 4 * yv) - 1))
                          + sp.expand((yv + 2) ** 2 - (yv**2 + 4 * yv) - 4)))
    # The in-expectation bound's Maurer exponent.
    t = (L_sym - 2) / (2 * (L_sym - 1))
    out.append(prove_zero("Maurer with L - 1 weights at 1 - t = L/(2(L-1)): (L-1) t^2 = (L-2)^2/(4(L-1))",
                          sp.simplify((L_sym - 1) * t**2 - (L_sym - 2) ** 2 / (4 * (L_sym - 1)))))
    out.append(prove_zero("1 - t = L / (2 (L - 1)), so {D_{-i} < 1/2} is {mean of L-1 weights < 1 - t}",
                          sp.simplify(1 - t - L_sym / (2 * (L_sym - 1)))))
    out += product_law_proofs()
    return out
