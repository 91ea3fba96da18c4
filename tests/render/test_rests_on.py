"""A claim's page says what it rests on and whether everything beneath it is verified (issue 39),
in agreement with the claim graph, which greys a verified claim whose premise is not verified."""

from __future__ import annotations

from pathlib import Path

import pytest

from softlin.core.registry import CLAIMS
from softlin.render import graph, html, render

REPORTS = Path(__file__).resolve().parents[2] / "reports"


@pytest.fixture(scope="module")
def certs():
    return render.load_certificates(REPORTS)


def with_status(certs, cid, status):
    return [dict(c, status=status) if c["claim"] == cid else c for c in certs]


def test_the_section_lists_direct_and_further_premises(certs):
    below = graph.beneath("thm-4.3", certs)
    assert below["direct"] == ["prop-3.1", "prop-3.4"]
    assert [d for d, _ in below["all"]] == ["lemma-2.1", "prop-3.1", "asm-3.3", "prop-3.4"]
    assert graph.beneath("lemma-2.1", certs) == {"direct": [], "all": [], "verified": True}
    assert graph.beneath("not-registered", certs) is None


@pytest.mark.parametrize("premise", ["asm-3.3", "lemma-2.1"])
@pytest.mark.parametrize("status", ["refuted", "inconclusive", None])
def test_the_page_and_the_graph_agree_on_every_claim(certs, premise, status):
    # One premise far down made not verified (None: its certificate removed): every claim above
    # it says so on its page, and the graph greys exactly the verified ones among them.
    changed = (
        [c for c in certs if c["claim"] != premise]
        if status is None
        else with_status(certs, premise, status)
    )
    nodes, _ = graph.nodes_and_edges(changed)
    drawn = {n["id"]: n["status"] for n in nodes}
    by_id = {c["claim"]: c for c in changed}
    for cid in CLAIMS:
        below = graph.beneath(cid, changed)
        above = premise in [d for d, _ in below["all"]]
        assert below["verified"] is not above, cid
        if cid in by_id and by_id[cid]["status"] == "verified":
            assert (drawn[cid] == "verified") is below["verified"], cid
            page = render.claim_page(by_id[cid], False, below)
            page_html = html.claim_page(by_id[cid], None, below)
            said = "Everything beneath it is verified." if below["verified"] else "Not everything"
            said = said if below["all"] else "It rests on no other claim."
            assert said in page and said in page_html, cid
            if above:
                assert f"{premise}: {status or 'no certificate'}" in page, cid


def test_a_claim_outside_the_registry_has_no_section(certs):
    cert = dict(certs[0], claim="synthetic-x")
    assert "## Rests on" not in render.claim_page(cert, False, None)
    assert "## Rests on" in render.claim_page(certs[0], False, graph.beneath("lemma-2.1", certs))
