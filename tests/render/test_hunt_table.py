"""docs/hunt.md's table of hunt results, generated from reports/hunt-results/ (hunt_table.py)."""

import json
from pathlib import Path

from softlin.render import hunt_table, readme

REPO = Path(__file__).resolve().parents[2]


def test_a_row_says_what_the_summary_holds(tmp_path):
    summary = {
        "claim": "prop-3.1",
        "examples": 100,
        "result": "nothing found",
        "runs": 45,
        "undecided_runs": 15,
        "seconds": 1050.2,
        "regions": {"lambda < 1/2": 25, "lambda >= 1/2": 20},
        "outside_hypotheses": {
            "V Gamma V^T = 0, so every token's output is V m exactly at every L": 55
        },
        "provenance": {"source_commit": "68fece4abcdef"},
    }
    (tmp_path / "prop-3.1.json").write_text(json.dumps(summary))
    table = hunt_table.block(tmp_path).splitlines()
    assert table[0].startswith("| claim | N | result |") and len(table) == 3
    assert table[2] == (
        "| `prop-3.1` | 100 | nothing found | 45 (15) | lambda < 1/2: 25, lambda >= 1/2: 20 | "
        "55 (55: V Gamma V^T = 0, so every token's ...) | 1050 s | 68fece4 |"
    )
    assert hunt_table.block(tmp_path / "none") == "No hunt summary is committed yet."


def test_docs_hunt_holds_the_generated_table_of_every_committed_summary():
    docs = (REPO / "docs" / "hunt.md").read_text()
    begin, end = readme.markers("hunt-results")
    body = docs[docs.index(begin) + len(begin) : docs.index(end)].strip()
    assert body == hunt_table.block(REPO / "reports" / "hunt-results")
    assert len(body.splitlines()) == 2 + len(
        list((REPO / "reports" / "hunt-results").glob("*.json"))
    )
