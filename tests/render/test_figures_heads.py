"""softlin/render/figures_heads.py: the one-head vs two-head optimum figure of
finite-prompt-risk."""

from __future__ import annotations

from softlin.render import figures


def _cert(series):
    return {"claim": "finite-prompt-risk", "series": series}


def test_figure_drawn_from_the_series_and_skipped_without_it():
    s = {
        "finite_optimum": {
            "L": [10, 20, 30],
            "one_head": [0.7, 0.55, 0.46],
            "heuristic_exact": [0.75, 0.56, 0.46],
            "infinite": 0.1,
            "two_heads_L": [10],
            "two_heads": [0.51],
            "two_heads_error": [1e-5],
        }
    }
    png = figures.figure_png(_cert(s))
    assert png is not None and png[:8] == b"\x89PNG\r\n\x1a\n"
    assert figures.figure_png(_cert({"finite_optimum": {"L": [10], "one_head": []}})) is None
    assert figures.figure_png(_cert({})) is None
