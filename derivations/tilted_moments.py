"""Tilted moments of Assumption 3.3 (`asm-3.3`) for Gaussian tokens and queries, in closed form.

For tokens z' ~ N(m, Gamma), queries z ~ nu = N(0, Sigma_q) (Sigma_q positive definite), a = U z,
tilt power c in {1, 2} and orders p, q in {0, 4, 8}:

    M_pq^(c) = E_z[ E_z'[ |z'|^p e^{c a^T z'} ] / (E_z' e^{a^T z'})^c * |z|^q ].

By the tilt (`tilt`): E_z'[|z'|^p e^{c a^T z'}] = Z(c a) E_{N(m + c Gamma a, Gamma)} |x|^p and
Z(c a) / Z(a)^c = exp((c^2 - c)/2 a^T Gamma a), so with K = U^T Gamma U and kappa_c = (c^2 - c)/2,

    M_pq^(c) = E_z[ exp(kappa_c z^T K z) P_p(z) |z|^q ],
               P_p(z) = E_{x ~ N(m + c Gamma U z, Gamma)} |x|^p,

P_p a polynomial in z (p even). For kappa_c = 0 (c = 1) this is a Gaussian polynomial moment:
always finite. For c = 2 the Gaussian integral against exp(z^T K z) converges iff
Sigma_q^{-1} - 2 K is positive definite (equivalently: the largest eigenvalue lambda of
Sigma_q^{1/2} U^T Gamma U Sigma_q^{1/2} is below 1/2), and then

    M_pq^(2) = det(I - 2 Sigma_q K)^{-1/2} E_{z ~ N(0, S)}[P_p(z) |z|^q],
               S = (Sigma_q^{-1} - 2K)^{-1}.

Polynomial Gaussian expectations are computed exactly by Stein's identity
E[y_i f(y)] = sum_j Sigma_ij E[d_j f(y)] (recursively on monomials), in rational arithmetic when the
inputs are rational: the only irrational factor of the result is the determinant's square root.
"""

from __future__ import annotations


import sympy as sp

from . import tilt
from .gaussian_expectations import gaussian_polynomial_expectation
from .group import Group
from .proof import Proof, prove_zero
from .proof_cache import cached

ORDERS = (0, 4, 8)
POWERS = (1, 2)


def tilt_ratio_exponent(c) -> sp.Expr:
    """log( Z(c a) / Z(a)^c ) from the derived log-normaliser, as a multiple of a^T Gamma a."""
    s = tilt.matrix_symbols()
    logZ = tilt.log_normaliser_gamma(s)
    expr = sp.simplify(logZ.subs(s["a"], c * s["a"]) - c * logZ)
    return expr, s


