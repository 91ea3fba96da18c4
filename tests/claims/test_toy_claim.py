"""A claim is added by its module alone: a toy claim (tests/claims/toy_claim.py), registered here
only, appears in `softlin list`, its [toy] table passes the CLI's scenario loader, it gets an
estimate, the hunt draws from its space (and finds a wrong closed form), and its certificate is
rendered to its pages and figure. No list elsewhere names it."""

from __future__ import annotations

import dataclasses
import json

import pytest

from softlin import cli
from softlin.core import registry

from . import toy_claim
from .test_registry_parts import missing_parts


@pytest.fixture
def toy(monkeypatch):
    """The registry with the toy claim after the built-in ones."""
    monkeypatch.setattr(registry, "CLAIMS", {**registry.CLAIMS, toy_claim.ID: toy_claim.CLAIM})
    return toy_claim.CLAIM


def test_the_toy_claim_is_listed_only_once_registered(toy, monkeypatch, capsys):
    assert cli.main(["list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert any(line.split()[:1] == ["toy"] and toy_claim.TITLE in line for line in listed)
    monkeypatch.setattr(
        registry, "CLAIMS", {k: v for k, v in registry.CLAIMS.items() if k != "toy"}
    )
    assert cli.main(["list"]) == 0
    assert "toy" not in capsys.readouterr().out.split()


def test_its_table_is_read_by_the_clis_loader_and_gets_an_estimate(toy, tmp_path, capsys):
    good = tmp_path / "toy.toml"
    good.write_text("[toy]\nL = [8, 32]\n")
    assert cli.main(["verify", "toy", "--scenario", str(good), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "toy" in out and "2 direct sums" in out and "nothing was run or written" in out
    bad = tmp_path / "bad.toml"
    bad.write_text("[toy]\nL = [8]\nM = 3\n")
    assert cli.main(["verify", "toy", "--scenario", str(bad), "--dry-run"]) == 2
    assert "unknown scenario key toy.M" in capsys.readouterr().err
    zero = tmp_path / "zero.toml"
    zero.write_text("[toy]\nL = [0]\n")
    assert cli.main(["verify", "toy", "--scenario", str(zero), "--dry-run"]) == 2
    assert "toy.L = [0] must be" in capsys.readouterr().err


def test_it_runs_and_its_certificate_is_rendered_to_its_pages_and_figure(toy, tmp_path):
    good = tmp_path / "toy.toml"
    good.write_text("[toy]\nL = [8, 32]\n")
    out = tmp_path / "reports"
    assert (
        cli.main(
            [
                "verify",
                "toy",
                "--scenario",
                str(good),
                "--profile",
                "quick",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    cert = json.loads((out / "certificates" / "toy.json").read_text())
    assert cert["status"] == "verified" and cert["scenario"]["toy"] == {"L": [8, 32]}
    assert (out / "figures" / "toy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = (out / "toy.html").read_text()
    # its title, its displayed formula as MathML, its checks by id, its figure
    assert toy_claim.TITLE in page and "<math" in page and 'id="toy/direct"' in page
    assert 'id="toy/closed-form"' in page and "figures/toy.png" in page
    assert toy_claim.TITLE in (out / f"{toy.id}.md").read_text()
    assert "toy.html" in (out / "index.html").read_text()
    assert missing_parts(toy, cert) == []


def test_the_hunt_draws_from_its_space_and_finds_a_wrong_closed_form(toy, monkeypatch, tmp_path):
    assert cli.main(["hunt", "toy", "--examples", "15", "--out", str(tmp_path)]) == 0
    found = json.loads((tmp_path / "toy.json").read_text())
    assert found["result"] == "nothing found" and found["runs"] >= 1
    assert set(found["regions"]) <= set(toy.hunt.regions)
    assert sum(found["outside_hypotheses"].values()) + found["runs"] <= 15
    # a closed form that is wrong from L = 20 on: the hunt finds it and shrinks it to L = 20
    wrong = dataclasses.replace(toy, run=toy_claim.run_with(lambda L: L**2 + (L >= 20)))
    monkeypatch.setitem(registry.CLAIMS, "toy", wrong)
    assert (
        cli.main(["hunt", "toy", "--examples", "50", "--max-shrink", "200", "--out", str(tmp_path)])
        == 1
    )
    found = json.loads((tmp_path / "toy.json").read_text())
    assert found["counterexample"]["scenario"]["toy"] == {"L": [20]}
    failing = [c["id"] for c in found["counterexample"]["failing_checks"]]
    assert failing == ["toy/direct"]
