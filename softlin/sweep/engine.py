"""The sweep's run, once softlin/cli/sweep.py has planned it (docs/sweeps.md): one certificate
per grid point. The points whose key is already in the store (sweep/store.py) are reused, the others
run by the given runner (sweep/execute.py: in-process or Dask) and each certificate is written
atomically as it arrives, so an interrupted sweep loses at most the points in flight. Then
summary.json (sweep/summary.py) and, for a lambda sweep with measured slopes, the phase diagram
rates.png (drawn by render/sweep_figure.py, which the report's phase-diagram page also uses).
`resummarise` writes both again from a folder's stored points, computing no point.
"""

from __future__ import annotations

import json
from pathlib import Path

from .store import Store, atomic_write
from .summary import point_entry, summary
from ..numerics import kernels


def execute(parsed: dict, pts: list[dict], out: Path, run, *, on_point=None) -> dict:
    """Run the points not yet in the store with `run(tasks)` (an iterator of (task, text, seconds)),
    write each as it arrives, then summary.json and the figure. Returns
    {"summary", "computed", "reused"}."""
    store = Store(out)
    todo = [
        {**p, "claim": parsed["claim"], "profile": parsed["profile"]}
        for p in pts
        if not store.has(p["key"])
    ]
    done = len(pts) - len(todo)
    for task, text, seconds in run(todo):
        store.write(task["key"], text)
        done += 1
        if on_point:
            on_point(task, seconds, done, len(pts))
    summ, figure = _write_summary(parsed, pts, out, store, kernels.INPUT_HASH)
    return {
        "summary": summ,
        "computed": len(todo),
        "reused": len(pts) - len(todo),
        "figure": figure,
    }


def _write_summary(parsed: dict, pts: list[dict], out: Path, store: Store, input_hash: str):
    """summary.json from the stored certificates of `pts`, and rates.png when it is plottable;
    returns (the summary, the figure's path or None)."""
    entries = [point_entry(p, p["key"], store.read(p["key"])) for p in pts]
    summ = summary(parsed, entries, input_hash)
    atomic_write(out / "summary.json", json.dumps(summ, indent=2, allow_nan=False) + "\n")
    from ..render import sweep_figure  # matplotlib: imported only when a sweep ends

    if not sweep_figure.plottable(summ):
        return summ, None
    atomic_write(out / "rates.png", sweep_figure.phase_diagram_png([summ]))
    return summ, out / "rates.png"


def resummarise(out: Path) -> dict:
    """Write out/summary.json and out/rates.png again from the points its summary lists, read from
    the store (none is computed): for a summary written by an older softlin, so that it carries
    what the figure now reads from it (its series and curves). The grid, the points' keys and the
    points' kernels_input_hash are kept as they were. Returns the new summary."""
    out = Path(out)
    old = json.loads((out / "summary.json").read_text())
    pts = [
        {"index": p["index"], "params": p["params"], "seed": p["seed"], "key": p["key"]}
        for p in old["points"]
    ]
    summ, _ = _write_summary(old, pts, out, Store(out), old["kernels_input_hash"])
    return summ
