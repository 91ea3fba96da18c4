"""A matplotlib figure as reproducible PNG bytes (shared by render/figures.py and render/figures_authors.py)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def png(fig) -> bytes:
    """The figure as PNG bytes, without the software/date metadata (reproducible), then closed."""
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
