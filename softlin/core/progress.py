"""Progress on a terminal, silence on a pipe.

One status line on stderr, redrawn in place, with two bars: the claims of the run and the current
Monte Carlo sweep of the claim being run,

    claims [####----] 1/2 mixture 0:12 | mixture scenario: Monte Carlo [##########----] L = 1024 3/4

Nothing is written unless progress is enabled (the CLI enables it unless --quiet) *and* the stream
is a terminal, so pipes, files and `--json -` consumers never see control characters.

    with claim("lemma-2.1", 0, 2):                 # the CLI, around each claim
        for L in sweep(Ls, "scenario: Monte Carlo", weights=Ls, item="L"):   # a sweep
            ...
    progress("a free-form status")                  # older callers: the line without an inner bar

`sweep` weights its steps (a Monte Carlo step at prompt length L costs about L), so the bar moves
with the work rather than the step count. The drawing functions `bar` and `status_line` are pure.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterable, Iterator, TextIO

_enabled = False
_stream: TextIO | None = None
_claim: dict | None = None  # {"name", "index", "total", "start"}
_task: dict | None = None  # {"label", "done", "total", "item"} or {"label"} for free text
# In a `verify` worker process (core/parallel.py): where the claim's progress goes instead of a
# terminal, send(kind, payload); None in the process that draws.
_forward: Callable[[str, object], None] | None = None
_forwarded_at = 0.0
FORWARD_SECONDS = 0.2  # a worker sends its sweep's state at most this often (the last step always)
# In the parent of `verify` workers: the claims running side by side (`lanes_begin`).
_lanes: dict | None = None  # {"total", "done", "running": {name: {"start", "estimate", "task"}}}
_lanes_lock = threading.Lock()


def enable(on: bool = True, stream: TextIO | None = None) -> None:
    """Show progress on `stream` (default stderr) if `on` and the stream is a terminal."""
    global _enabled, _stream
    _stream = stream if stream is not None else sys.stderr
    _enabled = bool(on) and bool(getattr(_stream, "isatty", lambda: False)())


def enabled() -> bool:
    return _enabled


def bar(fraction: float, width: int) -> str:
    """`[#####-----]` with `width` cells inside the brackets; fraction is clipped to [0, 1]."""
    if width < 1:
        return ""
    fraction = min(1.0, max(0.0, float(fraction)))
    full = int(round(fraction * width))
    return "[" + "#" * full + "-" * (width - full) + "]"


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


def status_line(claim_state: dict | None, task: dict | None, columns: int, now: float) -> str:
    """The status line for a terminal `columns` wide (pure)."""
    parts = []
    if claim_state is not None:
        i, n = claim_state["index"], claim_state["total"]
        parts.append(
            f"claims {bar(i / n if n else 1.0, min(12, max(4, n * 2)))} {i + 1}/{n} "
            f"{claim_state['name']} {_clock(now - claim_state['start'])}"
        )
    if task is not None:
        parts.append(_sweep_text(task, 16))
    line = " | ".join(parts)
    limit = max(4, columns - 1)  # never wraps: one cell left for the cursor
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _columns() -> int:
    """The terminal's width (the environment's COLUMNS first, as shutil reads it)."""
    return shutil.get_terminal_size(fallback=(100, 24)).columns


def _draw() -> None:
    global _forwarded_at
    if _forward is not None:
        now = time.monotonic()
        # a free-text status or a sweep's last step is a phase change: always sent
        phase = _task is None or "total" not in _task or _task["done"] == _task["total"]
        if phase or now - _forwarded_at >= FORWARD_SECONDS:
            _forwarded_at = now
            _forward("task", None if _task is None else dict(_task))
        return
    if not _enabled:
        return
    if _lanes is not None:
        with _lanes_lock:
            line = lanes_status_line(_lanes, _columns(), time.monotonic())
    else:
        line = status_line(_claim, _task, _columns(), time.monotonic())
    _stream.write("\r\033[K" + line)
    _stream.flush()


def forward(send: Callable[[str, object], None] | None) -> None:
    """In a worker process: send the claim's progress, as `send("task", state)` (the sweep's state
    dict, or None), instead of drawing it; None stops forwarding."""
    global _forward, _task, _forwarded_at
    _forward, _task, _forwarded_at = send, None, 0.0


def _longest_first(running: dict) -> list:
    """The running claims, the one with the largest estimate (the longest) first."""
    return sorted(running.items(), key=lambda kv: -(kv[1].get("estimate") or 0.0))


def _sweep_text(task: dict, width: int) -> str:
    """A sweep's state on the status line, its bar `width` cells wide (or a free-text status)."""
    if "total" in task:
        where = f" {task['item']}" if task.get("item") else ""
        steps = f"{task['done']}/{task['total']}"
        return f"{task['label']} {bar(task['fraction'], width)}{where} {steps}"
    return task["label"]


