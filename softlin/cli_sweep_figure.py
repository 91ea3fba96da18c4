"""The rate phase diagram of a lambda sweep (summary.json only; matplotlib Agg, no PNG metadata).

Left: the decay exponent of the query-averaged MSE against lambda = lambda_max(U^T Gamma U Sigma_q):
the measured log-log slope +- its standard error, the exact finite-L slope over the same L, the sharp
exponent kappa(lambda) = min(1, (sqrt(1 + 4/lambda) - 1)/2) and the naive min(1, 1/(2 lambda))
(kernels.sharp_exponent and kernels.naive_exponent on a fine lambda grid), the paper's c2/sigma^2 where
the certificates give it, and the threshold lambda = 1/2. Right: the first-order coefficient
lim L E_nu eps_L^2 below the threshold (finite iff lambda < 1/2, diverging as lambda -> 1/2), derived,
with the claim's Monte Carlo estimate where it runs one (lambda <= 2/7).
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402

from .numerics import kernels  # noqa: E402


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and np.isfinite(x)


def plottable(summary: dict) -> bool:
    """A lambda sweep whose points carry measured slopes."""
    return list(summary.get("axes", {})) == ["lambda"] and any(_num(p.get("measured_slope")) for p in summary["points"])


def rates_png(summary: dict) -> bytes:
    pts = sorted(summary["points"], key=lambda p: p["params"]["lambda"])
    lam = np.array([p["params"]["lambda"] for p in pts])
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    grid = np.geomspace(min(lam.min(), 0.05), max(lam.max(), 4.0), 400)
    ax.plot(grid, [float(kernels.sharp_exponent(x)) for x in grid], "k-", label=r"sharp $\kappa(\lambda)$")
    ax.plot(grid, [float(kernels.naive_exponent(x)) for x in grid], "k:", label=r"naive $\min(1, 1/(2\lambda))$")
    ok = [i for i, p in enumerate(pts) if _num(p.get("measured_slope"))]
    ax.errorbar(lam[ok], [pts[i]["measured_slope"] for i in ok],
                yerr=[pts[i]["measured_slope_stderr"] if _num(pts[i].get("measured_slope_stderr")) else 0 for i in ok],
                fmt="o", color="C0", capsize=3, label="measured slope (Monte Carlo) $\\pm$ s.e.")
    ex = [i for i, p in enumerate(pts) if _num(p.get("exact_slope"))]
    ax.plot(lam[ex], [pts[i]["exact_slope"] for i in ex], "s", mfc="none", color="C1",
            label="exact finite-L slope, same L")
    pe = [i for i, p in enumerate(pts) if _num(p.get("paper_exponent"))]
    if pe:
        ax.plot(lam[pe], [pts[i]["paper_exponent"] for i in pe], "^", color="C2", label=r"paper $c_2/\sigma^2$")
    for a in (ax, bx):
        a.axvline(0.5, color="C3", lw=1, ls="--", label=r"threshold $\lambda = 1/2$")
        a.set_xscale("log")
        a.xaxis.set_minor_formatter(NullFormatter())
        a.set_xlabel(r"$\lambda = \lambda_{\max}(U^\top \Gamma U \Sigma_q)$")
    ax.set_ylabel(r"decay exponent of $E_\nu \|\epsilon_L\|^2$")
    ax.set_title(f"{summary['claim']}: rate of the query-averaged error ({summary['profile']})")
    ax.legend(fontsize=7)
    fo = [i for i, p in enumerate(pts) if _num(p.get("first_order_coefficient")) and lam[i] < 0.5]
    if fo:
        bx.plot(lam[fo], [pts[i]["first_order_coefficient"] for i in fo], "o-", color="C0",
                label=r"$\lim_L L\, E_\nu \|\epsilon_L\|^2$ (derived)")
        mc = [i for i in fo if _num(pts[i].get("first_order_coefficient_monte_carlo"))]
        if mc:
            bx.errorbar(lam[mc], [pts[i]["first_order_coefficient_monte_carlo"] for i in mc],
                        yerr=[pts[i].get("first_order_coefficient_monte_carlo_stderr") or 0 for i in mc],
                        fmt="s", mfc="none", color="C1", capsize=3, label="Monte Carlo estimate $\\pm$ s.e.")
        bx.set_yscale("log")
    bx.set_ylabel("first-order coefficient (finite iff $\\lambda < 1/2$)")
    bx.set_title("first-order coefficient below the threshold")
    bx.legend(fontsize=7)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
