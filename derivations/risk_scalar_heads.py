"""The scalar model's risk terms summed over H heads, in matrix form (docs/paper.md section 6, claim
`finite-prompt-risk`; the per-pair terms are derived in derivations/risk_scalar.py).

With mu, omega the (H, 1) columns of the heads' parameters and C = omega omega^T (entries
omega_h omega_k), the risk E (y_q - yhat)^2 = R_inf + C1 / L + o(1/L) has

    R_inf = (1 - mu^T omega)^2 + s2,
    C1    = mu^T pair(C) mu + 2 (1 - mu^T omega) mu^T bias(omega),
    heuristic (the authors') = mu^T [(1 + s2) exp(d C)] mu,

pair, bias and exp applied entrywise (Hadamard powers). R_inf is derived here: the infinite-prompt
output of head h is m_h = omega_h beta^T q (the tilted mean proved in risk_scalar), so the residual
is (1 - mu^T omega) beta^T q + eps_q, and E (beta^T q)^2 = E beta1^2 E |q|^2 = (1/d) d with the
derived chi2 moment. Each matrix form is proved equal to its sum over heads by exact evaluation at
rational heads (H = 1, 2, 3; d and s2 symbolic); `softlin derive` emits them as
`scalar_first_order`, `scalar_heuristic`, `scalar_infinite_risk`
(finite only when every omega_h omega_k < 1/2: numerics/scalar_risk.py checks that before calling).
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.hadamard import HadamardPower, HadamardProduct

from . import risk_scalar as rs
from .gaussian_expectations import standard_expectation
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

H_sym = sp.Symbol("H", integer=True, positive=True)
MU = sp.MatrixSymbol("mu", H_sym, 1)
OMEGA = sp.MatrixSymbol("omega", H_sym, 1)
d, s2 = rs.d_sym, rs.s2_sym


def entrywise_terms():
    C = OMEGA * OMEGA.T
    K = sp.OneMatrix(H_sym, H_sym) - 2 * C  # 1 - 2 omega_h omega_k
    pair = (1 + s2) * HadamardPower(K, -d / 2) + HadamardProduct(C, HadamardPower(K, -d / 2 - 1))
    k = sp.OneMatrix(H_sym, 1) - 2 * HadamardPower(OMEGA, 2)  # 1 - 2 omega_h^2
    bias = HadamardProduct(OMEGA, HadamardPower(k, -d / 2 - 1))
    return C, pair, bias


def residual_factor():
    """(1, 1) matrix 1 - mu^T omega."""
    return sp.Identity(1) - MU.T * OMEGA


def first_order():
    _, pair, bias = entrywise_terms()
    return MU.T * pair * MU + 2 * residual_factor() * (MU.T * bias)


def heuristic():
    C, _, _ = entrywise_terms()
    c = sp.Symbol("entry", real=True)  # the entry d omega_h omega_k
    return MU.T * (d * C).applyfunc(sp.Lambda(c, rs.heuristic_pair().subs(rs.c_sym * d, c))) * MU


def infinite_risk():
    return residual_factor().T * residual_factor() + s2 * sp.Identity(1)


def derived_infinite_risk(p: sp.Expr) -> sp.Expr:
    """E ((1 - p) beta^T q + eps_q)^2 with p = mu^T omega, in the rotated basis
    beta^T q = beta1 n."""
    b1, g, n2 = sp.symbols("beta1 g n2", real=True)
    r2 = sp.expand(((1 - p) * b1 * sp.sqrt(n2) + sp.sqrt(s2) * g) ** 2)
    r2 = standard_expectation(r2, (g,))  # eps_q = sqrt(s2) g
    r2 = sp.expand(r2).subs(b1**2, 1 / d).subs(b1, 0)  # beta1 ~ N(0, 1/d)
    _, E1, k = rs.chi2_moments()  # E n^2 e^{c n^2} at c = 0 (k = 1)
    return sp.simplify(r2.subs(n2, E1.subs(k, 1)))


def _explicit(expr, H: int, point: dict):
    """The (1, 1) entry of a matrix form with H heads, at the exact values `point`; raises if a
    symbol of the heads survives the substitution."""
    value = sp.expand(sp.Matrix(expr.subs(H_sym, H).as_explicit())[0, 0].subs(point))
    if value.free_symbols - {d, s2}:
        raise ArithmeticError(f"unsubstituted symbols in {value}")
    return value


# Exact rational points (mu_h, omega_h) with every omega_h omega_k < 1/2, d and s2 kept symbolic.
POINTS = {
    1: ((sp.Rational(3, 2), sp.Rational(1, 3)),),
    2: ((sp.Rational(2), sp.Rational(1, 4)), (sp.Rational(-1, 3), sp.Rational(-3, 5))),
    3: (
        (sp.Rational(5, 4), sp.Rational(2, 5)),
        (sp.Rational(1, 2), sp.Rational(-1, 7)),
        (sp.Rational(-7, 3), sp.Rational(1, 2)),
    ),
}


def proofs() -> list[Proof]:
    """Each matrix form against its sum over heads, by exact evaluation at the rational heads of
    POINTS (d and s2 symbolic)."""
    out = []
    pair = lambda c: rs.pair_closed().subs(rs.c_sym, c)
    bias = lambda w: rs.bias_closed().subs(rs.om_sym, w)
    heur = lambda c: rs.heuristic_pair().subs(rs.c_sym, c)
    for H, heads in POINTS.items():
        mu, om = [m for m, _ in heads], [w for _, w in heads]
        MU_H, OMEGA_H = (
            sp.MatrixSymbol(M.name, H, 1) for M in (MU, OMEGA)
        )  # the symbols once H is fixed
        point = {
            **{MU_H[h, 0]: mu[h] for h in range(H)},
            **{OMEGA_H[h, 0]: om[h] for h in range(H)},
        }
        p = sum(m * w for m, w in zip(mu, om))
        C1 = sum(mu[h] * mu[k] * pair(om[h] * om[k]) for h in range(H) for k in range(H)) + 2 * (
            1 - p
        ) * sum(mu[h] * bias(om[h]) for h in range(H))
        he = sum(mu[h] * mu[k] * heur(om[h] * om[k]) for h in range(H) for k in range(H))
        out += [
            prove_zero(
                f"C1 in matrix form = sum over heads of pair and cross terms, H = {H} "
                "(exact rational heads)",
                _explicit(first_order(), H, point) - sp.expand(C1),
            ),
            prove_zero(
                "heuristic in matrix form = sum mu_h mu_k (1 + s2) exp(d omega_h omega_k), "
                f"H = {H} (exact rational heads)",
                _explicit(heuristic(), H, point) - sp.expand(he),
            ),
            prove_zero(
                f"R_inf in matrix form = derived E ((1 - mu.omega) beta^T q + eps_q)^2, H = {H} "
                "(exact rational heads)",
                _explicit(infinite_risk(), H, point) - sp.expand(derived_infinite_risk(p)),
            ),
        ]
    return out


@cached
def risk_scalar_head_proofs() -> tuple[Proof, ...]:
    """The scalar model's terms summed over heads in matrix form
    (derivations/risk_scalar_heads.py)."""
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the scalar model's C1, the authors' coefficient and R_inf summed over H heads, mu
    and omega as (H, 1) columns."""
    heads, src = (MU, OMEGA, d, s2), "risk_scalar_heads"
    shapes = ("(H, 1)", "(H, 1)", "scalar", "scalar")
    return [
        KernelSpec(
            "scalar_first_order",
            heads,
            shapes,
            first_order(),
            "C1 = mu^T pair(omega omega^T) mu + 2 (1 - mu^T omega) mu^T bias(omega) "
            "(every omega_h omega_k < 1/2).",
            src,
            "(1, 1)",
        ),
        KernelSpec(
            "scalar_heuristic",
            heads,
            shapes,
            heuristic(),
            "The authors' coefficient mu^T [(1 + s2) exp(d omega omega^T)] mu (exp entrywise).",
            src,
            "(1, 1)",
        ),
        KernelSpec(
            "scalar_infinite_risk",
            (MU, OMEGA, s2),
            shapes[:2] + ("scalar",),
            infinite_risk(),
            "R_inf = (1 - mu^T omega)^2 + s2.",
            src,
            "(1, 1)",
        ),
    ]


GROUP = Group(
    "risk_scalar_heads",
    title="The scalar model's risk terms summed over heads",
    hypotheses="as risk_scalar, H heads (mu_h, omega_h)",
    proofs=risk_scalar_head_proofs,
    parts=("risk_scalar_heads",),
)
