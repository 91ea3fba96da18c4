"""The authors' figure for claim `authors-experiment`: risk against L at all 19 of their prompt
lengths.

Drawn from the certificate's series `authors_experiment`: the exact finite-L optima of softmax
and of linear attention (lines), the ends of the gradient flows of both exact risks at the authors'
end time (markers on the lines), SGD at the authors' scale (300 000 steps, where run: markers with
the noise floor as the error bar), the CPU-scale SGD runs (test risk +- 2 se), the authors'
generator's runs and R*_inf. The legend sits outside the axes, right of the data.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402
from .figure_png import legend_below  # noqa: E402


def _same_length(e: dict, key: str, n: int) -> bool:
    return isinstance(e.get(key), list) and len(e[key]) == n


def authors_experiment_png(cert: dict, png) -> bytes | None:
    """Final risk against L: SGD (CPU scale and authors' scale), exact optima, gradient-flow ends,
    R*_inf. `png(fig)` writes the figure (figures._png_tight: cropped to the legend outside the
    axes)."""
    e = cert.get("series", {}).get("authors_experiment")
    Ls = e.get("L") if isinstance(e, dict) else None
    keys = ("softmax", "softmax_se", "linear", "linear_se")
    if not isinstance(Ls, list) or not Ls or any(not _same_length(e, k, len(Ls)) for k in keys):
        return None
    fig, ax = plt.subplots(figsize=(9.0, 4.6), dpi=100)
    ax.errorbar(
        Ls,
        e["softmax"],
        yerr=[2 * v for v in e["softmax_se"]],
        fmt="o",
        color="C0",
        capsize=2,
        ms=4,
        label="softmax, SGD at CPU scale (+-2 se)",
    )
    ax.errorbar(
        Ls,
        e["linear"],
        yerr=[2 * v for v in e["linear_se"]],
        fmt="s",
        color="C1",
        capsize=2,
        ms=4,
        label="linear (1/L), SGD at CPU scale (+-2 se)",
    )
    if _same_length(e, "softmax_best", len(Ls)):
        ax.plot(
            Ls, e["softmax_best"], "x", color="C0", label="softmax, best (mu, omega) on a sample"
        )
    xL = e.get("exact_L")
    if isinstance(xL, list) and xL:
        for key, color, label in (
            ("exact_softmax_optimum", "C0", "softmax, exact finite-L optimum"),
            ("exact_linear_optimum", "C1", "linear, exact finite-L optimum"),
        ):
            if _same_length(e, key, len(xL)):
                ax.plot(xL, e[key], "-", color=color, lw=1.6, alpha=0.6, label=label)
        for key, color, marker, label in (
            ("flow_softmax", "C0", "D", "softmax, gradient-flow end (t = 300)"),
            ("flow_linear", "C1", "v", "linear, gradient-flow end (t = 300)"),
        ):
            if _same_length(e, key, len(xL)):
                ax.plot(xL, e[key], marker, color=color, mfc="none", ms=6, label=label)
    lL = e.get("long_sgd_L")
    if isinstance(lL, list) and lL:
        for key, color, marker, label in (
            ("long_sgd_softmax", "C2", "*", "softmax, SGD at the authors' scale"),
            ("long_sgd_linear", "C3", "P", "linear, SGD at the authors' scale"),
        ):
            if _same_length(e, key, len(lL)) and _same_length(e, key + "_floor", len(lL)):
                ax.errorbar(
                    lL,
                    e[key],
                    yerr=[[0.0] * len(lL), e[key + "_floor"]],
                    fmt=marker,
                    color=color,
                    ms=8,
                    capsize=3,
                    label=label + " (bar: noise floor)",
                )
    if isinstance(e.get("infinite"), (int, float)):
        ax.axhline(e["infinite"], color="k", lw=0.9, label="infinite-prompt prediction R*_inf")
    for key, style, label in (
        ("authors_softmax", "o", "softmax, authors' generator"),
        ("authors_linear", "s", "linear, authors' generator"),
    ):
        if _same_length(e, key, len(Ls)):
            ax.plot(
                Ls,
                e[key],
                style + ":",
                mfc="none",
                color="C0" if "softmax" in key else "C1",
                alpha=0.5,
                label=label,
            )
    if isinstance(e.get("authors_infinite"), (int, float)):
        ax.axhline(
            e["authors_infinite"], color="gray", lw=0.9, ls="-.", label="R*_inf, authors' generator"
        )
    ax.set_xscale("log")
    ticks = sorted(set(Ls) | set(xL if isinstance(xL, list) else []))
    ax.set_xticks(
        ticks, [str(L) if L in (10, 20, 50, 100, 200, 500, 1000) or L in Ls else "" for L in ticks]
    )
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("risk E (y_q - yhat)^2")
    ax.set_title(f"{cert['claim']}: risk against L (the authors' figure)")
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, *ax.get_legend_handles_labels())
    return png(fig)
