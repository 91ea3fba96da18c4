"""Exponential tilt of a Gaussian law (docs/paper.md section 2, proof route of Lemma 2.1).

Write the token law as a pushforward: z' = m + B g with g ~ N(0, I_d) and Gamma = B B^T (B may be
rank deficient, so Gamma may be singular). For a tilt vector a,

    Z(a)        = E exp(a^T z')             = exp(a^T m + a^T Gamma a / 2)       (normaliser)
    mean(a)     = E[z' e^{a^T z'}] / Z(a)   = grad_a log Z(a) = m + Gamma a     (tilted mean)
    cov(a)      = Hess_a log Z(a)           = Gamma                             (tilted covariance)

and, stronger, the tilted density of g is exactly that of N(B^T a, I), so the tilted law of z' is
N(m + Gamma a, Gamma): the tilt moves the mean and keeps the covariance (the "pushforward" part).

Everything below is *derived*: the one-dimensional Gaussian integrals
E[g^p e^{t g}] (p = 0, 1, 2) come from `sympy.integrate`, the d-dimensional moments from the
independence of the coordinates of g, and the matrix forms from SymPy's matrix calculus.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .group import Group
from .proof import Proof, prove_zero
from .proof_cache import cached

g_sym = sp.Symbol("g", real=True)
t_sym = sp.Symbol("t", real=True)


@lru_cache(maxsize=None)
def gaussian_moment_1d(p: int) -> sp.Expr:
    """E[g^p exp(t g)] for g ~ N(0, 1), by symbolic integration (a function of t_sym)."""
    density = sp.exp(-(g_sym**2) / 2) / sp.sqrt(2 * sp.pi)
    value = sp.integrate(g_sym**p * sp.exp(t_sym * g_sym) * density, (g_sym, -sp.oo, sp.oo))
    return sp.simplify(value)


# ---------------------------------------------------------------------------------------------
# Matrix form (dimension-free MatrixSymbols).


def matrix_symbols(d=None, k=None):
    """MatrixSymbols of the tilt: a (tilt), m (mean), B (root of Gamma), Gamma."""
    d = d if d is not None else sp.Symbol("d", integer=True, positive=True)
    return {
        "a": sp.MatrixSymbol("a", d, 1),
        "m": sp.MatrixSymbol("m", d, 1),
        "B": sp.MatrixSymbol("B", d, d),
        "Gamma": sp.MatrixSymbol("Gamma", d, d),
    }


def log_normaliser_matrix(s=None) -> sp.MatrixExpr:
    """log Z(a) = a^T m + a^T B B^T a / 2 (a 1x1 matrix expression).

    Built from the derived 1-D result log E e^{t g} = t^2/2 applied to t = B^T a coordinatewise
    (independent coordinates multiply the normalisers, so the logs add up to |B^T a|^2 / 2).
    """
    s = s or matrix_symbols()
    one_d = sp.simplify(sp.log(gaussian_moment_1d(0)))
    # Sum_j (t_j)^2 / 2 with t = B^T a, written as (B^T a)^T (B^T a) * coefficient of t^2.
    coefficient = sp.Poly(sp.expand(one_d), t_sym).coeff_monomial(t_sym**2)
    if (
        sp.Poly(sp.expand(one_d), t_sym).degree() != 2
        or sp.expand(one_d - coefficient * t_sym**2) != 0
    ):
        raise AssertionError(f"unexpected 1-D Gaussian log-normaliser {one_d}")
    t_vec = s["B"].T * s["a"]
    return s["a"].T * s["m"] + coefficient * (t_vec.T * t_vec)


def tilted_mean_matrix(s=None, gamma_form: bool = True) -> sp.MatrixExpr:
    """grad_a log Z(a); with gamma_form, B B^T is written Gamma: m + Gamma a."""
    s = s or matrix_symbols()
    mean = log_normaliser_matrix(s).diff(s["a"])
    return mean.subs(s["B"] * s["B"].T, s["Gamma"]) if gamma_form else mean


def tilted_cov_matrix(s=None, gamma_form: bool = True) -> sp.MatrixExpr:
    """Hess_a log Z(a); with gamma_form: Gamma (independent of a)."""
    s = s or matrix_symbols()
    cov = log_normaliser_matrix(s).diff(s["a"]).diff(s["a"])
    return cov.subs(s["B"] * s["B"].T, s["Gamma"]) if gamma_form else cov


def log_normaliser_gamma(s=None) -> sp.MatrixExpr:
    """log Z(a) with B B^T written Gamma: a^T m + a^T Gamma a / 2."""
    s = s or matrix_symbols()
    return log_normaliser_matrix(s).subs(s["B"] * s["B"].T, s["Gamma"])


# ---------------------------------------------------------------------------------------------
# Entries: explicit symbolic matrices for small d.


def entry_symbols(d: int, rank: int | None = None):
    """Explicit symbolic a, m and B (d x d, last d - rank columns zero when rank < d)."""
    rank = d if rank is None else rank
    a = sp.Matrix(d, 1, sp.symbols(f"a0:{d}", real=True))
    m = sp.Matrix(d, 1, sp.symbols(f"m0:{d}", real=True))
    B = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"b{i}{j}", real=True) if j < rank else 0)
    return a, m, B


@lru_cache(maxsize=None)
def tilted_moment_1d(p: int) -> sp.Expr:
    """E[g^p e^{t g}] / E[e^{t g}]: a polynomial in t (the Gaussian factor cancels exactly)."""
    return sp.expand(sp.simplify(gaussian_moment_1d(p) / gaussian_moment_1d(0)))


def tilt_moments_entries(a: sp.Matrix, m: sp.Matrix, B: sp.Matrix):
    """Z = E e^{a^T z'}, and the tilted moments E[z' e^{a^T z'}] / Z, E[z' z'^T e^{a^T z'}] / Z,
    all from the 1-D integrals.

    z' = m + B g, a^T z' = a^T m + t^T g with t = B^T a, and the coordinates of g are independent,
    so E[g^alpha e^{t^T g}] = prod_j E[g_j^alpha_j e^{t_j g_j}]. Dividing by Z leaves the product
    of the polynomials `tilted_moment_1d`, which keeps the algebra polynomial (and fast).
    """
    d = B.shape[1]
    t = B.T * a
    Z = sp.exp((a.T * m)[0, 0]) * sp.Mul(
        *[gaussian_moment_1d(0).subs(t_sym, t[j]) for j in range(d)]
    )

    def moment(powers: dict[int, int]) -> sp.Expr:
        return sp.Mul(*[tilted_moment_1d(powers.get(j, 0)).subs(t_sym, t[j]) for j in range(d)])

    Eg = sp.Matrix(d, 1, lambda j, _: moment({j: 1}))
    Egg = sp.Matrix(d, d, lambda i, j: moment({i: 2}) if i == j else moment({i: 1, j: 1}))
    first = m + B * Eg
    second = m * m.T + m * (B * Eg).T + (B * Eg) * m.T + B * Egg * B.T
    return Z, first, second


def entry_proofs(d: int, rank: int | None = None) -> list[Proof]:
    """Prove normaliser, tilted mean, tilted covariance and the pushforward identity with
    fully symbolic entries in dimension d (rank-deficient B when rank < d)."""
    rank = d if rank is None else rank
    tag = f"d={d}, rank(B)={rank}"
    a, m, B = entry_symbols(d, rank)
    Gamma = B * B.T
    Z, mean, second = tilt_moments_entries(a, m, B)
    logZ = (a.T * m)[0, 0] + (a.T * Gamma * a)[0, 0] / 2
    cov = second - mean * mean.T
    proofs = [
        prove_zero(
            f"normaliser E exp(a^T z') = exp(a^T m + a^T Gamma a / 2) [{tag}]",
            Z * sp.exp(-logZ) - 1,
        ),
        prove_zero(f"tilted mean = m + Gamma a [{tag}]", mean - (m + Gamma * a)),
        prove_zero(f"tilted covariance = Gamma [{tag}]", cov - Gamma),
    ]
    # Pushforward: the tilted density of g is the N(B^T a, I) density. Compare log-densities.
    g = sp.Matrix(d, 1, sp.symbols(f"g0:{d}", real=True))
    log_tilted = (a.T * (m + B * g))[0, 0] - (g.T * g)[0, 0] / 2 - logZ
    shift = g - B.T * a
    log_shifted = -(shift.T * shift)[0, 0] / 2
    proofs.append(
        prove_zero(
            f"tilted law of g is N(B^T a, I), so z' ~ N(m + Gamma a, Gamma) [{tag}]",
            sp.expand(log_tilted - log_shifted),
        )
    )
    # Matrix-form expressions agree with the entries.
    s = matrix_symbols(d)
    subs = {s["a"]: a, s["m"]: m, s["B"]: B}
    proofs.append(
        prove_zero(
            f"matrix-form grad log Z equals the entries' tilted mean [{tag}]",
            tilted_mean_matrix(s, gamma_form=False).subs(subs).as_explicit() - mean,
        )
    )
    proofs.append(
        prove_zero(
            f"matrix-form Hess log Z equals the entries' tilted covariance [{tag}]",
            tilted_cov_matrix(s, gamma_form=False).subs(subs).as_explicit() - cov,
        )
    )
    return proofs


def matrix_proofs() -> list[Proof]:
    """Dimension-free statements, by SymPy's matrix calculus."""
    s = matrix_symbols()
    mean = tilted_mean_matrix(s)
    cov = tilted_cov_matrix(s)
    return [
        prove_zero(
            "grad_a log Z = m + Gamma a (matrix form)", mean - (s["m"] + s["Gamma"] * s["a"])
        ),
        prove_zero("Hess_a log Z = Gamma (matrix form)", cov - s["Gamma"]),
    ]


@cached
def tilt_proofs() -> tuple[Proof, ...]:
    out = list(matrix_proofs())
    for d, rank in ((1, 1), (2, 2), (2, 1), (3, 3), (3, 2)):
        out += entry_proofs(d, rank)
    return tuple(out)


GROUP = Group(
    "tilt",
    title="Exponential tilt of a Gaussian law (route of Lemma 2.1)",
    hypotheses="tokens z' = m + B g, g ~ N(0, I), Gamma = B B^T (possibly singular); any tilt "
    "vector a",
    proofs=tilt_proofs,
    parts=("tilt",),
    results="tilt_",
)
