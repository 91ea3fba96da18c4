"""Figures from certificate series (matplotlib, Agg backend, no timestamps in the PNG)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from . import claim_figures  # noqa: E402


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
    """Final test risk against L for softmax and linear attention (correct and authors' generators),
    with the infinite-prompt predictions and linear attention's exact finite-L optimum."""
    e = cert.get("series", {}).get("authors_experiment")
    Ls = e.get("L") if isinstance(e, dict) else None
    keys = ("softmax", "softmax_se", "linear", "linear_se")
    if not isinstance(Ls, list) or not Ls or any(not isinstance(e.get(k), list) or len(e[k]) != len(Ls) for k in keys):
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    ax.errorbar(Ls, e["softmax"], yerr=[2 * v for v in e["softmax_se"]], fmt="o-", color="C0", capsize=2,
                label="softmax, SGD (+-2 se)")
    ax.errorbar(Ls, e["linear"], yerr=[2 * v for v in e["linear_se"]], fmt="s-", color="C1", capsize=2,
                label="linear (1/L), SGD (+-2 se)")
    if isinstance(e.get("softmax_best"), list) and len(e["softmax_best"]) == len(Ls):
        ax.plot(Ls, e["softmax_best"], ":", color="C0", label="softmax, best (mu, omega)")
    if isinstance(e.get("linear_exact_min"), list) and len(e["linear_exact_min"]) == len(Ls):
        ax.plot(Ls, e["linear_exact_min"], "--", color="C1", lw=0.9, label="linear, exact finite-L optimum")
    xL = e.get("exact_L")
    for key, color, label in (("exact_softmax_optimum", "C0", "softmax, exact finite-L optimum"),
                              ("exact_linear_optimum", "C1", "linear, exact finite-L optimum (all L)")):
        if isinstance(xL, list) and isinstance(e.get(key), list) and len(e[key]) == len(xL):
            ax.plot(xL, e[key], "-", color=color, lw=1.6, alpha=0.6, label=label)
    if isinstance(e.get("infinite"), (int, float)):
        ax.axhline(e["infinite"], color="k", lw=0.9, label="infinite-prompt prediction R*_inf")
    for key, style, label in (("authors_softmax", "o", "softmax, authors' generator"),
                              ("authors_linear", "s", "linear, authors' generator")):
        if isinstance(e.get(key), list) and len(e[key]) == len(Ls):
            ax.plot(Ls, e[key], style + "-", mfc="none", color="C0" if "softmax" in key else "C1", alpha=0.5, label=label)
    if isinstance(e.get("authors_infinite"), (int, float)):
        ax.axhline(e["authors_infinite"], color="gray", lw=0.9, ls="-.", label="R*_inf, authors' generator")
    ax.set_xscale("log")
    ax.set_xticks(Ls, [str(L) for L in Ls])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("final test risk E (y_q - yhat)^2")
    ax.set_title(f"{cert['claim']}: final test risk against L")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    return _png(fig)


def figure_png(cert: dict) -> bytes | None:
    """The figure of a certificate, chosen by the shape of its series."""
    if isinstance(cert.get("series", {}).get("authors_experiment"), dict):
        return authors_experiment_png(cert)
    if isinstance(cert.get("series", {}).get("regimes"), dict):
        return regimes_png(cert)
    if isinstance(cert.get("series", {}).get("finite_optimum"), dict):
        from . import figures_heads
        return figures_heads.optimum_png(cert)
    return convergence_png(cert)
