"""Claim figures that overlay what was predicted on what was measured.

Convergence figure (claims with a `main` series: lemma-2.1, mixture, prop-3.1): root-mean-square
error against L, log-log, for the scenario and each other series of the certificate:

- Monte Carlo points with error bars of +-2 standard errors: the MSE's s.e. carried to the RMSE
  by the delta method, se(sqrt(m)) = se(m) / (2 sqrt(m));
  joined by a thin line; the exact finite-L RMSE sqrt(E err^2) dash-dotted where the certificate
  has it (`exact_mse`), and the first-order prediction sqrt(c / L) dashed where the series has its
  coefficient c;
- the explicit high-probability bound eps_L(delta) as a band (the region below it, where the
  (1 - delta)-quantile must lie), with the empirical quantile;
- series named "... threshold ..." are regimes of lambda (viridis colours, circles, named "regime"),
  the others are controls (grey-blue family, squares); the legend sits right of the axes.

Regimes figure (prop-3.4): E||grad err||^2 over queries against L, one panel per gradient, one
colour per regime (below, at, above the threshold, and the scenario's own lambda): Monte Carlo
+-2 s.e., the exact finite-L curve, and the first-order line c / L where the claim reports c
(below 1/2). Every number drawn is read from the certificate; nothing is recomputed.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402
from .figure_png import legend_below  # noqa: E402


def num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _lists(s: dict, n: int, *keys) -> bool:
    return all(
        isinstance(s.get(k), list) and len(s[k]) == n and all(num(v) for v in s[k]) for k in keys
    )


def is_regime(name: str) -> bool:
    return "threshold" in name


def _colours(names: list[str]) -> dict[str, tuple]:
    """Regimes along viridis (ordered as listed: below, at, above), controls along a grey-blue
    ramp."""
    regimes = [n for n in names if is_regime(n)]
    controls = [n for n in names if not is_regime(n)]
    out = {
        n: plt.cm.viridis(0.15 + 0.7 * j / max(1, len(regimes) - 1)) for j, n in enumerate(regimes)
    }
    out.update(
        {
            n: plt.cm.Greys(0.45 + 0.4 * j / max(1, len(controls) - 1))
            for j, n in enumerate(controls)
        }
    )
    return out


def overlay(Ls, s: dict) -> dict:
    """What one series draws, as numbers: "measured" (L, RMSE, lower and upper bar lengths, or None
    without standard errors), "exact" (L, sqrt(exact MSE)) and "first_order" (L, sqrt(c / L)) when
    present. Bars are +-2 s.e. of the MSE carried to the RMSE (delta method), cut at the axis' 0 on
    a log scale."""
    n, rmse = len(Ls), s["rmse"]
    out = {"measured": (Ls, rmse, None, None)}
    if _lists(s, n, "mse", "mse_stderr"):
        half = [
            2 * se / (2 * math.sqrt(m)) if m > 0 else 0.0
            for m, se in zip(s["mse"], s["mse_stderr"])
        ]
        out["measured"] = (Ls, rmse, [min(h, r * 0.999) for h, r in zip(half, rmse)], half)
    if _lists(s, n, "exact_mse") and all(v >= 0 for v in s["exact_mse"]):
        out["exact"] = (Ls, [math.sqrt(v) for v in s["exact_mse"]])
    c = s.get("first_order_coefficient")
    if num(c) and c > 0:
        out["first_order"] = (Ls, [math.sqrt(c / L) for L in Ls])
    return out


def _draw(ax, lines: dict, colour, marker: str, label: str) -> list:
    """Draw one series; its legend entries (handle, label) in reading order."""
    Ls, rmse, lo, hi = lines["measured"]
    # measured: markers joined by a thin line; predicted: the exact curve dash-dotted, the first
    # order dashed
    if hi is None:
        h = ax.plot(Ls, rmse, marker + "-", color=colour, ms=5, lw=0.7)[0]
        entries = [(h, f"{label}: Monte Carlo RMSE")]
    else:
        h = ax.errorbar(
            Ls, rmse, yerr=[lo, hi], fmt=marker + "-", color=colour, ms=5, lw=0.7, capsize=3
        )
        entries = [(h, f"{label}: Monte Carlo RMSE ±2 s.e.")]
    if "exact" in lines:
        entries.append(
            (
                ax.plot(*lines["exact"], "-.", color=colour, lw=1.4)[0],
                f"{label}: exact finite-L RMSE",
            )
        )
    if "first_order" in lines:
        entries.append(
            (
                ax.plot(*lines["first_order"], "--", color=colour, lw=1.0)[0],
                f"{label}: first order sqrt(c/L)",
            )
        )
    for handle, text in entries:
        handle.set_label(text)
    return entries


def convergence_png(cert: dict, png) -> bytes | None:
    series = cert.get("series", {})
    main = series.get("main")
    if (
        not isinstance(main, dict)
        or not isinstance(main.get("L"), list)
        or not main["L"]
        or not _lists(main, len(main["L"]), "rmse")
        or not all(num(L) and L > 0 for L in main["L"])
        or not all(v > 0 for v in main["rmse"])
    ):
        return (
            None  # a claim without a convergence series (e.g. a purely symbolic one) has no figure
        )
    Ls = main["L"]
    q = cert.get("quantities", {})
    fig, ax = plt.subplots(figsize=(9.0, 4.6), dpi=100)
    scenario = dict(main)
    if (
        "first_order_coefficient" not in scenario
        and num(q.get("first_order_coefficient"))
        and num(q.get("lambda_max"))
        and q["lambda_max"] < 0.5
    ):
        scenario["first_order_coefficient"] = q["first_order_coefficient"]
    bound = [(L, b) for L, b in zip(Ls, main.get("bound", [])) if num(b) and b > 0]
    controls = series.get("controls") if isinstance(series.get("controls"), dict) else {}
    controls = {
        k: s
        for k, s in controls.items()
        if isinstance(s, dict)
        and isinstance(s.get("L"), list)
        and s["L"]
        and _lists(s, len(s["L"]), "rmse")
        and all(v > 0 for v in s["rmse"])
    }
    floor = min(v for s in [main, *controls.values()] for v in s["rmse"]) / 3
    if bound:
        x, y = zip(*bound)
        ax.fill_between(x, [floor] * len(x), y, color="C0", alpha=0.08, lw=0)
        ax.plot(
            x,
            y,
            "-",
            color="C0",
            alpha=0.5,
            lw=1,
            label=(
                f"explicit bound eps_L(delta), delta = {cert.get('scenario', {}).get('delta')}: "
                f"the quantile's band"
            ),
        )
    quant = [(L, v) for L, v in zip(Ls, main.get("quantile", [])) if num(v) and v > 0]
    if quant:
        ax.plot(
            *zip(*quant), ":", color="C0", lw=1.2, label="scenario: empirical (1 - delta)-quantile"
        )
    entries = [
        (h, h.get_label())
        for h in ax.get_lines() + ax.collections
        if not h.get_label().startswith("_")
    ]
    entries += _draw(ax, overlay(Ls, scenario), "C0", "o", "scenario")
    colours = _colours(list(controls))
    for name, s in controls.items():
        kind = "regime" if is_regime(name) else "control"
        entries += _draw(
            ax,
            overlay(s["L"], s),
            colours[name],
            "o" if kind == "regime" else "s",
            f"{kind}: {name}",
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(Ls, [str(L) for L in Ls])  # the prompt lengths run, not powers of ten
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(bottom=floor)
    ax.set_xlabel("prompt length L")
    ax.set_ylabel("RMSE of T[mu_L] - T (output norm)")
    ax.set_title(f"{cert['claim']}: measured against predicted, by prompt length")
    ax.grid(True, which="both", alpha=0.3)
    legend_below(fig, *zip(*entries))
    return png(fig)


REGIME_ORDER = ("below", "at", "above", "scenario")


def regimes_png(cert: dict, png) -> bytes | None:
    regimes = cert.get("series", {}).get("regimes")
    info = cert.get("quantities", {}).get("regimes", {})
    if not isinstance(regimes, dict) or not regimes:
        return None
    names = sorted(
        regimes,
        key=lambda n: (REGIME_ORDER.index(n) if n in REGIME_ORDER else len(REGIME_ORDER), n),
    )
    fig, axes = plt.subplots(1, 2, figsize=(9.4, 4.4), dpi=100)
    drawn = False
    for j, name in enumerate(names):
        s, r = regimes[name], info.get(name, {}) if isinstance(info.get(name), dict) else {}
        Ls = s.get("L")
        if not isinstance(Ls, list) or not Ls:
            continue
        n = len(Ls)
        colour = (
            "C3" if name == "scenario" else plt.cm.viridis(0.15 + 0.7 * j / max(1, len(names) - 2))
        )
        lam = r.get("lambda")
        where = f"lambda = {lam:.3g}" if num(lam) else "lambda ?"
        label = (
            f"scenario ({where})" if name == "scenario" else f"regime {name} threshold ({where})"
        )
        for ax, key in zip(axes, ("V", "U")):
            if _lists(s, n, f"mc_{key}", f"mc_{key}_se") and all(v > 0 for v in s[f"mc_{key}"]):
                m, se = s[f"mc_{key}"], s[f"mc_{key}_se"]
                ax.errorbar(
                    Ls,
                    m,
                    yerr=[[min(2 * e, v * 0.999) for v, e in zip(m, se)], [2 * e for e in se]],
                    fmt="o",
                    color=colour,
                    ms=4,
                    capsize=3,
                    label=f"{label}: Monte Carlo ±2 s.e.",
                )
                drawn = True
            if _lists(s, n, f"exact_{key}"):
                ax.plot(
                    Ls,
                    s[f"exact_{key}"],
                    "-",
                    color=colour,
                    lw=1.2,
                    label=f"{label}: exact finite-L",
                )
            c = r.get(f"first_order_coefficient_{key}")
            if num(c) and c > 0:
                ax.plot(
                    Ls,
                    [c / L for L in Ls],
                    "--",
                    color=colour,
                    lw=1.0,
                    label=f"{label}: first order c/L",
                )
    if not drawn:
        plt.close(fig)
        return None
    for ax, key in zip(axes, ("V", "U")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("prompt length L")
        ax.set_ylabel(f"E_nu ||grad_{key} T[mu_L] - grad_{key} T[mu]||^2")
        ax.set_title(f"{cert['claim']}: grad_{key}, measured against predicted")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    legend_below(fig, handles, labels)
    return png(fig)
