"""The Python API, `softlin.verify` (softlin/api.py), called as a notebook user would: a dict
scenario, a TOML file, bad input; the certificate it returns is the one `softlin verify` prints and
writes, and nothing is written unless `out=` asks."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import io
import json
import subprocess
import sys

import numpy as np
import pytest

import softlin
from softlin import api, certio, cli
from softlin.core import registry

# lemma-2.1 on a small scenario at quick: a few seconds a run
SCENARIO = {
    "d": 2,
    "mean": [0.5, -0.2],
    "cov": [[1.0, 0.3], [0.3, 0.2]],
    "U": [[0.4, 0.1], [-0.2, 0.3]],
    "V": [[1.0, 0.0], [0.0, 2.0]],
    "L": [16, 64],
    "trials": 400,
}
TOML = """d = 2
mean = [0.5, -0.2]
cov = [[1.0, 0.3], [0.3, 0.2]]
U = [[0.4, 0.1], [-0.2, 0.3]]
V = [[1.0, 0.0], [0.0, 2.0]]
L = [16, 64]
trials = 400
"""


def test_a_dict_a_toml_file_and_the_cli_give_one_certificate_and_only_out_writes(tmp_path):
    """The same claim and scenario three ways: the API on a dict (NumPy arrays in it; run in an
    empty folder with every certificate write watched), the API on the TOML file with `out=`, and
    `softlin verify --scenario FILE --profile quick --json -`. One test, so the three runs are made
    once (xdist_group does not keep a module fixture on one worker here)."""
    (tmp_path / "small.toml").write_text(TOML)
    here = tmp_path / "here"
    here.mkdir()
    as_arrays = {**SCENARIO, "cov": np.array(SCENARIO["cov"]), "U": np.array(SCENARIO["U"])}
    writes = []
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(here)
        mp.setattr(certio, "atomic_write", lambda path, data: writes.append(path))
        cert = softlin.verify("lemma-2.1", scenario=as_arrays, profile="quick")
    assert writes == [] and list(here.iterdir()) == [] and cert.path is None

    from_file = softlin.verify(
        "lemma-2.1", scenario=tmp_path / "small.toml", profile="quick", out=tmp_path / "api-out"
    )
    assert from_file.to_json() == cert.to_json()
    assert from_file.path == tmp_path / "api-out" / "certificates" / "lemma-2.1.json"
    assert from_file.path.read_text() == cert.to_json()
    assert sorted(p.name for p in (tmp_path / "api-out").rglob("*")) == [
        "certificates",
        "lemma-2.1.json",
    ]  # no pages

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        argv = ["verify", "lemma-2.1", "--scenario", str(tmp_path / "small.toml"), "--profile"]
        code = cli.main([*argv, "quick", "--json", "-", "--out", str(tmp_path / "cli-out")])
    assert code == 0 and cert.status == "verified"
    assert json.loads(printed.getvalue()) == [json.loads(cert.to_json())]
    assert printed.getvalue() == certio.dumps([cert.data])  # the same bytes
    written = tmp_path / "cli-out" / "certificates" / "lemma-2.1.json"
    assert written.read_text() == cert.to_json()

    recorded = cert.data["scenario"]
    assert recorded["cov"] == SCENARIO["cov"] and recorded["trials"] == 400
    assert (cert.data["profile"], cert.data["seed"]) == ("quick", 0)
    ids = [r["id"] for r in cert.data["checks"]]
    assert [c.id for c in cert.checks] == ids and len(ids) > 5
    first = cert.checks[0]
    assert (first.tier, first.value, first.bound, first.passed) == tuple(
        cert.data["checks"][0][k] for k in ("tier", "value", "bound", "passed")
    )
    page = cert._repr_html_()
    assert "<b>verified</b>" in page and all(f"<td>{i}</td>" in page for i in ids)
    assert "statistical" in page and "<th>rule</th>" in page  # every check states its rule
    assert "lemma-2.1: verified" in repr(cert)


def certificate_with(checks: list[dict]) -> dict:
    """A certificate as written, with these checks (the views read nothing else but its header)."""
    return {
        "format": 1,
        "claim": "lemma-2.1",
        "title": "Gaussian prompts make softmax attention affine",
        "status": "refuted",
        "profile": "quick",
        "seed": 0,
        "checks": checks,
    }


def test_the_html_view_counts_checks_by_tier_and_shows_a_rule_when_a_check_has_one():
    check = {"name": "n", "kind": "montecarlo", "unit": "|z|", "detail": "d"}
    data = certificate_with(
        [
            {**check, "id": "lemma-2.1/a", "tier": "statistical", "passed": False, "value": 7.5},
            {**check, "id": "lemma-2.1/b", "tier": "proof", "passed": True, "value": 2},
            {**check, "id": "lemma-2.1/c", "tier": "statistical", "passed": True, "value": 1.0},
        ]
    )
    page = api.Certificate(data)._repr_html_()
    assert "<b>refuted</b>" in page and "1 proof, 2 statistical" in page
    assert "<td>FAIL</td>" in page and "<th>rule</th>" not in page
    data["checks"][0]["rule"] = "|value| <= bound"
    cert = api.Certificate(data)
    assert "<th>rule</th>" in cert._repr_html_()
    assert "<td>|value| &lt;= bound</td>" in cert._repr_html_()
    assert cert.checks[0].rule == "|value| <= bound" and cert.checks[1].rule is None
    assert repr(cert).startswith("<Certificate lemma-2.1: refuted; 2 of 3 judged checks passed")


@pytest.mark.parametrize(
    "claim, kwargs, fragment",
    [
        ("lemma-9.9", {}, "unknown claim id 'lemma-9.9'"),
        (2.1, {}, "claim 2.1"),
        ("lemma-2.1", {"profile": "huge"}, "profile 'huge'"),
        ("lemma-2.1", {"seed": -1}, "seed -1"),
        ("lemma-2.1", {"seed": True}, "seed True"),
        ("lemma-2.1", {"seed": 1.5}, "seed 1.5"),
        ("lemma-2.1", {"scenario": {"wobble": 1}}, "unknown scenario key 'wobble'"),
        ("lemma-2.1", {"scenario": {"mixture": {"weights": [1.0]}}}, "table [mixture]"),
        ("lemma-2.1", {"scenario": {"L": [16, 8]}}, "L = [16, 8]"),
        ("lemma-2.1", {"scenario": {"d": 2, "cov": [[1, 0], [0, -1]]}}, "cov is not positive"),
        ("lemma-2.1", {"scenario": {"trials": {1, 2}}}, "trials = {1, 2}"),
        ("lemma-2.1", {"scenario": {1: 2}}, "scenario key 1"),
        ("lemma-2.1", {"scenario": {"seed": 3}}, "seed = 3"),
        ("lemma-2.1", {"scenario": 42}, "scenario 42"),
        ("lemma-2.1", {"scenario": "/nonexistent.toml"}, "'/nonexistent.toml' does not exist"),
        ("lemma-2.1", {"scenario": {"trials": 10**12, "L": [10**9]}}, "above the 4 GiB cap"),
        ("lemma-2.1", {"scenario": {"trials": 10**6, "L": [1024, 4096, 16384]}}, "--max-minutes"),
    ],
)
def test_bad_input_is_a_value_error_naming_the_value_before_any_run(
    claim, kwargs, fragment, monkeypatch
):
    def ran(*args):
        raise AssertionError("the claim ran")  # run_reported: InternalError, not ValueError

    monkeypatch.setitem(
        registry.CLAIMS, "lemma-2.1", dataclasses.replace(registry.get("lemma-2.1"), run=ran)
    )
    with pytest.raises(ValueError) as caught:
        softlin.verify(claim, **kwargs)
    assert fragment in str(caught.value)


def test_an_out_that_is_a_file_is_refused_before_the_run(tmp_path, monkeypatch):
    monkeypatch.setitem(
        registry.CLAIMS,
        "lemma-2.1",
        dataclasses.replace(registry.get("lemma-2.1"), run=lambda *a: pytest.fail("it ran")),
    )
    (tmp_path / "a-file").write_text("x")
    with pytest.raises(ValueError, match="out='.*a-file'.*is a regular file"):
        softlin.verify("lemma-2.1", out=tmp_path / "a-file")


def test_import_softlin_loads_neither_numpy_nor_sympy():
    heavy = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, softlin; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'numpy', 'sympy', 'scipy'}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert heavy.stdout.strip() == "[]"


def test_the_package_entry_point_has_the_api_signature():
    def shape(fn):
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    assert shape(softlin.verify) == shape(api.verify)
