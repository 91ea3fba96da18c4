"""The generated pages in a real browser: headless Chromium lays out the MathML (non-empty boxes,
raised superscripts, stacked fractions), loads every image, fetches nothing from the network.

Slow (starts a browser): excluded from the default run; .ci/run installs Chromium and runs this
file explicitly with SOFTLIN_REQUIRE_BROWSER=1, which turns "no Chromium" from a skip into a
failure. The harness is softlin/render/browser.py (Chrome DevTools Protocol over a pipe, standard
library). Run with -s to see the measurements.
"""

import io
import json
import os
import shutil
import time
from pathlib import Path

import matplotlib.image as mpimg
import pytest

from softlin import cli
from softlin.render import browser, preview_stamp, render

from .make_gold import render_synthetic

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
WIDTH = 1100


@pytest.fixture(scope="module")
def chromium():
    executable = browser.find_chromium()
    if executable is None:
        if os.environ.get("SOFTLIN_REQUIRE_BROWSER") == "1":
            pytest.fail(
                "SOFTLIN_REQUIRE_BROWSER=1 but no Chromium was found (apt-get install chromium)"
            )
        pytest.skip(
            "Chromium is not installed (Debian package `chromium`); "
            ".ci/run installs it and runs this test"
        )
    with browser.Chromium(executable, width=WIDTH, height=800) as b:
        yield b


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The committed claims' certificates and the synthetic gold certificates, rendered afresh."""
    root = tmp_path_factory.mktemp("site")
    real = root / "real" / "reports"
    shutil.copytree(REPO / "reports" / "certificates", real / "certificates")
    render.render_all(real)
    synthetic = render_synthetic(root / "synthetic")
    return real, synthetic


def _pixels(png: bytes):
    return mpimg.imread(io.BytesIO(png), format="png")


def test_every_generated_page_lays_out_its_math_and_loads_every_image(chromium, site, tmp_path):
    real, synthetic = site
    pages = sorted(real.glob("*.html")) + sorted(synthetic.glob("*.html"))
    totals = {"pages": 0, "math": 0, "images": 0, "sups": 0, "fracs": 0}
    for page in pages:
        start = time.perf_counter()
        report = chromium.open(page.as_uri())
        assert report.problems() == [], f"{page}: {report.problems()}"
        cid = page.stem
        cert_path = page.parent / "certificates" / f"{cid}.json"
        if cert_path.exists():  # a claim page: one block <math> per MathML formula, its figure
            cert = json.loads(cert_path.read_text())  # (statements and hypotheses add inline math)
            blocks = [m for m in report.math if m["display"] == "block math"]
            assert len(blocks) == len(cert.get("formulas_mathml", {})), cid
            assert len(report.images) == int((page.parent / "figures" / f"{cid}.png").exists()), cid
        png = chromium.screenshot()
        img = _pixels(png)
        assert (
            img.shape[1] == WIDTH and img.shape[0] >= 400 and img.std() > 0.02
        )  # a page, not a blank
        (tmp_path / f"{page.parent.parent.name}-{cid}.png").write_bytes(png)
        totals["pages"] += 1
        for key in ("math", "images", "sups", "fracs"):
            totals[key] += len(getattr(report, key))
        sizes = ", ".join(f"{m['w']:.0f}x{m['h']:.0f}" for m in report.math)
        print(
            f"{page.parent.parent.name}/{page.name}: math [{sizes}] images "
            f"{[(i['src'], i['naturalWidth'], i['naturalHeight']) for i in report.images]} "
            f"sup raise {[round(s, 2) for s in report.sups]} "
            f"frac gap {[round(f, 1) for f in report.fracs]} "
            f"requests {len(report.requests)} ({time.perf_counter() - start:.2f} s)"
        )
    print(totals)
    # Not vacuous: the real claims carry MathML and figures, the synthetic one superscripts and
    # fractions.
    assert (
        totals["math"] >= 6
        and totals["images"] >= 3
        and totals["sups"] >= 4
        and totals["fracs"] >= 3
    )
    for cid in ("lemma-2.1", "mixture"):
        assert (real / f"{cid}.html").exists()


