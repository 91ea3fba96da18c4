"""Renderers read certificates only, are pure, and `stale_pages` / `softlin report --check` notice
any drift in any rendered file: Markdown, HTML, figures and the README's generated blocks."""

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pytest

from softlin import cli
from softlin.core import scenario
from softlin.claims.lemma_2_1 import claim as lemma21
from softlin.core.claim import claim_rng
from softlin.render import html, markup, readme, render

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def certificate():
    s = scenario.merge(lemma21.default_scenario(), {}, lemma21.SCENARIO_KEYS)
    return lemma21.run(s, "quick", claim_rng(0, "lemma-2.1"))


@pytest.fixture()
def rendered_project(tmp_path, certificate):
    """tmp/README.md with markers + tmp/reports rendered from one real certificate."""
    (tmp_path / "README.md").write_text(
        "intro\n\n<!-- softlin:verdicts:begin -->\n<!-- softlin:verdicts:end -->\n"
    )
    out = tmp_path / "reports"
    render.write_certificate(out, certificate)
    render.render_all(out)
    return out


def test_pages_carry_statement_formula_checks_and_figure(tmp_path, certificate):
    render.write_certificate(tmp_path, certificate)
    written = render.render_all(tmp_path)
    page = (tmp_path / "lemma-2.1.md").read_text()
    assert markup.to_markdown(certificate["statement"]) in page  # its $...$ maths as LaTeX
    assert r"$\mu = N ( m , \Gamma )$" in page
    assert r"V \left(\Gamma U z + m\right)" in page  # SymPy's LaTeX of the derived limit
    assert page.count("| pass |") == len(certificate["checks"])
    assert "figures/lemma-2.1.png" in page
    img = mpimg.imread(tmp_path / "figures" / "lemma-2.1.png")
    assert img.shape[0] > 100 and img.std() > 0.01  # a real picture, not a blank
    index = (tmp_path / "index.md").read_text()
    assert "[`lemma-2.1`](lemma-2.1.md)" in index and "**verified**" in index
    assert {p.name for p in written} == {
        "lemma-2.1.png",
        "lemma-2.1.md",
        "lemma-2.1.html",
        "index.md",
        "index.html",
        "graph.svg",
        "graph.html",
    }


def test_lemma_certificate_stores_sympy_mathml_for_every_formula(certificate):
    assert (
        set(certificate["formulas_mathml"])
        == set(certificate["formulas"])
        == {"limit", "tilted_law"}
    )
    limit = ET.fromstring(certificate["formulas_mathml"]["limit"])
    assert limit.tag == "math" and limit.get("display") == "block"
    # V (Gamma U z + m), as SymPy's presentation printer writes it: Gamma is U+0393, products are
    # joined by the invisible times U+2062, and the parentheses are <mo> fences.
    text = "".join(limit.itertext())
    assert text == "T[\u03bc](z)=V\u2062(\u0393\u2062U\u2062z+m)"
    law = ET.fromstring(certificate["formulas_mathml"]["tilted_law"])
    assert law.find(".//mfrac") is not None and "\U0001d4a9" in "".join(law.itertext())


def test_the_claim_page_shows_the_mathml_and_the_index_links_the_html_pages(tmp_path, certificate):
    render.write_certificate(tmp_path, certificate)
    render.render_all(tmp_path)
    page = (tmp_path / "lemma-2.1.html").read_text()
    assert page.count("<math display=\"block\">") == 2 and "no-mathml" not in page
    w, h = html.png_size(
        (tmp_path / "figures" / "lemma-2.1.png").read_bytes()
    )  # the figure's own size
    assert f'<img src="figures/lemma-2.1.png" width="{w}" height="{h}"' in page and w > h > 300
    assert page.count('<span class="pass">pass</span>') == len(certificate["checks"])
    assert (
        '<a href="lemma-2.1.html"><code>lemma-2.1</code></a>'
        in (tmp_path / "index.html").read_text()
    )


def test_rendering_is_pure_and_stale_pages_detects_edits(tmp_path, certificate):
    render.write_certificate(tmp_path, certificate)
    render.render_all(tmp_path)
    assert render.stale_pages(tmp_path) == []
    page = tmp_path / "lemma-2.1.md"
    page.write_text(page.read_text() + "edited\n")
    cert_path = tmp_path / "certificates" / "lemma-2.1.json"
    cert = json.loads(cert_path.read_text())
    cert["series"]["main"]["rmse"][0] *= 2
    cert_path.write_text(json.dumps(cert))
    assert set(render.stale_pages(tmp_path)) == {page, tmp_path / "figures" / "lemma-2.1.png"}


def test_stale_pages_covers_html_pages_and_the_readme_block(rendered_project):
    out = rendered_project
    assert render.stale_pages(out) == []
    claim_html, index_html, readme_md = (
        out / "lemma-2.1.html",
        out / "index.html",
        out.parent / "README.md",
    )
    claim_html.write_text(claim_html.read_text().replace("verified", "verifled", 1))
    index_html.unlink()
    readme_md.write_text(readme_md.read_text().replace("**verified**", "**refuted**"))
    assert set(render.stale_pages(out)) == {claim_html, index_html, readme_md}
    render.render_all(out)
    assert render.stale_pages(out) == []


def test_a_changed_verdict_makes_every_page_that_shows_it_stale(rendered_project):
    out = rendered_project
    path = out / "certificates" / "lemma-2.1.json"
    cert = json.loads(path.read_text())
    cert["checks"][0]["passed"], cert["status"] = False, "refuted"
    path.write_text(json.dumps(cert))
    assert set(render.stale_pages(out)) == {
        out / "lemma-2.1.md",
        out / "lemma-2.1.html",
        out / "index.md",
        out / "index.html",
        out.parent / "README.md",
        out / "graph.svg",
        out / "graph.html",
    }


