"""Renderers read certificates only, are pure, and `stale_pages` notices any drift."""

import json

import matplotlib.image as mpimg
import numpy as np
import pytest

from softlin.claims import lemma21, scenario
from softlin.claims.cli import claim_rng
from softlin.reports import render


@pytest.fixture(scope="module")
def certificate():
    s = scenario.merge(lemma21.default_scenario(), {}, lemma21.SCENARIO_KEYS)
    return lemma21.run(s, "quick", claim_rng(0, "lemma-2.1"))


def test_pages_carry_statement_formula_checks_and_figure(tmp_path, certificate):
    render.write_certificate(tmp_path, certificate)
    written = render.render_all(tmp_path)
    page = (tmp_path / "lemma-2.1.md").read_text()
    assert certificate["statement"] in page
    assert r"V \left(\Gamma U z + m\right)" in page            # SymPy's LaTeX of the derived limit
    assert page.count("| pass |") == len(certificate["checks"])
    assert "figures/lemma-2.1.png" in page
    img = mpimg.imread(tmp_path / "figures" / "lemma-2.1.png")
    assert img.shape[0] > 100 and img.std() > 0.01             # a real picture, not a blank
    index = (tmp_path / "index.md").read_text()
    assert "[`lemma-2.1`](lemma-2.1.md)" in index and "**verified**" in index
    assert len(written) == 3


def test_rendering_is_pure_and_stale_pages_detects_edits(tmp_path, certificate):
    render.write_certificate(tmp_path, certificate)
    render.render_all(tmp_path)
    assert render.stale_pages(tmp_path) == []
    page = tmp_path / "lemma-2.1.md"
    page.write_text(page.read_text() + "edited\n")
    cert_path = tmp_path / "certificates" / "lemma-2.1.json"
    cert = json.loads(cert_path.read_text())
    cert["series"]["main"]["rmse"][0] *= 2
    cert_path.write_text(json.dumps(cert))
    assert set(render.stale_pages(tmp_path)) == {page, tmp_path / "figures" / "lemma-2.1.png"}


def test_a_malformed_certificate_is_a_value_error(tmp_path):
    (tmp_path / "certificates").mkdir()
    (tmp_path / "certificates" / "x.json").write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        render.render_all(tmp_path)


def test_nonfinite_numbers_are_spelled_out_not_silent():
    from softlin.claims.base import jsonable
    assert jsonable({"a": float("inf"), "b": [np.float64("nan")], "c": np.int64(3)}) == {"a": "inf", "b": ["nan"], "c": 3}
