"""Figure of claim `finite-prompt-risk`: the exact finite-L optimum with one head and with two heads
against L (series "finite_optimum", built by softlin/claims/finite_prompt_heads.series)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from .figure_png import legend_below  # noqa: E402


def _series(e: dict, key: str, n: int) -> bool:
    return (
        isinstance(e.get(key), list)
        and len(e[key]) == n
        and all(isinstance(v, (int, float)) for v in e[key])
    )


def optimum_png(cert: dict, png) -> bytes | None:
    """R*_L (one head, exact), the exact risk of the heuristic's optimum, and R*_L (two heads,
    exact, with its stated error) against L, with R*_inf; `png(fig)` writes the figure
    (figures._png_tight: cropped to the legend outside the axes)."""
    e = cert.get("series", {}).get("finite_optimum")
    Ls = e.get("L") if isinstance(e, dict) else None
    if not isinstance(Ls, list) or not Ls or not _series(e, "one_head", len(Ls)):
        return None
    fig, ax = plt.subplots(figsize=(9.0, 4.2), dpi=100)
    ax.plot(Ls, e["one_head"], "o-", color="C0", ms=3, label="one head: exact optimum R*_L")
    if _series(e, "heuristic_exact", len(Ls)):
        ax.plot(
            Ls,
            e["heuristic_exact"],
            ":",
            color="C0",
            label="one head: exact risk at the heuristic's optimum",
        )
    L2 = e.get("two_heads_L")
    if (
        isinstance(L2, list)
        and L2
        and _series(e, "two_heads", len(L2))
        and _series(e, "two_heads_error", len(L2))
    ):
        ax.errorbar(
            L2,
            e["two_heads"],
            yerr=e["two_heads_error"],
            fmt="s-",
            color="C3",
            ms=3,
            capsize=2,
            label="two heads: exact risk at the optimum found (stated error)",
        )
    if isinstance(e.get("infinite"), (int, float)):
        ax.axhline(e["infinite"], color="k", lw=0.9, label="R*_inf")
    ax.set_xscale("log")
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("risk E (y_q - yhat)^2")
    ax.set_title(f"{cert['claim']}: exact finite-L optimum, one and two heads")
    ax.grid(True, which="both", alpha=0.3)
    # below the axes: the curves fill the axes at small L
    legend_below(fig, *ax.get_legend_handles_labels())
    return png(fig)
