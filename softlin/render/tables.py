"""Structured certificate values laid out as small tables (quantities and errata witnesses).

A certificate's quantities mix numbers with nested values: per-regime dicts (`regimes`), lists of
records (`moment_anchors`), matrices, long series. One flat name | value table prints the
nested ones as JSON and overflows the page, so they get their own tables:

- a scalar, a short list or a small matrix stays a row of the main table (a matrix as a grid);
- a dict of dicts becomes one table, a row per inner key and a column per outer key (regimes side by
  side: `below | at | above`);
- a dict of scalars becomes a name | value table;
- a list of dicts becomes one table, a row per record and a column per field (transposed when it
  would be wider than tall);
- anything still nested inside a cell is summarised on one line (`summary`): long lists by their
  length and range, dicts as `key = value` pairs.

Everything is a pure function of the value; html.py and render.py print the same layout.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import fmt

MAX_INLINE = 12  # lists longer than this are summarised
MAX_GRID = 8  # matrices up to MAX_GRID x MAX_GRID are shown as grids
MAX_ROWS = 24  # records shown of a list of dicts (the rest are counted)
MAX_COLUMNS = 8  # a list of dicts wider than this (and not taller) is transposed


@dataclass(frozen=True)
class Table:
    name: str
    columns: tuple[str, ...]  # header, the first column being the row label
    rows: tuple[tuple, ...]  # raw values; rows[i][0] is the row label
    note: str = ""


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_scalar(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def matrix(value) -> list[list] | None:
    """The value as a small rectangular grid of scalars (a list of equal-length scalar lists), or
    None."""
    if not (isinstance(value, list) and value and all(isinstance(r, list) and r for r in value)):
        return None
    width = len(value[0])
    if len(value) > MAX_GRID or width > MAX_GRID or any(len(r) != width for r in value):
        return None
    return value if all(_is_scalar(x) for r in value for x in r) else None


def summary(value) -> str:
    """One line for any JSON value: numbers to 4 digits, long lists by length and range, dicts as
    pairs."""
    if _is_scalar(value):
        return fmt(value)
    if isinstance(value, dict):
        return "; ".join(f"{k} = {summary(v)}" for k, v in value.items()) or "{}"
    if isinstance(value, list):
        grid = matrix(value)
        if grid is not None:
            return "[" + "; ".join(", ".join(fmt(x) for x in row) for row in grid) + "]"
        if len(value) <= MAX_INLINE and all(_is_scalar(v) for v in value):
            return fmt(value)
        numbers = [v for v in value if _is_number(v)]
        if numbers and len(numbers) == len(value):
            return f"({len(value)} values, {fmt(float(numbers[0]))} … {fmt(float(numbers[-1]))})"
        return f"({len(value)} items)"
    return fmt(value)


def is_nested(value) -> bool:
    """Needs a table of its own (not one cell of the main table)."""
    if isinstance(value, dict):
        return bool(value)
    if isinstance(value, list):
        return any(isinstance(v, dict) for v in value)
    return False


def _columns_of(records) -> list[str]:
    cols: list[str] = []
    for r in records:
        cols += [k for k in r if k not in cols]
    return cols


def table_of(name: str, value) -> Table:
    """The table of one nested value (see the module docstring for the layouts)."""
    if isinstance(value, dict):
        inner = list(value.values())
        if inner and all(isinstance(v, dict) for v in inner):
            keys = _columns_of(inner)
            return Table(
                name, ("", *map(str, value)), tuple((k, *(v.get(k) for v in inner)) for k in keys)
            )
        return Table(name, ("name", "value"), tuple((str(k), v) for k, v in value.items()))
    records = [v if isinstance(v, dict) else {"value": v} for v in value]
    shown = records[:MAX_ROWS]
    note = f"first {MAX_ROWS} of {len(records)} records" if len(records) > MAX_ROWS else ""
    cols = _columns_of(shown)
    if len(cols) > MAX_COLUMNS and len(shown) <= len(cols):
        return Table(
            name,
            ("", *(f"#{i + 1}" for i in range(len(shown)))),
            tuple((c, *(r.get(c) for r in shown)) for c in cols),
            note,
        )
    return Table(
        name,
        ("#", *cols),
        tuple((i + 1, *(r.get(c) for c in cols)) for i, r in enumerate(shown)),
        note,
    )


def _keyed(value) -> tuple | None:
    """The keys of a dict whose values are not dicts (a series keyed by L, say), else None."""
    if isinstance(value, dict) and value and not any(isinstance(v, dict) for v in value.values()):
        return tuple(value)
    return None


def layout(values: dict) -> tuple[list[tuple[str, object]], list[Table]]:
    """(rows of the main name | value table, tables of the nested values), in the values' order.

    Consecutive dicts over the same keys (risks keyed by L, say) share one table, a column each
    (up to MAX_COLUMNS), instead of one two-column table apiece."""
    flat, nested, group = [], [], []

    def close():
        if len(group) == 1:
            nested.append(table_of(*group[0]))
        elif group:
            keys = _keyed(group[0][1])
            nested.append(
                Table(
                    ", ".join(n for n, _ in group),
                    ("", *(n for n, _ in group)),
                    tuple((k, *(v[k] for _, v in group)) for k in keys),
                )
            )
        group.clear()

    for k, v in values.items():
        keys = _keyed(v)
        if group and (keys is None or keys != _keyed(group[0][1]) or len(group) == MAX_COLUMNS):
            close()
        if keys is not None:
            group.append((str(k), v))
        elif is_nested(v):
            nested.append(table_of(str(k), v))
        else:
            flat.append((str(k), v))
    close()
    return flat, nested
