"""The chains of steps behind three key results, each step a SymPy-checked equality (for the
derivation report; the full proofs are in the modules named).

1. Lemma 2.1 by completing the square (tilt.py, lemma21.py): in one dimension,
       a x - (x - m)^2 / (2 Gamma) = -(x - m - Gamma a)^2 / (2 Gamma) + a m + Gamma a^2 / 2,
   so the tilted law is N(m + Gamma a, Gamma), Z(a) = e^{a m + Gamma a^2 / 2}, the tilted mean is
   d/da log Z = m + Gamma a, and with a = U z the limit is V (m + Gamma U z).
2. The 1/L delta method (fluctuations.py): X / (1 + delta) = X - X delta + X delta^2 / (1 + delta)
   exactly; for means of L iid centred pairs E[X delta] = E[xi eta] / L; so
   L E[X / D] -> -E[xi eta], which for Gaussian tokens is b_1 = -e^q V Gamma a.
3. The Laplace principle behind kappa (fluctuations_exponent.py): the two ways the weights
   contribute give the rate h; averaging over queries, G(x) = x h(1/x) + x / (2 lambda) is minimal
   at x* = 2 sqrt(lambda / (lambda + 4)), where G(x*) = kappa(lambda).

A step shows `lhs = rhs` with `lhs` possibly unevaluated (an Integral, a Derivative, a Subs) and is
proved by reducing `lhs.doit() - rhs` to zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from . import fluctuations, fluctuations_exponent as fexp, lemma21
from .group import Group
from .proof import Proof, prove_zero
from .proof_cache import cached


@dataclass(frozen=True)
class Step:
    text: str
    lhs: sp.Basic  # as shown (may be unevaluated, or a name such as b_1(z))
    rhs: sp.Basic
    proof: Proof


def step(text: str, lhs, rhs, proved=None) -> Step:
    """`lhs = rhs`, proved as `proved - rhs = 0` (`proved` defaults to lhs, evaluated)."""
    proved = lhs.doit() if proved is None else proved
    return Step(text, lhs, rhs, prove_zero(text, proved - rhs))


def lemma21_chain() -> list[Step]:
    x, m, a = sp.symbols("x m a", real=True)
    G = sp.Symbol("Gamma", positive=True)
    density = sp.exp(-((x - m) ** 2) / (2 * G)) / sp.sqrt(2 * sp.pi * G)
    Z = sp.exp(a * m + G * a**2 / 2)
    s = lemma21.limit_symbols()
    return [
        step(
            "complete the square in the exponent of e^{a x} times the N(m, Gamma) density",
            a * x - (x - m) ** 2 / (2 * G),
            -((x - m - G * a) ** 2) / (2 * G) + a * m + G * a**2 / 2,
        ),
        step(
            "so the normaliser is a Gaussian integral",
            sp.Integral(sp.exp(a * x) * density, (x, -sp.oo, sp.oo)),
            Z,
        ),
        step(
            "and the tilted mean is the derivative of its logarithm",
            sp.Derivative(sp.log(sp.Function("Z")(a)), a),
            m + G * a,
            proved=sp.diff(sp.log(Z), a),
        ),
        step(
            "in d dimensions with a = U z (tilt.py), the limit is V times the tilted mean",
            sp.Function("T_mu")(s["z"]),
            s["V"] * (s["m"] + s["Gamma"] * s["U"] * s["z"]),
            proved=lemma21.gaussian_limit_matrix(s),
        ),
    ]


def delta_method_chain() -> list[Step]:
    X, dl, xi, eta = sp.symbols("X delta xi eta", real=True)
    i = sp.Symbol("i", integer=True, positive=True)
    L = sp.Symbol("L", integer=True, positive=True)
    c = sp.Function("E")(xi * eta)
    exp = fluctuations.ratio_expansion()
    s = fluctuations.symbols(n=1)
    q = sp.Symbol("q", positive=True)
    b1 = fluctuations.bias_first_order(s).subs(sp.Trace(s["a"].T * s["Gamma"] * s["a"]), q)
    return [
        step(
            "the ratio, exactly, with D = 1 + delta",
            X / (1 + dl),
            X - X * dl + X * dl**2 / (1 + dl),
        ),
        step(
            "means of L iid centred pairs: E[X delta] = (1/L^2) sum_{i,j} E[xi_i eta_j], where "
            "only the L terms i = j survive (independent, centred)",
            sp.Sum(c, (i, 1, L)) / L**2,
            c / L,
        ),
        step(
            "so the coefficient of 1/L in E[X/D] is -E[xi eta] "
            "(the remainder is O(1/L^2); fluctuations.py)",
            sp.Limit(L * sp.Function("E")(X / (1 + dl)), L, sp.oo),
            -c,
            proved=exp["bias"].subs(exp["c_xy"], c),
        ),
        step(
            "for N(m, Gamma) tokens, E[xi eta] = e^q V Gamma a, so b_1 = -e^q V Gamma a",
            sp.Function("b_1")(sp.Symbol("z")),
            -sp.exp(q) * s["V"] * s["Gamma"] * s["a"],
            proved=b1,
        ),
    ]


def laplace_chain() -> list[Step]:
    y, g, x = fexp.y_sym, fexp.gamma_sym, fexp.x_sym
    bulk = fexp.bulk_exponent()
    G = fexp.exponent_middle()
    return [
        step(
            "bulk of the weights: the exponent of E[w^2 1{w < L}] / L at its maximiser y = 2 "
            "gives h = gamma - 1",
            sp.Subs(-bulk, y, 2),
            fexp.rate_high(),
        ),
        step(
            "at the boundary y = gamma + 1/2 (w = L), bulk and single dominant token give "
            "h = (gamma - 1/2)^2 / 2",
            sp.Subs(-bulk, y, g + sp.Rational(1, 2)),
            fexp.rate_middle(),
        ),
        step(
            "averaging over queries, G(x) = x h(1/x) + x/(2 lambda) is stationary at "
            "x* = 2 sqrt(lambda/(lambda + 4))",
            sp.Subs(sp.Derivative(G, x), x, fexp.minimiser()),
            sp.Integer(0),
        ),
        step(
            "and its minimum is the sharp exponent kappa(lambda)",
            sp.Subs(G, x, fexp.minimiser()),
            fexp.sharp_exponent_expr(),
        ),
    ]


BUILDERS = {
    "lemma21": (("Lemma 2.1 by completing the square", lemma21_chain),),
    "fluctuations": (
        ("The 1/L delta method", delta_method_chain),
        ("The Laplace principle behind kappa", laplace_chain),
    ),
}


@lru_cache(maxsize=None)
def chains_for(group: str) -> tuple:
    """((title, steps), ...) of the proof group's key derivations (computed once per process)."""
    return tuple((title, build()) for title, build in BUILDERS.get(group, ()))


def proofs() -> list[Proof]:
    """Every step's proof, for the catalogue (so `softlin derive` fails when a step does not
    reduce)."""
    return [st.proof for group in BUILDERS for _, steps in chains_for(group) for st in steps]


@cached
def chain_proofs() -> tuple[Proof, ...]:
    """The steps of the key derivations shown in the report (derivations/chains.py)."""
    return tuple(proofs())


GROUP = Group(
    "chains",
    title="The chains of steps behind the key derivations",
    hypotheses="as in the groups whose steps they are (lemma21, fluctuations)",
    proofs=chain_proofs,
    parts=("chains",),
    section=False,
)
