"""Claim figures overlay prediction on measurement: the numbers drawn, the regimes named, the legend
off the data."""

import json
from pathlib import Path

import pytest

from softlin.render import claim_figures as cf

REPO = Path(__file__).resolve().parents[2]


def _figure(fn, cert):
    """The matplotlib Figure a claim figure draws (the PNG step replaced by returning the
    figure)."""
    return fn(cert, lambda fig, **_: fig)


def test_bars_are_two_standard_errors_of_the_mse_carried_to_the_rmse():
    # MSE 4 +- 0.4: RMSE 2, se(RMSE) = 0.4 / (2 * 2) = 0.1, so the bar is +-0.2
    lines = cf.overlay(
        [16], {"rmse": [2.0], "mse": [4.0], "mse_stderr": [0.4], "exact_mse": [3.61]}
    )
    _, rmse, lo, hi = lines["measured"]
    assert rmse == [2.0] and hi == pytest.approx([0.2]) and lo == pytest.approx([0.2])
    assert lines["exact"][1] == pytest.approx([1.9])
    # a bar longer than the point is cut above 0 (log axis), not drawn through it
    _, _, lo, hi = cf.overlay([16], {"rmse": [0.1], "mse": [0.01], "mse_stderr": [0.01]})[
        "measured"
    ]
    assert hi == pytest.approx([0.1]) and 0 < lo[0] < 0.1


def test_first_order_line_meets_the_exact_curve_at_large_L_on_the_committed_prop31_certificate():
    """Two independent routes in the certificate (closed-form coefficient c, exact finite-L MSE by
    quadrature): sqrt(c / L) must approach sqrt(exact MSE) as L grows (lambda = 0.105, rho = 1)."""
    cert = json.loads((REPO / "reports" / "certificates" / "prop-3.1.json").read_text())
    main = dict(
        cert["series"]["main"],
        first_order_coefficient=cert["quantities"]["first_order_coefficient"],
    )
    lines = cf.overlay(main["L"], main)
    ratios = [e / f for e, f in zip(lines["exact"][1], lines["first_order"][1])]
    assert abs(ratios[-1] - 1) < 0.005 and abs(ratios[-1] - 1) < abs(ratios[0] - 1)
    assert all(abs(r - 1) < 0.03 for r in ratios)


def test_regimes_are_named_regimes_and_the_legend_is_below_the_axes():
    cert = json.loads((REPO / "reports" / "certificates" / "prop-3.1.json").read_text())
    fig = _figure(cf.convergence_png, cert)
    ax = fig.axes[0]
    labels = ax.get_legend_handles_labels()[1]
    regimes = [lb for lb in labels if "threshold" in lb]
    assert regimes and all(lb.startswith("regime: ") for lb in regimes), regimes
    assert any(lb.startswith("control: ") for lb in labels)  # token-law series stay controls
    assert any("first order sqrt(c/L)" in lb for lb in labels) and any(
        "exact finite-L" in lb for lb in labels
    )
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend = fig.legends[0]  # the figure's legend (figure_png.legend_below)
    assert (
        legend.get_window_extent(renderer).y1 <= ax.get_tightbbox(renderer).y0
    )  # under the x label too
    # regimes and controls in disjoint colours (and each regime its own)
    handles = dict(zip(labels, ax.get_legend_handles_labels()[0]))

    def colour(label):
        h = handles[label]
        return str((h[0] if isinstance(h, tuple) or hasattr(h, "lines") else h).get_color())

    reg = {colour(lb) for lb in regimes}
    ctl = {colour(lb) for lb in labels if lb.startswith("control: ")}
    assert len(reg) == len({lb.split(":")[1] for lb in regimes}) and not reg & ctl
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_prop34_figure_draws_measured_exact_and_first_order_in_every_regime_and_the_scenario():
    point = sorted((REPO / "reports" / "sweeps" / "rates-gradients" / "points").glob("*.json"))[0]
    cert = json.loads(point.read_text())
    fig = _figure(cf.regimes_png, cert)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    for name in cert["series"]["regimes"]:
        tag = "scenario (" if name == "scenario" else f"regime {name} threshold"
        assert any(lb.startswith(tag) and "Monte Carlo" in lb for lb in labels), (name, labels)
        assert any(lb.startswith(tag) and "exact finite-L" in lb for lb in labels), (name, labels)
        first = cert["quantities"]["regimes"][name].get("first_order_coefficient_V")
        assert any(lb.startswith(tag) and "first order" in lb for lb in labels) == (
            first is not None
        ), name
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    legend_top = fig.legends[0].get_window_extent(renderer).y1
    assert all(legend_top <= ax.get_window_extent(renderer).y0 for ax in fig.axes)  # below the data
    # the scenario's first-order line c / L meets its exact curve at the largest L (lambda < 1/8:
    # rho = 1)
    s, r = cert["series"]["regimes"]["scenario"], cert["quantities"]["regimes"]["scenario"]
    if r["first_order_coefficient_V"] is not None and r["lambda"] < 0.125:
        assert s["exact_V"][-1] * s["L"][-1] / r["first_order_coefficient_V"] == pytest.approx(
            1, abs=0.02
        )
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_a_moved_measured_point_moves_the_picture():
    cert = json.loads((REPO / "reports" / "certificates" / "prop-3.1.json").read_text())
    a = cf.convergence_png(cert, _png)
    cert["series"]["main"]["rmse"][2] *= 1.6
    assert cf.convergence_png(cert, _png) != a


def _png(fig, **_):
    import io

    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
