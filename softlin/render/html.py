"""Static HTML pages from certificates: `index.html` (verdict table) and `<claim>.html`.

The pages are self-contained: one inline style sheet, no scripts, no fonts or images fetched from
anywhere (the only resources are the claim's own `figures/<claim>.png`, linked relatively), so they
work offline from a file:// URL. Math is the presentation MathML that the claim stored in its
certificate (`formulas_mathml`, printed by SymPy), which browsers lay out natively; a formula
without MathML is shown as its LaTeX source in a code block.

The markup is also well-formed XML (void elements self-closed, only numeric character references),
so tests can parse every page with the standard library. Pure: the bytes depend on the certificates
only (no clock, no paths, no versions beyond the certificate's provenance).
"""

from __future__ import annotations

import html
import json
import xml.etree.ElementTree as ET

from ..judge.check import UNITS
from ..mathml import numeric_entities
from . import figure_png, figures, html_tables, markup, text

MATHML_ELEMENTS = frozenset(
    {
        "math",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msup",
        "msub",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mstyle",
        "merror",
        "mpadded",
        "mphantom",
        "munder",
        "mover",
        "munderover",
        "mmultiscripts",
        "mprescripts",
        "none",
        "mtable",
        "mtr",
        "mtd",
        "semantics",
        "annotation",
    }
)
MATHML_ATTRIBUTES = frozenset(
    {
        "display",
        "displaystyle",
        "scriptlevel",
        "mathvariant",
        "mathsize",
        "stretchy",
        "symmetric",
        "largeop",
        "movablelimits",
        "accent",
        "accentunder",
        "fence",
        "separator",
        "form",
        "lspace",
        "rspace",
        "minsize",
        "maxsize",
        "linethickness",
        "width",
        "height",
        "depth",
        "voffset",
        "columnalign",
        "rowalign",
        "columnspan",
        "rowspan",
        "columnspacing",
        "rowspacing",
        "columnlines",
        "rowlines",
        "frame",
        "framespacing",
        "encoding",
        "dir",
    }
)
_MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"

STYLE = """\
:root { color-scheme: light; }
body { margin: 0; background: #f3f4f6; color: #1f2328; line-height: 1.45;
  font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif; }
nav { max-width: 64rem; margin: 0 auto; padding: .6rem 2rem; font-size: .9rem; }
main { max-width: 64rem; margin: 0 auto 2rem; padding: 1.2rem 2rem 2rem; background: #fff;
  border: 1px solid #d8dee4; border-radius: 6px; }
h1 { font-size: 1.55rem; margin: .2rem 0 .6rem; }
h2 { font-size: 1.15rem; margin-top: 1.8rem; padding-bottom: .2rem; \
border-bottom: 1px solid #d8dee4; }
a { color: #0a58ca; }
table { border-collapse: collapse; width: 100%; font-size: .88rem; }
th, td { border: 1px solid #d8dee4; padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
td.num { font-family: "DejaVu Sans Mono", monospace; }
.n { white-space: nowrap; }
td.unit { white-space: nowrap; color: #57606a; }
table.checks details { margin-top: .2rem; font-size: .82rem; color: #57606a; }
dl.units { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; \
font-size: .8rem;
  color: #57606a; margin: .5rem 0 0; }
dl.units dt { font-family: "DejaVu Sans Mono", monospace; }
dl.units dd { margin: 0; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
.scroll { overflow-x: auto; max-width: 100%; }
table.grid { width: auto; font-size: .8rem; }
table.grid td { border: none; padding: 0 .4rem; text-align: right; }
p.witness { margin: .4rem 0 .2rem 1rem; font-size: .85rem; font-weight: bold; color: #57606a; }
table.witness { width: auto; margin-left: 1rem; font-size: .82rem; }
td.id { white-space: nowrap; }
.status { display: inline-block; padding: .05rem .6rem; border-radius: 1rem; font-weight: bold; }
.verified { background: #dafbe1; color: #116329; }
.refuted { background: #ffebe9; color: #a40e26; }
.inconclusive { background: #fff8c5; color: #7d4e00; }
.pass { color: #116329; }
.fail { color: #a40e26; font-weight: bold; }
.undecided { color: #7d4e00; }
.not-judged { color: #57606a; font-style: italic; }
.detail { display: block; color: #57606a; font-size: .82rem; margin-top: .2rem; }
.check-id { font-weight: 600; white-space: nowrap; }
.meta { color: #57606a; }
figure { margin: 1rem 0; }
figure.formula { padding: .5rem 1rem; background: #f6f8fa; border-left: 3px solid #8c959f; \
overflow-x: auto; }
figure.formula figcaption, figure.plot figcaption { font-size: .85rem; color: #57606a; }
math { font-size: 1.2rem; font-family: "DejaVu Math TeX Gyre", "STIX Two Math", \
"Latin Modern Math", math; }
details summary { font-size: .8rem; color: #57606a; cursor: pointer; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; font-size: .8rem; \
white-space: pre-wrap; }
img { max-width: 100%; height: auto; }
dl.erratum { margin: .3rem 0 .8rem 1rem; font-size: .88rem; }
dl.erratum dt { font-weight: bold; color: #57606a; }
dl.erratum dd { margin: 0 0 .3rem 1rem; }
footer { font-size: .8rem; color: #57606a; margin-top: 2rem; }
"""


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def units_legend(checks: list[dict]) -> list[str]:
    """What each unit in the checks table means (softlin.core.claim.UNITS), those used only."""
    used = sorted({c.get("unit", "") for c in checks} - {""})
    if not used:
        return []
    items = "".join(f"<dt>{esc(u)}</dt><dd>{esc(UNITS.get(u, ''))}</dd>" for u in used)
    return [f'<dl class="units">{items}</dl>']