def _sweep_phrase(task: dict) -> str:
    """A sweep's state in a heartbeat line (or the free-text status it last gave)."""
    if "total" in task:
        where = f", running {task['item']}" if task.get("item") else ""
        return f"{task['done']} of {task['total']} steps of {task['label']} done{where}"
    return f"at {task['label']}"


def lanes_status_line(lanes: dict, columns: int, now: float) -> str:
    """The status line of claims running side by side (pure): the claims done, then each running
    claim, longest first, with its time and its sweep."""
    n, done = lanes["total"], lanes["done"]
    parts = [f"claims {bar(done / n if n else 1.0, min(12, max(4, n * 2)))} {done}/{n} done"]
    for name, lane in _longest_first(lanes["running"]):
        task = lane.get("task")
        sweep = f" {_sweep_text(task, 8)}" if task is not None else ""
        parts.append(f"{name} {_clock(now - lane['start'])}{sweep}")
    line = " | ".join(parts)
    limit = max(4, columns - 1)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def lanes_begin(total: int) -> None:
    """The parent of `verify` workers: `total` claims are about to run side by side."""
    global _lanes
    with _lanes_lock:
        _lanes = {"total": total, "done": 0, "running": {}}
    _draw()


def lane_started(name: str, estimate: float | None) -> None:
    with _lanes_lock:
        _lanes["running"][name] = {"start": time.monotonic(), "estimate": estimate, "task": None}
    _draw()


def lane_task(name: str, task: dict | None) -> None:
    with _lanes_lock:
        if name in _lanes["running"]:
            _lanes["running"][name]["task"] = task
    _draw()


def lane_finished(name: str, status: str, seconds: float, index: int, total: int) -> None:
    """Claim `name` finished, the `index`-th (0-based) of `total` to do so."""
    with _lanes_lock:
        _lanes["running"].pop(name, None)
        _lanes["done"] += 1
    if _enabled:
        _stream.write("\r\033[K")
    finished(name, status, seconds, index, total)
    _draw()


def lanes_end() -> None:
    global _lanes
    with _lanes_lock:
        _lanes = None
    clear()


def progress(message: str) -> None:
    """A free-form status (replaces the current sweep bar until the next `sweep` step); kept for
    the heartbeat on a pipe too."""
    global _task
    _task = {"label": message}
    _draw()


def clear() -> None:
    global _task
    _task = None
    if _enabled:
        _stream.write("\r\033[K")
        _stream.flush()


@contextmanager
def claim(name: str, index: int, total: int, estimate: float | None = None) -> Iterator[None]:
    """The outer bar: claim `index` (0-based) of `total` is running; `estimate` is its estimated
    seconds (core/budgets.py), which the heartbeat compares with the time it has taken."""
    global _claim, _task
    _claim = {
        "name": name,
        "index": index,
        "total": total,
        "start": time.monotonic(),
        "estimate": estimate,
    }
    _task = None
    _draw()
    try:
        yield
    finally:
        _claim = None
        clear()


def sweep(
    items: Iterable, label: str, *, weights: Iterable[float] | None = None, item: str = ""
) -> Iterator:
    """Yield `items`, drawing the inner bar before each step (`item = value` names the step) and
    once after the last. `weights` (one per item, default 1) set how far each step moves the bar."""
    global _task
    items = list(items)
    w = [float(x) for x in weights] if weights is not None else [1.0] * len(items)
    if len(w) != len(items) or any(x < 0 for x in w):
        raise ValueError(f"sweep weights {w} do not match the {len(items)} items")
    total = sum(w) or 1.0
    done = 0.0
    for j, value in enumerate(items):
        _task = {
            "label": label,
            "done": j,
            "total": len(items),
            "fraction": done / total,
            "item": f"{item} = {value}" if item else "",
        }
        _draw()
        yield value
        done += w[j]
    _task = {"label": label, "done": len(items), "total": len(items), "fraction": 1.0, "item": ""}
    _draw()


