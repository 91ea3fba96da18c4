"""The exact finite-L risk of the authors' one-head softmax model (docs/paper.md section 6).

Model: task beta ~ N(0, tau I_d), prompt inputs x_i ~ N(0, Sigma_p), query x_q ~ N(0, Sigma_q),
labels y = beta^T x + eps with eps ~ N(0, s2) on prompt and query, prediction
yhat = mu sum_i p_i y_i with p_i = softmax_i(omega x_i^T x_q). (The correct generator has
Sigma_p = Sigma_q = Sigma; the authors' published generator has Sigma_p = Sigma^2, Sigma_q = I.)

Derivation (every step proved in `proofs`):

1. Given (x_q, beta), the pairs (score, label) = (omega x_i^T x_q, y_i) are iid bivariate Gaussian.
   With u = M_p^T x_q, v = M_p^T beta (Sigma_p = M_p M_p^T) write the score as sqrt(q) g_i,
   q = omega^2 |u|^2, and the label as y_i = a g_i + b h_i, g, h independent N(0, 1),
       a = sign(omega) u.v / |u|,   b^2 = |v|^2 - (u.v)^2 / |u|^2 + s2.
   So yhat = mu (a G + b H) with G = sum_i p_i g_i, H = sum_i p_i h_i and
   p_i = softmax_i(sqrt(q) g).
2. The prompt enters only through four moments of (G, H), functions of (q, L) alone:
       E H = 0,  E G H = 0,  E H^2 = A_L(q) = E sum_i p_i^2,  E (G - sqrt q)^2 = B_L(q),
   and, by Gaussian integration by parts (Stein: E g F(g) = E F'(g),
   d p_i / d g_i = sqrt(q) p_i (1 - p_i); proved in derivations/selfnormalised_error.py),
       E G = sqrt(q) (1 - A_L(q)),   hence   E G^2 = B_L(q) + q (1 - 2 A_L(q)).
   The conditional risk E[(y_q - yhat)^2 | x_q, beta] with y_q = f + eps_q, f = beta^T x_q, is
       f^2 + s2 - 2 mu a f E G + mu^2 (a^2 E G^2 + b^2 A_L).
3. Average over beta ~ N(0, tau I) given x_q (Gaussian polynomial expectations; a^2 is u.v squared
   over the fixed |u|^2): with k1 = x_q^T Sigma_p x_q, k2 = x_q^T Sigma_p^2 x_q,
       E f^2 = tau |x_q|^2,  E a f sqrt(q) = tau omega k1,  E a^2 = tau k2 / k1,
       E b^2 = tau tr Sigma_p - tau k2 / k1 + s2.
   So R_L = tau tr Sigma_q + s2 + E_{x_q}[ integrand(k1, k2) ] with the emitted
       integrand = -2 mu omega tau k1 (1 - A) + mu^2 tau (k2 / k1)(B - A)
                   + mu^2 tau omega^2 k2 (1 - 2 A) + mu^2 (tau tr Sigma_p + s2) A,
       A, B at q = omega^2 k1.
   At A = B = 0 (L -> oo) it is the infinite-prompt risk tau tr Sigma_q + s2 - 2 mu omega tau
   tr(Sigma_p Sigma_q) + mu^2 omega^2 tau tr(Sigma_p^2 Sigma_q); at L = 1 (A = 1, B = 1 + q) the
   omega-dependence cancels: R_1 = tau tr Sigma_q + s2 + mu^2 (tau tr Sigma_p + s2).
The remaining average over x_q is a quadrature (numerics/finite_risk.py): an algorithm, not a
formula.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from .gaussian_expectations import standard_expectation
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

mu, omega = sp.symbols("mu omega", real=True)
tau = sp.Symbol("tau", positive=True)
s2 = sp.Symbol("s2", nonnegative=True)
A, B = sp.symbols("A B", nonnegative=True)  # A_L(q), B_L(q)
k1, k2 = sp.symbols("k1 k2", positive=True)  # x_q^T Sigma_p x_q, x_q^T Sigma_p^2 x_q
tr_p = sp.Symbol("tr_p", positive=True)  # tr Sigma_p
q = sp.Symbol("q", nonnegative=True)


def integrand() -> sp.Expr:
    """Step 3's integrand (the risk minus tau tr Sigma_q + s2), a function of (k1, k2, A, B)."""
    return (
        -2 * mu * omega * tau * k1 * (1 - A)
        + mu**2 * tau * (k2 / k1) * (B - A)
        + mu**2 * tau * omega**2 * k2 * (1 - 2 * A)
        + mu**2 * (tau * tr_p + s2) * A
    )


def conditional_risk(a, b, f, EG, EG2) -> sp.Expr:
    """Step 2: E[(f + eps_q - mu (a G + b H))^2] from the moments of (G, H), expanded from the
    square."""
    G, H, e = sp.symbols("G H eps_q", real=True)
    square = sp.expand((f + e - mu * (a * G + b * H)) ** 2)
    moments = {G**2: EG2, H**2: A, G * H: 0, e**2: s2}
    out = sp.Integer(0)
    for term in sp.Add.make_args(square):
        coeff, rest = term.as_independent(G, H, e)
        if rest == 1:
            out += coeff
        elif rest in moments:
            out += coeff * moments[rest]
        elif rest == G:  # the Stein mean
            out += coeff * EG
        # every other monomial (H, eps_q, G eps_q, H eps_q) has mean 0: eps_q and H are centred and
        # independent of the rest
    return out


