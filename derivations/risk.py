"""Squared-loss risks and their gradients in (U, V), by the chain rule (derivations/jacobians.py).

Target: a linear map z -> W z (k x d); queries z ~ nu = N(0, Sigma_q); loss 1/2 ||T(z) - W z||^2.

Infinite prompt (Gaussian tokens, Lemma 2.1): the residual r(z) = V m + (V Gamma U - W) z is affine
in z, so E_nu over z keeps the z-free terms, drops the linear ones (E z = 0) and turns each
quadratic term z^T A z into tr(A Sigma_q). `gaussian_expectation` does this term by term on SymPy's
expansion of r^T r, and SymPy's matrix calculus differentiates the resulting traces:

    R_inf = tr(V m m^T V^T)/2 + tr((V Gamma U - W) Sigma_q (V Gamma U - W)^T)/2.

Finite prompt: R_L = 1/2 E ||T_L(z) - W z||^2 and, per prompt and query, the gradient of
1/2 ||r||^2 with r = T_L(z) - W z is read off the differential dT_L = V C_hat dU z + dV zhat
(see `jacobians`): <r, A dX B> = <A^T r B^T, dX>, so
    grad_U = C_hat^T V^T r z^T,    grad_V = r zhat^T.
Averaged over a fixed sample of prompts and queries (common random numbers) this is the exact
gradient of the Monte Carlo risk, which the claim checks by finite differences.
"""

from __future__ import annotations

import sympy as sp

from . import jacobians, lemma21
from .group import Group
from .jacobians import finite_symbols
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached


def symbols():
    s = lemma21.limit_symbols(n=1)
    d, k = s["U"].shape[0], s["V"].shape[0]
    s["W"] = sp.MatrixSymbol("W", k, d)
    s["Sigma_q"] = sp.MatrixSymbol("Sigma_q", d, d)
    return s


def gaussian_expectation(
    quadratic: sp.MatrixExpr, z: sp.MatrixSymbol, Sigma: sp.MatrixSymbol
) -> sp.Expr:
    """E over z ~ N(0, Sigma) of a 1 x 1 expression that is a polynomial of degree <= 2 in z."""
    total = sp.Integer(0)
    for term in sp.Add.make_args(sp.expand(quadratic)):
        factors = list(term.args) if isinstance(term, sp.MatMul) else [term]
        scalar = sp.Mul(*[f for f in factors if not getattr(f, "is_Matrix", False)])
        mats = [f for f in factors if getattr(f, "is_Matrix", False)]
        count = sum(f in (z, z.T) for f in mats)
        if count == 0:
            total += scalar * sp.Trace(sp.MatMul(*mats))
        elif count == 2 and mats[0] == z.T and mats[-1] == z:
            total += scalar * sp.Trace(sp.MatMul(*mats[1:-1], Sigma) if len(mats) > 2 else Sigma)
        elif count != 1:  # one z: mean zero; anything else is outside this helper's scope
            raise ValueError(f"term {term} is not of the form c, a^T z or z^T A z")
    return total


def infinite_risk(s=None) -> sp.Expr:
    s = s or symbols()
    residual = lemma21.gaussian_limit_matrix(s) - s["W"] * s["z"]
    return gaussian_expectation((residual.T * residual) / 2, s["z"], s["Sigma_q"])


def _symmetric(expr, s):
    """Gamma and Sigma_q are symmetric: write their transposes as themselves."""
    return expr.subs({s["Gamma"].T: s["Gamma"], s["Sigma_q"].T: s["Sigma_q"]})


def infinite_risk_gradients(s=None) -> tuple[sp.MatrixExpr, sp.MatrixExpr]:
    s = s or symbols()
    terms = sp.Add.make_args(infinite_risk(s))

    def grad(X):  # term by term: SymPy's matrix calculus differentiates each trace
        parts = [t.diff(X) for t in terms]
        return sp.simplify(_symmetric(sp.MatAdd(*[p for p in parts if p != 0]), s).doit())

    return grad(s["U"]), grad(s["V"])


def sample_gradients(s=None) -> tuple[sp.MatrixExpr, sp.MatrixExpr]:
    """(grad_U, grad_V) of 1/2 ||r||^2 for one prompt and query, r = T_L(z) - W z."""
    s = s or finite_symbols()
    k = s["V"].shape[0]
    r = sp.MatrixSymbol("r", k, 1)
    # dT_L = A dX B with (A, B) = (V C_hat, z) for U and (I, zhat) for V; grad = A^T r B^T.
    return (s["Chat"].T * s["V"].T * r * s["z"].T, r * s["zhat"].T)


