"""Lemma 2.1: for Gaussian prompts mu = N(m, Gamma), softmax attention in the limit is affine,

    T_{U,V}[mu](z) = E[e^{z'^T U z} V z'] / E[e^{z'^T U z}] = V (m + Gamma U z),

because the ratio is V times the tilted mean at tilt a = U z (see `tilt`). Gamma may be singular.
The limit is *derived* here by substituting a = U z into the derived tilted mean.
"""

from __future__ import annotations

import sympy as sp

from . import tilt
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached


def limit_symbols(d=None, k=None, n=None):
    d = d if d is not None else sp.Symbol("d", integer=True, positive=True)
    k = k if k is not None else sp.Symbol("k", integer=True, positive=True)
    n = n if n is not None else sp.Symbol("n", integer=True, positive=True)
    s = tilt.matrix_symbols(d)
    s.update(
        {
            "U": sp.MatrixSymbol("U", d, d),
            "V": sp.MatrixSymbol("V", k, d),
            "z": sp.MatrixSymbol("z", d, n),  # n queries as columns
        }
    )
    return s


def gaussian_limit_matrix(s=None) -> sp.MatrixExpr:
    """T[mu](z) = V * tilted_mean(a = U z): a k x n matrix expression (one column per query)."""
    s = s or limit_symbols()
    mean = tilt.tilted_mean_matrix(s)
    return s["V"] * mean.subs(s["a"], s["U"] * s["z"])


def output_symbols(d=None, k=None):
    """The limit symbols for one tilt vector a, plus r (k x 1): a point in output space."""
    s = limit_symbols(d, k, 1)
    s["r"] = sp.MatrixSymbol("r", s["V"].shape[0], 1)
    return s


def output_second_moment(s=None) -> sp.MatrixExpr:
    """E_a[(V z' - r)^2] coordinatewise under the tilted law at a (k x 1), from the derived tilted
    mean and covariance: diag(V Cov_a V^T) + (V mean_a - r)^2, with diag(V C V^T) = (V C o V) 1.

    Multiplied by Z(a), this is E[e^{a^T z'} (V z' - r)^2]: the second moment of the
    unbiased-numerator statistic of the limit claims (at tilt 2a), from which their Monte Carlo
    power is computed."""
    s = s or output_symbols()
    d = s["m"].shape[0]
    cov, mean = tilt.tilted_cov_matrix(s), tilt.tilted_mean_matrix(s)
    return sp.HadamardProduct(s["V"] * cov, s["V"]) * sp.OneMatrix(d, 1) + sp.HadamardPower(
        s["V"] * mean - s["r"], 2
    )


def output_second_moment_proofs(d: int = 2, k: int = 2) -> list[Proof]:
    """The matrix form against the tilted second moments from the 1-D integrals (`tilt`)."""
    out = []
    for rank in range(1, d + 1):
        a, m, B = tilt.entry_symbols(d, rank)
        V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
        r = sp.Matrix(k, 1, sp.symbols(f"r0:{k}", real=True))
        _, first, second = tilt.tilt_moments_entries(a, m, B)
        full = V * second * V.T - V * first * r.T - r * first.T * V.T + r * r.T
        s = output_symbols(d, k)
        got = (
            output_second_moment(s)
            .subs({s["a"]: a, s["m"]: m, s["Gamma"]: B * B.T, s["V"]: V, s["r"]: r})
            .doit()
            .as_explicit()
        )
        out.append(
            prove_zero(
                "E_a[(V z' - r)_i^2] = (V Gamma V^T)_ii + (V(m + Gamma a) - r)_i^2 "
                f"[d={d}, rank={rank}]",
                got - sp.Matrix(k, 1, lambda i, _: full[i, i]),
            )
        )
    return out


def entry_proofs(d: int, rank: int | None = None, k: int = 2) -> list[Proof]:
    """Lemma 2.1 with fully symbolic entries: the ratio of Gaussian integrals (from the 1-D
    integrals of `tilt`) equals V (m + Gamma U z), and so does the matrix-form expression."""
    rank = d if rank is None else rank
    tag = f"d={d}, rank(Gamma)={rank}, k={k}"
    a, m, B = tilt.entry_symbols(d, rank)
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    z = sp.Matrix(d, 1, sp.symbols(f"z0:{d}", real=True))
    _, mean, _ = tilt.tilt_moments_entries(U * z, m, B)
    ratio = V * mean
    claimed = V * (m + B * B.T * U * z)
    s = limit_symbols(d, k, 1)
    matrix_form = (
        gaussian_limit_matrix(s)
        .subs({s["m"]: m, s["Gamma"]: B * B.T, s["U"]: U, s["V"]: V, s["z"]: z})
        .as_explicit()
    )
    return [
        prove_zero(
            f"E[e^(z'^T U z) V z'] / E[e^(z'^T U z)] = V (m + Gamma U z) [{tag}]", ratio - claimed
        ),
        prove_zero(f"emitted matrix form equals the entries' ratio [{tag}]", matrix_form - ratio),
    ]


def matrix_proofs() -> list[Proof]:
    s = limit_symbols()
    expected = s["V"] * (s["m"] + s["Gamma"] * s["U"] * s["z"])
    return [
        prove_zero(
            "T[mu](z) = V (m + Gamma U z) (matrix form)", gaussian_limit_matrix(s) - expected
        )
    ]


def latex_limit() -> str:
    s = limit_symbols()
    return sp.latex(gaussian_limit_matrix(s))


@cached
def lemma21_proofs() -> tuple[Proof, ...]:
    out = list(matrix_proofs())
    for d, rank in ((1, 1), (2, 2), (2, 1), (3, 3), (3, 2)):
        out += entry_proofs(d, rank)
    out += output_second_moment_proofs()
    return tuple(out)


def kernel_specs() -> list[KernelSpec]:
    """Emitted: T[N(m, Gamma)](z) = V (m + Gamma U z) per query column, and the tilted output
    second moment E_a[(V z' - r)^2] behind the Monte Carlo power."""
    s = limit_symbols()
    o = output_symbols()
    return [
        KernelSpec(
            "gaussian_limit",
            (s["m"], s["Gamma"], s["U"], s["V"], s["z"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(d, n)"),
            gaussian_limit_matrix(s),
            "Lemma 2.1: T[N(m, Gamma)](z) = V (m + Gamma U z), one column per query.",
            "lemma21",
            "(k, n)",
        ),
        KernelSpec(
            "output_second_moment",
            (o["m"], o["Gamma"], o["V"], o["a"], o["r"]),
            ("(d, 1)", "(d, d)", "(k, d)", "(d, 1)", "(k, 1)"),
            output_second_moment(o),
            "E_a[(V z' - r)^2] = diag(V Gamma V^T) + (V (m + Gamma a) - r)^2 under the tilted law "
            "at a.",
            "lemma21",
            "(k, 1)",
        ),
    ]


GROUP = Group(
    "lemma21",
    title="Lemma 2.1: Gaussian prompts make softmax attention affine",
    hypotheses="tokens N(m, Gamma), Gamma positive semidefinite (possibly singular); a = U z",
    proofs=lemma21_proofs,
    parts=("lemma21",),
    results="lemma21_",
)
