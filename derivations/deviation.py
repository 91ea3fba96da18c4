"""The finite-prompt deviation bound eps_L(delta) used by the limit claims' Monte Carlo checks.

With w the normalised softmax weight (E w = 1), mu_a the tilted mean, X_L = mean_i w_i (z_i - mu_a)
and D_L = mean_i w_i, the error of softmax attention over L tokens is ||V X_L|| / D_L. Two tails:

- Chebyshev on the numerator: P(||V X_L|| > s) <= E||V X_L||^2 / s^2 = N / (L s^2), with
  N = E w^2 ||V (z' - mu_a)||^2. Setting the right side to delta/2 and solving for s > 0 gives s.
- Lower tail of a mean of nonnegative variables (Maurer 2003):
  P(D_L <= 1 - t) <= exp(-L t^2 / (2 W)), W = E w^2. Setting it to delta/2 and solving for t > 0
  gives t.

So with probability >= 1 - delta, ||T[mu_L](z) - T[mu](z)|| <= eps_L = s / (1 - t), vacuous
(infinite) when t >= 1. Both thresholds are solved here by `sympy.solve`, and the proofs substitute
them back into the two tail bounds.
"""

from __future__ import annotations

import sympy as sp

from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, back_substitute
from .proof_cache import cached

L_sym = sp.Symbol("L", positive=True)
delta_sym = sp.Symbol("delta", positive=True)
w2_sym = sp.Symbol("w2", positive=True)  # E w^2
num_sym = sp.Symbol("num", positive=True)  # E w^2 ||V (z' - mu_a)||^2
_s, _t = sp.symbols("s t", positive=True)


def chebyshev_tail(s=_s) -> sp.Expr:
    return num_sym / (L_sym * s**2)


def maurer_tail(t=_t) -> sp.Expr:
    return sp.exp(-L_sym * t**2 / (2 * w2_sym))


def _positive_root(equation, unknown) -> sp.Expr:
    roots = [r for r in sp.solve(equation, unknown) if r.is_positive is not False]
    if len(roots) != 1:
        raise AssertionError(f"expected one positive root of {equation}, got {roots}")
    return sp.simplify(roots[0])


def numerator_threshold() -> sp.Expr:
    """s with N / (L s^2) = delta / 2."""
    return _positive_root(sp.Eq(chebyshev_tail(), delta_sym / 2), _s)


def denominator_threshold() -> sp.Expr:
    """t with exp(-L t^2 / (2 W)) = delta / 2."""
    return _positive_root(sp.Eq(maurer_tail(), delta_sym / 2), _t)


def deviation_bound() -> sp.Expr:
    """eps_L(delta) = s / (1 - t) when t < 1, else infinity (vacuous)."""
    s, t = numerator_threshold(), denominator_threshold()
    return sp.Piecewise((s / (1 - t), t < 1), (sp.oo, True))


def proofs() -> list[Proof]:
    s, t = numerator_threshold(), denominator_threshold()
    return [
        back_substitute(
            "deviation bound: the numerator threshold s solves N / (L s^2) = delta / 2",
            chebyshev_tail(s) - delta_sym / 2,
        ),
        back_substitute(
            "deviation bound: the denominator threshold t solves "
            "exp(-L t^2 / (2 E w^2)) = delta / 2",
            sp.expand_log(sp.log(maurer_tail(t)) - sp.log(delta_sym / 2), force=True),
        ),
    ]


@cached
def deviation_proofs() -> tuple[Proof, ...]:
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the deviation bound eps_L(delta)."""
    return [
        KernelSpec(
            "deviation_bound",
            (L_sym, delta_sym, w2_sym, num_sym),
            ("scalar",) * 4,
            deviation_bound(),
            "eps_L(delta) = sqrt(2 N / (L delta)) / (1 - t), t = sqrt(2 W log(2/delta) / L); "
            "inf when t >= 1.",
            "deviation",
            "scalar",
        ),
    ]


GROUP = Group(
    "deviation",
    title="The high-probability deviation bound eps_L(delta)",
    hypotheses="iid tokens, w >= 0 with E w = 1; Chebyshev on the numerator, Maurer's lower tail "
    "on the denominator",
    proofs=deviation_proofs,
    parts=("deviation",),
    results="deviation_",
)
