"""Catoni's mean estimator: a test of a zero mean whose level holds for heavy tails
(finite variance).

Why. The limit claims' unbiased-numerator test averages Y = (1/L) sum_i e^{s_i - c} (V z_i - T) over
n prompts. The weights e^{s} are log-normal-like; at strong tilts and small n the studentised mean
is far from normal in the 1e-8 tails a Bonferroni-split 1e-6 level needs (a correct formula can
reach |z| = 5.39 > 5.36 at 200 prompts). Catoni's estimator needs only an upper bound v on Var Y,
which the claims derive exactly (numerics/numerator_moments.py: Var Y = Var X / L), and gives a
non-asymptotic deviation bound (Catoni 2012; Lugosi & Mendelson 2019, Theorem 5):

    psi(x) = log(1 + x + x^2/2) (x >= 0),  -log(1 - x + x^2/2) (x < 0);
    theta_hat solves sum_j psi(alpha (Y_j - theta)) = 0 (decreasing in theta);
    for every theta, P(sum_j psi(alpha (Y_j - theta)) >= n B(theta)) <= e^{-l},
        B(theta) = alpha (mu - theta) + alpha^2 (v + (mu - theta)^2) / 2 + l / n,

since e^{psi(x)} <= 1 + x + x^2/2 for all x (for x < 0 because (1 - x + x^2/2)(1 + x + x^2/2) =
1 + x^4/4 >= 1) and Markov. With y = theta - mu, B = 0 is the quadratic alpha^2 y^2 / 2 - alpha y +
alpha^2 v / 2 + l / n = 0, whose smaller root y_+ = (1 - sqrt(1 - alpha^2 v - 2 l / n)) / alpha
bounds theta_hat - mu above with probability >= 1 - e^{-l} (and symmetrically below). With
l = log(2 / delta) and

    alpha* = sqrt(2 l (n - 2 l) / (n^2 v)),   the discriminant is ((n - 2 l) / n)^2, and
    y_+ = r = sqrt(2 v l / (n - 2 l))        (n > 2 l),

so |theta_hat - mu| <= r with probability >= 1 - delta: the test "reject mu = 0 when
|theta_hat| > r" has level delta whatever the tails.

Power (planned before any sample, for the controls). Under a true mean mu > r, the same bound at
confidence e^{-l'} (alpha kept at alpha*) gives theta_hat >= mu - y_+(l'), so the test rejects with
probability >= 1 - e^{-l'} as soon as y_+(l') <= g = mu - r. Solving y_+(l') = g for l':

    l'(g) = (n / 2) (1 - alpha^2 v - (1 - alpha g)^2)   for alpha g <= 1,

and l'(1 / alpha) for alpha g > 1 (y_+ <= 1 / alpha whenever the root is real).
"""

from __future__ import annotations

import sympy as sp

from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, back_substitute, prove_zero
from .proof_cache import cached

n_sym = sp.Symbol("n", positive=True)  # samples
v_sym = sp.Symbol("v", positive=True)  # upper bound on the variance of one sample
ell_sym = sp.Symbol("ell", positive=True)  # log(2 / delta)
alpha_sym = sp.Symbol("alpha", positive=True)
gap_sym = sp.Symbol("g", positive=True)  # true mean minus the radius
x_sym = sp.Symbol("x", real=True)
_y = sp.Symbol("y", real=True)


def influence() -> sp.Expr:
    """Catoni's narrowest influence function psi."""
    return sp.Piecewise(
        (sp.log(1 + x_sym + x_sym**2 / 2), x_sym >= 0), (-sp.log(1 - x_sym + x_sym**2 / 2), True)
    )


def upper_envelope(y=_y, ell=ell_sym) -> sp.Expr:
    """B at theta = mu + y: -alpha y + alpha^2 (v + y^2) / 2 + ell / n."""
    return -alpha_sym * y + alpha_sym**2 * (v_sym + y**2) / 2 + ell / n_sym


def smaller_root(ell=ell_sym) -> sp.Expr:
    """The smaller root y_+ of B = 0 in y (solved by SymPy, the smaller of the two)."""
    roots = sp.solve(sp.Eq(upper_envelope(_y, ell), 0), _y)
    if len(roots) != 2:
        raise AssertionError(f"expected two roots of the Catoni quadratic, got {roots}")
    # the roots are (1 -+ sqrt(disc)) / alpha: the smaller one has the minus sign
    probe = {alpha_sym: 1, v_sym: sp.Rational(1, 10), ell_sym: 1, n_sym: 10}
    return min(roots, key=lambda r: float(r.subs(probe).subs(ell, 1)))


