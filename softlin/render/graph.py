"""The claim graph: the paper's statements and softlin's own claims, with an arrow from each
statement to each claim that rests on it (declared as `rests_on` on each Claim), coloured by
verdict.

Written as `graph.svg` (the picture) and `graph.html` (the picture inline, with the same edges as a
list for readers without one). The layout is a layered drawing, computed here so that the same
registry and certificates give the same bytes on every machine (a layout program's output changes
with its version, and `softlin report --check` compares bytes):

- a claim's layer is the length of the longest chain of claims it rests on (foundations on top);
- within a layer, claims are ordered by the mean position of what they rest on (fewer crossings),
  ties in the registry's order (the paper's);
- each node is a link to the claim's page and holds its paper label, id, verdict and judged checks
  by evidence tier.
"""

from __future__ import annotations

from html import escape

from ..judge.check import judged, TIERS
from . import html

NODE_W, NODE_H, GAP_X, GAP_Y, MARGIN, SLOT_W = 290, 74, 30, 58, 16, 14
FILL = {
    "verified": ("#dafbe1", "#116329"),
    # verified itself, but something it rests on (directly or further down) is not: never green
    "verified, a premise is not": ("#eef1f4", "#57606a"),
    "refuted": ("#ffebe9", "#a40e26"),
    "inconclusive": ("#fff8c5", "#7d4e00"),
    None: ("#f6f8fa", "#57606a"),
}
SHORT = {
    "proof": "proof",
    "enclosure": "encl",
    "numerical": "num",
    "statistical": "stat",
    "archived": "arch",
    "consistency": "cons",
}


def nodes_and_edges(certs: list[dict]) -> tuple[list[dict], list[tuple[str, str]]]:
    """The registry's claims (and any other certified claim), each with its certificate's verdict,
    and the edges (dependency, dependent) declared by `rests_on`."""
    from ..core.registry import CLAIMS

    by_id = {c["claim"]: c for c in certs}
    ids = list(CLAIMS) + [cid for cid in by_id if cid not in CLAIMS]
    nodes = []
    for cid in ids:
        claim, cert = CLAIMS.get(cid), by_id.get(cid)
        nodes.append(
            {
                "id": cid,
                "paper": getattr(claim, "paper", "") or "softlin",
                "title": cert.get("title", "") if cert else getattr(claim, "title", ""),
                "status": cert["status"] if cert else None,
                "tiers": tier_counts(cert),
            }
        )
    edges = [(dep, cid) for cid in ids if cid in CLAIMS for dep in CLAIMS[cid].rests_on]
    return with_premises(nodes, edges), edges


def with_premises(nodes: list[dict], edges: list[tuple[str, str]]) -> list[dict]:
    """The nodes with the status they are drawn with: a verified claim stays "verified" only when
    every claim it rests on, directly or through others, is verified too; otherwise it reads
    "verified, a premise is not" (grey, not green). The registry's order puts premises first."""
    drawn: dict[str, str | None] = {}
    for n in nodes:
        premises = [a for a, b in edges if b == n["id"]]
        status = n["status"]
        if status == "verified" and any(drawn.get(p) != "verified" for p in premises):
            status = "verified, a premise is not"
        drawn[n["id"]] = status
    return [{**n, "status": drawn[n["id"]]} for n in nodes]


def beneath(cid: str, certs: list[dict]) -> dict | None:
    """What the registered claim `cid` rests on, for its page: `direct`, the ids of its rests_on;
    `all`, every claim beneath it (its premises, theirs, ...) in the registry's order, each as
    (id, its certificate's verdict, or None without one); `verified`, whether every one of them is
    verified (vacuously so for a claim that rests on none). None for a claim the registry does not
    know."""
    from ..core.registry import CLAIMS

    if cid not in CLAIMS:
        return None
    found: set[str] = set()
    todo = list(CLAIMS[cid].rests_on)
    while todo:
        dep = todo.pop()
        if dep not in found:
            found.add(dep)
            todo += CLAIMS[dep].rests_on if dep in CLAIMS else ()
    status = {c["claim"]: c["status"] for c in certs}
    below = [(d, status.get(d)) for d in CLAIMS if d in found]
    return {
        "direct": list(CLAIMS[cid].rests_on),
        "all": below,
        "verified": all(s == "verified" for _, s in below),
    }