def test_report_check_exits_1_naming_stale_files_and_0_when_fresh(rendered_project, capsys):
    out = rendered_project
    assert cli.main(["report", "--check", "--out", str(out)]) == 0
    assert "up to date" in capsys.readouterr().out
    (out / "lemma-2.1.html").write_text("<!DOCTYPE html>\n")
    assert cli.main(["report", "--check", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"stale: {out / 'lemma-2.1.html'}" in err and "fix: softlin report" in err
    assert cli.main(["report", "--out", str(out)]) == 0
    assert cli.main(["report", "--check", "--out", str(out)]) == 0


def test_report_check_passes_on_the_committed_reports_and_readme(capsys):
    code = cli.main(["report", "--check", "--out", str(REPO / "reports")])
    assert code == 0, capsys.readouterr().err


def test_a_malformed_certificate_is_a_value_error(tmp_path):
    (tmp_path / "certificates").mkdir()
    (tmp_path / "certificates" / "x.json").write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        render.render_all(tmp_path)


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda c: c.pop("status"), "has no 'status' field"),
        (lambda c: c.update(status="maybe"), "status 'maybe'"),
        (lambda c: c["checks"][0].update(passed="yes"), "checks[0].passed is 'yes'"),
        (lambda c: c.update(errata="none"), "'errata' is not a list"),
        (
            lambda c: c["formulas_mathml"].update(limit="<math><script>alert(1)</script></math>"),
            "formulas_mathml['limit'] has element <script>",
        ),
        (
            lambda c: c["formulas_mathml"].update(limit='<math><mi onclick="x()">a</mi></math>'),
            "attribute 'onclick'",
        ),
        (
            lambda c: c["formulas_mathml"].update(limit="<math><mi>a</math>"),
            "not well-formed MathML",
        ),
        (
            lambda c: c["formulas_mathml"].update(
                limit="<math><mfenced><mi>a</mi></mfenced></math>"
            ),
            "<mfenced>",
        ),
    ],
)
def test_bad_certificate_input_is_one_line_naming_it_and_exit_2(
    tmp_path, certificate, capsys, edit, fragment
):
    cert = json.loads(json.dumps(certificate))
    cert["series"] = {}  # no figure to draw: the error comes sooner
    edit(cert)
    (tmp_path / "certificates").mkdir()
    (tmp_path / "certificates" / "lemma-2.1.json").write_text(json.dumps(cert))
    assert cli.main(["report", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "lemma-2.1" in err, err  # names the field and the certificate
    assert err.startswith("softlin: error: ") and err.count("\n") == 1


def test_a_readme_with_one_marker_is_an_error_naming_it(tmp_path, certificate, capsys):
    (tmp_path / "README.md").write_text("<!-- softlin:verdicts:begin -->\nno end\n")
    out = tmp_path / "reports"
    render.write_certificate(out, certificate)
    assert cli.main(["report", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "README.md" in err and "softlin:verdicts" in err


def test_a_readme_without_markers_is_left_alone(tmp_path, certificate):
    (tmp_path / "README.md").write_text("# mine\n")
    out = tmp_path / "reports"
    render.write_certificate(out, certificate)
    assert tmp_path / "README.md" not in render.render_all(out)
    assert (tmp_path / "README.md").read_text() == "# mine\n"


def test_readme_sync_replaces_only_between_markers():
    text = "a\n<!-- softlin:errata:begin -->\nold\n<!-- softlin:errata:end -->\nb\n"
    assert (
        readme.sync(text, {"errata": "new", "verdicts": "ignored"})
        == "a\n<!-- softlin:errata:begin -->\nnew\n<!-- softlin:errata:end -->\nb\n"
    )


def test_a_bare_mathml_fragment_is_wrapped_and_entities_become_characters():
    assert (
        html.mathml("<mrow><mi>a</mi><mo>&InvisibleTimes;</mo><mi>b</mi></mrow>", "here")
        == '<math display="block"><mrow><mi>a</mi><mo>\u2062</mo><mi>b</mi></mrow></math>'
    )
    with pytest.raises(ValueError, match="here"):
        html.mathml('<math><mi href="x">a</mi></math>', "here")


def test_nonfinite_numbers_are_spelled_out_not_silent():
    from softlin.core.claim import jsonable

    assert jsonable({"a": float("inf"), "b": [np.float64("nan")], "c": np.int64(3)}) == {
        "a": "inf",
        "b": ["nan"],
        "c": 3,
    }


def test_the_findings_page_gets_the_errata_block_with_links_from_docs(tmp_path, certificate):
    """docs/findings.md holds the errata block: synced by report, its links relative to docs/, and a
    hand edit inside the block is what report --check calls stale."""
    (tmp_path / "docs").mkdir()
    findings = tmp_path / "docs" / "findings.md"
    findings.write_text(
        "# findings\n\n<!-- softlin:errata:begin -->\n<!-- softlin:errata:end -->\n\nnotes\n"
    )
    out = tmp_path / "reports"
    cert = {**certificate, "errata": ["a witnessed slip"]}
    render.write_certificate(out, cert)
    assert findings in render.render_all(out)
    text = findings.read_text()
    assert (
        "a witnessed slip" in text
        and "(../reports/lemma-2.1.md)" in text
        and text.endswith("notes\n")
    )
    findings.write_text(text.replace("a witnessed slip", "edited by hand"))
    assert cli.main(["report", "--check", "--out", str(out)]) == 1