def mathml(markup: str, where: str) -> str:
    """Validated MathML for the page: well-formed, MathML Core elements and layout attributes only
    (no links, no event handlers, no styles), a <math> root (a bare fragment is wrapped in one).
    Anything else is a ValueError naming `where`."""
    if not isinstance(markup, str) or "<!" in markup or "<?" in markup:
        raise ValueError(f"{where} is not a MathML string")
    try:
        root = ET.fromstring(numeric_entities(markup))
    except (ET.ParseError, ValueError) as exc:
        raise ValueError(f"{where} is not well-formed MathML: {exc}") from exc
    for el in root.iter():
        el.tag = el.tag.removeprefix(_MATHML_NS)
        if el.tag == "mfenced":
            raise ValueError(
                f"{where} uses <mfenced>, which browsers no longer render (use <mo> fences)"
            )
        if el.tag not in MATHML_ELEMENTS:
            raise ValueError(
                f"{where} has element <{el.tag}>, not a MathML element the pages allow"
            )
        for attr in el.attrib:
            if attr not in MATHML_ATTRIBUTES:
                raise ValueError(
                    f"{where} has attribute {attr!r} on <{el.tag}>, which the pages do not allow"
                )
    if root.tag != "math":
        wrapper = ET.Element("math", {"display": "block"})
        wrapper.append(root)
        root = wrapper
    return ET.tostring(root, encoding="unicode")


def page(title: str, nav: list[tuple[str, str]], body: list[str]) -> str:
    links = " · ".join(f'<a href="{esc(href)}">{esc(label)}</a>' for label, href in nav)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8" />',
            '<meta name="viewport" content="width=device-width, initial-scale=1" />',
            f"<title>{esc(title)}</title>",
            "<style>",
            STYLE.rstrip("\n"),
            "</style>",
            "</head>",
            "<body>",
            f"<nav>{links}</nav>",
            "<main>",
            *body,
            "</main>",
            "</body>",
            "</html>",
            "",
        ]
    )


def status_badge(status: str) -> str:
    return f'<span class="status {esc(status)}">{esc(status)}</span>'


def _result(check: dict) -> str:
    word = text.check_result(check)
    return f'<span class="{word.lower().replace(" ", "-")}">{word}</span>'


def _check_id(cid: str, check: dict) -> str:
    """The check's id, shown without its claim prefix and used as the row's anchor
    (claim page#id)."""
    full = check.get("id", "")
    if not full:
        return ""
    return f'<code class="check-id" id="{esc(full)}">{esc(full.removeprefix(cid + "/"))}</code> '


def formula_block(
    cid: str, name: str, tex, mml, caption: str | None = None, link: str | None = None
) -> str:
    """One formula: its MathML with the LaTeX source folded below, or the LaTeX source alone."""
    label = esc(caption or name)
    if link:
        label = f'<a href="{esc(link)}">{label}</a>'
    caption = f"<figcaption>{label}</figcaption>"
    if mml:
        parts = [
            f'<figure class="formula" id="formula-{esc(cid)}-{esc(name)}">',
            caption,
            mathml(mml, f"certificate {cid}: formulas_mathml[{name!r}]"),
        ]
        if tex:
            parts.append(
                f"<details><summary>LaTeX</summary><pre><code>{esc(tex)}</code></pre></details>"
            )
        return "\n".join(parts + ["</figure>"])
    return "\n".join(
        [
            f'<figure class="formula no-mathml" id="formula-{esc(cid)}-{esc(name)}">',
            f"<figcaption>{label} (LaTeX source: this certificate has no MathML for it)"
            f"</figcaption>",
            f"<pre><code>{esc(tex)}</code></pre>",
            "</figure>",
        ]
    )


