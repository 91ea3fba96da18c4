"""Maths between dollars in claim statements and hypotheses is typeset (render/markup.py)."""

import re
import xml.etree.ElementTree as ET

import pytest

from softlin.core.registry import CLAIMS
from softlin.render import html, markup


def test_greek_names_scripts_and_operators_become_mathml():
    out = markup.to_html("if $lambda_max(U^T Gamma U Sigma_q) <= 1/2$ then")
    root = ET.fromstring(re.search(r"<math.*</math>", out).group(0))
    assert "".join(root.itertext()) == "λmax(UTΓUΣq)≤1/2"
    assert root.find(".//msub/mi").text == "λ" and root.find(".//msup/mrow/mi").text == "T"
    assert out.startswith("if ") and out.endswith(" then")


def test_the_markdown_twin_is_latex_and_plain_text_is_only_escaped():
    assert (
        markup.to_markdown("$sigma^2 kappa(sigma) -> 1$") == r"$\sigma^{2} \kappa ( \sigma ) \to 1$"
    )
    assert markup.to_markdown("a <b> c, no maths") == "a &lt;b> c, no maths"
    assert markup.to_html("a <b> & c") == "a &lt;b&gt; &amp; c"


def test_parentheses_after_a_caret_only_group():
    assert markup.span_latex("L^(c_2/sigma^2)") == r"L^{c_{2} / \sigma^{2}}"


@pytest.mark.parametrize("bad", ["$x^{2$", "$x}$", "$^2$", "$x^$"])
def test_maths_that_does_not_parse_is_a_value_error_naming_it(bad):
    with pytest.raises(ValueError, match="does not parse"):
        markup.to_html(bad, "claim c: statement")


@pytest.mark.parametrize("cid", sorted(CLAIMS))
def test_every_claims_statement_and_hypotheses_typeset_to_valid_mathml(cid):
    claim = CLAIMS[cid]
    for text in (claim.statement, *claim.hypotheses):
        for span in re.findall(r"<math.*?</math>", markup.to_html(text, cid)):
            html.mathml(span, cid)
        assert "$" not in markup.to_html(text, cid)


def test_a_primed_name_is_one_identifier_so_its_superscript_is_raised():
    assert (
        markup.span_mathml("z'^T") == '<math display="inline"><mrow><msup><mi>z′</mi>'
        '<mrow><mi>T</mi></mrow></msup></mrow></math>'
    )
    assert markup.span_latex("z'^T U z") == "z'^{T} U z"
