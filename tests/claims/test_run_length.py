"""How long each claim's `run` is (issue 39: a claim's `run` reads as its argument, about 120 lines
at most, its steps in named functions). `python -m tests.claims.test_run_length` prints the table:
the lines of the `run` function of each softlin/claims/<package>/claim.py, from its `def` to its
last line, read with `ast`.

Every claim reads the core's Setting and is held to the limit.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from softlin.core.registry import ORDER, module_of

CLAIMS_DIR = Path(__file__).resolve().parents[2] / "softlin" / "claims"
LIMIT = 120


def run_lines(source: str) -> int:
    """Lines of the module-level function `run` in `source` (0 if there is none)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == "run":
            return node.end_lineno - node.lineno + 1
    return 0


def lengths() -> dict[str, int]:
    """{claim package: lines of its run}, for every package with a claim.py."""
    return {
        p.parent.name: run_lines(p.read_text(encoding="utf-8"))
        for p in sorted(CLAIMS_DIR.glob("*/claim.py"))
    }


def test_the_measure_counts_a_function_and_only_run():
    src = "def helper():\n    pass\n\n\ndef run(s):\n    a = 1\n    return a\n"
    assert run_lines(src) == 3
    assert run_lines("def other():\n    return 1\n") == 0


@pytest.mark.parametrize("package", sorted(lengths()))
def test_every_claims_run_is_within_the_limit(package):
    assert 0 < lengths()[package] <= LIMIT, lengths()[package]


def test_every_registered_claim_is_measured():
    measured = {f"softlin.claims.{package}.claim" for package in lengths()}
    assert {module_of(cid) for cid in ORDER} <= measured


if __name__ == "__main__":
    for name, n in lengths().items():
        print(f"{name:20s} {n:4d}")
