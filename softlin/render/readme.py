"""The generated parts of the README: the verdict table and the errata, kept in sync by
`softlin report` (and `softlin verify`, which re-renders).

The README next to the reports directory (`<out>/../README.md`) holds marker comments

    <!-- softlin:verdicts:begin -->   ...   <!-- softlin:verdicts:end -->
    <!-- softlin:errata:begin -->     ...   <!-- softlin:errata:end -->

and only the text between a pair is replaced. A README without markers is left alone; a README
with a begin marker and no end marker (or the reverse) is a ValueError naming it. Pure: the
blocks depend on the certificates and on the name of the reports directory (the links' prefix).
"""

from __future__ import annotations

from ..judge import levels
from . import markdown_tables, text

BLOCKS = ("verdicts", "errata", "scenario-keys", "commands", "hunt-results")


def markers(block: str) -> tuple[str, str]:
    return f"<!-- softlin:{block}:begin -->", f"<!-- softlin:{block}:end -->"


def _cell(value) -> str:
    return text.md(value).replace("|", "\\|").replace("\n", " ")


def verdicts_block(certs: list[dict], prefix: str) -> str:
    lines = [
        "| claim | statement | verdict | checks passed / judged / all | judged checks by tier |",
        "|---|---|---|---|---|",
    ]
    for cert in certs:
        cid = cert["claim"]
        lines.append(
            f"| [`{cid}`]({prefix}{cid}.md) | {_cell(cert.get('title', ''))} | "
            f"**{cert['status']}** | {text.count_text(cert)} | {_cell(text.tiers_summary(cert))} |"
        )
    profiles = sorted({f"`{c['profile']}`, seed {c['seed']}" for c in certs})
    decisions = [r for c in certs for r in c["checks"] if levels.counted(r)]
    if decisions:
        proven = [r for r in decisions if r["false_alarm"]["kind"] == "bound"]
        bound = min(1.0, sum(c.get("false_alarm", {}).get("bound", 0.0) for c in certs))
        nominal = min(1.0, sum(c.get("false_alarm", {}).get("nominal", 0.0) for c in certs))
        lines += [
            "",
            f"Family-wise false alarm (a union bound over the {len(decisions)} statistical "
            f"decisions of these certificates): a correct suite fails one with probability at most "
            f"{bound:.2g} from the {len(proven)} whose level is a proven finite-sample bound, plus "
            f"{nominal:.2g} from the {len(decisions) - len(proven)} whose level is nominal (normal "
            "or Student-t statistics under the assumption each check states). Each judged control "
            "can also miss its wrong formula, with probability 1 - power (at most 1e-3 where its "
            "power is computed beforehand, on its claim's page), which makes its claim refuted or "
            "inconclusive.",
        ]
    lines += [
        "",
        f"Verdicts of the committed certificates ({'; '.join(profiles) or 'none yet'}); "
        f"pages: [{prefix}index.html]({prefix}index.html) (HTML, MathML) and "
        f"[{prefix}index.md]({prefix}index.md); what rests on what, coloured by verdict: the claim "
        f"graph [{prefix}graph.svg]({prefix}graph.svg) ([{prefix}graph.html]({prefix}graph.html), "
        f"with links).",
    ]
    return "\n".join(lines)


def errata_block(certs: list[dict], prefix: str) -> str:
    items = text.all_errata(certs, raw=True)
    if not items:
        return "No certificate records an erratum yet."
    return "\n".join(markdown_tables.errata_items(items, link=lambda cid: f"{prefix}{cid}.md"))


def blocks(certs: list[dict], prefix: str) -> dict[str, str]:
    from . import scenario_keys

    return {
        "verdicts": verdicts_block(certs, prefix),
        "errata": errata_block(certs, prefix),
        "scenario-keys": scenario_keys.reference(),
    }


def has_markers(readme: str) -> bool:
    return any(m in readme for block in BLOCKS for m in markers(block))


def sync(readme: str, generated: dict[str, str], where: str = "README.md") -> str:
    """`readme` with the text between each pair of markers replaced by `generated[block]`."""
    for block, body in generated.items():
        begin, end = markers(block)
        i, j = readme.find(begin), readme.find(end)
        if i < 0 and j < 0:
            continue
        if i < 0 or j < 0 or j < i or readme.count(begin) != 1 or readme.count(end) != 1:
            raise ValueError(
                f"{where}: the markers {begin} ... {end} must each appear once, in that order"
            )
        readme = readme[: i + len(begin)] + "\n" + body.rstrip("\n") + "\n" + readme[j:]
    return readme
