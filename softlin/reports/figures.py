"""Figures from certificate series (matplotlib, Agg backend, no timestamps in the PNG)."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def _finite(xs, ys):
    pairs = [(x, y) for x, y in zip(xs, ys) if isinstance(y, (int, float)) and y > 0]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def convergence_png(cert: dict) -> bytes | None:
    """Root-mean-square error against L (log-log) for the scenario and its controls, with the
    high-probability bound eps_L(delta) at the first query and an L^(-1/2) guide."""
    series = cert.get("series", {})
    main = series.get("main")
    if not main or not main.get("L"):
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    Ls = main["L"]
    ax.loglog(Ls, main["rmse"], "o-", color="C0", label="scenario: RMSE of T[mu_L] - T")
    x, y = _finite(Ls, main.get("bound", []))
    if x:
        ax.loglog(x, y, "--", color="C0", alpha=0.6, label=f"bound eps_L(delta), delta = {cert['scenario'].get('delta')}")
    x, y = _finite(Ls, main.get("quantile", []))
    if x:
        ax.loglog(x, y, ":", color="C0", alpha=0.8, label="empirical (1 - delta)-quantile")
    for j, (name, s) in enumerate(series.get("controls", {}).items()):
        ax.loglog(s["L"], s["rmse"], "s-", color=f"C{j + 1}", alpha=0.8, label=f"control {name}: RMSE to claimed limit")
    ax.loglog(Ls, [main["rmse"][0] * (Ls[0] / L) ** 0.5 for L in Ls], color="gray", lw=0.8, label="L^(-1/2) guide")
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("error in the output norm")
    ax.set_title(f"{cert['claim']}: finite prompts against the claimed limit")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
