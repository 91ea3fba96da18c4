"""Issue 41, item 6: the README's picture, reports/preview.png, is drawn by the program from the
current verdict page. `softlin report --preview` stamps the screenshot with what it was drawn from
(softlin/render/preview_stamp.py); here the committed picture's stamp is compared with the
committed index.html, so a preview left behind when the verdicts, counts or layout change fails.
(tests/render/test_browser.py takes a real screenshot and checks its stamp, with Chromium.)"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from softlin.render import preview_stamp

REPO = Path(__file__).resolve().parents[2]
INDEX = REPO / "reports" / "index.html"
PREVIEW = REPO / "reports" / "preview.png"


def test_the_committed_preview_is_drawn_from_the_committed_verdict_page():
    stamp = preview_stamp.read(PREVIEW.read_bytes())
    assert stamp is not None, "reports/preview.png has no stamp: run `softlin report --preview`"
    assert stamp == preview_stamp.summary(INDEX.read_text(encoding="utf-8")), (
        "reports/preview.png is stale: run `softlin report --preview`"
    )


def test_the_summary_holds_every_claims_row_of_the_page():
    page = preview_stamp.summary(INDEX.read_text(encoding="utf-8"))
    claims = sorted(p.stem for p in (REPO / "reports" / "certificates").glob("*.json"))
    assert sorted(row[0] for row in page["verdicts"]) == claims
    for _, status, counts in page["verdicts"]:
        assert status in ("verified", "refuted", "inconclusive")
        assert len(counts.split(" / ")) == 3


def _page(status="verified", counts="12 / 12 / 12", detail="1 proof", extra_column=False):
    extra = ("<th>new</th>", "<td>x</td>") if extra_column else ("", "")
    return (
        "<html><body><table><tr><td>not the verdicts</td></tr></table>"
        "<table><thead><tr><th>claim</th><th>status</th><th>checks passed / judged / all</th>"
        f"{extra[0]}</tr></thead><tbody><tr><td><a>lemma-2.1</a></td>"
        f'<td><span class="status {status}">{status}</span></td><td>{counts}</td>{extra[1]}'
        f"</tr></tbody></table><p>{detail}</p></body></html>"
    )


def test_a_changed_verdict_count_or_layout_makes_the_stamp_stale_and_a_digit_does_not():
    """The sensitivity of the comparison above: each change a reader would see in the picture's
    table moves the summary; a changed number in running text does not (no false staleness)."""
    base = preview_stamp.summary(_page())
    assert base["verdicts"] == [["lemma-2.1", "verified", "12 / 12 / 12"]]
    assert preview_stamp.summary(_page(status="refuted")) != base  # status text and its class
    assert preview_stamp.summary(_page(counts="11 / 12 / 12")) != base
    assert preview_stamp.summary(_page(extra_column=True))["layout"] != base["layout"]
    assert preview_stamp.summary(_page(detail="2 proofs")) == base
    with pytest.raises(ValueError, match="no verdict table"):
        preview_stamp.summary("<html><table><tr><td>x</td></tr></table></html>")


def _crc_ok(png: bytes) -> bool:
    at = 8
    while at < len(png):
        (n,) = struct.unpack(">I", png[at : at + 4])
        body = png[at + 4 : at + 8 + n]
        if struct.unpack(">I", png[at + 8 + n : at + 12 + n])[0] != zlib.crc32(body):
            return False
        at += 12 + n
    return at == len(png)


def test_a_stamp_round_trips_replaces_an_earlier_one_and_keeps_the_png_valid():
    png = PREVIEW.read_bytes()
    first = preview_stamp.stamp(png, {"verdicts": [], "layout": "a"})
    again = preview_stamp.stamp(first, {"verdicts": [["x", "refuted", "0 / 1 / 1"]], "layout": "b"})
    assert preview_stamp.read(again) == {"verdicts": [["x", "refuted", "0 / 1 / 1"]], "layout": "b"}
    assert again.count(preview_stamp.KEYWORD) == 1 and _crc_ok(again)
    assert again.endswith(b"IEND\xaeB`\x82")  # IEND stays last
    with pytest.raises(ValueError, match="not a PNG"):
        preview_stamp.read(b"GIF89a")
