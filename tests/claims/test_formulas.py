"""The formulas on the claim pages are the derived ones, typeset from SymPy
(claims/shared/formulas.py).

Two things are checked: every displayed formula has MathML next to its LaTeX (so no page falls back
to raw LaTeX), and the typeset right sides evaluate to what the emitted kernels (or an independent
numerical route) compute: a display that drifted from its derivation, or took the wrong one, fails.
"""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

from softlin.claims.shared import formulas
from softlin.derivations import display
from softlin.numerics import kernels
from softlin.render import html


@pytest.mark.parametrize("cid", sorted(formulas.displayed()))
def test_every_displayed_formula_has_valid_mathml_next_to_its_latex(cid):
    latex, mathml = formulas.for_claim(cid)
    assert latex and set(latex) == set(mathml)
    for name, markup in mathml.items():
        root = ET.fromstring(html.mathml(markup, f"{cid}:{name}"))
        text = "".join(root.itertext())
        assert "\\" not in text and "(-1)" not in text and "trace" not in text, (cid, name, text)


def evaluate(expr, **values):
    """A displayed right side at numbers: symbols and matrix symbols replaced by name."""
    sizes = {display.dim_d: 2, display.dim_k: 1}
    expr = expr.subs(sizes)
    rep = {}
    for atom in expr.atoms(sp.Symbol, sp.MatrixSymbol):
        if atom.name in values:
            v = values[atom.name]
            rep[atom] = (
                sp.ImmutableMatrix(np.atleast_2d(v).tolist())
                if isinstance(atom, sp.MatrixSymbol)
                else sp.Float(v)
            )
    out = expr.xreplace(rep).doit()
    if isinstance(out, sp.MatrixBase):
        return np.array(out.evalf(30).tolist(), dtype=float)
    return float(sp.N(out, 30))


GAMMA = np.array([[1.0, 0.3], [0.3, 0.5]])
V = np.array([[0.7, -0.2]])
A_VEC = np.array([[0.4], [-0.3]])


def test_b1_on_the_page_is_the_emitted_bias_kernel_with_its_minus_sign():
    d = display.prop31()["bias_first_order"]
    q = (A_VEC.T @ GAMMA @ A_VEC).item()
    shown = evaluate(d.rhs, Gamma=GAMMA, V=V, a=A_VEC, q=q)
    kernel = np.asarray(kernels.bias_first_order(GAMMA, V, A_VEC), dtype=float)
    np.testing.assert_allclose(shown, kernel, rtol=1e-12)
    assert (
        shown.item() < 0 < (V @ GAMMA @ A_VEC).item()
    )  # b1 = -e^q V Gamma a points against V Gamma a


@pytest.mark.parametrize("lam", [0.1, 0.5, 0.8, 3.0])
def test_kappa_on_the_page_is_the_sharp_exponent_kernel_not_the_naive_one(lam):
    shown = evaluate(display.prop31()["exponent"].rhs, **{"lambda": lam})
    assert shown == pytest.approx(float(kernels.sharp_exponent(lam)), rel=1e-12)
    if lam > 0.5:
        assert shown != pytest.approx(1 / (2 * lam))  # the naive min(1, 1/(2 lambda)) would be


@pytest.mark.parametrize("gamma", [0.2, 0.9, 2.0])
def test_rate_function_on_the_page_is_the_emitted_one(gamma):
    shown = evaluate(display.prop31()["rate_function"].rhs, gamma=gamma)
    assert shown == pytest.approx(float(kernels.rate_function(gamma)), rel=1e-12, abs=1e-15)


def test_expectation_bound_on_the_page_is_the_factor_times_the_numerator():
    L, q = 50.0, (A_VEC.T @ GAMMA @ A_VEC).item()
    shown = evaluate(display.prop31()["expectation_bound"].rhs, Gamma=GAMMA, V=V, a=A_VEC, q=q, L=L)
    numerator = np.trace(V @ GAMMA @ V.T) + float(np.sum((V @ GAMMA @ A_VEC) ** 2))
    assert shown == pytest.approx(
        numerator * float(kernels.expectation_bound_factor(L, q)), rel=1e-12
    )


def test_thm52_endpoint_on_the_page_is_the_emitted_endpoint():
    Sigma = np.array([[1.6, 0.3], [0.3, 0.5]])
    shown = display.thm52()
    assert evaluate(shown["endpoint_b"].rhs, Sigma=Sigma) == pytest.approx(
        float(kernels.icl_endpoint_b(Sigma)), rel=1e-12
    )
    np.testing.assert_allclose(
        evaluate(shown["endpoint_A"].rhs, Sigma=Sigma), kernels.icl_endpoint_A(Sigma), rtol=1e-12
    )


def test_thm43_comparison_solution_on_the_page_solves_its_ode_numerically():
    g2, beta, T = 0.3, 1.7, 2.0
    sol = solve_ivp(lambda t, e: g2 + beta * e, (0, T), [0.0], rtol=1e-11, atol=1e-13)
    shown = display.thm43()
    assert evaluate(shown["comparison_solution"].rhs, g_2=g2, beta=beta, t=T) == pytest.approx(
        sol.y[0, -1], rel=1e-8
    )
    assert evaluate(shown["transfer_bound"].rhs, g_2=g2, beta=beta, t=T) >= sol.y[0, -1]


def test_scalar_model_bias_term_on_the_page_is_the_emitted_one():
    shown = evaluate(display.finite_prompt_risk()["bias"].rhs, omega=0.3, d=3)
    assert shown == pytest.approx(float(kernels.scalar_bias_term(0.3, 3)), rel=1e-12)
