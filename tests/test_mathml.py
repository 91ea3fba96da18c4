"""Claims store presentation MathML printed by SymPy, as XML the renderer and browsers accept."""

import xml.etree.ElementTree as ET

import pytest
import sympy as sp

from softlin.claims.mixture import claim as mixture
from softlin.mathml import T_MU_Z, fenced, mathml_formula, mo, numeric_entities, to_mathml


def test_sympy_presentation_mathml_is_kept_with_numeric_entities_only():
    x, L = sp.symbols("x L", positive=True)
    out = to_mathml(sp.exp(x) / L)
    assert (
        out == "<mrow><mfrac><msup><mi>&#8519;</mi><mi>x</mi></msup><mi>L</mi></mfrac></mrow>"
    )  # &ExponentialE;
    assert ET.fromstring(out).tag == "mrow"


def test_a_formula_is_one_block_math_element_joining_sympy_and_fragments():
    Gamma = sp.MatrixSymbol("Gamma", 2, 2)
    a = sp.MatrixSymbol("a", 2, 1)
    out = mathml_formula(T_MU_Z, mo("="), Gamma * a)
    root = ET.fromstring(out)
    assert root.tag == "math" and root.get("display") == "block"
    assert "".join(root.itertext()) == "T[\u03bc](z)=\u0393\u2062a"


def test_fences_wrap_their_contents_in_one_row():
    root = ET.fromstring(fenced(sp.Symbol("x"), mo(","), sp.Symbol("y")))
    assert root.tag == "mrow" and [c.tag for c in root] == ["mo", "mi", "mo", "mi", "mo"]


@pytest.mark.parametrize(
    "bad, fragment", [("<mi>a", "not well-formed"), ("&nosuchentity;", "unknown character entity")]
)
def test_malformed_fragments_are_value_errors(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        mathml_formula(bad)


def test_named_entities_become_numeric_and_xml_ones_stay():
    assert numeric_entities("&InvisibleTimes;&amp;&lt;") == "&#8290;&amp;&lt;"


def test_mixture_formulas_have_mathml_with_subscripted_greek_components():
    out = mixture.formulas_mathml()
    assert set(out) == set(mixture.formulas_latex()) == {"limit", "weights"}
    weights = ET.fromstring(out["weights"])
    assert "<msub><mi>&#960;</mi><mi>k</mi></msub>" in out["weights"]  # log(pi_k)
    assert weights.find(".//mfrac") is not None  # the 1/2
    assert "\\" not in "".join(weights.itertext())  # no LaTeX leaked


def test_a_negative_matrix_product_prints_a_minus_sign_not_a_minus_one_factor():
    Gamma, V, a = (
        sp.MatrixSymbol("Gamma", 2, 2),
        sp.MatrixSymbol("V", 1, 2),
        sp.MatrixSymbol("a", 2, 1),
    )
    q = sp.Symbol("q")
    text = "".join(ET.fromstring(to_mathml(-sp.exp(q) * V * Gamma * a)).itertext())
    assert text.startswith("-") and "(-1)" not in text and "-1" not in text


def test_piecewise_prints_as_a_brace_with_conditions_and_trace_as_tr():
    x = sp.Symbol("x")
    root = ET.fromstring(to_mathml(sp.Piecewise((0, x <= 1), (x, True))))
    assert root.find(".//mtable") is not None and "otherwise" in "".join(root.itertext())
    assert "piecewise" not in "".join(root.itertext())
    M = sp.MatrixSymbol("M", 2, 2)
    assert "".join(ET.fromstring(to_mathml(sp.Trace(M))).itertext()).startswith("tr")


def test_the_papers_symbols_are_typeset_as_the_paper_writes_them():
    """s2 is sigma^2 (not s with a subscript 2), abar is a-bar and ell the script l, in both
    printers; sigma^2 to a power is fenced."""
    from softlin.mathml import to_latex

    s2, abar, mu = sp.symbols("s2 abar mu")
    ell = sp.Function("ell")
    assert to_mathml(s2) == "<msup><mi>&#963;</mi><mn>2</mn></msup>"
    assert to_mathml(abar) == '<mover accent="true"><mi>a</mi><mo>&#175;</mo></mover>'
    assert to_mathml(ell(mu)).startswith("<mrow><mi>&#8467;</mi>")
    assert to_mathml(s2**2).startswith("<msup><mrow><mo>(</mo><msup>")
    assert (to_latex(s2), to_latex(abar), to_latex(ell(mu))) == (
        r"\sigma^{2}",
        r"\bar{a}",
        r"\ell{\left(\mu \right)}",
    )
    assert to_latex(s2**2) == r"\left(\sigma^{2}\right)^{2}"
    assert (
        to_mathml(sp.Symbol("s3")) == "<msub><mi>s</mi><mi>3</mi></msub>"
    )  # other names untouched
