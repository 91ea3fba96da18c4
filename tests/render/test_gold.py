"""The renderers against reviewed gold output for two fixed synthetic certificates.

gold/certificates/ holds the input (one claim with MathML, a LaTeX-only formula, every kind of
check result, errata as a string and as dicts, a figure series; one older-style certificate with
no MathML, no series, no errata). gold/expected/ holds the output that was reviewed by hand; it is
written only by `python tests/render/make_gold.py`, never by these tests. Text is compared byte
for byte; the figure by its decoded pixels (PNG encoders and zlib versions may change the bytes).
"""

import difflib
import io
import json
import shutil
import xml.etree.ElementTree as ET

import matplotlib.image as mpimg
import numpy as np
import pytest

from softlin.render import figures, render

from .make_gold import EXPECTED, GOLD, render_synthetic

FIX = "python tests/render/make_gold.py, then review git diff tests/render/gold"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("gold")
    render_synthetic(root)
    return root


def produced(root):
    return sorted(
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and "certificates" not in p.parts
    )


def pixels(data: bytes) -> np.ndarray:
    return mpimg.imread(io.BytesIO(data), format="png")


def same_picture(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal size, and at most 0.2% of the pixels differ by more than 1/8 of the range in a channel
    (room for anti-aliasing differences between matplotlib builds, none for a moved curve)."""
    if a.shape != b.shape:
        return False
    differs = np.any(np.abs(a - b) > 0.125, axis=-1)
    return float(differs.mean()) <= 0.002


def test_the_renderer_writes_exactly_the_gold_set_of_files(project):
    assert produced(project) == produced(EXPECTED)


@pytest.mark.parametrize("name", [p.as_posix() for p in produced(EXPECTED) if p.suffix != ".png"])
def test_each_text_page_equals_its_reviewed_gold_file(project, name):
    got, want = (project / name).read_text(), (EXPECTED / name).read_text()
    if got != want:
        diff = "".join(
            difflib.unified_diff(
                want.splitlines(True), got.splitlines(True), "gold/" + name, name, n=1
            )
        )
        pytest.fail(f"{name} differs from its gold file (if intended: {FIX}):\n{diff[:4000]}")


def test_the_figure_equals_gold_by_pixels_and_a_moved_point_does_not():
    want = pixels((EXPECTED / "reports" / "figures" / "synthetic-a.png").read_bytes())
    cert = json.loads((GOLD / "certificates" / "synthetic-a.json").read_text())
    assert same_picture(pixels(figures.figure_png(cert)), want)
    cert["series"]["main"]["rmse"][1] *= 1.5  # one point of one curve moves
    assert not same_picture(pixels(figures.figure_png(cert)), want)


def test_a_claim_without_a_convergence_series_has_no_figure_and_no_proof_section(project):
    assert not (project / "reports" / "figures" / "synthetic-b.png").exists()
    page = (project / "reports" / "synthetic-b.html").read_text()
    assert "<img" not in page and "Proof of the Monte Carlo bound" not in page


def test_math_is_mathml_when_the_certificate_has_it_and_latex_code_otherwise(project):
    page = (project / "reports" / "synthetic-a.html").read_text()
    assert page.count("<math ") == 2  # square, rate
    assert "<mi>x</mi><mn>2</mn></msup>" in page
    assert "&InvisibleTimes;" not in page and "\u2062" in page  # named entity made a character
    assert '<figure class="formula no-mathml" id="formula-synthetic-a-fallback">' in page
    assert r"<pre><code>a &lt; b \quad \&amp; \quad \frac{1}{2}</code></pre>" in page
    older = (project / "reports" / "synthetic-b.html").read_text()
    assert "<math" not in older and r"\operatorname{tr}\left(M\right)" in older


def test_errata_given_as_strings_and_dicts_reach_pages_index_and_readme(project):
    page = (project / "reports" / "synthetic-a.html").read_text()
    assert "<li>The display has no L &gt;= 2" in page
    # the witness is a table of named numbers, not a JSON dump
    assert (
        '<p class="witness">witness</p>' in page
        and '<tr><th>sigma_op</th><td class="num"><span class="n">2</span></td></tr>' in page
    )
    assert "&quot;sigma_op&quot;" not in page
    assert "<li>where: Appendix B" in page
    readme = (project / "README.md").read_text()
    assert (
        "- An assumption &lt;stronger> than stated ([`synthetic-a`](reports/synthetic-a.md))"
        in readme
    )
    assert "  - where: Lemma D.4" in readme
    assert (project / "reports" / "index.html").read_text().count('<dl class="erratum">') == 2


def test_the_readme_keeps_its_own_text_and_gets_the_verdict_table(project):
    readme = (project / "README.md").read_text()
    template = (GOLD / "README.in.md").read_text()
    assert readme.startswith("    first line\n    second line\n")
    for kept in ("Text before.", "Text between.", "Text after."):
        assert kept in readme and kept in template
    assert "stale table" not in readme
    assert (
        "| [`synthetic-b`](reports/synthetic-b.md) "
        "| A claim with no MathML, no figure and no errata "
        "| **inconclusive** | 0 / 1 / 1 | 1 numerical |" in readme
    )


def _xml(path):
    return ET.fromstring(path.read_text().removeprefix("<!DOCTYPE html>\n"))


def test_every_html_page_is_well_formed_scriptless_and_links_only_to_files_it_ships(project):
    out = project / "reports"
    for path in sorted(out.glob("*.html")):
        root = _xml(path)  # raises on malformed markup
        tags = {el.tag for el in root.iter()}
        assert "script" not in tags and "link" not in tags and "iframe" not in tags, path
        for el in root.iter():
            for attr, value in el.attrib.items():
                assert not attr.startswith("on"), (path, el.tag, attr)
                assert "://" not in value and not value.startswith("//"), (
                    path,
                    el.tag,
                    attr,
                    value,
                )
                if attr in ("href", "src") and value not in (
                    "derivations.md",
                    "derivations.html",
                ):  # `softlin derive`
                    assert (out / value).is_file(), (path, value)
        assert "http" not in path.read_text(), path


def test_pages_are_byte_identical_across_runs_and_working_directories(tmp_path, monkeypatch):
    first, second = tmp_path / "one", tmp_path / "two"
    monkeypatch.chdir(tmp_path)
    render_synthetic(first)
    monkeypatch.chdir(first / "reports")
    render_synthetic(second)
    assert produced(first) == produced(second)
    for name in produced(first):
        if name.suffix != ".png":
            assert (first / name).read_bytes() == (second / name).read_bytes(), name
        else:
            assert np.array_equal(
                pixels((first / name).read_bytes()), pixels((second / name).read_bytes())
            )


def test_the_gold_input_is_a_valid_certificate_for_the_renderer(tmp_path):
    shutil.copytree(GOLD / "certificates", tmp_path / "certificates")
    assert [c["claim"] for c in render.load_certificates(tmp_path)] == [
        "synthetic-a",
        "synthetic-b",
    ]
