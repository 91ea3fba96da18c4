"""The rate phase diagram drawn from sweep summaries (matplotlib Agg, no PNG metadata: same input,
same bytes).

Input: the summary.json of one or more lambda sweeps (softlin/sweep/summary.py), e.g. prop-3.1's
`rates` (the output error) and prop-3.4's `rates-gradients` (grad V and grad U), drawn together.
Everything drawn is read from the summaries, nothing computed: the points' fields, the `series`
that name them, and the derived `curves`.

Left: the decay exponent of each query-averaged squared error against
lambda = lambda_max(U^T Gamma U Sigma_q): per series the measured log-log slope (Monte Carlo) +- its
standard error and the exact finite-L slope over the same L; the derived sharp exponent
kappa(lambda) = min(1, (sqrt(1 + 4/lambda) - 1)/2) and the naive min(1, 1/(2 lambda)) as curves (the
summaries' `curves`, which the sweep computed with the emitted kernels), the paper's c2/sigma^2
where a summary gives it, and the threshold lambda = 1/2 with the two regimes named. Right: the
first-order coefficients lim L E||err||^2 below the threshold (finite iff lambda < 1/2, diverging as
lambda -> 1/2), derived, with prop-3.1's Monte Carlo estimate where it runs one. Legends sit below
the axes, off the data.
"""

from __future__ import annotations


import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import FormatStrFormatter, NullFormatter  # noqa: E402

from . import figure_png  # noqa: E402
from .figure_png import LEGEND_BELOW  # noqa: E402

# The keys of a summary's series, in the order series_of unpacks them (softlin/sweep/summary.py).
SERIES_KEYS = ("label", "measured", "stderr", "exact", "first_order", "colour", "marker")
THRESHOLD = 0.5


def num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and bool(np.isfinite(x))


def series_of(summary: dict) -> list[tuple]:
    """The summary's series, each as a tuple in the order of SERIES_KEYS."""
    return [tuple(s[k] for k in SERIES_KEYS) for s in summary.get("series", [])]


def plottable(summary: dict) -> bool:
    """A lambda sweep whose summary carries its series and curves, and measured slopes."""
    return (
        list(summary.get("axes", {})) == ["lambda"]
        and isinstance(summary.get("curves"), dict)
        and any(num(p.get(s[1])) for p in summary.get("points", []) for s in series_of(summary))
    )


def merged_curves(summaries: list[dict]) -> dict[str, np.ndarray]:
    """The summaries' derived curves as one: every (lambda, value) sample, sorted by lambda (each
    summary samples the same functions, so a grid shared by all is drawn as it is)."""
    samples = sorted(
        {
            (lam, kappa, naive)
            for s in summaries
            for lam, kappa, naive in zip(
                s["curves"]["lambda"], s["curves"]["exponent"], s["curves"]["naive_exponent"]
            )
        }
    )
    lam, kappa, naive = (np.array(column) for column in zip(*samples))
    return {"lambda": lam, "exponent": kappa, "naive_exponent": naive}


def _points(summary: dict) -> list[dict]:
    return sorted(summary["points"], key=lambda p: p["params"]["lambda"])


