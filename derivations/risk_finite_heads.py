"""The exact finite-L risk of the authors' two-head softmax model (docs/paper.md section 6),
reusing the one-head reduction of derivations/risk_finite.py.

Model: yhat = mu_1 sum_i p_i(omega_1) y_i + mu_2 sum_i p_i(omega_2) y_i, p_i(omega) =
softmax_i(omega x_i^T x_q), data as in risk_finite (task beta ~ N(0, tau I), noise s2).

1. Given (x_q, beta), write x_i^T x_q = sqrt(k1) g_i (k1 = x_q^T Sigma_p x_q) and
   y_i = a g_i + b h_i with a = u.v / |u| (no sign: the heads' signs stay in their temperatures),
   b^2 as in risk_finite. Both heads see the SAME g: head h's weights are
   p_i(c_h) = softmax_i(c_h g), c_h = omega_h sqrt(k1) (signed), and its output is
   a G_h + b H_h, G_h = sum_i p_i(c_h) g_i, H_h = sum_i p_i(c_h) h_i.
2. The prompt enters through the one-head moments A_hh = A_L(c_h^2), B_hh = B_L(c_h^2) and the cross
   moments (numerics/selfnormalised_pair.py)
       A_12 = E sum_i p_i(c_1) p_i(c_2) = E H_1 H_2,    B_12 = E (G_1 - c_1)(G_2 - c_2),
   with E G_h H_k = 0 (h centred, independent of g) and Stein's mean E G_h = c_h (1 - A_hh)
   (derivations/selfnormalised_error.py; it holds for signed c), hence
       E G_h G_k = B_hk + c_h c_k (1 - A_hh - A_kk).
3. Averaging over beta (risk_finite's proved identities E a f = tau sqrt(k1), E a^2 = tau k2 / k1,
   E b^2 = tau tr Sigma_p - tau k2 / k1 + s2, E f^2 = tau |x_q|^2):
       R_L = tau tr Sigma_q + s2 + E_{x_q} [ -2 tau k1 sum_h mu_h omega_h (1 - A_hh)
                                           + sum_{h,k} mu_h mu_k P_hk ],
       P_hk = tau (k2 / k1)(B_hk - A_hk) + tau omega_h omega_k k2 (1 - A_hh - A_kk)
              + (tau tr Sigma_p + s2) A_hk.
   P_hh is the one-head quadratic term; the cross term 2 mu_1 mu_2 P_12 is what a second head adds.
Anchors (proved): omega_1 = omega_2 gives one head with mu_1 + mu_2; mu_2 = 0 gives one head; L = 1
(A_hk = 1, B_hk = 1 + c_h c_k) gives (mu_1 + mu_2)^2 (tau tr Sigma_p + s2); A = B = 0 gives the
infinite-prompt risk with p = mu.omega.
"""

from __future__ import annotations

import sympy as sp

from . import risk_finite as rf
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

mu1, mu2, om1, om2 = sp.symbols("mu1 mu2 omega1 omega2", real=True)
A11, A22, A12, B11, B22, B12 = sp.symbols("A11 A22 A12 B11 B22 B12", real=True)
tau, s2, k1, k2, tr_p = rf.tau, rf.s2, rf.k1, rf.k2, rf.tr_p
MUS, OMS = (mu1, mu2), (om1, om2)
AS = {(0, 0): A11, (1, 1): A22, (0, 1): A12, (1, 0): A12}
BS = {(0, 0): B11, (1, 1): B22, (0, 1): B12, (1, 0): B12}


def pair_term(h: int, k: int) -> sp.Expr:
    """P_hk of step 3."""
    return (
        tau * (k2 / k1) * (BS[h, k] - AS[h, k])
        + tau * OMS[h] * OMS[k] * k2 * (1 - AS[h, h] - AS[k, k])
        + (tau * tr_p + s2) * AS[h, k]
    )


def integrand() -> sp.Expr:
    """Step 3's integrand (the risk minus tau tr Sigma_q + s2) in (k1, k2) and the six moments."""
    linear = -2 * tau * k1 * sum(MUS[h] * OMS[h] * (1 - AS[h, h]) for h in range(2))
    return linear + sum(MUS[h] * MUS[k] * pair_term(h, k) for h in range(2) for k in range(2))


def conditional_risk(a, b, f, c) -> sp.Expr:
    """Step 2: E[(f + eps_q - sum_h mu_h (a G_h + b H_h))^2] from the moments, expanded from the
    square."""
    G = sp.symbols("G1 G2", real=True)
    H = sp.symbols("H1 H2", real=True)
    e = sp.Symbol("eps_q", real=True)
    square = sp.expand((f + e - sum(MUS[h] * (a * G[h] + b * H[h]) for h in range(2))) ** 2)
    EG = [c[h] * (1 - AS[h, h]) for h in range(2)]
    moments = {e**2: s2}
    for h in range(2):
        for k in range(2):
            moments[G[h] * G[k]] = BS[h, k] + c[h] * c[k] * (1 - AS[h, h] - AS[k, k])
            moments[H[h] * H[k]] = AS[h, k]
            moments[G[h] * H[k]] = 0
        moments[G[h]] = EG[h]
    out = sp.Integer(0)
    for term in sp.Add.make_args(square):
        coeff, rest = term.as_independent(*G, *H, e)
        if rest == 1:
            out += coeff
        elif rest in moments:
            out += coeff * moments[rest]
        # every other monomial (H_h, eps_q, G_h eps_q, H_h eps_q) has mean 0
    return out