def test_the_harness_sees_a_broken_image_hidden_math_and_math_without_mathml_layout(
    chromium, tmp_path
):
    """Negative control: the same measurements must flag what a reader would see as broken."""
    broken = tmp_path / "broken.html"
    broken.write_text(
        '<!DOCTYPE html>\n<html><body><img src="missing.png" alt="gone" />'
        '<div style="display: none"><math><mi>x</mi></math></div></body></html>\n'
    )
    problems = chromium.open(broken.as_uri()).problems()
    assert any("image 'missing.png' did not load" in p for p in problems), problems
    assert any("math element with empty box" in p for p in problems), problems
    flat = tmp_path / "flat.html"
    flat.write_text(
        "<!DOCTYPE html>\n<html><head><style>math, math * { display: inline !important; }</style>"
        "</head><body><math><msup><mi>x</mi><mn>2</mn></msup><mfrac><mn>1</mn><mi>L</mi></mfrac>"
        "</math></body></html>\n"
    )
    problems = chromium.open(flat.as_uri()).problems()
    assert any("not laid out as MathML" in p for p in problems), problems
    assert any("superscript not raised" in p for p in problems), problems
    assert any("fraction not stacked" in p for p in problems), problems


def test_the_harness_measures_a_small_legend_and_a_broken_number(chromium, tmp_path):
    """Negative control for the pages' readability checks: a figure whose recorded legend height,
    scaled to the width it is shown at, is under LEGEND_MIN_CSS_PX, a number wrapped inside a narrow
    cell and one running out of it are flagged; the same figure shown at its natural size is not."""
    from softlin.render.browser import LEGEND_MIN_CSS_PX
    from softlin.render.figure_png import png
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3), dpi=100)
    ax.plot([1, 2], [1, 2], label="a curve")
    ax.legend(fontsize=10)
    (tmp_path / "f.png").write_bytes(png(fig))
    from softlin.render.figure_png import legend_px_of

    px = legend_px_of((tmp_path / "f.png").read_bytes())
    assert px is not None and px > LEGEND_MIN_CSS_PX  # 10 pt at 100 dpi: readable at natural size
    narrow = 0.5 * LEGEND_MIN_CSS_PX / px  # shown at this fraction: half the minimum
    page = tmp_path / "small.html"
    page.write_text(
        '<!DOCTYPE html>\n<html><body>'
        f'<img src="f.png" data-legend-px="{px}" style="width: {800 * narrow:.0f}px" />'
        '<img src="f.png" data-legend-px="' + str(px) + '" style="width: 800px" />'
        '<table><tr><td class="num" style="width: 3ch; max-width: 3ch; overflow-wrap: anywhere">'
        '123456789.123456</td>'
        '<td class="num" style="width: 3ch; max-width: 3ch; white-space: nowrap; overflow: hidden">'
        '98765.4321</td></tr></table></body></html>\n'
    )
    problems = chromium.open(page.as_uri()).problems()
    legends = [p for p in problems if p.startswith("legend of")]
    assert len(legends) == 1 and f"< {LEGEND_MIN_CSS_PX:g}" in legends[0], problems
    assert any("number '123456789.123456' broken over" in p for p in problems), problems
    assert any("number '98765.4321' runs out of its cell" in p for p in problems), problems


def test_report_preview_writes_a_screenshot_of_the_index(chromium, site):
    real, _ = site
    assert cli.main(["report", "--preview", "--out", str(real)]) == 0
    img = _pixels((real / "preview.png").read_bytes())
    assert img.shape[1] == WIDTH and img.std() > 0.02
    assert real / "preview.png" not in render.rendered(real)  # a screenshot, not part of --check
    # stamped with the page it shows (tests/render/test_preview_stamp.py reads the committed one)
    stamp = preview_stamp.read((real / "preview.png").read_bytes())
    assert stamp == preview_stamp.summary((real / "index.html").read_text(encoding="utf-8"))