def token_moment_polynomial(
    p: int, c: int, m: sp.Matrix, Gamma: sp.Matrix, U: sp.Matrix, z: list
) -> sp.Expr:
    """P_p(z) = E_{x ~ N(m + c Gamma U z, Gamma)} (x^T x)^{p/2}: a polynomial in the symbols z."""
    d = len(z)
    y = sp.symbols(f"y0:{d}", real=True)
    mean = m + c * Gamma * U * sp.Matrix(z)
    x = [mean[i] + y[i] for i in range(d)]
    poly = sp.expand(sum(xi**2 for xi in x) ** (p // 2))
    return gaussian_polynomial_expectation(poly, list(y), Gamma)


def is_positive_definite(M: sp.Matrix) -> bool:
    """Exact test (Sylvester's criterion on a symmetric matrix with exact entries)."""
    return all(M[:k, :k].det() > 0 for k in range(1, M.rows + 1))


def exp_quadratic_expectation(poly: sp.Expr, z: list, Sigma_q: sp.Matrix, K: sp.Matrix):
    """E over z ~ N(0, Sigma_q) of exp(z^T K z) poly(z), exactly; sp.oo when it diverges
    (Sigma_q^{-1} - 2K not positive definite). Sigma_q must be positive definite."""
    Sigma_q, K = sp.Matrix(Sigma_q), sp.Matrix(K)
    if K.is_zero_matrix:
        return gaussian_polynomial_expectation(poly, z, Sigma_q)
    precision = Sigma_q.inv() - 2 * K
    if not is_positive_definite(precision):
        return sp.oo
    factor = 1 / sp.sqrt((sp.eye(K.rows) - 2 * Sigma_q * K).det())
    return factor * gaussian_polynomial_expectation(poly, z, precision.inv())


def tilted_moment(p: int, q: int, c: int, m, Gamma, U, Sigma_q, *, shift=None, kappa=None):
    """M_pq^(c) exactly (a SymPy number), or sp.oo when the integral diverges.

    `shift` (default c: the tilted mean m + c Gamma U z) and `kappa`
    (default (c^2 - c)/2, the exponent of Z(c a) / Z(a)^c) exist for the claim's negative controls,
    which evaluate the same derivation with the slip a derivation would make
    (the mean shift forgotten, the ratio's quadratic exponent not divided by Z(a)^c)."""
    m, Gamma, U, Sigma_q = (sp.Matrix(x) for x in (m, Gamma, U, Sigma_q))
    d = m.rows
    z = list(sp.symbols(f"z0:{d}", real=True))
    zv = sp.Matrix(z)
    Q = sp.expand(
        token_moment_polynomial(p, c if shift is None else shift, m, Gamma, U, z)
        * (zv.T * zv)[0, 0] ** (q // 2)
    )
    kappa = sp.Rational(c * c - c, 2) if kappa is None else sp.nsimplify(kappa)
    return exp_quadratic_expectation(Q, z, Sigma_q, kappa * U.T * Gamma * U)


def importance_second_moment(
    p: int, q: int, c: int, m, Gamma, U, Sigma_q, widen=2, rank: int | None = None
):
    """E[(Y_pq w)^2] for the importance-sampled estimator of numerics/tilted_moments.monte_carlo
    (Gaussian tokens): the variance Var = this - M_pq^(c)^2 fixes the Monte Carlo power beforehand.

    The proposal draws z from N(0, W^2 Sigma_q) and z' from N(m, W^2 Gamma)
    (W = widen, r = rank Gamma) with w the density ratio, so E_prop[(Y w)^2] = E_target[Y^2 w]. In
    standardised variables h (h ~ N(0, I) under the target) w = W^(d+r) exp(-(1 - 1/W^2) |h|^2 / 2),
    and exp(-(1 - 1/W^2)|h|^2/2) phi(h) = beta^(-dim/2) phi_{I/beta}(h) with beta = 2 - 1/W^2. Hence

        E[(Y w)^2] = (W^2/beta)^((d+r)/2)
                     E_{z ~ N(0, Sigma_q/beta)}[ exp(kappa' z^T K z) P'_2p(z) |z|^2q ],

    K = U^T Gamma U, P'_2p(z) = E_{x ~ N(m + 2c Gamma' U z, Gamma')} |x|^2p, Gamma' = Gamma/beta,
    and kappa' = 2c^2/beta - c: the tokens' factor exp(2c a^T m + 2c^2 a^T Gamma' a) of
    E[e^{2c a^T x}] against exp(-2c log Z(a)) = exp(-2c a^T m - c a^T Gamma a). These three steps
    are proved (`importance_weight_proofs`). sp.oo when the integral diverges."""
    m, Gamma, U, Sigma_q = (sp.Matrix(x) for x in (m, Gamma, U, Sigma_q))
    W = sp.nsimplify(widen)
    beta = 2 - 1 / W**2
    d = m.rows
    r = Gamma.rank() if rank is None else rank
    z = list(sp.symbols(f"z0:{d}", real=True))
    zv = sp.Matrix(z)
    Q = sp.expand(
        token_moment_polynomial(2 * p, 2 * c, m, Gamma / beta, U, z) * (zv.T * zv)[0, 0] ** q
    )
    kappa = 2 * sp.Integer(c) ** 2 / beta - c
    value = exp_quadratic_expectation(Q, z, Sigma_q / beta, kappa * U.T * Gamma * U)
    return value if value == sp.oo else (W**2 / beta) ** sp.Rational(d + r, 2) * value


def table(c: int, m, Gamma, U, Sigma_q) -> list[list]:
    """3 x 3 nested list: rows p = 0, 4, 8; columns q = 0, 4, 8."""
    return [[tilted_moment(p, q, c, m, Gamma, U, Sigma_q) for q in ORDERS] for p in ORDERS]


def proofs() -> list[Proof]:
    a, b, g = sp.symbols("a b g", real=True)
    expr2, s = tilt_ratio_exponent(2)
    aGa = s["a"].T * s["Gamma"] * s["a"]
    # Stein's recursion against known one-dimensional moments E y^4 = 3 s^2, E y^8 = 105 s^4.
    var = sp.Symbol("v", positive=True)
    y = sp.Symbol("y", real=True)
    return [
        prove_zero("Z(2a)/Z(a)^2 = exp(a^T Gamma a) (c = 2)", expr2 - aGa),
        prove_zero(
            "Stein recursion: E y^4 = 3 v^2 for y ~ N(0, v)",
            gaussian_polynomial_expectation(y**4, [y], sp.Matrix([[var]])) - 3 * var**2,
        ),
        prove_zero(
            "Stein recursion: E y^8 = 105 v^4 for y ~ N(0, v)",
            gaussian_polynomial_expectation(y**8, [y], sp.Matrix([[var]])) - 105 * var**4,
        ),
        prove_zero(
            "Stein recursion: E (y1 y2)^2 = s11 s22 + 2 s12^2",
            gaussian_polynomial_expectation(
                (a * b) ** 2, [a, b], sp.Matrix([[g, sp.Symbol("h")], [sp.Symbol("h"), 1]])
            )
            - (g + 2 * sp.Symbol("h") ** 2),
        ),
    ]


def importance_weight_proofs() -> list[Proof]:
    """The steps of `importance_second_moment`, per standardised coordinate h (target N(0, 1),
    proposal N(0, W^2)): w = W exp(-(1 - 1/W^2) h^2 / 2) is the density ratio, w phi(h) is
    (W^2 / beta)^(1/2) times the N(0, 1/beta) density (beta = 2 - 1/W^2), and the tilt exponent
    left over from E_{N(m, Gamma/beta)} e^{2c a^T x} / Z(a)^(2c) is (2c^2/beta - c) a^T Gamma a,
    from the derived log-normaliser (`tilt`)."""
    W = sp.Symbol("W", positive=True)
    h = sp.Symbol("h", real=True)
    c, b = sp.symbols("c beta", positive=True)

    def phi(x, v):
        return sp.exp(-(x**2) / (2 * v)) / sp.sqrt(2 * sp.pi * v)

    w = W * sp.exp(-(1 - 1 / W**2) * h**2 / 2)
    beta = 2 - 1 / W**2
    s = tilt.matrix_symbols()
    logZ = tilt.log_normaliser_gamma(s)
    aGa = s["a"].T * s["Gamma"] * s["a"]
    exponent = logZ.subs(s["a"], 2 * c * s["a"]).subs(s["Gamma"], s["Gamma"] / b) - 2 * c * logZ
    return [
        prove_zero(
            "importance weight: W exp(-(1 - 1/W^2) h^2/2) x N(0, W^2) density = N(0, 1) density",
            w * phi(h, W**2) - phi(h, 1),
        ),
        prove_zero(
            "importance weight: w x N(0, 1) density = (W^2/beta)^(1/2) N(0, 1/beta) density, "
            "beta = 2 - 1/W^2",
            w * phi(h, 1) - sp.sqrt(W**2 / beta) * phi(h, 1 / beta),
        ),
        prove_zero(
            "importance second moment: log E_{N(m, Gamma/beta)} e^{2c a^T x} - 2c log Z(a) "
            "= (2c^2/beta - c) a^T Gamma a",
            (exponent - (2 * c**2 / b - c) * aGa).expand(),
        ),
    ]


@cached
def tilted_moment_proofs() -> tuple[Proof, ...]:
    return tuple(proofs() + importance_weight_proofs())


GROUP = Group(
    "tilted_moments",
    title="Assumption 3.3: tilted moments in closed form",
    hypotheses="tokens N(m, Gamma), queries N(0, Sigma_q), I - 2 Sigma_q K positive definite",
    proofs=tilted_moment_proofs,
    parts=("tilted_moments",),
    results="asm33",
)
