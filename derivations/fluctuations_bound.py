"""An explicit in-expectation bound on the output error (Proposition 3.1 made exact, part 4).

**4. An explicit in-expectation bound (L >= 2).** On {D >= 1/2}, |V X / D|^2 <= 4 |V X|^2; on
{D < 1/2}, the output is a convex combination of the V z_i, so the error is at most
max_i |V(z_i - mu_a)| and max^2 <= sum_i; {D < 1/2} lies in
{D_{-i} < 1/2} (D_{-i} without token i, independent of z_i), and Maurer's lower tail for L - 1
nonnegative weights with t = (L - 2) / (2(L - 1)) gives

    E|T[mu_L](z) - T[mu](z)|^2 <= (tr(V Gamma V^T) + |V Gamma a|^2)
                                 (4 e^{q} / L + L exp(-(L - 2)^2 / (8 (L - 1) e^{q}))).

**The paper's form with explicit constants** (docs/paper.md section 8):
c1 sigma^6 ln L / L^(c2 / sigma^2); below the threshold c2 = sigma^2, and the c1 that makes the form
equal a bound value b at L is `paper_constant` = L b / (sigma^6 ln L), solved here from the form
itself (c1 = sup over L of it).
"""

from __future__ import annotations

import sympy as sp

from .kernel_spec import KernelSpec
from .proof import Proof, back_substitute, prove_zero


# ---------------------------------------------------------------------------------------------
# 4. The in-expectation bound.

L_sym = sp.Symbol("L", positive=True)
q_sym = sp.Symbol("q", nonnegative=True)


D_sym = sp.Symbol("D", positive=True)
GOOD_EVENT = sp.Interval(sp.Rational(1, 2), sp.oo)  # {D >= 1/2}: the denominator is not small


def good_event_constant() -> sp.Expr:
    """sup over the good event D >= 1/2 of |error|^2 / |V X|^2 = sup 1/D^2 (= 4), computed, not
    typed: on that event |V X / D|^2 <= sup(1/D^2) |V X|^2."""
    return sp.calculus.util.maximum(1 / D_sym**2, D_sym, GOOD_EVENT)


def expectation_bound_factor() -> sp.Expr:
    """eps_L^2(z) / (tr(V Gamma V^T) + |V Gamma a|^2): on {D >= 1/2}, sup(1/D^2) E|V X|^2 with
    E|V X|^2 = e^q (tr(V Gamma V^T) + |V Gamma a|^2) / L; off it, the error is at most L times that
    scale, with P(D < 1/2) <= exp(-(L - 1) t^2 / (2 e^q)) at t = (L - 2) / (2 (L - 1))."""
    return good_event_term() + bad_event_term()


def weight_second_moment() -> sp.Expr:
    """E w^2 as a function of the kernels' input q: q is log E w^2 (derivations/concentration.py
    proves log E w^2 = log Z(2a) - 2 log Z(a) = a^T Gamma a for Gaussian tokens), so E w^2 = e^q."""
    return sp.exp(q_sym)


def numerator_second_moment() -> sp.Expr:
    """E|V X|^2 / (tr(V Gamma V^T) + |V Gamma a|^2) for X = mean_i w_i (z_i - mu_a): the L iid
    centred terms give E|V X|^2 = E w^2 |V(z' - mu_a)|^2 / L, and E w^2 |V(z' - mu_a)|^2 = E w^2
    (tr(V Gamma V^T) + |V Gamma a|^2) (concentration.numerator_second_moment_factor)."""
    return weight_second_moment() / L_sym


def good_event_term() -> sp.Expr:
    """The bound's first term, sup(1/D^2) e^q / L: its query average is sup(1/D^2) / L times the
    first-order coefficient (the query average of e^q (tr(V Gamma V^T) + |V Gamma a|^2))."""
    return good_event_constant() * numerator_second_moment()


# Maurer's lower tail, derived: for X >= 0 with E X = 1 and E X^2 = s, e^{-x} <= 1 - x + x^2 / 2 on
# x >= 0 gives E e^{-lam X} <= 1 - lam + lam^2 s / 2 <= exp(-lam + lam^2 s / 2), so Chernoff gives
# P(mean of n <= 1 - t) <= exp(n (lam (1 - t) - lam + lam^2 s / 2)), minimised over lam >= 0.
x_sym, lam_sym, n_sym, t_sym, s_sym = sp.symbols("x lambda n t s", positive=True)


def exponential_majorant() -> sp.Expr:
    """1 - x + x^2 / 2 >= e^{-x} on x >= 0 (proofs: equal value and slope at 0, and the second
    derivative of the gap is 1 - e^{-x} >= 0)."""
    return 1 - x_sym + x_sym**2 / 2


def maurer_exponent() -> sp.Expr:
    """log of Maurer's tail bound on P(mean of n iid X >= 0 <= 1 - t) (E X = 1, E X^2 = s): the
    Chernoff exponent n (lam (1 - t) + log-majorant at lam) minimised over lam, from
    `exponential_majorant` (its coefficient of x^2 sets the 2 in -n t^2 / (2 s))."""
    c2 = exponential_majorant().coeff(x_sym, 2)  # E e^{-lam X} <= exp(-lam + c2 lam^2 s)
    chernoff = n_sym * (lam_sym * (1 - t_sym) - lam_sym + c2 * lam_sym**2 * s_sym)
    (best,) = sp.solve(sp.diff(chernoff, lam_sym), lam_sym)
    return sp.simplify(chernoff.subs(lam_sym, best))


