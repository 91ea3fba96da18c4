"""The claim graph (softlin/render/graph.py): edges from the claims' `rests_on`, a layout whose
boxes never overlap and whose arrows never run through a box, colours from the verdicts."""

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from softlin.core import registry
from softlin.core.claim import Claim
from softlin.render import graph

REPO = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"


def _certs():
    return [
        json.loads(p.read_text())
        for p in sorted((REPO / "reports" / "certificates").glob("*.json"))
    ]


def _boxes(corner):
    return {cid: (x, y, x + graph.NODE_W, y + graph.NODE_H) for cid, (x, y) in corner.items()}


def _crosses(p, q, box) -> bool:
    """Whether segment pq passes through the open rectangle `box` (sampled finely: the segments are
    straight and the boxes far larger than the step)."""
    x0, y0, x1, y1 = box
    steps = 400
    for i in range(1, steps):
        t = i / steps
        x, y = p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])
        if x0 + 1 < x < x1 - 1 and y0 + 1 < y < y1 - 1:
            return True
    return False


def _assert_readable(nodes, edges):
    corner, paths = graph.layout(nodes, edges)
    boxes = _boxes(corner)
    ids = list(boxes)
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = boxes[a], boxes[b]
            assert ax1 <= bx0 or bx1 <= ax0 or ay1 <= by0 or by1 <= ay0, f"{a} and {b} overlap"
    for (a, b), points in paths.items():
        assert boxes[a][1] < boxes[b][1], f"{a} -> {b} does not point down"
        assert points[0] == (corner[a][0] + graph.NODE_W / 2, boxes[a][3])
        assert points[-1] == (corner[b][0] + graph.NODE_W / 2, corner[b][1])
        for p, q in zip(points, points[1:]):
            for cid, box in boxes.items():
                assert not _crosses(p, q, box), f"edge {a} -> {b} runs through the box of {cid}"


def test_the_registry_graph_has_every_declared_edge_and_a_readable_layout():
    nodes, edges = graph.nodes_and_edges(_certs())
    assert [n["id"] for n in nodes] == list(registry.CLAIMS)
    declared = {(dep, cid) for cid, claim in registry.CLAIMS.items() for dep in claim.rests_on}
    assert (
        set(edges) == declared
        and ("prop-3.4", "thm-4.3") in declared
        and ("asm-3.3", "prop-3.4") in declared
    )
    assert {n["paper"] for n in nodes} >= {
        "Lemma 2.1",
        "Proposition 3.1",
        "Assumption 3.3",
        "Proposition 3.4",
        "Theorem 4.3",
        "Theorem 5.2",
        "softlin",
    }
    _assert_readable(nodes, edges)
    corner, _ = graph.layout(nodes, edges)
    assert (
        corner["lemma-2.1"][1] == corner["asm-3.3"][1] < corner["prop-3.1"][1]
    )  # foundations on top


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 10).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.sets(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(
                    lambda e: e[0] < e[1]
                ),
                max_size=2 * n,
            ),
        )
    )
)
def test_any_acyclic_graph_is_drawn_without_overlaps_or_arrows_through_boxes(case):
    n, pairs = case
    nodes = [{"id": f"c{i}"} for i in range(n)]
    _assert_readable(nodes, sorted((f"c{a}", f"c{b}") for a, b in pairs))


def test_a_cycle_and_an_undeclared_or_later_claim_are_refused():
    with pytest.raises(ValueError, match="cycle: a -> b -> a"):
        graph.layout([{"id": "a"}, {"id": "b"}], [("b", "a"), ("a", "b")])
    run = lambda *_: {}
    first, second = Claim("a", "", "", (), run), Claim("b", "", "", (), run, rests_on=("a",))
    registry.check_rests_on({"a": first, "b": second})
    with pytest.raises(ValueError, match="rests on 'nope', which is not a registered claim"):
        registry.check_rests_on({"a": Claim("a", "", "", (), run, rests_on=("nope",))})
    with pytest.raises(ValueError, match="rests on a, which does not come before it"):
        registry.check_rests_on({"b": second, "a": first})


def test_nodes_are_coloured_by_verdict_and_link_to_the_claim_pages():
    certs = _certs()
    refuted = next(c for c in certs if c["claim"] == "thm-4.3")
    refuted = {**refuted, "status": "refuted"}
    others = [c for c in certs if c["claim"] not in ("thm-4.3", "mixture")]
    root = ET.fromstring(graph.svg(others + [refuted]))
    links = {a.get("data-id"): a for a in root.iter(f"{SVG}a")}
    assert set(links) == set(registry.CLAIMS) - {"mixture"}  # no certificate, no page: no link
    boxes = {
        **links,
        **{g.get("data-id"): g for g in root.iter(f"{SVG}g") if g.get("class") == "node"},
    }
    fill = {cid: a.find(f"{SVG}rect").get("fill") for cid, a in boxes.items()}
    assert (
        fill["thm-4.3"] == graph.FILL["refuted"][0]
        and fill["lemma-2.1"] == graph.FILL["verified"][0]
    )
    assert fill["mixture"] == graph.FILL[None][0]
    assert all(a.get("href") == f"{cid}.html" for cid, a in links.items())
    texts = " ".join(t.text for t in root.iter(f"{SVG}text"))
    assert "Theorem 4.3 · thm-4.3" in texts and "not run" in texts


def test_the_committed_graph_shows_each_claims_judged_checks_by_tier():
    svg = (REPO / "reports" / "graph.svg").read_text()
    for cert in _certs():
        assert graph.tier_counts(cert) in svg, cert["claim"]
    lemma = next(c for c in _certs() if c["claim"] == "lemma-2.1")
    counted = dict(re.findall(r"(proof|num|stat) (\d+)", graph.tier_counts(lemma)))
    tiers = [c["tier"] for c in lemma["checks"] if c.get("judged", True)]
    assert int(counted["stat"]) == tiers.count("statistical") and int(
        counted["proof"]
    ) == tiers.count("proof")


def test_a_claim_whose_premise_is_not_verified_is_not_drawn_green():
    """thm-5.2 rests on thm-4.3 (registry): with thm-4.3 refuted, thm-5.2's own certificate still
    says verified, but its box is grey and reads "verified, a premise is not"; a claim resting only
    on verified claims stays green."""
    certs = _certs()
    refuted = {**next(c for c in certs if c["claim"] == "thm-4.3"), "status": "refuted"}
    root = ET.fromstring(graph.svg([c for c in certs if c["claim"] != "thm-4.3"] + [refuted]))
    fill = {a.get("data-id"): a.find(f"{SVG}rect").get("fill") for a in root.iter(f"{SVG}a")}
    assert "thm-4.3" in registry.CLAIMS["thm-5.2"].rests_on
    assert fill["thm-5.2"] == graph.FILL["verified, a premise is not"][0]
    assert fill["prop-3.1"] == graph.FILL["verified"][0]  # rests on lemma-2.1, verified
    unchanged = ET.fromstring(graph.svg(certs))
    fill = {a.get("data-id"): a.find(f"{SVG}rect").get("fill") for a in unchanged.iter(f"{SVG}a")}
    assert fill["thm-5.2"] == graph.FILL["verified"][0]