def proofs() -> list[Proof]:
    """R_inf against a direct entrywise Gaussian expectation (d = 2), and its gradients against
    entrywise differentiation."""
    d, k = 2, 2
    s = lemma21.limit_symbols(d, k, 1)
    s.update({"W": sp.MatrixSymbol("W", k, d), "Sigma_q": sp.MatrixSymbol("Sigma_q", d, d)})
    ent = lambda name, r, c, sym=False: sp.Matrix(
        r,
        c,
        lambda i, j: sp.Symbol(
            f"{name}{min(i, j)}{max(i, j)}" if sym else f"{name}{i}{j}", real=True
        ),
    )
    U, V, W = ent("u", d, d), ent("v", k, d), ent("w", k, d)
    G, S = ent("g", d, d, True), ent("s", d, d, True)
    m = sp.Matrix(d, 1, sp.symbols(f"m0:{d}", real=True))
    subs = {s["U"]: U, s["V"]: V, s["W"]: W, s["Gamma"]: G, s["Sigma_q"]: S, s["m"]: m}
    # Direct: r = c + B z, E ||r||^2 = c^T c + sum_ij (B^T B)_ij Sigma_ij.
    B = V * G * U - W
    c = V * m
    direct = (
        (c.T * c)[0, 0] + sum((B.T * B)[i, j] * S[i, j] for i in range(d) for j in range(d))
    ) / 2
    R = infinite_risk(s).subs(subs).doit()
    gU, gV = infinite_risk_gradients(s)
    return [
        prove_zero(
            "R_inf = tr(V m m^T V^T)/2 + tr((V Gamma U - W) Sigma_q (.)^T)/2 equals the entrywise "
            "expectation [d=2]",
            sp.expand(R - direct),
        ),
        prove_zero(
            "grad_U R_inf equals entrywise differentiation [d=2]",
            sp.Matrix(gU.subs(subs).doit().as_explicit())
            - sp.Matrix(d, d, lambda i, j: sp.diff(direct, U[i, j])),
        ),
        prove_zero(
            "grad_V R_inf equals entrywise differentiation [d=2]",
            sp.Matrix(gV.subs(subs).doit().as_explicit())
            - sp.Matrix(k, d, lambda i, j: sp.diff(direct, V[i, j])),
        ),
    ] + _sample_gradient_proofs()


def _sample_gradient_proofs() -> list[Proof]:
    """grad of 1/2 ||V zhat(U) - W z||^2 by SymPy against C_hat^T V^T r z^T, with two symbolic
    tokens."""
    d, k, L = 2, 1, 2
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    W = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"w{i}{j}", real=True))
    z = sp.Matrix(d, 1, sp.symbols(f"z0:{d}", real=True))
    xs = [sp.Matrix(d, 1, sp.symbols(f"x{i}_0:{d}", real=True)) for i in range(L)]
    E = [sp.exp((x.T * U * z)[0, 0]) for x in xs]
    p = [e / sum(E) for e in E]
    zhat = sum((pi * x for pi, x in zip(p, xs)), sp.zeros(d, 1))
    Chat = sum((pi * (x - zhat) * (x - zhat).T for pi, x in zip(p, xs)), sp.zeros(d, d))
    r = V * zhat - W * z
    loss = (r.T * r)[0, 0] / 2
    s = finite_symbols(d, k)
    rs = sp.MatrixSymbol("r", k, 1)
    gU, gV = sample_gradients(s)
    subs = {s["V"]: V, s["z"]: z, s["zhat"]: zhat, s["Chat"]: Chat, rs: r}
    positive = {e: sp.Symbol(f"E{i}", positive=True) for i, e in enumerate(E)}
    rational = lambda M: M.applyfunc(lambda e: sp.cancel(sp.expand(e.xreplace(positive))))
    return [
        prove_zero(
            "per-sample grad_U of 1/2||T_L - W z||^2 = C_hat^T V^T r z^T [d=2, L=2]",
            rational(
                sp.Matrix(gU.subs(subs).doit().as_explicit())
                - sp.Matrix(d, d, lambda i, j: sp.diff(loss, U[i, j]))
            ),
        ),
        prove_zero(
            "per-sample grad_V of 1/2||T_L - W z||^2 = r zhat^T [d=2, L=2]",
            rational(
                sp.Matrix(gV.subs(subs).doit().as_explicit())
                - sp.Matrix(k, d, lambda i, j: sp.diff(loss, V[i, j]))
            ),
        ),
    ]


@cached
def gradient_proofs() -> tuple[Proof, ...]:
    out = []
    for d, k in ((1, 1), (2, 2), (3, 2)):
        out += jacobians.limit_proofs(d, k)
    out += jacobians.finite_prompt_proofs(1, 2, 1) + jacobians.finite_prompt_proofs(2, 3, 2)
    out += proofs()
    return tuple(out)


# declared here, at the top of its family: this module imports jacobians
GROUP = Group(
    "gradients",
    title="Jacobians and risk gradients in (U, V)",
    hypotheses="Gaussian tokens; vec column-major",
    proofs=gradient_proofs,
    parts=("jacobians", "risk"),
)


def kernel_specs() -> list[KernelSpec]:
    """Emitted: R_inf and its gradients in U and V, and the per-sample squared-loss gradients
    through the finite-prompt Jacobians."""
    f = finite_symbols()
    r = symbols()
    gU, gV = infinite_risk_gradients(r)
    sU, sV = sample_gradients(f)
    res = sp.MatrixSymbol("r", f["V"].shape[0], 1)
    return [
        KernelSpec(
            "risk_inf",
            (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"),
            infinite_risk(r),
            "R_inf = E_nu 1/2 ||V (m + Gamma U z) - W z||^2, z ~ N(0, Sigma_q).",
            "risk",
            "scalar",
        ),
        KernelSpec(
            "risk_inf_grad_U",
            (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"),
            gU,
            "grad_U R_inf (SymPy matrix calculus).",
            "risk",
            "(d, d)",
        ),
        KernelSpec(
            "risk_inf_grad_V",
            (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"),
            gV,
            "grad_V R_inf (SymPy matrix calculus).",
            "risk",
            "(k, d)",
        ),
        KernelSpec(
            "risk_sample_grad_U",
            (f["Chat"], f["V"], res, f["z"]),
            ("(d, d)", "(k, d)", "(k, 1)", "(d, 1)"),
            sU,
            "grad_U 1/2 ||T_L(z) - W z||^2 = C_hat^T V^T r z^T, r the residual.",
            "risk",
            "(d, d)",
        ),
        KernelSpec(
            "risk_sample_grad_V",
            (res, f["zhat"]),
            ("(k, 1)", "(d, 1)"),
            sV,
            "grad_V 1/2 ||T_L(z) - W z||^2 = r zhat^T.",
            "risk",
            "(k, d)",
        ),
    ]