def good_event_threshold() -> sp.Expr:
    """The threshold c of the good event {D >= c} (c = 1/2), read off GOOD_EVENT itself."""
    return GOOD_EVENT.inf


def maurer_deviation() -> sp.Expr:
    """t of Maurer's lower tail for the L - 1 weights other than token i, tied to the good event:
    D = ((L - 1) D_{-i} + w_i) / L >= (L - 1) D_{-i} / L (w_i >= 0), so {D < c} lies in
    {D_{-i} < c L / (L - 1)} = {D_{-i} < 1 - t}, t = 1 - c L / (L - 1) (= (L - 2) / (2 (L - 1)) at
    c = 1/2)."""
    return sp.simplify(1 - good_event_threshold() * L_sym / (L_sym - 1))


def bad_event_term() -> sp.Expr:
    """The bound's second term, L P(D < c) <= L exp(-(L - 1) t^2 / (2 E w^2)), E w^2 = e^q, with
    Maurer's tail at t = `maurer_deviation()` (tied to GOOD_EVENT)."""
    t = maurer_deviation()
    # the 2 of Maurer's -n t^2 / (2 s), read off the derived exponent (so a slip there propagates)
    two = sp.simplify(-n_sym * t_sym**2 / (s_sym * maurer_exponent()))
    return L_sym * sp.exp(-(L_sym - 1) * t**2 / (two * weight_second_moment()))


def displayed_factor() -> sp.Expr:
    """The bound's factor as the docs display it: 4 e^q / L + L exp(-(L-2)^2 / (8 (L-1) e^q))."""
    return 4 * sp.exp(q_sym) / L_sym + L_sym * sp.exp(
        -((L_sym - 2) ** 2) / (8 * (L_sym - 1) * sp.exp(q_sym))
    )


def first_order_factor() -> sp.Expr:
    """L E|err|^2 -> tr C1(z) = e^q (tr(V Gamma V^T) + |V Gamma a|^2) (derivations/fluctuations.py:
    C1 = E w^2 V (Gamma + Gamma a a^T Gamma) V^T), divided by tr(V Gamma V^T) + |V Gamma a|^2."""
    return weight_second_moment()


def tightness_limit() -> sp.Expr:
    """lim_{L -> oo} eps_L^2(z) / E|err|^2 at a fixed query = lim L factor(L) / first_order_factor:
    the ratio of the bound to the exact error's 1/L coefficient, computed by SymPy's limit (the
    second term, L^2 e^{-L / (8 e^q)}, vanishes). Derived, not typed: it is sup_{D >= 1/2} 1/D^2."""
    return sp.simplify(
        sp.limit(L_sym * expectation_bound_factor() / first_order_factor(), L_sym, sp.oo)
    )


c1_sym, c2_sym = sp.symbols("c1 c2", positive=True)
sigma_sym = sp.Symbol("sigma", positive=True)
bound_sym = sp.Symbol("bound", positive=True)


def paper_form() -> sp.Expr:
    """The right side of Proposition 3.1 as displayed: c1 sigma^6 ln L / L^(c2 / sigma^2)."""
    return c1_sym * sigma_sym**6 * sp.log(L_sym) / L_sym ** (c2_sym / sigma_sym**2)


def paper_constant() -> sp.Expr:
    """c1 with paper_form = bound at c2 = sigma^2 (kappa = 1 below the threshold), for L >= 2."""
    roots = sp.solve(sp.Eq(paper_form().subs(c2_sym, sigma_sym**2), bound_sym), c1_sym)
    if len(roots) != 1:
        raise AssertionError(f"expected one c1, got {roots}")
    return roots[0]


