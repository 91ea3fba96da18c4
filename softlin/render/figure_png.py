"""A matplotlib figure as reproducible PNG bytes that record how tall their legend text is.

The PNG carries no software or date metadata (the committed figures are byte-reproducible) and one
text chunk, LEGEND_KEY: the height in image pixels of the smallest legend entry as the Agg renderer
laid it out (`Text.get_window_extent`, the glyphs' line box). The page renderer copies it onto the
<img> and the browser test scales it by the displayed width over the natural width, so "the legend
is readable at the page's width" is measured, not assumed (tests/render/test_browser.py).
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LEGEND_KEY = "softlin legend text px"
# A legend entry at the pages' width must be at least this tall in CSS pixels: the checks table's
# detail text (0.82rem at 16 px) is 13 px of font, whose line box is about 15 px.
LEGEND_MIN_CSS_PX = 12.0
# The claim figures' legend: 10 pt in two columns, below the figure's axes and labels, so that a
# figure about 900 px wide is shown near its natural size and the legend reads like the page's text.
LEGEND_BELOW = {
    "fontsize": 10,
    "loc": "upper center",
    "bbox_to_anchor": (0.5, 0.0),
    "ncol": 2,
    "frameon": False,
}


def legend_below(fig, handles, labels, **overrides):
    """The figure's legend under everything else: anchored at the bottom edge of the laid-out
    figure and kept out of tight_layout, so it never overlaps an axis label (the tight crop of
    `png(..., tight=True)` takes it in)."""
    legend = fig.legend(handles, labels, **{**LEGEND_BELOW, **overrides})
    legend.set_in_layout(False)
    return legend


def legend_text_px(fig) -> float | None:
    """The smallest legend entry's height in image pixels, None when the figure has no legend."""
    renderer = fig.canvas.get_renderer()
    legends = list(fig.legends) + [
        ax.get_legend() for ax in fig.axes if ax.get_legend() is not None
    ]
    heights = [
        t.get_window_extent(renderer).height
        for leg in legends
        for t in leg.get_texts()
        if t.get_text()
    ]
    return min(heights) if heights else None


def png(fig, *, tight: bool = False, dpi: float | None = None) -> bytes:
    """The figure as PNG bytes (laid out by tight_layout, cropped to what is drawn when `tight`),
    then closed."""
    if dpi is not None:
        fig.set_dpi(dpi)
    fig.tight_layout()
    metadata = {"Software": None}
    height = legend_text_px(fig)
    if height is not None:
        metadata[LEGEND_KEY] = f"{height:.1f}"
    buf = io.BytesIO()
    # the legends kept out of tight_layout (legend_below) are still inside the crop
    extra = (
        {"bbox_inches": "tight", "pad_inches": 0.1, "bbox_extra_artists": list(fig.legends)}
        if tight
        else {}
    )
    fig.savefig(buf, format="png", metadata=metadata, **extra)
    plt.close(fig)
    return buf.getvalue()


def legend_px_of(data: bytes) -> float | None:
    """LEGEND_KEY read back from the PNG's tEXt chunks, None when absent."""
    pos = 8
    while pos + 8 <= len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        kind = data[pos + 4 : pos + 8]
        if kind == b"tEXt":
            key, _, value = data[pos + 8 : pos + 8 + length].partition(b"\0")
            if key.decode("latin-1") == LEGEND_KEY:
                return float(value)
        if kind == b"IEND":
            break
        pos += 12 + length
    return None