@lru_cache(maxsize=None)
def beta_averages(n: int = 3) -> dict:
    """Step 3 in n coordinates with a general M_p (symbols) and a fixed query x_q: the beta-averages
    of f^2, a f sqrt(q), a^2 |u|^2 and b^2, each as a polynomial expectation over
    beta = sqrt(tau) z."""
    Mp = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"m{i}{j}", real=True))
    xq = sp.Matrix(sp.symbols(f"x1:{n + 1}", real=True))
    z = sp.symbols(f"z1:{n + 1}", real=True)
    beta = sp.sqrt(tau) * sp.Matrix(z)
    u, v = Mp.T * xq, Mp.T * beta
    uu, uv, vv = (u.T * u)[0], (u.T * v)[0], (v.T * v)[0]
    f = (beta.T * xq)[0]
    Sp = Mp * Mp.T
    E = lambda e: standard_expectation(sp.expand(e), list(z))
    return {
        "f2": E(f**2),
        "uv_f": E(uv * f),
        "uv2": E(uv**2),
        "vv": E(vv),
        "xx": (xq.T * xq)[0],
        "k1": (xq.T * Sp * xq)[0],
        "k2": (xq.T * Sp * Sp * xq)[0],
        "uu": uu,
        "tr_p": Sp.trace(),
    }


def proofs() -> list[Proof]:
    """Steps 2 and 3 and the two anchors. Stein's mean E G = sqrt(q) (1 - A) is proved once, in
    derivations/selfnormalised_error.py (`stein_proofs`), and collected with these by the claim."""
    out = []
    # Step 2: E G^2 from B's definition and the Stein mean.
    EG = sp.sqrt(q) * (1 - A)
    EG2 = B + q * (1 - 2 * A)
    out.append(
        prove_zero(
            "E G^2 = B + 2 sqrt(q) E G - q = B + q (1 - 2A)  (B = E (G - sqrt q)^2)",
            (B + 2 * sp.sqrt(q) * EG - q) - EG2,
        )
    )
    # Step 3a: the beta-averages, as polynomial identities in n = 3 coordinates with a general M_p.
    ba = beta_averages()
    out.append(
        prove_zero(
            "E_beta f^2 = tau |x_q|^2, E_beta[u.v f] = tau k1, E_beta (u.v)^2 = tau k2, "
            "E_beta |v|^2 = tau tr Sigma_p, |u|^2 = k1 (general M_p, 3 coordinates)",
            sp.Matrix(
                [
                    ba["f2"] - tau * ba["xx"],
                    ba["uv_f"] - tau * ba["k1"],
                    ba["uv2"] - tau * ba["k2"],
                    ba["vv"] - tau * ba["tr_p"],
                    ba["uu"] - ba["k1"],
                ]
            ),
        )
    )
    # Step 3b: substitute them into the conditional risk
    # (a = sign(omega) u.v / |u|, sqrt(q) = |omega| |u|, so sqrt(q) a f = omega u.v f and
    # a^2 = (u.v)^2 / k1), term by term in (a, b^2, f).
    a, b2, f, xx = sp.symbols("a b2 f xx", real=True)
    cond = sp.Poly(sp.expand(conditional_risk(a, sp.sqrt(b2), f, EG, EG2)), a, b2, f)
    Ea2 = tau * k2 / k1
    averages = {
        (0, 0, 0): 1,
        (1, 0, 1): omega * tau * k1 / sp.sqrt(q),
        (2, 0, 0): Ea2,
        (0, 1, 0): tau * tr_p - Ea2 + s2,
        (0, 0, 2): tau * xx,
    }
    assert set(averages) >= {tuple(pw) for pw, _ in cond.terms()}, cond.terms()
    averaged = sum(coeff * averages[tuple(pw)] for pw, coeff in cond.terms())
    out.append(
        prove_zero(
            "beta-averaged conditional risk = tau |x_q|^2 + s2 + integrand(k1, k2, A, B), "
            "q = omega^2 k1",
            averaged.subs(q, omega**2 * k1) - (tau * xx + s2 + integrand()),
        )
    )
    # Anchors: L -> oo and L = 1.
    out.append(
        prove_zero(
            "A = B = 0: integrand = -2 mu omega tau k1 + mu^2 omega^2 tau k2 (infinite prompt)",
            integrand().subs({A: 0, B: 0})
            - (-2 * mu * omega * tau * k1 + mu**2 * omega**2 * tau * k2),
        )
    )
    out.append(
        prove_zero(
            "L = 1 (A = 1, B = 1 + omega^2 k1): integrand = mu^2 (tau tr Sigma_p + s2), free of "
            "omega",
            integrand().subs({A: 1, B: 1 + omega**2 * k1}) - mu**2 * (tau * tr_p + s2),
        )
    )
    return out


@cached
def risk_finite_proofs() -> tuple[Proof, ...]:
    """The exact finite-L risk of the authors' one-head model (derivations/risk_finite.py)."""
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the integrand of the exact finite-L risk given the query."""
    args = (mu, omega, tau, s2, tr_p, k1, k2, A, B)
    return [
        KernelSpec(
            "finite_risk_integrand",
            args,
            ("scalar",) * 5 + ("array",) * 4,
            integrand(),
            "R_L - tau tr Sigma_q - s2 given the query: -2 mu omega tau k1 (1 - A) "
            "+ mu^2 tau (k2/k1)(B - A) + mu^2 tau omega^2 k2 (1 - 2A) "
            "+ mu^2 (tau tr Sigma_p + s2) A.",
            "risk_finite",
            "same as k1",
        ),
    ]


GROUP = Group(
    "risk_finite",
    title="The exact finite-L risk of the authors' one-head softmax model",
    hypotheses="as authors_experiment; the prompt enters through A_L(q), B_L(q)",
    proofs=risk_finite_proofs,
    parts=("risk_finite",),
)
