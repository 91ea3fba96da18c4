"""The scenario-key reference of docs/scenarios.md, generated from the claim registry (each claim's
`keys`, its built-in scenario for the defaults) and kept in sync by `softlin report`, checked by
`softlin report --check`: the block between the markers

    <!-- softlin:scenario-keys:begin -->   ...   <!-- softlin:scenario-keys:end -->
"""

from __future__ import annotations

import json

from ..core.registry import CLAIMS

DEFAULT_WIDTH = 40


def _shape(value) -> str:
    if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
        return f"{len(value)} x {len(value[0])} matrix"
    if isinstance(value, list):
        return f"{len(value)} values"
    return "a table"


def _default(scenario: dict, key) -> str:
    table = scenario.get(key.table, {}) if key.table else scenario
    if key.name not in table:
        return "none"
    value = table[key.name]
    text = json.dumps(value, separators=(", ", ": "))
    return f"`{text}`" if len(text) <= DEFAULT_WIDTH else _shape(value)


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def reference() -> str:
    """One table per claim, in the registry's order: key (with its table), type, default,
    meaning."""
    out = []
    for claim in CLAIMS.values():
        default = claim.default_scenario()
        out += [
            f"### `{claim.id}`",
            "",
            "| key | type | built-in value | meaning |",
            "|---|---|---|---|",
        ]
        for key in claim.keys:
            where = f"`[{key.table}] {key.name}`" if key.table else f"`{key.name}`"
            out.append(
                f"| {where} | {_cell(key.type)} | {_cell(_default(default, key))} | "
                f"{_cell(key.meaning)} |"
            )
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"
