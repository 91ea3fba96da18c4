"""thm-5.2, the claimed endpoint b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1 in exact
arithmetic: for random rational SPD Sigma (d = 2, 3), its risk, ||A*||_F^2 - b*^2 and every entry of
the restricted gradients reduce to exactly 0 (SymPy)."""

from __future__ import annotations

import sympy as sp

from ...derivations import icl_gradients, icl_risk
from ...judge import kinds as judge


def random_rational_spd(rng, d) -> sp.Matrix:
    B = sp.Matrix(d, d, lambda i, j: sp.Rational(int(rng.integers(-4, 5)), int(rng.integers(1, 4))))
    return B * B.T + sp.Rational(1, int(rng.integers(1, 5))) * sp.eye(d)


def exact_endpoint_check(formula, n_exact: int, rng):
    """The endpoint `formula(Sigma) -> (A, b)` (SymPy) at `n_exact` random rational Sigma."""
    worst = sp.Integer(0)
    for j in range(n_exact):
        S = random_rational_spd(rng, 2 + j % 2)
        A, b = formula(S)
        gA, gb = icl_gradients.restricted_gradients(S, A, b)
        vals = [sp.simplify(icl_risk.paper_risk(S, A, b)), sp.simplify(sum(x**2 for x in A) - b**2)]
        vals += [sp.simplify(x) for x in gA] + [sp.simplify(gb)]
        worst = max([worst] + [abs(v) for v in vals], key=lambda v: float(v))
    return judge.exact(
        "endpoint (A*, b*): zero risk, zero gradient, balanced, exactly (rational Sigma)",
        "symbolic",
        id="endpoint/exact",
        value=str(worst),
        expected="0",
        detail=f"{n_exact} random rational SPD Sigma (d = 2, 3); largest |residual| over risk, "
        "||A*||_F^2 - b*^2 and all gradient entries, reduced exactly by SymPy (written as "
        "SymPy writes it)",
    )
