"""Open rendered pages in headless Chromium: measure what a reader would see, take screenshots.

Used by the browser test (tests/render/test_browser.py) and by `softlin report --preview`, which
writes the screenshot `reports/preview.png`. Standard library only: Chromium is started with
`--remote-debugging-pipe` and driven through the Chrome DevTools Protocol (CDP) over two pipes
(commands on the child's fd 3, replies and events on its fd 4, one JSON message per NUL-terminated
frame), so no driver package, no websocket and no TCP port are involved. The browser gets a fresh
profile directory, no network features (`--disable-background-networking`, ...), and every request
a page makes is recorded, so a test can assert that a page loaded nothing but local files.

The pages themselves contain no JavaScript: the measuring expression (`MEASURE`) is evaluated by
the test harness through CDP's Runtime.evaluate, like a person looking at the page with dev tools.

Every wait is bounded (`timeout` seconds); a browser that does not answer is killed and reported as
a RuntimeError carrying the tail of its log.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import preview_stamp
from .figure_png import LEGEND_MIN_CSS_PX

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--no-default-browser-check",
    "--remote-debugging-pipe",
)

# Evaluated in the page by the harness. For each <math>: its box and computed display (a browser
# that lays out MathML gives "block math" / "inline math"); for each <msup>, how far the script's
# bottom sits above the base's bottom, in units of the base's height (MathML layout raises it by a
# good fraction of the base, SUP_RAISE; text on one line differs by font metrics only); for each
# <mfrac>, the gap between the numerator's bottom and the denominator's top (>= 0 when really
# stacked); for each <img>: whether it loaded, its natural size and the legend text height its
# figure recorded (data-legend-px, softlin/render/figure_png.py); for each number in a numeric cell
# (td.num), whether it was broken over lines (its range has boxes on more than one line) or runs out
# of its cell.
MEASURE = (
    r"""(() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return {w: r.width, h: r.height}; };
  const math = [...document.querySelectorAll("math")].map((e) => ({
    ...box(e), display: getComputedStyle(e).display, mathml: e instanceof MathMLElement,
    text: e.textContent.slice(0, 60)}));
  const sups = [...document.querySelectorAll("msup")].map((e) => {
    const base = e.children[0].getBoundingClientRect(),"""
    r""" script = e.children[1].getBoundingClientRect();
    return (base.bottom - script.bottom) / base.height; });
  const fracs = [...document.querySelectorAll("mfrac")].map((e) =>
    e.children[1].getBoundingClientRect().top - e.children[0].getBoundingClientRect().bottom);
  const images = [...document.images].map((i) => ({src: i.getAttribute("src"), complete: i.complete,
    naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight, ...box(i),
    legendPx: i.dataset.legendPx ? parseFloat(i.dataset.legendPx) : null}));
  const numbers = [];
  for (const cell of document.querySelectorAll("td.num")) {
    const edge = cell.getBoundingClientRect().right + 0.5;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rects = [...range.getClientRects()].filter((r) => r.width > 0);
        const lines = new Set(rects.map((r) => Math.round(r.top))).size;
        const right = Math.max(...rects.map((r) => r.right));
        numbers.push({text: m[0], lines, overflow: right > edge});
      }
    }
  }
  return {title: document.title, scripts: document.scripts.length, math, sups, fracs, images,"""
    r""" numbers,
          width: document.documentElement.scrollWidth,"""
    r""" height: document.documentElement.scrollHeight};
})()"""
)


SUP_RAISE = 0.15


def find_chromium() -> str | None:
    """The Chromium executable: $SOFTLIN_CHROMIUM if set, else the first of CANDIDATES on PATH."""
    env = os.environ.get("SOFTLIN_CHROMIUM")
    if env:
        return env if shutil.which(env) else None
    return next((p for p in map(shutil.which, CANDIDATES) if p), None)


@dataclass
class PageReport:
    """What the browser saw on one page."""

    url: str
    title: str
    scripts: int
    math: list[dict]
    sups: list[float]
    fracs: list[float]
    images: list[dict]
    numbers: list[dict]
    width: int
    height: int
    requests: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        """Everything a reader would notice as broken (empty when the page is fine)."""
        out = []
        if self.scripts:
            out.append(f"{self.scripts} script element(s)")
        for m in self.math:
            if not (m["w"] > 0 and m["h"] > 0):
                out.append(f"math element with empty box {m['w']}x{m['h']}: {m['text']!r}")
            if not m["mathml"] or not m["display"].endswith("math"):
                out.append(
                    f"math element not laid out as MathML (display {m['display']!r}): {m['text']!r}"
                )
        out += [
            f"superscript not raised ({d:.2f} of the base height)"
            for d in self.sups
            if not d >= SUP_RAISE
        ]
        out += [f"fraction not stacked ({d:.2f} px)" for d in self.fracs if not d >= 0]
        for img in self.images:
            if not (img["complete"] and img["naturalWidth"] > 0 and img["naturalHeight"] > 0):
                out.append(f"image {img['src']!r} did not load")
            elif img.get("legendPx") is not None:
                shown = img["legendPx"] * img["w"] / img["naturalWidth"]
                if shown < LEGEND_MIN_CSS_PX:
                    out.append(
                        f"legend of {img['src']!r} shown {shown:.1f} px tall "
                        f"(< {LEGEND_MIN_CSS_PX:g})"
                    )
        out += [
            f"number {n['text']!r} broken over {n['lines']} lines"
            for n in self.numbers
            if n["lines"] > 1
        ]
        out += [f"number {n['text']!r} runs out of its cell" for n in self.numbers if n["overflow"]]
        out += [
            f"request to a non-local URL {u}"
            for u in self.requests
            if not u.startswith(("file://", "data:"))
        ]
        out += [f"failed request {u}" for u in self.failed]
        return out


def _above_four(fd: int) -> int:
    """The same pipe end renumbered to >= 10 (close-on-exec), so that mapping the child's two ends
    onto fds 3 and 4 cannot overwrite one with the other."""
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Chromium:
    """A headless Chromium driven over --remote-debugging-pipe (use as a context manager)."""

    def __init__(
        self,
        executable: str | None = None,
        *,
        width: int = 1100,
        height: int = 800,
        timeout: float = 30.0,
    ):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise RuntimeError("no Chromium found (install the Debian package `chromium`)")
        self.width, self.height, self.timeout = width, height, timeout
        self._next_id = 0
        self._buffer = b""
        self._events: list[dict] = []
        self.pid: int | None = None
        self._write = self._read = None

    # -- process and protocol -------------------------------------------------------------------

    def __enter__(self) -> "Chromium":
        self._profile = tempfile.TemporaryDirectory(prefix="softlin-chromium-")
        log = str(Path(self._profile.name) / "chromium.log")
        cmd_r, cmd_w = os.pipe()  # we write commands, the browser reads them on its fd 3
        res_r, res_w = os.pipe()  # the browser writes replies and events on its fd 4
        cmd_r, res_w = _above_four(cmd_r), _above_four(res_w)
        args = [
            self.executable,
            *FLAGS,
            f"--user-data-dir={self._profile.name}",
            f"--window-size={self.width},{self.height}",
            "about:blank",
        ]
        # posix_spawn maps our pipe ends onto the child's fds 3 and 4 (the numbers Chromium reads)
        # without touching any descriptor of this process; every other descriptor of ours is
        # close-on-exec. The child leads a new process group, so a hung browser is ended by its id.
        actions = [
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
            (os.POSIX_SPAWN_DUP2, 1, 2),
            (os.POSIX_SPAWN_DUP2, cmd_r, 3),
            (os.POSIX_SPAWN_DUP2, res_w, 4),
        ]
        try:
            self.pid = os.posix_spawn(
                self.executable, args, dict(os.environ), file_actions=actions, setpgroup=0
            )
        finally:
            os.close(cmd_r)
            os.close(res_w)
        self._write, self._read = cmd_w, res_r
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
                "sessionId"
            ]
            for domain in ("Page.enable", "Network.enable", "Runtime.enable"):
                self.call(domain, session=True)
            self.call(
                "Emulation.setDeviceMetricsOverride",
                session=True,
                width=self.width,
                height=self.height,
                deviceScaleFactor=1,
                mobile=False,
            )
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _exited(self, wait: float) -> bool:
        deadline = time.monotonic() + wait
        while True:
            try:
                pid, _ = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return True
            if pid == self.pid:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)

    def __exit__(self, *exc) -> None:
        if self.pid is not None:
            try:
                self._send("Browser.close", {})
            except OSError:
                pass
            if not self._exited(10.0):
                os.killpg(self.pid, signal.SIGKILL)  # our own child's process group, by its id
                self._exited(5.0)
            self.pid = None
        for fd in (self._write, self._read):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._write = self._read = None
        self._profile.cleanup()

    def _log_tail(self) -> str:
        try:
            return (Path(self._profile.name) / "chromium.log").read_text(errors="replace")[-1500:]
        except OSError:
            return ""

    def _send(self, method: str, params: dict, session: str | None = None) -> int:
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        return self._next_id

    def _receive(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(
                    f"Chromium did not answer within {self.timeout} s; log:\n{self._log_tail()}"
                )
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise RuntimeError(
                        f"Chromium closed the DevTools pipe; log:\n{self._log_tail()}"
                    )
                self._buffer += chunk
        frame, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(frame)

    def call(self, method: str, session: bool = False, **params) -> dict:
        """Send one CDP command (to the page session if `session`) and return its result."""
        mid = self._send(method, params, self.session if session else None)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") == mid:
                if "error" in message:
                    raise RuntimeError(f"CDP {method} failed: {message['error']}")
                return message.get("result", {})
            self._events.append(message)

    def wait_for(self, event: str) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, message in enumerate(self._events):
                if message.get("method") == event:
                    return self._events.pop(i)
            self._events.append(self._receive(deadline))

    # -- pages ----------------------------------------------------------------------------------

    def open(self, url: str) -> PageReport:
        """Load `url`, wait for its load event (images included) and measure it."""
        self._events.clear()
        result = self.call("Page.navigate", session=True, url=url)
        if result.get("errorText"):
            raise RuntimeError(f"navigation to {url} failed: {result['errorText']}")
        self.wait_for("Page.loadEventFired")
        measured = self.call(
            "Runtime.evaluate", session=True, expression=MEASURE, returnByValue=True
        )
        if "exceptionDetails" in measured:
            raise RuntimeError(f"measuring {url} failed: {measured['exceptionDetails']}")
        report = PageReport(url=url, **measured["result"]["value"])
        requests = {
            e["params"]["requestId"]: e["params"]["request"]["url"]
            for e in self._events
            if e.get("method") == "Network.requestWillBeSent"
        }
        report.requests = sorted(set(requests.values()))
        report.failed = sorted(
            {
                requests.get(e["params"]["requestId"], "?")
                + ": "
                + e["params"].get("errorText", "")
                for e in self._events
                if e.get("method") == "Network.loadingFailed"
            }
        )
        return report

    def screenshot(self, full_page: bool = True) -> bytes:
        """PNG of the current page (its whole height when `full_page`)."""
        params = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics", session=True)["cssContentSize"]
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": self.width,
                "height": max(1, int(size["height"])),
                "scale": 1,
            }
            params["captureBeyondViewport"] = True
        return base64.b64decode(self.call("Page.captureScreenshot", session=True, **params)["data"])


def preview(index_html: Path, png: Path, *, executable: str | None = None) -> PageReport:
    """Screenshot of the index page into `png` (the README's picture), stamped with what it was
    drawn from (preview_stamp: the verdict rows and the page's layout digest, so a stale preview is
    detectable without a browser); raises RuntimeError naming every problem the browser saw on the
    page."""
    page = preview_stamp.summary(Path(index_html).read_text(encoding="utf-8"))
    with Chromium(executable, width=1100, height=700) as browser:
        report = browser.open(Path(index_html).resolve().as_uri())
        if report.problems():
            raise RuntimeError(f"{index_html}: " + "; ".join(report.problems()))
        Path(png).write_bytes(preview_stamp.stamp(browser.screenshot(full_page=True), page))
    return report