def tier_counts(cert: dict | None) -> str:
    """ "proof 1 · num 2 · stat 6 | cons 1": the judged checks by tier, consistency apart."""
    if cert is None:
        return "no certificate"
    checks = [c for c in cert["checks"] if judged(c)]
    counts = {t: sum(c["tier"] == t for c in checks) for t in TIERS}
    evidence = (
        " · ".join(f"{SHORT[t]} {counts[t]}" for t in TIERS[:-1] if counts[t]) or "no evidence"
    )
    return evidence + (f" | cons {counts['consistency']}" if counts["consistency"] else "")


def layout(nodes: list[dict], edges: list[tuple[str, str]]) -> tuple[dict, dict]:
    """({id: top-left corner of its box}, {edge: the polyline's points}) (module docstring). An
    edge that skips layers passes through a narrow slot in each layer it crosses, placed like a
    node, so that it runs beside the boxes of those layers instead of through them."""
    order = [n["id"] for n in nodes]
    parents = {cid: [a for a, b in edges if b == cid] for cid in order}
    layer: dict[str, int] = {}

    def depth(cid: str, seen: tuple = ()) -> int:
        if cid in seen:
            raise ValueError(f"claims rest on each other in a cycle: {' -> '.join(seen + (cid,))}")
        if cid not in layer:
            layer[cid] = 1 + max((depth(p, seen + (cid,)) for p in parents[cid]), default=-1)
        return layer[cid]

    for cid in order:
        depth(cid)
    n_rows = max(layer.values(), default=-1) + 1
    rows: list[list] = [[cid for cid in order if layer[cid] == k] for k in range(n_rows)]
    above = {cid: list(parents[cid]) for cid in order}  # the items in the row above each item joins
    chains = {}
    for a, b in edges:
        chain = [a] + [("slot", a, b, k) for k in range(layer[a] + 1, layer[b])] + [b]
        for k, item in enumerate(chain[1:-1], start=1):
            rows[layer[a] + k].append(item)
            above[item] = [chain[k - 1]]
        above[b] = [chain[-2] if x == a else x for x in above[b]]
        chains[(a, b)] = chain
    width_of = lambda item: SLOT_W if isinstance(item, tuple) else NODE_W
    centre: dict = {}
    for k, row in enumerate(rows):
        row.sort(
            key=lambda it: (
                sum(centre[p] for p in above[it]) / len(above[it]) if above[it] else -1.0,
                isinstance(it, tuple),
                order.index(it if not isinstance(it, tuple) else it[1]),
            )
        )
        total = sum(width_of(it) for it in row) + GAP_X * (len(row) - 1)
        rows[k] = (row, total)
        x = -total / 2
        for it in row:
            centre[it] = x + width_of(it) / 2
            x += width_of(it) + GAP_X
    half = max((t for _, t in rows), default=0) / 2
    top = lambda k: MARGIN + k * (NODE_H + GAP_Y)
    corner = {cid: (MARGIN + half + centre[cid] - NODE_W / 2, top(layer[cid])) for cid in order}
    paths = {}
    for (a, b), chain in chains.items():
        (xa, ya), (xb, yb) = corner[a], corner[b]
        points = [(xa + NODE_W / 2, ya + NODE_H)]
        for k, slot in enumerate(chain[1:-1], start=layer[a] + 1):
            x = MARGIN + half + centre[slot]
            points += [(x, top(k)), (x, top(k) + NODE_H)]
        paths[(a, b)] = points + [(xb + NODE_W / 2, yb)]
    return corner, paths


