"""Every documented scenario key reaches its claim through the loader: docs/scenarios.md's key
reference is generated from the claims' `keys`, and a TOML file holding every key of a claim passes
`softlin verify CLAIM --scenario F --dry-run` (the CLI's own path: load, merge, validate,
estimate)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from softlin import cli
from softlin.core import registry, scenario
from softlin.render import readme, scenario_keys

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "scenarios.md"


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def to_toml(s: dict) -> str:
    """A scenario dict as TOML: top-level keys, then one [table] per sub-table."""
    lines = [f"{k} = {_toml_value(v)}" for k, v in s.items() if not isinstance(v, dict)]
    for table, body in ((k, v) for k, v in s.items() if isinstance(v, dict)):
        lines += ["", f"[{table}]"] + [f"{k} = {_toml_value(v)}" for k, v in body.items()]
    return "\n".join(lines) + "\n"


def documented() -> dict[str, list[tuple[str, str]]]:
    """(table, key) per claim, read from the generated block of docs/scenarios.md."""
    begin, end = readme.markers("scenario-keys")
    text = DOC.read_text()
    block = text[text.index(begin) : text.index(end)]
    out, claim = {}, None
    for line in block.splitlines():
        if m := re.match(r"### `([^`]+)`", line):
            claim = m.group(1)
            out[claim] = []
        elif m := re.match(r"\| `(?:\[(\w+)\] )?(\w+)` \|", line):
            out[claim].append((m.group(1) or "", m.group(2)))
    return out


def test_the_reference_in_docs_is_the_registry_s():
    begin, end = readme.markers("scenario-keys")
    text = DOC.read_text()
    assert (
        text[text.index(begin) + len(begin) : text.index(end)].strip()
        == scenario_keys.reference().strip()
    )
    assert set(documented()) == set(registry.CLAIMS)


def test_every_claim_documents_every_key_it_reads():
    for claim in registry.CLAIMS.values():
        assert claim.keys, claim.id
        assert {k.table or k.name for k in claim.keys} == set(claim.scenario_keys), claim.id
        for key in claim.keys:
            assert key.type and len(key.meaning) > 5, (claim.id, key.path)
    # a sub-table accepts exactly the keys some claim documents
    assert scenario.table_keys("scalar") >= {"sigma", "points"}


@pytest.mark.parametrize("claim_id", list(registry.CLAIMS))
def test_a_toml_file_with_every_documented_key_passes_the_cli_dry_run(claim_id, tmp_path, capsys):
    claim = registry.get(claim_id)
    default = claim.default_scenario()
    keys = {path for path in documented()[claim_id]}
    user: dict = {}
    for key in claim.keys:
        assert (key.table, key.name) in keys
        table = default.get(key.table, {}) if key.table else default
        value = table[key.name] if key.name in table else key.example(default)
        (user.setdefault(key.table, {}) if key.table else user)[key.name] = value
    path = tmp_path / "every-key.toml"
    path.write_text(to_toml(user))
    assert scenario.load_toml(path) == user  # the file says what the test means
    out = tmp_path / "out"
    assert (
        cli.main(["verify", claim_id, "--scenario", str(path), "--dry-run", "--out", str(out)]) == 0
    )
    printed = capsys.readouterr().out
    assert claim_id in printed and "nothing was run or written" in printed
    assert not out.exists()
    # with no claim named, the file selects this claim among those that read every key of it, and
    # no selected claim refuses a key as one it does not read (another may still refuse a value:
    # thm-4.3 refuses the label noise > 0 of authors-experiment's file)
    code = cli.main(["verify", "--scenario", str(path), "--dry-run", "--out", str(out)])
    captured = capsys.readouterr()
    if m := re.search(r" runs ([^;]+); skipped: (.*)", captured.err):
        assert claim_id in m.group(1).split(", "), m.group(2)
    else:
        assert claim_id in captured.out
    if code != 0:
        assert "not used by" not in captured.err and "unknown scenario" not in captured.err
    # one key more than documented is refused, naming it
    user["not_a_key"] = 1
    path.write_text(to_toml(user))
    assert (
        cli.main(["verify", claim_id, "--scenario", str(path), "--dry-run", "--out", str(out)]) == 2
    )
    assert "not_a_key" in capsys.readouterr().err
