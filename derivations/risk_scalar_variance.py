"""Variance of the Monte Carlo estimator of the scalar model's 1/L coefficient, one head
(docs/paper.md section 6, claim `finite-prompt-risk`; the estimator is numerics/scalar_risk.py).

Why: the claim sizes its Monte Carlo budget *before* running, from this variance, so that the
statistical check and the heuristic control are decisive with a computed power.

Estimator, one head (mu, omega), per draw of (beta, q, prompt):
    Y = L [delta^2 - 2 r0 (delta - delta_lin)],   delta = mu (S - m),  delta_lin = mu (N - m D),
with N = mean w y, D = mean w, w = e^{omega x^T q} / E e^{omega x^T q}, m = omega beta^T q and
r0 = (1 - mu omega) beta^T q. Given (beta, q), the central limit theorem gives
X = sqrt(L) (N - m D) and Z = sqrt(L) (D - 1) jointly Gaussian with
    Var X = sigma2 = E[w^2 (y - m)^2],  Cov(X, Z) = b = E[w^2 (y - m)],  Var Z = v = E w^2 - 1,
and S - m = (N - m D) / D, so delta = mu X / sqrt(L) + O(1/L),
delta - delta_lin = -mu X Z / L + O(L^-3/2):
    Y -> Y_inf = mu^2 X^2 + 2 r0 mu X Z                                          (L -> oo).
Isserlis' theorem for the Gaussian pair (X, Z):
    E[Y_inf | beta, q]   = mu^2 sigma2 + 2 r0 mu b,
    Var[Y_inf | beta, q] = 2 mu^4 sigma2^2 + 4 r0^2 mu^2 (sigma2 v + b^2) + 8 mu^3 r0 sigma2 b.
The conditional moments come from derivations/risk_scalar.py (step 2: sigma2 is its pair term at
omega_h = omega_k = omega, b its bias term, v from the derived normaliser); the outer averages use
beta^T q = beta1 n with beta1 ~ N(0, 1/d), |beta_perp|^2 ~ chi2_{d-1} / d, n^2 ~ chi2_d, and
    E[Q^j e^{a Q}] = (1 - 2a)^(-d/2 - j) prod_{i<j} (d + 2i),   Q ~ chi2_d, a < 1/2
                                                                (integrated here).
Result: Var Y_inf = E[E[Y_inf^2 | beta, q]] - C1^2, finite iff 2 omega^2 < 1/2. The finite-L
variance differs by O(L^-1/2); the claim states the margin it allows for that.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import risk_scalar as rs
from .gaussian_expectations import gaussian_polynomial_expectation
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

mu_sym = sp.Symbol("mu", real=True)


@lru_cache(maxsize=None)
def chi2_tilted_moment(j: int):
    """E[Q^j e^{a Q}] for Q ~ chi2_d as a function of (a, d), by integration (a < 1/2)."""
    Q = sp.Symbol("Q", positive=True)
    k = sp.Symbol("k", positive=True)  # k = 1 - 2a
    d = rs.d_sym
    density = Q ** (d / 2 - 1) * sp.exp(-k * Q / 2) / (2 ** (d / 2) * sp.gamma(d / 2))
    value = sp.integrate(Q**j * density, (Q, 0, sp.oo), conds="none")
    return sp.gammasimp(sp.simplify(value)), k


def _outer_average(expr, b1, bp2, n2, omega):
    """Average a polynomial in (beta1, |beta_perp|^2, n^2) times exponentials e^{a n^2} over the
    laws above."""
    d = rs.d_sym
    expr = sp.expand(sp.powsimp(sp.expand(expr), combine="exp"))
    beta1_moments = {0: 1, 2: 1 / d, 4: 3 / d**2, 6: 15 / d**3, 8: 105 / d**4}
    bp_moments = {0: 1, 1: (d - 1) / d, 2: (d - 1) * (d + 1) / d**2}
    total = sp.Integer(0)
    for term in sp.Add.make_args(expr):
        exps = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.exp)]
        a = sp.expand(sum(f.args[0] for f in exps) / n2) if exps else sp.Integer(0)
        rest = sp.Mul(*[f for f in sp.Mul.make_args(term) if not isinstance(f, sp.exp)])
        P = sp.Poly(rest, b1, bp2, n2)
        for (i, j, q), coeff in P.terms():
            if i % 2:
                continue
            m, k = chi2_tilted_moment(q)
            total += coeff * beta1_moments[i] * bp_moments[j] * m.subs(k, 1 - 2 * a)
    return sp.simplify(total)


# The Gaussian pair (X, Z) given (beta, q): Var X = S2, Cov(X, Z) = B, Var Z = VZ; R0 = r0.
S2, B, VZ, R0 = sp.symbols("sigma2 b v r0", real=True)
X_sym, Z_sym = sp.symbols("X Z", real=True)


def gaussian_pair_moments() -> dict:
    """E[Y_inf] and E[Y_inf^2] for Y_inf = mu^2 X^2 + 2 r0 mu X Z, (X, Z) centred Gaussian, by the
    Gaussian polynomial expectations of `gaussian_expectations` (Stein's identity)."""
    Y = mu_sym**2 * X_sym**2 + 2 * R0 * mu_sym * X_sym * Z_sym
    cov = sp.Matrix([[S2, B], [B, VZ]])
    return {
        "mean": gaussian_polynomial_expectation(Y, [X_sym, Z_sym], cov),
        "second": gaussian_polynomial_expectation(Y**2, [X_sym, Z_sym], cov),
    }


@lru_cache(maxsize=None)
def conditional_terms():
    """(E[Y_inf | .], E[Y_inf^2 | .], symbols) with beta_perp entering through
    bp2 = |beta_perp|^2."""
    cm = rs.conditional_moments()
    n, b1, bp, wh, wk = cm["n"], cm["beta1"], cm["betap"], cm["omega_h"], cm["omega_k"]
    om = rs.om_sym
    n2, bp2 = sp.symbols("n2 bp2", positive=True)
    sub = {wh: om, wk: om}
    sigma2 = cm["pair"].subs(sub)
    b = cm["bias"].subs(sub)
    v = sp.simplify(1 / cm["Z"].subs(wh, om) ** 2 * cm["Z"].subs(wh, 2 * om)) - 1  # E w^2 - 1
    r0 = (1 - mu_sym * om) * b1 * n
    moments = gaussian_pair_moments()
    cov = {S2: sigma2, B: b, VZ: v, R0: r0}
    mean, second = moments["mean"].subs(cov), sp.expand(moments["second"].subs(cov))
    to_outer = lambda e: sp.expand(e).subs(bp**2, bp2).subs(n, sp.sqrt(n2))
    return to_outer(mean), to_outer(second), (b1, bp2, n2, om)


@lru_cache(maxsize=None)
def estimator_variance() -> sp.Expr:
    """Var Y_inf as a function of (mu, omega, d, s2)."""
    mean, second, (b1, bp2, n2, om) = conditional_terms()
    first = _outer_average(mean, b1, bp2, n2, om)
    return sp.simplify(_outer_average(second, b1, bp2, n2, om) - first**2)


def first_moment() -> sp.Expr:
    mean, _, (b1, bp2, n2, om) = conditional_terms()
    return _outer_average(mean, b1, bp2, n2, om)


def proofs() -> list[Proof]:
    c1_closed = (
        mu_sym**2 * rs.pair_closed().subs(rs.c_sym, rs.om_sym**2)
        + 2 * (1 - mu_sym * rs.om_sym) * mu_sym * rs.bias_closed()
    )
    m1, k = chi2_tilted_moment(1)
    pair = gaussian_pair_moments()
    isserlis_mean = mu_sym**2 * S2 + 2 * R0 * mu_sym * B
    isserlis_var = (
        2 * mu_sym**4 * S2**2
        + 4 * R0**2 * mu_sym**2 * (S2 * VZ + B**2)
        + 8 * mu_sym**3 * R0 * S2 * B
    )
    return [
        prove_zero(
            "E[Y_inf | beta, q] = mu^2 sigma2 + 2 r0 mu b (Stein, Gaussian pair)",
            pair["mean"] - isserlis_mean,
        ),
        prove_zero(
            "Var[Y_inf | beta, q] = 2 mu^4 sigma2^2 + 4 r0^2 mu^2 (sigma2 v + b^2) "
            "+ 8 mu^3 r0 sigma2 b (Isserlis)",
            sp.expand(pair["second"] - pair["mean"] ** 2 - isserlis_var),
        ),
        prove_zero(
            "E[Q e^{aQ}] = d (1 - 2a)^(-d/2-1) for Q ~ chi2_d (integrated)",
            m1 - rs.d_sym * k ** (-rs.d_sym / 2 - 1),
        ),
        prove_zero(
            "the mean of the limit Y_inf (Isserlis, outer averages) is the derived one-head C1",
            sp.simplify(first_moment() - c1_closed),
        ),
    ]


@cached
def risk_scalar_proofs() -> tuple[Proof, ...]:
    # the estimator's variance (budget sizing) builds on the risk's step 2
    return tuple(rs.proofs()) + tuple(proofs())


# declared here, at the top of its family: this module imports risk_scalar
GROUP = Group(
    "risk_scalar",
    title="Exact 1/L term of the authors' scalar-model risk",
    hypotheses="x_i, x_q ~ N(0, I_d), beta ~ N(0, I_d / d), label noise N(0, s2); omega_h omega_k "
    "< 1/2",
    proofs=risk_scalar_proofs,
    parts=("risk_scalar", "risk_scalar_variance"),
    results="finite_prompt_risk",
)


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the variance of the one-head Monte Carlo estimator of C1 as L -> oo."""
    return [
        KernelSpec(
            "scalar_estimator_variance",
            (mu_sym, rs.om_sym, rs.d_sym, rs.s2_sym),
            ("scalar",) * 4,
            estimator_variance(),
            "Var of the L -> oo limit of the one-head Monte Carlo estimator of C1 (budget sizing).",
            "risk_scalar_variance",
            "scalar",
        ),
    ]
