"""Exact limits for the negative-control token laws
(non-Gaussian, mean 0, variance 1 per coordinate).

With independent coordinates the tilt factorises, so the limit acts coordinatewise:
T[mu](z) = V f(U z) with f(a)_j = d/da_j log E e^{a_j x}.

- Rademacher (x = +-1):            E e^{a x} = cosh a,
                                   f(a) = tanh a.
- Uniform on [-sqrt 3, sqrt 3]:    E e^{a x} = sinh(sqrt3 a) / (sqrt3 a),
                                   f(a) = sqrt3 coth(sqrt3 a) - 1/a.

Both are derived here by integration and differentiation. The uniform one cancels near a = 0, so the
emitted form switches to its Taylor polynomial for |a| < 0.05 (truncation error below 1e-16 there).
The Gaussian of the same mean and variance would give f(a) = a: these laws refute Lemma 2.1's
formula.
"""

from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import log1p

from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

x_sym = sp.Symbol("x", real=True)
a_sym = sp.Symbol("a", real=True)
SERIES_RADIUS = sp.Rational(1, 20)
SERIES_ORDER = 13


def rademacher_log_mgf() -> sp.Expr:
    return sp.log((sp.exp(a_sym) + sp.exp(-a_sym)) / 2)


def uniform_log_mgf() -> sp.Expr:
    c = sp.sqrt(3)
    mgf = sp.integrate(sp.exp(a_sym * x_sym), (x_sym, -c, c)) / (2 * c)
    # The integral is piecewise in a (a = 0 separately); keep the generic branch.
    mgf = mgf.args[0][0] if isinstance(mgf, sp.Piecewise) else mgf
    if isinstance(mgf, sp.Mul):
        mgf = sp.Mul(*[f.args[0][0] if isinstance(f, sp.Piecewise) else f for f in mgf.args])
    return sp.log(sp.simplify(mgf))


def rademacher_tilted_mean() -> sp.Expr:
    return sp.simplify(sp.diff(rademacher_log_mgf(), a_sym).rewrite(sp.tanh))


def uniform_tilted_mean_exact() -> sp.Expr:
    return sp.simplify(sp.diff(uniform_log_mgf(), a_sym))


def uniform_tilted_mean() -> sp.Expr:
    """Piecewise: Taylor polynomial near 0, the closed form elsewhere."""
    exact = uniform_tilted_mean_exact()
    series = sp.series(exact, a_sym, 0, SERIES_ORDER).removeO()
    return sp.Piecewise((series, sp.Abs(a_sym) < SERIES_RADIUS), (exact, True))


def uniform_log_mgf_piecewise() -> sp.Expr:
    """log E e^{a x} for x ~ U[-sqrt3, sqrt3]: its Taylor polynomial near 0
    (where the closed form is 0/0), the closed form log(sinh(sqrt3 a) / (sqrt3 a)) elsewhere."""
    exact = uniform_log_mgf()
    series = sp.series(exact, a_sym, 0, SERIES_ORDER + 1).removeO()
    return sp.Piecewise((series, sp.Abs(a_sym) < SERIES_RADIUS), (exact, True))


def rademacher_log_mgf_stable() -> sp.Expr:
    """log cosh a written as |a| + log1p(exp(-2|a|)) - log 2 (no overflow for large |a|)."""
    return sp.Abs(a_sym) + log1p(sp.exp(-2 * sp.Abs(a_sym))) - sp.log(2)


def proofs() -> list[Proof]:
    c = sp.sqrt(3)
    pos = sp.Symbol("t", positive=True)
    stable = rademacher_log_mgf_stable().replace(log1p, lambda x: sp.log(1 + x))
    return [
        prove_zero(
            "stable log cosh: |a| + log(1 + e^(-2|a|)) - log 2 = log cosh a (a > 0)",
            sp.simplify(sp.exp(stable.subs(a_sym, pos)) - sp.cosh(pos)),
        ),
        prove_zero(
            "stable log cosh: the same for a < 0 (even function)",
            sp.simplify(sp.exp(stable.subs(a_sym, -pos)) - sp.cosh(pos)),
        ),
        prove_zero(
            "Rademacher: d/da log cosh a = tanh a", rademacher_tilted_mean() - sp.tanh(a_sym)
        ),
        prove_zero(
            "uniform: d/da log E e^(a x) = sqrt3 coth(sqrt3 a) - 1/a",
            (uniform_tilted_mean_exact() - (c * sp.coth(c * a_sym) - 1 / a_sym)).rewrite(sp.exp),
        ),
        prove_zero(
            "uniform: the log-mgf's derivative is the tilted mean",
            sp.diff(uniform_log_mgf(), a_sym) - uniform_tilted_mean_exact(),
        ),
        prove_zero(
            "uniform series starts a - 9 a^3 / 45 (matches the variance-1 Gaussian to first order)",
            sp.series(uniform_tilted_mean_exact(), a_sym, 0, 4).removeO()
            - (a_sym - sp.Rational(9, 45) * a_sym**3),
        ),
    ]


@cached
def control_proofs() -> tuple[Proof, ...]:
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted, entrywise in a: the tilted means d/da log E e^{a x} and the log-mgfs
    log E e^{a x} of the Rademacher and the uniform U[-sqrt3, sqrt3] controls."""
    a = a_sym
    return [
        KernelSpec(
            "rademacher_tilted_mean",
            (a,),
            ("any shape",),
            rademacher_tilted_mean(),
            "d/da log E e^{a x} for x = +-1: tanh a (entrywise).",
            "controls",
            "same as a",
        ),
        KernelSpec(
            "uniform_tilted_mean",
            (a,),
            ("any shape",),
            uniform_tilted_mean(),
            "d/da log E e^{a x} for x ~ U[-sqrt3, sqrt3]: sqrt3 coth(sqrt3 a) - 1/a (entrywise).",
            "controls",
            "same as a",
        ),
        KernelSpec(
            "rademacher_log_mgf",
            (a,),
            ("any shape",),
            rademacher_log_mgf_stable(),
            "log E e^{a x} for x = +-1: log cosh a, as |a| + log1p(e^{-2|a|}) - log 2.",
            "controls",
            "same as a",
        ),
        KernelSpec(
            "uniform_log_mgf",
            (a,),
            ("any shape",),
            uniform_log_mgf_piecewise(),
            "log E e^{a x} for x ~ U[-sqrt3, sqrt3]: log(sinh(sqrt3 a) / (sqrt3 a)), "
            "series near 0.",
            "controls",
            "same as a",
        ),
    ]


GROUP = Group(
    "controls",
    title="Exact limits of the negative-control token laws",
    hypotheses="independent coordinates, mean 0, variance 1 (Rademacher, uniform, ...)",
    proofs=control_proofs,
    parts=("controls",),
)
