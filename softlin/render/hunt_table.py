"""The table of committed hunt results for docs/hunt.md, generated from reports/hunt-results/*.json
(the summaries `softlin hunt` writes) and kept in sync by `softlin report` (block `hunt-results`).

One row per summary: the claim, the number of examples N, the result, the judged runs (and how many
had an undecided check), the regions the runs covered, the examples outside the claim's hypotheses
(with the first words of each reason), the wall time and the commit the hunt ran on.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import text

HEADER = (
    "claim",
    "N",
    "result",
    "judged runs (undecided)",
    "regions",
    "outside the hypotheses",
    "wall",
    "code",
)
REASON_WORDS = 8


def _cell(value) -> str:
    return text.md(value).replace("|", "\\|").replace("\n", " ")


def _reason(reason: str) -> str:
    words = reason.split()
    return " ".join(words[:REASON_WORDS]) + (" ..." if len(words) > REASON_WORDS else "")


def row(summary: dict) -> list[str]:
    regions = ", ".join(f"{name}: {n}" for name, n in summary.get("regions", {}).items())
    outside = summary.get("outside_hypotheses", {})
    outside_text = (
        f"{sum(outside.values())} ("
        + "; ".join(f"{n}: {_reason(r)}" for r, n in outside.items())
        + ")"
        if outside
        else "0"
    )
    commit = str(summary.get("provenance", {}).get("source_commit", "?"))[:7]
    return [
        f"`{summary['claim']}`",
        str(summary.get("examples", "?")),
        str(summary.get("result", "?")),
        f"{summary.get('runs', '?')} ({summary.get('undecided_runs', '?')})",
        regions,
        outside_text,
        f"{summary.get('seconds', 0):.0f} s",
        commit,
    ]


def block(folder: Path) -> str:
    """The Markdown table of every summary in `folder`, by claim id; a sentence when there is
    none."""
    paths = sorted(Path(folder).glob("*.json"))
    if not paths:
        return "No hunt summary is committed yet."
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for path in paths:
        lines.append(
            "| "
            + " | ".join(
                _cell(c) if i else c for i, c in enumerate(row(json.loads(path.read_text())))
            )
            + " |"
        )
    return "\n".join(lines)