def scale() -> sp.Expr:
    """alpha* = sqrt(2 l (n - 2 l) / (n^2 v))."""
    return sp.sqrt(2 * ell_sym * (n_sym - 2 * ell_sym) / (n_sym**2 * v_sym))


def radius() -> sp.Expr:
    """r = sqrt(2 v l / (n - 2 l)), the deviation bound at alpha*."""
    return sp.sqrt(2 * v_sym * ell_sym / (n_sym - 2 * ell_sym))


def power_exponent() -> sp.Expr:
    """l'(g): the root y_+(l') equals the gap g (alpha g <= 1); power >= 1 - e^{-l'}."""
    ell2 = sp.Symbol("ell2", positive=True)
    sol = sp.solve(
        sp.Eq(
            sp.expand((1 - alpha_sym * gap_sym) ** 2),
            sp.expand(1 - alpha_sym**2 * v_sym - 2 * ell2 / n_sym),
        ),
        ell2,
    )
    if len(sol) != 1:
        raise AssertionError(f"expected one power exponent, got {sol}")
    return sp.factor(sol[0])


def proofs() -> list[Proof]:
    x, y_plus, a, r = x_sym, smaller_root(), scale(), radius()
    n_gt = {n_sym: 2 * ell_sym + sp.Symbol("eps", positive=True)}  # n > 2 l
    ell2 = sp.Symbol("ell2", positive=True)
    return [
        prove_zero(
            "Catoni: (1 - x + x^2/2)(1 + x + x^2/2) = 1 + x^4/4, so e^{psi(x)} <= 1 + x + x^2/2 "
            "for x < 0",
            sp.expand((1 - x + x**2 / 2) * (1 + x + x**2 / 2)) - 1 - x**4 / 4,
        ),
        back_substitute(
            "Catoni: the smaller root y_+ solves the envelope B(mu + y) = 0", upper_envelope(y_plus)
        ),
        prove_zero(
            "Catoni: at alpha* the discriminant 1 - alpha^2 v - 2 l / n is ((n - 2 l) / n)^2",
            sp.expand(
                1 - a**2 * v_sym - 2 * ell_sym / n_sym - ((n_sym - 2 * ell_sym) / n_sym) ** 2
            ),
        ),
        prove_zero(
            "Catoni: at alpha* the smaller root is r = sqrt(2 v l / (n - 2 l)) (n > 2 l)",
            sp.simplify((y_plus.subs(alpha_sym, a) - r).subs(n_gt)),
        ),
        back_substitute(
            "Catoni power: y_+(l') at alpha equals the gap g when l' = l'(g)",
            sp.expand(
                (1 - alpha_sym * gap_sym) ** 2
                - (1 - alpha_sym**2 * v_sym - 2 * power_exponent() / n_sym)
            ),
        ),
        prove_zero(
            "Catoni power: the envelope at l'(g) vanishes at y = g",
            sp.simplify(upper_envelope(gap_sym, ell2).subs(ell2, power_exponent())),
        ),
    ]


@cached
def catoni_proofs() -> tuple[Proof, ...]:
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted, entrywise: psi, the scale alpha*, the radius r and the power exponent l'(g)."""
    return [
        KernelSpec(
            "catoni_influence",
            (x_sym,),
            ("any shape",),
            influence(),
            "Catoni's psi(x) = sign(x) log(1 + |x| + x^2/2).",
            "catoni",
            "same as x",
        ),
        KernelSpec(
            "catoni_scale",
            (n_sym, v_sym, ell_sym),
            ("any shape",) * 3,
            scale(),
            "alpha* = sqrt(2 l (n - 2 l) / (n^2 v)), l = log(2 / delta).",
            "catoni",
            "same as v",
        ),
        KernelSpec(
            "catoni_radius",
            (n_sym, v_sym, ell_sym),
            ("any shape",) * 3,
            radius(),
            "r = sqrt(2 v l / (n - 2 l)): P(|theta_hat - mu| > r) <= delta for Var <= v.",
            "catoni",
            "same as v",
        ),
        KernelSpec(
            "catoni_power_exponent",
            (n_sym, v_sym, alpha_sym, gap_sym),
            ("any shape",) * 4,
            power_exponent(),
            "l'(g) = (n/2)(1 - alpha^2 v - (1 - alpha g)^2): power >= 1 - e^{-l'} at mean r + g.",
            "catoni",
            "same as g",
        ),
    ]


GROUP = Group(
    "catoni",
    title="Catoni's mean estimator: influence, scale, radius and power of the numerator test",
    hypotheses="n iid samples with variance at most v (derived, not estimated); n > 2 log(2/delta)",
    proofs=catoni_proofs,
    parts=("catoni",),
)
