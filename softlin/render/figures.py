"""Figures from certificate series (matplotlib, Agg backend, no timestamps in the PNG)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from . import claim_figures, figures_authors  # noqa: E402
from .figure_png import png as _save_png  # noqa: E402


def _png_tight(fig) -> bytes:
    """The figure as PNG bytes, reproducible, its legend text height recorded, cropped to everything
    drawn (the legends sit outside the axes; softlin/render/figure_png.py)."""
    return _save_png(fig, tight=True)


def figure_png(cert: dict) -> bytes | None:
    """The figure of a certificate, chosen by the shape of its series: the authors' figure, all 19 L
    (figures_authors.py); prop-3.4's gradient errors by regime, measured against predicted; the
    finite-L optimum of the heads (figures_heads.py); otherwise the measured-against-predicted
    convergence figure (claim_figures.py). None when the series cannot be drawn."""
    if isinstance(cert.get("series", {}).get("authors_experiment"), dict):
        return figures_authors.authors_experiment_png(cert, _png_tight)
    if isinstance(cert.get("series", {}).get("regimes"), dict):
        return claim_figures.regimes_png(cert, _png_tight)
    if isinstance(cert.get("series", {}).get("finite_optimum"), dict):
        from . import figures_heads

        return figures_heads.optimum_png(cert, _png_tight)
    return claim_figures.convergence_png(cert, _png_tight)