def svg(certs: list[dict], link_suffix: str = ".html", inline: bool = False) -> str:
    """The graph as a standalone SVG document (or, `inline`, as an <svg> element for an HTML page,
    which needs no namespace declarations); nodes link to `<id><link_suffix>`."""
    nodes, edges = nodes_and_edges(certs)
    at, paths = layout(nodes, edges)
    width = max((x for x, _ in at.values()), default=0) + NODE_W + MARGIN
    height = max((y for _, y in at.values()), default=0) + NODE_H + MARGIN
    namespaces = (
        ""
        if inline
        else 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    )
    out = [
        f'<svg {namespaces}'
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        f'font-family="system-ui, sans-serif" role="img" aria-label="softlin claim graph">',
        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
        "markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
        "fill=\"#57606a\" /></marker></defs>",
    ]
    for dep, cid in edges:
        points = " ".join(f"{x:.1f},{y:.1f}" for x, y in paths[(dep, cid)])
        out.append(
            f'<polyline class="edge" data-from="{escape(dep)}" data-to="{escape(cid)}" '
            f'points="{points}" '
            'fill="none" stroke="#57606a" stroke-width="1.4" marker-end="url(#arrow)" />'
        )
    for n in nodes:
        x, y = at[n["id"]]
        fill, stroke = FILL[n["status"]]
        href = escape(n["id"] + link_suffix)
        # a claim without a certificate has no page to link to
        xlink = "" if inline else f' xlink:href="{href}"'
        opening = (
            f'<a class="node" href="{href}"{xlink} data-id="{escape(n["id"])}">'
            if n["status"]
            else f'<g class="node" data-id="{escape(n["id"])}">'
        )
        out += [
            opening,
            f'<title>{escape(n["title"])}</title>',
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{NODE_W}" height="{NODE_H}" rx="8" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1.6" />',
            f'<text x="{x + 12:.1f}" y="{y + 21:.1f}" font-size="14" font-weight="600" '
            f'fill="#1f2328">{escape(n["paper"])} · {escape(n["id"])}</text>',
            f'<text x="{x + 12:.1f}" y="{y + 42:.1f}" font-size="13" fill="{stroke}">'
            f'{escape(n["status"] or "not run")}</text>',
            f'<text x="{x + 12:.1f}" y="{y + 62:.1f}" font-size="12" fill="#57606a">'
            f'{escape(n["tiers"])}</text>',
            "</a>" if n["status"] else "</g>",
        ]
    out.append("</svg>")
    return "\n".join(out) + "\n"


def page(certs: list[dict]) -> str:
    """graph.html: the SVG inline, a key, and the edges as a list."""
    nodes, edges = nodes_and_edges(certs)
    label = {
        n["id"]: f'{n["paper"]} ({n["id"]})' if n["paper"] != "softlin" else n["id"] for n in nodes
    }
    body = [
        "<h1>softlin: the claim graph</h1>",
        "<p>An arrow from A to B: B rests on A (declared as <code>rests_on</code> on each claim). "
        "Each box links to its claim's page and gives its verdict and its judged checks by "
        "evidence tier (proof, encl = enclosure, num = numerical, stat = statistical, arch = "
        "archived; cons = consistency, not evidence). Green: verified, and so is everything it "
        "rests on; grey: verified, but something it rests on is not; red: refuted; amber: "
        "inconclusive.</p>",
        '<div class="graph" style="overflow-x: auto">',
        svg(certs, inline=True).rstrip("\n"),
        "</div>",
        "<h2>What each claim rests on</h2>",
        "<ul>",
    ]
    certified = {n["id"] for n in nodes if n["status"]}
    name = lambda cid: (
        f'<a href="{html.esc(cid)}.html">{html.esc(label[cid])}</a>'
        if cid in certified
        else f"{html.esc(label[cid])} (no certificate)"
    )
    for n in nodes:
        deps = [a for a, b in edges if b == n["id"]]
        body.append(
            f'<li>{name(n["id"])}: {", ".join(name(a) for a in deps) or "nothing here"}</li>'
        )
    body.append("</ul>")
    return html.page(
        "softlin: claim graph", [("all claims", "index.html"), ("SVG", "graph.svg")], body
    )
