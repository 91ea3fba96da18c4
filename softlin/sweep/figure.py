"""The figure a lambda sweep writes next to its summary (rates.png): the phase diagram of that one
sweep, drawn by softlin/render/sweep_figure.py (which the report's phase-diagram page also uses to
draw the output and gradient sweeps together)."""

from __future__ import annotations

from ..render import sweep_figure


def plottable(summary: dict) -> bool:
    """A lambda sweep whose points carry measured slopes."""
    return sweep_figure.plottable(summary)


def rates_png(summary: dict) -> bytes:
    return sweep_figure.phase_diagram_png([summary])