def phase_diagram_png(summaries: list[dict]) -> bytes:
    """The two-panel phase diagram of the plottable summaries (ValueError when none is)."""
    summaries = [s for s in summaries if plottable(s)]
    if not summaries:
        raise ValueError("no lambda sweep with measured slopes to draw")
    curves = merged_curves(summaries)
    grid = curves["lambda"]  # spans the points with room for the end markers
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5.4))
    ax.plot(
        grid, curves["exponent"], "k-", lw=1.4, label=r"derived sharp exponent $\kappa(\lambda)$"
    )
    ax.plot(grid, curves["naive_exponent"], "k:", label=r"naive $\min(1, 1/(2\lambda))$")
    n_series = sum(len(series_of(s)) for s in summaries)
    j = 0
    for summ in summaries:
        pts = _points(summ)
        lam = np.array([p["params"]["lambda"] for p in pts])
        for name, meas, se, exact, first, colour, marker in series_of(summ):
            shift = 1.0 + 0.025 * (
                j - (n_series - 1) / 2
            )  # side by side at each lambda, not on top
            j += 1
            ok = [i for i, p in enumerate(pts) if num(p.get(meas))]
            ax.errorbar(
                lam[ok] * shift,
                [pts[i][meas] for i in ok],
                yerr=[pts[i][se] if num(pts[i].get(se)) else 0.0 for i in ok],
                fmt=marker,
                color=colour,
                ms=5,
                capsize=3,
                label=f"{summ['claim']} {name}: measured slope (Monte Carlo) $\\pm$ s.e.",
            )
            ex = [i for i, p in enumerate(pts) if num(p.get(exact))]
            ax.plot(
                lam[ex] * shift,
                [pts[i][exact] for i in ex],
                "_",
                ms=14,
                mew=2,
                color=colour,
                label=f"{summ['claim']} {name}: exact finite-L slope, same L",
            )
            fo = [i for i, p in enumerate(pts) if num(p.get(first)) and lam[i] < THRESHOLD]
            if fo:
                bx.plot(
                    lam[fo],
                    [pts[i][first] for i in fo],
                    marker + "-",
                    color=colour,
                    ms=5,
                    label=f"{summ['claim']} {name}: derived " + r"$\lim_L L\,E\|err\|^2$",
                )
            mc = [i for i in fo if num(pts[i].get(first + "_monte_carlo"))]
            if mc:
                bx.errorbar(
                    lam[mc],
                    [pts[i][first + "_monte_carlo"] for i in mc],
                    yerr=[pts[i].get(first + "_monte_carlo_stderr") or 0.0 for i in mc],
                    fmt="s",
                    mfc="none",
                    color=colour,
                    capsize=3,
                    label=f"{summ['claim']} {name}: Monte Carlo estimate $\\pm$ s.e.",
                )
        pe = [i for i, p in enumerate(pts) if num(p.get("paper_exponent"))]
        if pe:
            ax.plot(
                lam[pe],
                [pts[i]["paper_exponent"] for i in pe],
                "^",
                mfc="none",
                color="C4",
                label=f"{summ['claim']}: the paper's $c_2/\\sigma^2$ (its constants)",
            )
    for a in (ax, bx):
        a.axvline(THRESHOLD, color="C3", lw=1, ls="--")
        a.set_xscale("log")
        a.xaxis.set_minor_formatter(NullFormatter())
        a.set_xlabel(r"$\lambda = \lambda_{\max}(U^\top \Gamma U \Sigma_q)$ (U scaled)")
        a.grid(True, which="major", alpha=0.3)
    ax.axvspan(grid[0], THRESHOLD, color="C0", alpha=0.05)
    ax.text(
        0.07, 0.03, "below threshold:\n1/L rate", transform=ax.get_xaxis_transform(), fontsize=8
    )
    ax.text(
        0.55,
        0.03,
        r"above threshold: $L^{-\kappa(\lambda)}$, $\kappa < 1$"
        + "\n"
        + r"($\lambda = 1/2$ dashed)",
        transform=ax.get_xaxis_transform(),
        fontsize=8,
    )
    for a in (ax, bx):
        a.set_xlim(grid[0], grid[-1])
    ax.set_ylabel(r"decay exponent of $E_\nu \|err_L\|^2$")
    ax.set_title("rates of the query-averaged errors")
    bx.set_yscale("log")
    bx.yaxis.set_major_formatter(
        FormatStrFormatter("%g")
    )  # 10, 100, 1000 rather than 10^1, 10^2, 10^3
    bx.yaxis.set_minor_formatter(NullFormatter())
    bx.set_ylabel("first-order coefficient (finite iff $\\lambda < 1/2$)")
    bx.set_title("first-order coefficient below the threshold")
    for a in (ax, bx):
        if a.get_legend_handles_labels()[0]:
            a.legend(**{**LEGEND_BELOW, "bbox_to_anchor": (0.5, -0.14), "ncol": 1})
    return figure_png.png(fig, dpi=100)
