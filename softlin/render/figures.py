"""Figures from certificate series (matplotlib, Agg backend, no timestamps in the PNG)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from . import claim_figures, figures_authors  # noqa: E402


def _png(fig) -> bytes:
    """The figure as PNG bytes, without the software/date metadata (reproducible), then closed."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()


def convergence_png(cert: dict) -> bytes | None:
    """The measured-against-predicted convergence figure (claim_figures.py)."""
    return claim_figures.convergence_png(cert, _png_tight)


def regimes_png(cert: dict) -> bytes | None:
    """prop-3.4's gradient errors by regime, measured against predicted (claim_figures.py)."""
    return claim_figures.regimes_png(cert, _png_tight)


def _png_tight(fig, extra: bool = False) -> bytes:
    """As _png, cropped to everything drawn (the legends sit outside the axes)."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None}, bbox_inches="tight", pad_inches=0.1)
    plt.close(fig)
    return buf.getvalue()


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
