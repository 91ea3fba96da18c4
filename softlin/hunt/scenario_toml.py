"""A hunt scenario as TOML that `core.scenario.load_toml` reads back exactly (`softlin hunt`, the
CLI layer).

Floats are written in their shortest round-trip form (repr), so the counterexample that
`softlin verify --scenario` re-runs is the very scenario the hunt judged.
"""

from __future__ import annotations

import json


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)  # shortest round-trip form; always has '.' or 'e'
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def to_toml(scenario: dict, header: str = "") -> str:
    """A scenario (flat keys, then [tables]) as TOML that `scenario.load_toml` reads back
    exactly."""
    lines = [f"# {line}" for line in header.splitlines()]
    lines += [f"{k} = {toml_value(v)}" for k, v in scenario.items() if not isinstance(v, dict)]
    for k, table in scenario.items():
        if isinstance(table, dict):
            lines += ["", f"[{k}]"] + [f"{kk} = {toml_value(vv)}" for kk, vv in table.items()]
    return "\n".join(lines) + "\n"