def proofs() -> list[Proof]:
    out = []
    # The in-expectation bound's constant: squaring commutes with the sup of the positive 1/D.
    out.append(
        prove_zero(
            "in-expectation bound: sup_{D >= 1/2} 1/D^2 = (sup_{D >= 1/2} 1/D)^2 (= 4)",
            good_event_constant() - sp.calculus.util.maximum(1 / D_sym, D_sym, GOOD_EVENT) ** 2,
        )
    )
    # Maurer's tail from its Chernoff proof: the majorant of e^{-x} (value, slope at 0, convex gap)
    gap = exponential_majorant() - sp.exp(-x_sym)
    out.append(
        prove_zero(
            "e^{-x} <= 1 - x + x^2/2 on x >= 0: the gap is 0 at 0 with slope 0 there, and its "
            "second derivative is 1 - e^{-x} >= 0",
            sp.Matrix(
                [
                    gap.subs(x_sym, 0),
                    sp.diff(gap, x_sym).subs(x_sym, 0),
                    sp.simplify(sp.diff(gap, x_sym, 2) - (1 - sp.exp(-x_sym))),
                ]
            ),
        )
    )
    out.append(
        prove_zero(
            "Maurer's lower tail from Chernoff: min over lam of n (-lam t + lam^2 s / 2) = "
            "-n t^2 / (2 s)",
            sp.simplify(maurer_exponent() + n_sym * t_sym**2 / (2 * s_sym)),
        )
    )
    # The bound's factors from the proved moments, and the displayed form.
    out.append(
        prove_zero(
            "in-expectation bound factor = 4 e^q / L + L exp(-(L-2)^2 / (8 (L-1) e^q)) (the "
            "display) from sup 1/D^2, E|V X|^2 = E w^2 (...) / L with E w^2 = e^q, and Maurer",
            sp.simplify(expectation_bound_factor() - displayed_factor()),
        )
    )
    out.append(
        prove_zero(
            "fixed-query tightness: lim_L eps_L^2(z) / E|err|^2 = sup_{D >= 1/2} 1/D^2 (= 4), "
            "the bound's first term over the exact first-order coefficient",
            tightness_limit() - good_event_constant(),
        )
    )
    # The in-expectation bound's Maurer deviation, derived from GOOD_EVENT, against the paper-side
    # value.
    t = maurer_deviation()
    out.append(
        prove_zero(
            "Maurer deviation from the good event {D >= 1/2}: "
            "t = 1 - (1/2) L/(L-1) = (L-2)/(2(L-1))",
            sp.simplify(t - (L_sym - 2) / (2 * (L_sym - 1))),
        )
    )
    out.append(
        prove_zero(
            "Maurer with L - 1 weights at that t: (L-1) t^2 = (L-2)^2/(4(L-1))",
            sp.simplify((L_sym - 1) * t**2 - (L_sym - 2) ** 2 / (4 * (L_sym - 1))),
        )
    )
    # The inclusion {D < c} in {D_{-i} < 1 - t}: D - (L - 1)/L D_{-i} = w_i / L >= 0 and
    # (L - 1)/L (1 - t) = c.
    Dm, wi = sp.symbols("D_minus_i w_i", nonnegative=True)
    D_full = ((L_sym - 1) * Dm + wi) / L_sym
    out.append(
        prove_zero(
            "D - (L-1) D_{-i} / L = w_i / L (>= 0): D >= (L-1) D_{-i} / L",
            sp.simplify(D_full - (L_sym - 1) * Dm / L_sym - wi / L_sym),
        )
    )
    out.append(
        prove_zero(
            "(L-1)/L (1 - t) = c: D_{-i} >= 1 - t forces D >= c, so {D < c} lies in "
            "{D_{-i} < 1 - t}",
            sp.simplify((L_sym - 1) / L_sym * (1 - t) - good_event_threshold()),
        )
    )
    out.append(
        back_substitute(
            "paper's form at c2 = sigma^2 and c1 = paper_constant equals the bound value",
            sp.simplify(
                paper_form().subs({c2_sym: sigma_sym**2, c1_sym: paper_constant()}) - bound_sym
            ),
        )
    )
    out.append(
        prove_zero(
            "paper_constant = L bound / (sigma^6 ln L)",
            sp.simplify(paper_constant() - L_sym * bound_sym / (sigma_sym**6 * sp.log(L_sym))),
        )
    )
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the two terms of the in-expectation bound factor and their sum, and
    Proposition 3.1's form with the constant c1 that matches it."""
    return [
        KernelSpec(
            "expectation_bound_good_event",
            (L_sym, q_sym),
            ("scalar", "any shape"),
            good_event_term(),
            "First term of the in-expectation bound factor: "
            "sup_{D >= 1/2} D^-2 e^q / L = 4 e^q / L.",
            "fluctuations_bound",
            "same as q",
        ),
        KernelSpec(
            "expectation_bound_bad_event",
            (L_sym, q_sym),
            ("scalar", "any shape"),
            bad_event_term(),
            "Second term of the in-expectation bound factor: L exp(-(L-2)^2 / (8 (L-1) e^q)).",
            "fluctuations_bound",
            "same as q",
        ),
        KernelSpec(
            "expectation_bound_factor",
            (L_sym, q_sym),
            ("scalar", "any shape"),
            expectation_bound_factor(),
            "eps_L^2(z) / (tr(V Gamma V^T) + |V Gamma a|^2) = 4 e^q / L "
            "+ L exp(-(L-2)^2 / (8 (L-1) e^q)).",
            "fluctuations_bound",
            "same as q",
        ),
        KernelSpec(
            "paper_form",
            (c1_sym, sigma_sym, c2_sym, L_sym),
            ("scalar",) * 4,
            paper_form(),
            "c1 sigma^6 ln L / L^(c2 / sigma^2): Proposition 3.1's right side.",
            "fluctuations_bound",
            "scalar",
        ),
        KernelSpec(
            "paper_constant",
            (bound_sym, sigma_sym, L_sym),
            ("scalar",) * 3,
            paper_constant(),
            "c1 = L bound / (sigma^6 ln L): the paper's form equals bound at c2 = sigma^2.",
            "fluctuations_bound",
            "scalar",
        ),
    ]
