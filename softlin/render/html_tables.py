"""HTML of the quantities and errata sections, laid out by tables.py: a main name | value table, one
small table per nested value, and errata whose witnesses are tables of named numbers.

Small matrices are printed as grids inside their cell; every table sits in a horizontally scrolling
box, so nothing widens the page."""

from __future__ import annotations

import html
import re

from . import tables

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")


def esc(value) -> str:
    return html.escape(str(value), quote=True)


def numbers(value) -> str:
    """`value` escaped, each number in a span that does not wrap (class "n"): a narrow column
    breaks between the numbers of a list, never inside one."""
    return _NUMBER.sub(lambda m: f'<span class="n">{m.group(0)}</span>', esc(value))


def cell(value) -> str:
    """One cell's content: a small matrix as a grid, anything else as its one-line summary."""
    grid = tables.matrix(value)
    if grid is not None and len(grid) > 1:
        rows = "".join(
            "<tr>" + "".join(f"<td>{numbers(tables.fmt(x))}</td>" for x in row) + "</tr>"
            for row in grid
        )
        return f'<table class="grid">{rows}</table>'
    return numbers(tables.summary(value))


def _scroll(inner: list[str]) -> list[str]:
    return ['<div class="scroll">', *inner, "</div>"]


def table_block(t: tables.Table, anchor: str, level: str = "h3") -> list[str]:
    """A nested value's own table, under a heading with its name."""
    head = "".join(f"<th>{esc(c)}</th>" for c in t.columns)
    body = [
        "<tr>"
        + f"<th>{esc(r[0])}</th>"
        + "".join(f'<td class="num">{cell(v)}</td>' for v in r[1:])
        + "</tr>"
        for r in t.rows
    ]
    note = [f'<p class="meta">{esc(t.note)}</p>'] if t.note else []
    return (
        [f'<{level} id="{esc(anchor)}">{esc(t.name)}</{level}>']
        + _scroll(
            ["<table>", f"<thead><tr>{head}</tr></thead>", "<tbody>", *body, "</tbody>", "</table>"]
        )
        + note
    )


def name_value_table(rows: list[tuple[str, object]]) -> list[str]:
    body = [f'<tr><td>{esc(k)}</td><td class="num">{cell(v)}</td></tr>' for k, v in rows]
    return _scroll(
        [
            "<table>",
            "<thead><tr><th>name</th><th>value</th></tr></thead>",
            "<tbody>",
            *body,
            "</tbody>",
            "</table>",
        ]
    )


def quantities_section(cid: str, quantities: dict) -> list[str]:
    flat, nested = tables.layout(quantities)
    out = ["<h2>Quantities</h2>"]
    if flat:
        out += name_value_table(flat)
    for t in nested:
        out += table_block(t, f"quantity-{cid}-{t.name}")
    return out


def errata_list(items, link_claims: bool) -> list[str]:
    """Errata as (claim, headline, raw fields): text fields as a definition list, nested ones
    (witnesses) as a table of named numbers."""
    out = ["<ul>"]
    for cid, headline, fields in items:
        where = f' (<a href="{esc(cid)}.html">{esc(cid)}</a>)' if link_claims else ""
        out.append(f"<li>{esc(headline)}{where}")
        plain = [(k, v) for k, v in fields if not tables.is_nested(v)]
        if plain:
            out.append('<dl class="erratum">')
            out += [f"<dt>{esc(k)}</dt><dd>{cell(v)}</dd>" for k, v in plain]
            out.append("</dl>")
        for k, v in fields:
            if tables.is_nested(v):
                t = tables.table_of(k, v)
                out += [f'<p class="witness">{esc(k)}</p>'] + _scroll(
                    ['<table class="witness">', "<tbody>"]
                    + [
                        "<tr>"
                        + f"<th>{esc(r[0])}</th>"
                        + "".join(f'<td class="num">{cell(x)}</td>' for x in r[1:])
                        + "</tr>"
                        for r in t.rows
                    ]
                    + ["</tbody>", "</table>"]
                )
        out.append("</li>")
    return out + ["</ul>"]