def test_the_phase_diagram_page_loads_its_figure_and_links_every_point(chromium, tmp_path):
    """The committed rate sweeps rendered as the phase-diagram page: the figure loads at its natural
    size, nothing is fetched from the network, and every point's certificate link resolves."""
    real = tmp_path / "reports"
    shutil.copytree(REPO / "reports" / "certificates", real / "certificates")
    shutil.copytree(REPO / "reports" / "sweeps", real / "sweeps")
    render.render_all(real)
    page = real / "phase-diagram.html"
    report = chromium.open(page.as_uri())
    assert report.problems() == [], report.problems()
    srcs = [
        (i["src"].rsplit("/", 1)[-1], i["naturalWidth"], i["naturalHeight"]) for i in report.images
    ]
    assert (
        len(srcs) == 1
        and srcs[0][0] == "phase-diagram.png"
        and srcs[0][1] > 800
        and srcs[0][2] > 300
    ), srcs
    html = page.read_text()
    links = [part.split('"', 1)[0] for part in html.split('<a href="')[1:]]
    points = [link for link in links if link.startswith("sweeps/")]
    summaries = [
        json.loads((real / "sweeps" / n / "summary.json").read_text())
        for n in ("rates", "rates-gradients")
    ]
    assert (
        len(set(points)) == sum(len(s["points"]) for s in summaries) > 0
    )  # every point (prop-3.4: 2 rows each)
    assert all((real / link).is_file() for link in points)
    assert 'href="phase-diagram.html"' in (real / "index.html").read_text()
    img = _pixels(chromium.screenshot())
    assert img.shape[1] == WIDTH and img.std() > 0.02


def test_no_claim_page_falls_back_to_latex_and_none_is_wider_than_the_window(chromium, site):
    """Every formula of every committed claim is MathML (the renderer's LaTeX fallback says "no
    MathML"), and nested quantities sit in their own tables: no page scrolls sideways."""
    real, _ = site
    for page in sorted(real.glob("*.html")):
        markup = page.read_text()
        assert "no-mathml" not in markup and "no MathML" not in markup, page.name
        report = chromium.open(page.as_uri())
        assert report.width <= WIDTH, f"{page.name} is {report.width} px wide"


def test_the_derivation_report_lays_out_its_mathml(chromium):
    """reports/derivations.html as committed (written by `softlin derive`): every formula is MathML
    the browser lays out, with real superscripts and fractions, and nothing is wider than the
    window."""
    import xml.etree.ElementTree as ET

    page = REPO / "reports" / "derivations.html"
    markup = page.read_text()
    assert "no MathML" not in markup and "$$" not in markup
    figures = len(ET.fromstring(markup.removeprefix("<!DOCTYPE html>\n")).findall(".//figure"))
    report = chromium.open(page.as_uri())
    assert report.problems() == [], report.problems()[:5]
    assert len(report.math) == figures >= 100  # results, chain steps, ~90 kernels
    assert len(report.sups) >= 50 and len(report.fracs) >= 50
    assert report.width <= WIDTH, f"derivations.html is {report.width} px wide"
    print(
        f"derivations.html: {len(report.math)} formulas, {len(report.sups)} superscripts, "
        f"{len(report.fracs)} fractions, {report.height} px tall"
    )


GRAPH_NODES = """(() => Array.from(document.querySelectorAll('a.node')).map(a => {
    const r = a.getBoundingClientRect();
    return {id: a.dataset.id, href: a.getAttribute('href'), \
x: r.left, y: r.top, w: r.width, h: r.height};
}))()"""


def test_the_claim_graph_shows_every_claim_as_a_box_inside_the_page_linking_to_its_page(
    chromium, site
):
    """reports/graph.html as a reader's browser lays it out: one box per registered claim, each with
    its size, inside the viewport's width, none overlapping another, each linking to a page that
    exists."""
    from softlin.core import registry

    real, _ = site
    report = chromium.open((real / "graph.html").as_uri())
    assert report.problems() == []
    boxes = chromium.call(
        "Runtime.evaluate", session=True, expression=GRAPH_NODES, returnByValue=True
    )["result"]["value"]
    assert sorted(b["id"] for b in boxes) == sorted(registry.CLAIMS)
    for b in boxes:
        assert b["w"] > 200 and b["h"] > 50 and 0 <= b["x"] and b["x"] + b["w"] <= WIDTH, b
        assert (real / b["href"]).is_file(), b
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["w"] <= b["x"]
                or b["x"] + b["w"] <= a["x"]
                or a["y"] + a["h"] <= b["y"]
                or b["y"] + b["h"] <= a["y"]
            )
            assert apart, (a, b)