def proofs() -> list[Proof]:
    out = []
    c = sp.symbols("c1 c2", real=True)
    # Step 2: E G_h G_k from B_hk's definition and the Stein means, for each pair.
    for h, k in ((0, 0), (0, 1), (1, 1)):
        EGh, EGk = c[h] * (1 - AS[h, h]), c[k] * (1 - AS[k, k])
        out.append(
            prove_zero(
                f"E G_{h + 1} G_{k + 1} = B_{h + 1}{k + 1} + c_h E G_k + c_k E G_h - c_h c_k "
                "= B_hk + c_h c_k (1 - A_hh - A_kk)",
                (BS[h, k] + c[h] * EGk + c[k] * EGh - c[h] * c[k])
                - (BS[h, k] + c[h] * c[k] * (1 - AS[h, h] - AS[k, k])),
            )
        )
    # Step 3: substitute the beta-averages, term by term in (a, b^2, f), with
    # c_h = omega_h sqrt(k1).
    a, b2, f, xx = sp.symbols("a b2 f xx", real=True)
    r = sp.sqrt(k1)
    cond = sp.Poly(sp.expand(conditional_risk(a, sp.sqrt(b2), f, (om1 * r, om2 * r))), a, b2, f)
    Ea2 = tau * k2 / k1
    averages = {
        (0, 0, 0): 1,
        (1, 0, 1): tau * r,
        (2, 0, 0): Ea2,
        (0, 1, 0): tau * tr_p - Ea2 + s2,
        (0, 0, 2): tau * xx,
    }
    assert set(averages) >= {tuple(pw) for pw, _ in cond.terms()}, cond.terms()
    averaged = sum(coeff * averages[tuple(pw)] for pw, coeff in cond.terms())
    out.append(
        prove_zero(
            "two heads: beta-averaged conditional risk = tau |x_q|^2 + s2 + integrand "
            "(E a f = tau sqrt(k1), c_h = omega_h sqrt(k1))",
            averaged - (tau * xx + s2 + integrand()),
        )
    )
    one = lambda m, w, A, B: rf.integrand().subs(
        {rf.mu: m, rf.omega: w, rf.A: A, rf.B: B}, simultaneous=True
    )
    equal = {om2: om1, A22: A11, A12: A11, B22: B11, B12: B11}
    out.append(
        prove_zero(
            "omega_1 = omega_2 (all moments equal): two heads = one head with mu_1 + mu_2",
            integrand().subs(equal, simultaneous=True) - one(mu1 + mu2, om1, A11, B11),
        )
    )
    out.append(
        prove_zero(
            "mu_2 = 0: two heads = one head (mu_1, omega_1)",
            integrand().subs(mu2, 0) - one(mu1, om1, A11, B11),
        )
    )
    L1 = {
        A11: 1,
        A22: 1,
        A12: 1,
        B11: 1 + om1**2 * k1,
        B22: 1 + om2**2 * k1,
        B12: 1 + om1 * om2 * k1,
    }
    out.append(
        prove_zero(
            "L = 1 (A_hk = 1, B_hk = 1 + c_h c_k): integrand = (mu_1 + mu_2)^2 "
            "(tau tr Sigma_p + s2)",
            integrand().subs(L1) - (mu1 + mu2) ** 2 * (tau * tr_p + s2),
        )
    )
    zero = {x: 0 for x in (A11, A22, A12, B11, B22, B12)}
    p = mu1 * om1 + mu2 * om2
    out.append(
        prove_zero(
            "A = B = 0: integrand = -2 p tau k1 + p^2 tau k2, p = mu.omega (infinite prompt)",
            integrand().subs(zero) - (-2 * p * tau * k1 + p**2 * tau * k2),
        )
    )
    return out


@cached
def risk_finite_heads_proofs() -> tuple[Proof, ...]:
    """The exact finite-L risk of the authors' two-head model (derivations/risk_finite_heads.py)."""
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the integrand of the exact finite-L risk of two heads given the query."""
    args = (mu1, mu2, om1, om2, tau, s2, tr_p, k1, k2, A11, A22, A12, B11, B22, B12)
    return [
        KernelSpec(
            "finite_risk_heads_integrand",
            args,
            ("scalar",) * 7 + ("array",) * 8,
            integrand(),
            "Two heads: R_L - tau tr Sigma_q - s2 given the query: "
            "-2 tau k1 sum_h mu_h omega_h (1 - A_hh) + sum_hk mu_h mu_k [tau (k2/k1)(B_hk - A_hk) "
            "+ tau omega_h omega_k k2 (1 - A_hh - A_kk) + (tau tr Sigma_p + s2) A_hk].",
            "risk_finite_heads",
            "same as k1",
        ),
    ]


GROUP = Group(
    "risk_finite_heads",
    title="The exact finite-L risk of the authors' two-head softmax model",
    hypotheses="as risk_finite, two heads on the same prompt; the cross moments A_12(q), B_12(q)",
    proofs=risk_finite_heads_proofs,
    parts=("risk_finite_heads",),
)
