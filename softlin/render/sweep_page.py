"""The phase-diagram page: the committed lambda sweeps rendered as
reports/phase-diagram.{md,html} and reports/figures/phase-diagram.png.

Input: reports/sweeps/<name>/summary.json for the built-in sweeps `rates` (prop-3.1, the output) and
`rates-gradients` (prop-3.4, grad V and grad U), as `softlin sweep --builtin NAME` writes them.
The page shows the figure (render/sweep_figure.py), a table of the points (lambda, kappa(lambda),
the naive exponent, measured slope +- s.e., exact finite-L slope, first-order coefficient, status,
certificate), the commands that produced it, and a reading computed from the numbers (so it stays
true when they change). Pure: the same summaries give the same bytes; no summary, no page.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import html, html_tables, sweep_figure
from .sweep_figure import num

SWEEPS = ("rates", "rates-gradients")
NAME = "phase-diagram"


def load_summaries(out: Path) -> list[tuple[str, dict]]:
    """(sweep name, summary) of each built-in lambda sweep present under out/sweeps with measured
    slopes."""
    found = []
    for name in SWEEPS:
        path = Path(out) / "sweeps" / name / "summary.json"
        if path.is_file():
            try:
                summ = json.loads(path.read_text())
            except json.JSONDecodeError as exc:
                raise ValueError(f"sweep summary {path}: not JSON ({exc})") from None
            if not isinstance(summ, dict) or not isinstance(summ.get("points"), list):
                raise ValueError(f"sweep summary {path}: no list of points")
            if sweep_figure.plottable(summ):
                found.append((name, summ))
    return found


def _f(x, digits: int = 4) -> str:
    return f"{x:.{digits}g}" if num(x) else "-"


def _pm(x, se) -> str:
    return f"{x:.3f} ± {se:.3f}" if num(x) and num(se) else _f(x)


def rows(name: str, summ: dict) -> list[list[str]]:
    """One row per point and series: sweep, series, lambda, kappa, naive, measured +- s.e., exact,
    z, first order, status, cert."""
    out = []
    for p in sorted(summ["points"], key=lambda p: p["params"]["lambda"]):
        for label, meas, se, exact, first, _, _ in sweep_figure.series_of(summ):
            z = (
                ((p[meas] - p[exact]) / p[se])
                if all(num(p.get(k)) for k in (meas, exact, se)) and p[se] > 0
                else None
            )
            out.append(
                [
                    f"{summ['claim']} {label}",
                    _f(p["params"]["lambda"], 3),
                    _f(p.get("exponent")),
                    _f(p.get("naive_exponent")),
                    _pm(p.get(meas), p.get(se)),
                    _f(p.get(exact)),
                    _f(z, 2),
                    _f(p.get(first)),
                    p.get("status", "-"),
                    f"sweeps/{name}/{p['certificate']}",
                ]
            )
    return out


HEADER = [
    "series",
    "lambda",
    "kappa(lambda)",
    "naive",
    "measured slope ± s.e.",
    "exact finite-L slope",
    "(measured - exact) / s.e.",
    "first-order coefficient",
    "status",
    "certificate",
]


def reading(summaries: list[tuple[str, dict]]) -> list[str]:
    """Sentences read off the numbers (agreement with the exact slopes, statuses, the naive exponent
    against the measured slopes above the threshold), then what the curves mean."""
    lines = []
    for name, summ in summaries:
        for label, meas, se, exact, *_ in sweep_figure.series_of(summ):
            pts = [
                p
                for p in summ["points"]
                if all(num(p.get(k)) for k in (meas, se, exact)) and p[se] > 0
            ]
            if not pts:
                continue
            zmax = max(abs(p[meas] - p[exact]) / p[se] for p in pts)
            above = [
                p
                for p in pts
                if p["params"]["lambda"] > 0.5
                and num(p.get("naive_exponent"))
                and num(p.get("exponent"))
            ]
            beats = sum(p[meas] - 2 * p[se] > p["naive_exponent"] for p in above)
            over = sum(p[meas] > p["exponent"] for p in above)
            verified = sum(p.get("status") == "verified" for p in summ["points"])
            line = (
                f"{summ['claim']} {label} (sweep {name}, {verified}/{len(summ['points'])} points "
                f"verified): the measured slope is within {zmax:.2f} standard errors of the exact "
                f"finite-L slope at every lambda"
            )
            if above:
                line += (
                    f"; above the threshold it exceeds the naive min(1, 1/(2 lambda)) by more than "
                    f"2 standard errors at {beats} of {len(above)} lambdas, and lies above "
                    f"kappa(lambda) at {over} of the {len(above)} (below it at the others)"
                )
            lines.append(line + ".")
        unsettled = [p for p in summ["points"] if p.get("status") != "verified"]
        if unsettled:
            why = sorted(
                {
                    f"{c.get('id') or c['name']} "
                    f"({'failed' if c['passed'] is False else 'undecided'})"
                    for p in unsettled
                    for c in p.get("checks_not_passed", [])
                }
            )
            lines.append(
                f"{summ['claim']}: {len(unsettled)} of {len(summ['points'])} points are not "
                f"verified ({', '.join(sorted({p['status'] for p in unsettled}))}), at lambda = "
                + ", ".join(f"{p['params']['lambda']:g}" for p in unsettled)
                + (f"; the checks that did not pass: {'; '.join(why)}." if why else ".")
            )
    lines.append(
        "Below lambda = 1/2 the exponent is 1 and the first-order coefficient lim L E||err||^2 is "
        "finite, growing without bound as lambda -> 1/2; near the threshold the finite-L slopes "
        "sit below 1 because the approach to the first order is slow there (L^-rho, rho -> 0). "
        "Above it kappa(lambda) < 1 is the exponent as L -> infinity (the claims check it by exact "
        "quadrature to L = e^64 in their built-in regimes); at the prompt lengths of a quick sweep "
        "the slopes are still pre-asymptotic (logarithmic factors, which differ between the output "
        "and the gradients), so each measured slope is tested against the exact finite-L slope "
        "over the same L, not against kappa."
    )
    return lines


def commands(summaries: list[tuple[str, dict]]) -> list[str]:
    lines = [
        (
            f"softlin sweep --builtin {name}",
            f"{s['claim']}, profile {s['profile']}, sweep seed {s['seed']}, "
            f"{len(s['points'])} points, kernels {s.get('kernels_input_hash', '?')[:12]}",
        )
        for name, s in summaries
    ]
    lines.append(("softlin report", "this page, from reports/sweeps/*/summary.json"))
    width = max(len(c) for c, _ in lines) + 2
    return [f"{c:<{width}}# {why}" for c, why in lines]


CAPTION = (
    "Left: decay exponent of each query-averaged squared error against lambda (U scaled): measured "
    "log-log slope ± s.e. (points), exact finite-L slope over the same L (bars), derived "
    "kappa(lambda) (solid), naive min(1, 1/(2 lambda)) (dotted), threshold lambda = 1/2 (dashed). "
    "Right: derived first-order coefficients below the threshold, with prop-3.1's Monte Carlo "
    "estimate where it runs one."
)


def markdown(summaries, png_name: str) -> str:
    lines = [
        "# The rate phase diagram",
        "",
        "Generated by `softlin report` from `sweeps/*/summary.json`; do not edit. "
        "[All claims](index.md) · [HTML](phase-diagram.html)",
        "",
        f"![phase diagram]({png_name})",
        "",
        CAPTION,
        "",
        "## Reading",
        "",
    ]
    lines += [f"- {r}" for r in reading(summaries)]
    lines += ["", "## Points", "", "| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for name, summ in summaries:
        for r in rows(name, summ):
            lines.append("| " + " | ".join(r[:-1]) + f" | [json]({r[-1]}) |")
    lines += ["", "## How it was produced", "", "```"] + commands(summaries) + ["```", ""]
    return "\n".join(lines)


def html_page(summaries, png_name: str, png: bytes) -> str:
    esc = html.esc
    w, h = html.png_size(png)
    body = [
        "<h1>The rate phase diagram</h1>",
        '<figure class="plot">',
        f'<img id="phase-diagram" src="{esc(png_name)}" width="{w}" '
        f'height="{h}"{html.legend_attribute(png)} '
        'alt="decay exponents of the output and gradient errors against lambda, and the '
        'first-order coefficients" />',
        f"<figcaption>{esc(CAPTION)}</figcaption>",
        "</figure>",
        "<h2>Reading</h2>",
        "<ul>",
    ]
    body += [f"<li>{esc(r)}</li>" for r in reading(summaries)]
    body += [
        "</ul>",
        "<h2>Points</h2>",
        "<table>",
        "<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in HEADER) + "</tr></thead>",
        "<tbody>",
    ]
    for name, summ in summaries:
        for r in rows(name, summ):
            body.append(
                "<tr>"
                + "".join(f'<td class="num">{html_tables.numbers(c)}</td>' for c in r[:-1])
                + f'<td><a href="{esc(r[-1])}">json</a></td></tr>'
            )
    body += [
        "</tbody>",
        "</table>",
        "<h2>How it was produced</h2>",
        f"<pre>{esc(chr(10).join(commands(summaries)))}</pre>",
        "<footer>Generated by <code>softlin report</code> from <code>sweeps/*/summary.json</code>; "
        "do not edit.</footer>",
    ]
    return html.page(
        "softlin: the rate phase diagram",
        [("all claims", "index.html"), ("Markdown", f"{NAME}.md")],
        body,
    )


def files(out: Path) -> dict[Path, bytes]:
    """The page's files (path -> bytes), or {} when no sweep summary is present."""
    out = Path(out)
    summaries = load_summaries(out)
    if not summaries:
        return {}
    png = sweep_figure.phase_diagram_png([s for _, s in summaries])
    png_name = f"figures/{NAME}.png"
    return {
        out / png_name: png,
        out / f"{NAME}.md": markdown(summaries, png_name).encode(),
        out / f"{NAME}.html": html_page(summaries, png_name, png).encode(),
    }
