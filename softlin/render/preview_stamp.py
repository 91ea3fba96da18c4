"""What a preview screenshot was drawn from, written into the PNG itself, so that a stale
`reports/preview.png` (the README's picture) can be told from a current one without a browser.

`summary(index_html)` reads the verdict page as a reader sees its content:

- `verdicts`: the verdict table's rows (claim, status, "passed / judged / all"), the counts the
  picture shows;
- `layout`: a digest of the page's element skeleton (tag names and classes in document order, no
  text, no other attributes), so a new column, section or row changes it while a changed digit in
  a detail does not.

`stamp(png, summary)` adds the summary as a PNG tEXt chunk (keyword `softlin-page`, JSON text)
before IEND; `read(png)` returns it (None when absent). A tEXt chunk is ancillary: viewers ignore
it and the pixels are untouched. `softlin report --preview` stamps every screenshot it takes, and a
test compares the committed preview's stamp with the committed index.html.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from html.parser import HTMLParser

KEYWORD = b"softlin-page"
SIGNATURE = b"\x89PNG\r\n\x1a\n"


class _Page(HTMLParser):
    """Collects the skeleton and the verdict table's rows (the first table whose header row starts
    with "claim")."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skeleton: list[str] = []
        self.rows: list[list[str]] = []
        self._cells: list[str] | None = None
        self._text: list[str] | None = None
        self._tables = 0
        self._in_verdicts = False
        self._depth = 0  # table nesting inside the verdict table

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class") or ""
        self.skeleton.append(f"<{tag}.{'.'.join(sorted(classes.split()))}")
        if tag == "table":
            self._tables += 1
            if self._in_verdicts:
                self._depth += 1
            elif not self.rows:
                self._in_verdicts = True
        elif self._in_verdicts and self._depth == 0:
            if tag == "tr":
                self._cells = []
            elif tag in ("td", "th") and self._cells is not None:
                self._text = []

    def handle_endtag(self, tag):
        self.skeleton.append(f"</{tag}")
        if not self._in_verdicts:
            return
        if tag == "table":
            if self._depth:
                self._depth -= 1
            else:
                self._in_verdicts = False
                if not (self.rows and self.rows[0] and self.rows[0][0] == "claim"):
                    self.rows = []  # not the verdict table: look at the next one
        elif self._depth == 0 and tag in ("td", "th") and self._text is not None:
            self._cells.append(" ".join("".join(self._text).split()))
            self._text = None
        elif self._depth == 0 and tag == "tr" and self._cells is not None:
            self.rows.append(self._cells)
            self._cells = None

    def handle_data(self, data):
        if self._text is not None:
            self._text.append(data)


def summary(index_html: str) -> dict:
    """{"verdicts": [[claim, status, counts], ...], "layout": digest} of the verdict page."""
    page = _Page()
    page.feed(index_html)
    page.close()
    if not page.rows:
        raise ValueError("no verdict table (a table whose first header is 'claim') in the page")
    header, *rows = page.rows
    status, counts = header.index("status"), header.index("checks passed / judged / all")
    layout = hashlib.sha256("".join(page.skeleton).encode()).hexdigest()[:16]
    return {"verdicts": [[r[0], r[status], r[counts]] for r in rows], "layout": layout}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _chunks(png: bytes):
    """(offset, type, data) of every chunk; ValueError on a file that is not a PNG."""
    if not png.startswith(SIGNATURE):
        raise ValueError("not a PNG file")
    at = len(SIGNATURE)
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        yield at, kind, png[at + 8 : at + 8 + length]
        at += 12 + length


def stamp(png: bytes, page: dict) -> bytes:
    """`png` with `page` (a summary) as its tEXt chunk, any earlier stamp removed."""
    text = KEYWORD + b"\x00" + json.dumps(page, sort_keys=True).encode("latin-1")
    out, end = [SIGNATURE], None
    for at, kind, data in _chunks(png):
        raw = png[at : at + 12 + len(data)]
        if kind == b"IEND":
            end = raw
        elif not (kind == b"tEXt" and data.startswith(KEYWORD + b"\x00")):
            out.append(raw)
    if end is None:
        raise ValueError("PNG without IEND")
    return b"".join(out + [_chunk(b"tEXt", text), end])


def read(png: bytes) -> dict | None:
    """The summary stamped into `png`, or None."""
    for _, kind, data in _chunks(png):
        if kind == b"tEXt" and data.startswith(KEYWORD + b"\x00"):
            return json.loads(data[len(KEYWORD) + 1 :].decode("latin-1"))
    return None
