"""Markdown of the quantities and errata sections, laid out by tables.py (the twin of
html_tables.py): a main name | value table, a small pipe table per nested value, errata witnesses as
tables."""

from __future__ import annotations

from . import tables
from .text import md


def cell(value) -> str:
    return md(tables.summary(value)).replace("|", "\\|").replace("\n", " ")


def pipe_table(columns, rows) -> list[str]:
    return [
        "| " + " | ".join(cell(c) if c else " " for c in columns) + " |",
        "|" + "---|" * len(columns),
    ] + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]


def quantities_section(quantities: dict) -> list[str]:
    flat, nested = tables.layout(quantities)
    out = ["## Quantities", ""]
    if flat:
        out += pipe_table(("name", "value"), flat) + [""]
    for t in nested:
        out += [f"### {md(t.name)}", ""] + pipe_table(t.columns, t.rows) + [""]
        if t.note:
            out += [f"({md(t.note)})", ""]
    return out


def errata_items(items, link=None) -> list[str]:
    """Errata as (claim, headline, raw fields); `link(cid)` gives the claim's page, or None for
    none."""
    out = []
    for cid, headline, fields in items:
        where = f" ([`{cid}`]({link(cid)}))" if link else ""
        out.append(f"- {md(headline)}{where}")
        out += [f"  - {md(k)}: {cell(v)}" for k, v in fields if not tables.is_nested(v)]
        for k, v in fields:
            if tables.is_nested(v):
                t = tables.table_of(k, v)
                out += (
                    ["", f"  {md(k)}:", ""]
                    + ["  " + line for line in pipe_table(t.columns, t.rows)]
                    + [""]
                )
    return out
