"""The sweep's run, once softlin/cli/sweep.py has planned it (docs/sweeps.md): one certificate
per grid point. The points whose key is already in the store (sweep/store.py) are reused, the others
run by the given runner (sweep/execute.py: in-process or Dask) and each certificate is written
atomically as it arrives, so an interrupted sweep loses at most the points in flight. Then
summary.json (sweep/summary.py) and, for a lambda sweep with measured slopes, the phase diagram
rates.png (drawn by render/sweep_figure.py, which the report's phase-diagram page also uses).
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
    entries = [point_entry(p, p["key"], store.read(p["key"])) for p in pts]
    summ = summary(parsed, entries, kernels.INPUT_HASH)
    atomic_write(out / "summary.json", json.dumps(summ, indent=2, allow_nan=False) + "\n")
    figure = None
    from ..render import sweep_figure  # matplotlib: imported only when a sweep ends

    if sweep_figure.plottable(summ):
        figure = out / "rates.png"
        atomic_write(figure, sweep_figure.phase_diagram_png([summ]))
    return {
        "summary": summ,
        "computed": len(todo),
        "reused": len(pts) - len(todo),
        "figure": figure,
    }