# On a pipe (CI logs) the status line is not drawn, and a run of many minutes would print nothing:
# CI systems with a no-output timeout kill such a job. `heartbeat` prints one line per finished
# claim and, while a claim runs, one at least every HEARTBEAT_SECONDS, to stderr.
HEARTBEAT_SECONDS = 60.0
_beat: dict = {"on": False, "stream": None}


def heartbeat_line(claim_state: dict | None, task: dict | None, now: float, start: float) -> str:
    """One heartbeat line (pure): the claim running, how long it has run against its estimate,
    and how far it has got, the steps done of the steps planned in its current sweep (or the
    status it last gave), then the time since the run started:

        softlin: running prop-3.4 (4/9); 1:10 of about 1:05 estimated; 2 of 5 steps of regime
        Monte Carlo done, running L = 1024; 5:00 since the start
    """
    if claim_state is None:
        return f"softlin: running between claims; {_clock(now - start)} since the start"
    parts = [
        f"softlin: running {claim_state['name']} "
        f"({claim_state['index'] + 1}/{claim_state['total']})"
    ]
    estimate = claim_state.get("estimate")
    if estimate is not None:
        parts.append(f"{_clock(now - claim_state['start'])} of about {_clock(estimate)} estimated")
    if task is not None:
        parts.append(_sweep_phrase(task))
    parts.append(f"{_clock(now - start)} since the start")
    return "; ".join(parts)


def lanes_heartbeat_line(lanes: dict, now: float, start: float) -> str:
    """One heartbeat line for claims running side by side (pure): the claims done, then each
    running claim, longest first, as `heartbeat_line` tells one, then the time since the start:

        softlin: 3 of 9 claims done; running authors-experiment, 1:10 of about 3:00 estimated,
        2 of 5 steps of SGD done, running L = 100; running prop-3.4, 0:40 of about 1:30
        estimated; 5:00 since the start
    """
    parts = [f"softlin: {lanes['done']} of {lanes['total']} claims done"]
    for name, lane in _longest_first(lanes["running"]):
        what = [f"running {name}"]
        if lane.get("estimate") is not None:
            what.append(
                f"{_clock(now - lane['start'])} of about {_clock(lane['estimate'])} estimated"
            )
        else:
            what.append(f"{_clock(now - lane['start'])} so far")
        if lane.get("task") is not None:
            what.append(_sweep_phrase(lane["task"]))
        parts.append(", ".join(what))
    parts.append(f"{_clock(now - start)} since the start")
    return "; ".join(parts)


@contextmanager
def heartbeat(
    quiet: bool, stream: TextIO | None = None, every: float | None = None
) -> Iterator[None]:
    """Heartbeat lines (`heartbeat_line`) on `stream` (default stderr) every `every` seconds
    (default HEARTBEAT_SECONDS) while the block runs, unless `quiet` or the status line is drawn
    (a terminal)."""
    every = HEARTBEAT_SECONDS if every is None else every

    stream = stream if stream is not None else sys.stderr
    on = not quiet and not _enabled
    _beat.update(on=on, stream=stream)
    stop = threading.Event()

    def beat():
        start = time.monotonic()
        while not stop.wait(every):
            with _lanes_lock:
                if _lanes is not None:
                    line = lanes_heartbeat_line(_lanes, time.monotonic(), start)
                else:
                    line = heartbeat_line(_claim, _task, time.monotonic(), start)
            stream.write(line + "\n")
            stream.flush()

    thread = threading.Thread(target=beat, daemon=True) if on else None
    if thread:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        if thread:
            thread.join()
        _beat["on"] = False


def finished(name: str, status: str, seconds: float, index: int, total: int) -> None:
    """The heartbeat line for a finished claim (nothing when heartbeats are off)."""
    if _beat["on"]:
        _beat["stream"].write(
            f"softlin: {name} {status} in {seconds:.1f} s ({index + 1}/{total} claims done)\n"
        )
        _beat["stream"].flush()
