"""Figures from certificate series (matplotlib, Agg backend, no timestamps in the PNG)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from . import claim_figures, figures_authors  # noqa: E402
from .figure_png import png as _save_png  # noqa: E402


def _png(fig) -> bytes:
    """The figure as PNG bytes, reproducible, its legend text height recorded
    (softlin/render/figure_png.py)."""
    return _save_png(fig)


def convergence_png(cert: dict) -> bytes | None:
    """The measured-against-predicted convergence figure (claim_figures.py)."""
    return claim_figures.convergence_png(cert, _png_tight)


def regimes_png(cert: dict) -> bytes | None:
    """prop-3.4's gradient errors by regime, measured against predicted (claim_figures.py)."""
    return claim_figures.regimes_png(cert, _png_tight)


def _png_tight(fig) -> bytes:
    """As _png, cropped to everything drawn (the legends sit outside the axes)."""
    return _save_png(fig, tight=True)


def authors_experiment_png(cert: dict) -> bytes | None:
    """The authors' figure, all 19 L (figures_authors.py)."""
    return figures_authors.authors_experiment_png(cert, _png_tight)


def figure_png(cert: dict) -> bytes | None:
    """The figure of a certificate, chosen by the shape of its series."""
    if isinstance(cert.get("series", {}).get("authors_experiment"), dict):
        return authors_experiment_png(cert)
    if isinstance(cert.get("series", {}).get("regimes"), dict):
        return regimes_png(cert)
    if isinstance(cert.get("series", {}).get("finite_optimum"), dict):
        from . import figures_heads

        return figures_heads.optimum_png(cert, _png_tight)
    return convergence_png(cert)