errata_list = html_tables.errata_list


def compact_json(obj) -> str:
    """A JSON object with one top-level key per line (matrices stay on their key's line)."""
    if not isinstance(obj, dict) or not obj:
        return json.dumps(obj)
    return "{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items()) + "\n}"


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from the PNG header."""
    if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
        raise ValueError("figure is not a PNG")
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def legend_attribute(png: bytes) -> str:
    """` data-legend-px="..."`: the legend text height the figure recorded (figure_png.py), for the
    browser test to scale by the displayed size; empty when the figure has no legend."""
    px = figure_png.legend_px_of(png)
    return "" if px is None else f' data-legend-px="{px:g}"'


def figure_caption(cert: dict) -> str:
    """What the claim's figure draws, in words: `figures.caption(cert)` when the figure module gives
    one, else a caption that names only the axes (the legend inside the figure names the curves),
    chosen by the same series shape as `figures.figure_png`."""
    own = getattr(figures, "caption", None)
    if callable(own):
        return own(cert)
    series = cert.get("series", {})
    if isinstance(series.get("authors_experiment"), dict):
        return "Final test risk against the prompt length L; the legend names each curve."
    if isinstance(series.get("regimes"), dict):
        return (
            "Error against the prompt length L in each regime of lambda (log-log); the legend "
            "names each curve."
        )
    return (
        "Error of finite prompts against the prompt length L (log-log); the legend names each "
        "curve."
    )


def claim_page(cert: dict, figure: bytes | None, below: dict | None = None) -> str:
    """The page of one claim; `figure` is the PNG the renderer made for it (for its size), or
    None; `below` what it rests on (graph.beneath), or None for a claim outside the registry."""
    cid = cert["claim"]
    ok, judged, total = text.passed_count(cert)
    body = [
        f"<h1><code>{esc(cid)}</code>: {esc(cert.get('title', ''))}</h1>",
        f'<p>{status_badge(cert["status"])} <span class="meta">'
        f'{ok} of {judged} judged checks passed'
        + (f" ({total - judged} not judged)" if total > judged else "")
        + "; "
        f"profile <code>{esc(cert['profile'])}</code>, seed {esc(cert['seed'])}"
        + f"; {esc(text.tiers_summary(cert))}"
        + "</span></p>",
        "<h2>Statement</h2>",
        f"<p>{markup.to_html(cert.get('statement', ''), f'certificate {cid}: statement')}</p>",
    ]
    if cert.get("hypotheses"):
        body += (
            ["<h2>Hypotheses</h2>", "<ul>"]
            + [
                f"<li>{markup.to_html(h, f'certificate {cid}: hypotheses')}</li>"
                for h in cert["hypotheses"]
            ]
            + ["</ul>"]
        )
    if below is not None:
        body += ["<h2>Rests on</h2>", f"<p>{esc(text.beneath_text(below))}</p>"]
    formulas, mathmls = cert.get("formulas", {}), cert.get("formulas_mathml", {})
    names = list(formulas) + [n for n in mathmls if n not in formulas]
    if names:
        body.append("<h2>Derived formulas (SymPy)</h2>")
        body += [formula_block(cid, n, formulas.get(n), mathmls.get(n)) for n in names]
    body += [
        "<h2>Checks</h2>",
        "<table class=\"checks\">",
        "<thead><tr><th>check</th><th>tier</th><th>value</th><th>bound</th><th>unit</th>"
        "<th>result</th></tr></thead>",
        "<tbody>",
    ]
    for c in cert["checks"]:
        unit = c.get("unit", "")
        body.append(
            f"<tr><td>{_check_id(cid, c)}{esc(c['name'])}<details><summary>detail</summary>"
            f"{esc(text.check_detail(c))} (kind: {esc(c['kind'])})</details></td>"
            f"<td>{esc(c['tier'])}</td>"
            f"<td class=\"num\">{html_tables.numbers(text.fmt(c['value']))}</td>"
            f"<td class=\"num\">{html_tables.numbers(text.fmt(c['bound']))}</td>"
            f"<td class=\"unit\" title=\"{esc(UNITS.get(unit, ''))}\">{esc(unit)}</td>"
            f"<td>{_result(c)}</td></tr>"
        )
    body += ["</tbody>", "</table>"] + units_legend(cert["checks"])
    if cert.get("quantities"):
        body += html_tables.quantities_section(cid, cert["quantities"])
    if figure is not None:
        w, h = png_size(figure)
        body += [
            "<h2>Figure</h2>",
            '<figure class="plot">',
            f'<img src="figures/{esc(cid)}.png" width="{w}" height="{h}"{legend_attribute(figure)} '
            f'alt="{esc(cid)}: {esc(figure_caption(cert))}" />',
            f"<figcaption>{esc(figure_caption(cert))}</figcaption>",
            "</figure>",
        ]
    if text.has_bound_series(cert):
        steps = text.BOUND_PROOF_BODY.replace("\n", " ")
        for marker in (" (i) ", " (ii) ", " With probability"):
            steps = steps.replace(marker, "\n" + marker.lstrip())
        first, *rest = steps.split("\n")
        body += [
            "<h2>Proof of the Monte Carlo bound</h2>",
            f"<p><strong>{esc(text.BOUND_PROOF_TITLE)}</strong> {esc(first)}</p>",
        ]
        body += [f"<p>{esc(step)}</p>" for step in rest]
    if cert.get("errata"):
        body += ["<h2>Errata</h2>"] + errata_list(
            text.all_errata([cert], raw=True), link_claims=False
        )
    body += [
        "<h2>Scenario</h2>",
        f"<pre>{esc(compact_json(cert['scenario']))}</pre>",
        "<h2>Provenance</h2>",
        f"<pre>{esc(compact_json(cert.get('provenance', {})))}</pre>",
        f"<footer>Generated by <code>softlin report</code> from "
        f"<code>certificates/{esc(cid)}.json</code>; "
        "do not edit.</footer>",
    ]
    nav = [
        ("all claims", "index.html"),
        ("Markdown", f"{cid}.md"),
        ("certificate", f"certificates/{cid}.json"),
    ]
    return page(f"softlin: {cid} ({cert['status']})", nav, body)


def index_page(certs: list[dict], phase_diagram: bool = False) -> str:
    body = [
        "<h1>softlin: verdicts</h1>",
        "<p>Each claim of Boursier &amp; Boyer, <em>Softmax as Linear Attention in the "
        "Large-Prompt Regime: a Measure-based Perspective</em> (arXiv 2512.11784), checked "
        "symbolically and numerically. A claim is <strong>verified</strong> when every check "
        "passed and some check is evidence (tier proof, enclosure, numerical, statistical or "
        "archived), <strong>refuted</strong> when an evidence check found a counterexample, "
        "<strong>inconclusive</strong> when the budget was too small to decide or a consistency "
        "check (one a formula slip cannot fail: shown, never counted as evidence) failed.</p>",
        "<table>",
        "<thead><tr><th>claim</th><th>title</th><th>status</th>"
        "<th>checks passed / judged / all</th><th>judged checks by tier</th>"
        "<th>errata</th><th>profile</th><th>seed</th></tr></thead>",
        "<tbody>",
    ]
    for cert in certs:
        cid = cert["claim"]
        body.append(
            f'<tr><td class="id"><a href="{esc(cid)}.html"><code>{esc(cid)}</code></a></td>'
            f"<td>{esc(cert.get('title', ''))}</td><td>{status_badge(cert['status'])}</td>"
            f'<td class="num">{text.count_text(cert)}</td><td>{esc(text.tiers_summary(cert))}</td>'
            f'<td class="num">{len(cert.get("errata", []))}</td>'
            f"<td><code>{esc(cert['profile'])}</code></td>"
            f"<td class=\"num\">{esc(cert['seed'])}</td></tr>"
        )
    body += ["</tbody>", "</table>"]
    headline = [
        (c["claim"], name, c.get("formulas", {}).get(name), c["formulas_mathml"][name])
        for c in certs
        for name in list(c.get("formulas_mathml", {}))[:1]
    ]
    if headline:
        body.append("<h2>Key formulas</h2>")
        body.append(
            '<p class="meta">The first derived formula of each claim; every formula is on the '
            'claim\'s page.</p>'
        )
        body += [
            formula_block(cid, name, tex, mml, caption=f"{cid}: {name}", link=f"{cid}.html")
            for cid, name, tex, mml in headline
        ]
    errata = text.all_errata(certs, raw=True)
    body.append("<h2>Errata found by the suite</h2>")
    body += (
        errata_list(errata, link_claims=True)
        if errata
        else ["<p>No certificate records an erratum.</p>"]
    )
    body += [
        "<footer>Generated by <code>softlin report</code> from <code>certificates/</code>; "
        'do not edit. The pages contain no scripts and load nothing from the network; formulas '
        'are MathML printed by SymPy. Symbolic proofs, derivation chains and emitted kernels: '
        '<a href="derivations.html">derivations.html</a>.</footer>'
    ]
    nav = [("verdicts", "index.html"), ("Markdown", "index.md"), ("claim graph", "graph.html")] + (
        [("phase diagram", "phase-diagram.html")] if phase_diagram else []
    )
    return page("softlin: verdicts", nav, body)
