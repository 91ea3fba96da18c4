"""Figures from certificate series (matplotlib, Agg backend, no timestamps in the PNG)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from .figures_authors import authors_experiment_png  # noqa: E402
from .png import png as _png  # noqa: E402


def _finite(xs, ys):
    pairs = [(x, y) for x, y in zip(xs, ys) if isinstance(y, (int, float)) and y > 0]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _plottable(s) -> bool:
    """A series with equal-length lists L and rmse of positive numbers."""
    if not isinstance(s, dict) or not isinstance(s.get("L"), list) or not isinstance(s.get("rmse"), list):
        return False
    values = s["L"] + s["rmse"]
    return (len(s["L"]) == len(s["rmse"]) > 0
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in values))


def convergence_png(cert: dict) -> bytes | None:
    """Root-mean-square error against L (log-log) for the scenario and its controls, with the
    high-probability bound eps_L(delta) at the first query and an L^(-1/2) guide."""
    series = cert.get("series", {})
    main = series.get("main")
    if not _plottable(main):
        return None   # a claim without a convergence series (e.g. a purely symbolic one) has no figure
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    Ls = main["L"]
    ax.loglog(Ls, main["rmse"], "o-", color="C0", label="scenario: RMSE of T[mu_L] - T")
    x, y = _finite(Ls, main.get("bound", []))
    if x:
        ax.loglog(x, y, "--", color="C0", alpha=0.6, label=f"bound eps_L(delta), delta = {cert['scenario'].get('delta')}")
    x, y = _finite(Ls, main.get("quantile", []))
    if x:
        ax.loglog(x, y, ":", color="C0", alpha=0.8, label="empirical (1 - delta)-quantile")
    controls = series.get("controls") if isinstance(series.get("controls"), dict) else {}
    controls = {k: s for k, s in controls.items() if _plottable(s)}
    for j, (name, s) in enumerate(controls.items()):
        ax.loglog(s["L"], s["rmse"], "s-", color=f"C{j + 1}", alpha=0.8, label=f"control {name}: RMSE to claimed limit")
    ax.loglog(Ls, [main["rmse"][0] * (Ls[0] / L) ** 0.5 for L in Ls], color="gray", lw=0.8, label="L^(-1/2) guide")
    ax.set_xticks(Ls, [str(L) for L in Ls])              # the prompt lengths run, not powers of ten
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("error in the output norm")
    ax.set_title(f"{cert['claim']}: finite prompts against the claimed limit")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return _png(fig)


def regimes_png(cert: dict) -> bytes | None:
    """Query-averaged squared gradient errors against L (log-log) in each regime of the threshold,
    with guide lines of slope -kappa (the predicted exponent, logarithms aside)."""
    regimes = cert.get("series", {}).get("regimes")
    info = cert.get("quantities", {}).get("regimes", {})
    if not isinstance(regimes, dict) or not regimes:
        return None
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    for j, (name, sweep) in enumerate(regimes.items()):
        Ls = sweep["L"]
        lam = info.get(name, {}).get("lambda", "?")
        kappa = info.get(name, {}).get("exponent")
        for key, style in (("V", "o-"), ("U", "s--")):
            x, y = _finite(Ls, sweep.get(key, []))
            if x:
                ax.loglog(x, y, style, color=f"C{j}", label=f"{name} (lambda = {lam}): grad_{key}")
        if isinstance(kappa, (int, float)) and sweep.get("V"):
            ax.loglog(Ls, [sweep["V"][0] * (Ls[0] / L) ** kappa for L in Ls], ":", color=f"C{j}", lw=0.8,
                      label=f"slope -kappa = {-kappa:.3f}")
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("E ||grad err||^2 over queries")
    ax.set_title(f"{cert['claim']}: gradient errors below, at and above the threshold")
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:          # a quick run may have no finite series to label
        ax.legend(fontsize=6, ncol=2)
    return _png(fig)


def figure_png(cert: dict) -> bytes | None:
    """The figure of a certificate, chosen by the shape of its series."""
    if isinstance(cert.get("series", {}).get("authors_experiment"), dict):
        return authors_experiment_png(cert)
    if isinstance(cert.get("series", {}).get("regimes"), dict):
        return regimes_png(cert)
    return convergence_png(cert)

