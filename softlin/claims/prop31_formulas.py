"""prop-3.1: the formulas shown on the claim's page (LaTeX, and MathML for the SymPy expressions)."""

from __future__ import annotations

import sympy as sp

from ..derivations import fluctuations
from ..mathml import mathml_formula, mo


def _formulas() -> dict:
    s = fluctuations.symbols(n=1)
    # The exponent is a 1 x 1 matrix taken as its trace in the derivation; printed as the scalar it is.
    scalar = lambda tex: tex.replace(r"\operatorname{tr}\left(a^{T} \Gamma a \right)", r"a^{T} \Gamma a")
    return {
        "bias_first_order": r"b_1(z) = " + scalar(sp.latex(fluctuations.bias_first_order(s))) + r",\quad a = Uz",
        "cov_first_order": r"C_1(z) = " + scalar(sp.latex(fluctuations.cov_first_order(s))),
        "first_order_coefficient": (r"\lim_L L\,\mathbb{E}\|T[\mu_L]-T[\mu]\|^2_{L^2(\nu)} = "
                                    r"\det(I - 2M\Sigma_q)^{-1/2}\big(\operatorname{tr}(V\Gamma V^T) + "
                                    r"\operatorname{tr}(N\Sigma_q(I - 2M\Sigma_q)^{-1})\big),\ M = U^T\Gamma U,\ "
                                    r"N = U^T\Gamma V^TV\Gamma U,\ \text{finite iff } \lambda_{\max}(M\Sigma_q) < 1/2"),
        "exponent": (r"\kappa(\lambda) = \min\Big(1, \tfrac{\sqrt{1 + 4/\lambda} - 1}{2}\Big),\quad "
                     r"\lambda = \sigma^2 \lambda_{\max}(U^T\Gamma_0 U\Sigma_q)"),
        "rate_function": (r"h(\gamma) = 0\ (\gamma \le \tfrac12),\ \tfrac12(\gamma - \tfrac12)^2\ "
                          r"(\tfrac12 \le \gamma \le \tfrac32),\ \gamma - 1\ (\gamma \ge \tfrac32),\quad L = e^{\gamma q}"),
        "expectation_bound": (r"\mathbb{E}|T[\mu_L](z) - T[\mu](z)|^2 \le (\operatorname{tr}(V\Gamma V^T) + |V\Gamma a|^2)"
                              r"\Big(\frac{4e^{q}}{L} + L\,e^{-(L-2)^2/(8(L-1)e^{q})}\Big),\ q = a^T\Gamma a"),
    }


def _formulas_mathml() -> dict:
    """MathML of the two formulas that are single SymPy expressions (the others render as LaTeX)."""
    s = fluctuations.symbols(n=1)
    q = sp.Symbol("q")
    sub = lambda name: f"<mrow><msub><mi>{name}</mi><mn>1</mn></msub><mo>(</mo><mi>z</mi><mo>)</mo></mrow>"
    bias = fluctuations.bias_first_order(s).subs(sp.Trace(s["a"].T * s["Gamma"] * s["a"]), q)
    cov = fluctuations.cov_first_order(s).subs(sp.Trace(s["a"].T * s["Gamma"] * s["a"]), q)
    note = "<mo>,</mo><mspace width='1em'/><mi>q</mi><mo>=</mo><msup><mi>a</mi><mi>T</mi></msup><mi>&#x393;</mi><mi>a</mi>"
    return {"bias_first_order": mathml_formula(sub("b"), mo("="), bias, note),
            "cov_first_order": mathml_formula(sub("C"), mo("="), cov, note)}
