"""The phase-diagram page and the prop-3.4 sweep behind it on the committed sweeps."""

import copy
import json
import shutil
from pathlib import Path

import pytest

from softlin.sweep import engine, summary
from softlin.sweep.grid import builtin, parse, points
from softlin.sweep.store import point_key
from softlin.sweep.summary import point_entry, scenario_lambda
from softlin.numerics import kernels
from softlin.render import render, sweep_figure, sweep_page

REPO = Path(__file__).resolve().parents[2]
SWEEPS = REPO / "reports" / "sweeps"


def _summary(name):
    return json.loads((SWEEPS / name / "summary.json").read_text())


@pytest.fixture(scope="module")
def grads():
    return _summary("rates-gradients")


def test_the_gradient_sweep_realises_each_lambda_in_prop34s_own_scenario_regime(grads):
    """The grid scales U to reach lambda; prop-3.4's `scenario` regime runs at that lambda, with
    kappa from the emitted kernel, and its first-order coefficients are finite exactly below 1/2."""
    assert grads["claim"] == "prop-3.4" and grads["axes"] == builtin()["rates-gradients"]["axes"]
    planned = points(parse(builtin()["rates-gradients"]))
    assert [p["params"] for p in grads["points"]] == [p["params"] for p in planned]
    for p, q in zip(
        planned, grads["points"]
    ):  # the grid's realisation, live: scenario lambda and store key
        assert scenario_lambda(p["scenario"]) == pytest.approx(p["params"]["lambda"], rel=1e-9)
        assert (
            point_key(
                "prop-3.4", p["scenario"], grads["profile"], p["seed"], grads["kernels_input_hash"]
            )
            == q["key"]
        )
    for p in grads["points"]:
        lam = p["params"]["lambda"]
        cert = json.loads((SWEEPS / "rates-gradients" / p["certificate"]).read_text())
        own = cert["quantities"]["regimes"]["scenario"]
        assert own["lambda"] == pytest.approx(lam, rel=1e-6) and p["lambda_max"] == pytest.approx(
            lam, rel=1e-6
        )
        assert p["exponent"] == pytest.approx(float(kernels.sharp_exponent(lam)), rel=1e-7)
        assert p["naive_exponent"] == pytest.approx(float(kernels.naive_exponent(lam)), rel=1e-7)
        assert (p["first_order_coefficient_V"] is not None) == (lam < 0.5), lam


def test_summary_entries_are_decay_rates_recomputed_from_the_point_certificates(grads):
    """point_entry on each committed certificate gives the committed entry; the slopes are decay
    rates (positive, like prop-3.1's), within 5 standard errors of the exact finite-L rate."""
    for p in grads["points"]:
        cert = json.loads((SWEEPS / "rates-gradients" / p["certificate"]).read_text())
        entry = point_entry(p, p["key"], cert)
        assert entry == p
        for suffix in ("", "_U"):
            meas, se, exact = (
                entry[f"measured_slope{suffix}"],
                entry[f"measured_slope{suffix}_stderr"],
                entry[f"exact_slope{suffix}"],
            )
            assert meas > 0 and exact > 0 and se > 0
            assert abs(meas - exact) <= 5 * se, (p["params"], suffix, meas, exact, se)


def test_a_point_not_verified_names_its_checks_by_id_in_the_summary_and_on_the_page(tmp_path):
    """checks_not_passed keys each check by its id (the prose kept for a reader); the page's
    reading names them by id, and by the prose for a summary written before ids."""
    cert = json.loads(
        (REPO / "reports" / "certificates" / "prop-3.4.json").read_text()
    )  # a certificate with ids (the committed sweep points predate them)
    cert["status"] = "refuted"
    cert["checks"][3]["passed"] = False
    p = {"index": 0, "params": {"lambda": 0.25}, "seed": 0}
    entry = point_entry(p, "k", cert)
    # the failed check, and the checks kept without a verdict (passed None: not judged)
    assert entry["checks_not_passed"] == [
        {"id": c["id"], "name": c["name"], "passed": c["passed"]}
        for c in cert["checks"]
        if c is cert["checks"][3] or c["passed"] is None
    ]
    assert {"id": cert["checks"][3]["id"], "name": cert["checks"][3]["name"], "passed": False} in (
        entry["checks_not_passed"]
    )
    out = tmp_path / "reports"
    shutil.copytree(SWEEPS, out / "sweeps")
    path = out / "sweeps" / "rates-gradients" / "summary.json"
    summ = json.loads(path.read_text())
    summ["points"][0].update(status="refuted", checks_not_passed=entry["checks_not_passed"])
    summ["points"][1].update(
        status="inconclusive", checks_not_passed=[{"name": "an old prose name", "passed": None}]
    )
    path.write_text(json.dumps(summ))
    (line,) = [
        r for r in sweep_page.reading(sweep_page.load_summaries(out)) if "points are not" in r
    ]
    assert f"{cert['checks'][3]['id']} (failed)" in line and "an old prose name (undecided)" in line


def test_the_page_has_a_row_per_point_and_series_the_commands_and_is_deterministic():
    out = REPO / "reports"
    files = sweep_page.files(out)
    assert set(files) == {
        out / "phase-diagram.md",
        out / "phase-diagram.html",
        out / "figures" / "phase-diagram.png",
    }
    assert sweep_page.files(out) == files
    md = files[out / "phase-diagram.md"].decode()
    rows = [line for line in md.splitlines() if line.startswith("| prop-3.")]
    assert len(rows) == len(_summary("rates")["points"]) + 2 * len(
        _summary("rates-gradients")["points"]
    )
    assert (
        "softlin sweep --builtin rates " in md and "softlin sweep --builtin rates-gradients " in md
    )
    html = files[out / "phase-diagram.html"].decode()
    assert html.count("<tr><td") == len(rows) and 'src="figures/phase-diagram.png"' in html


def test_the_reading_and_the_figure_follow_the_numbers(tmp_path):
    """Sensitivity: a measured slope moved by 10 standard errors changes the stated agreement and
    the figure."""
    out = tmp_path / "reports"
    shutil.copytree(SWEEPS, out / "sweeps")
    before = sweep_page.files(out)
    path = out / "sweeps" / "rates-gradients" / "summary.json"
    summ = json.loads(path.read_text())
    moved = copy.deepcopy(summ)
    p = moved["points"][3]
    p["measured_slope"] = p["exact_slope"] + 10 * p["measured_slope_stderr"]
    path.write_text(json.dumps(moved))
    after = sweep_page.files(out)
    line = [
        r for r in sweep_page.reading(sweep_page.load_summaries(out)) if "prop-3.4 grad_V" in r
    ][0]
    assert "within 10.00 standard errors" in line
    assert (
        after[out / "figures" / "phase-diagram.png"]
        != before[out / "figures" / "phase-diagram.png"]
    )


@pytest.mark.parametrize("name", ["rates", "rates-gradients"])
def test_the_committed_summaries_carry_the_series_and_curves_the_summary_code_writes(name):
    """The figure draws only what the summary holds: each committed summary has its claim's series
    and the derived curves, equal to the emitted kernels' values at the curve's lambdas (the
    summaries predate the curves: `engine.resummarise` wrote them from the stored points)."""
    summ = _summary(name)
    assert summ["series"] == summary.series(summ["claim"])
    lams = [p["params"]["lambda"] for p in summ["points"]]
    fresh = summary.curves(lams)
    assert set(summ["curves"]) == set(fresh)
    for column, values in fresh.items():
        assert summ["curves"][column] == pytest.approx(values, rel=1e-12), column
    assert summ["curves"]["exponent"] == pytest.approx(
        [float(kernels.sharp_exponent(x)) for x in summ["curves"]["lambda"]], rel=1e-12
    )


def test_resummarise_rewrites_a_summary_from_its_stored_points_and_computes_none(tmp_path):
    """A summary written before summaries carried their curves becomes the committed one: the grid,
    the points and their kernels' hash kept, the series and curves added, rates.png drawn."""
    out = tmp_path / "rates"
    shutil.copytree(SWEEPS / "rates", out)
    old = json.loads((out / "summary.json").read_text())
    for key in ("series", "curves"):
        del old[key]
    (out / "summary.json").write_text(json.dumps(old))
    (out / "rates.png").unlink()
    assert not sweep_figure.plottable(old)
    new = engine.resummarise(out)
    assert new == _summary("rates") == json.loads((out / "summary.json").read_text())
    assert (out / "rates.png").read_bytes() == sweep_figure.phase_diagram_png([new])


def test_the_figure_draws_the_summarys_curves_and_needs_them(tmp_path):
    """Sensitivity: halving the summary's kappa curve changes the figure; a summary without curves
    is not drawn, and without any drawable summary there is no page."""
    out = tmp_path / "reports"
    shutil.copytree(SWEEPS, out / "sweeps")
    before = sweep_page.files(out)[out / "figures" / "phase-diagram.png"]
    for name in sweep_page.SWEEPS:
        path = out / "sweeps" / name / "summary.json"
        summ = json.loads(path.read_text())
        summ["curves"]["exponent"] = [x / 2 for x in summ["curves"]["exponent"]]
        path.write_text(json.dumps(summ))
    assert sweep_page.files(out)[out / "figures" / "phase-diagram.png"] != before
    for name in sweep_page.SWEEPS:
        path = out / "sweeps" / name / "summary.json"
        summ = json.loads(path.read_text())
        del summ["curves"]
        path.write_text(json.dumps(summ))
    assert sweep_page.files(out) == {}


def test_the_figure_and_the_summary_name_the_series_keys_alike():
    """render/ cannot import the sweep layer above it, so each spells the keys; they must agree."""
    assert sweep_figure.SERIES_KEYS == summary.SERIES_KEYS


def test_without_sweeps_there_is_no_page_and_no_link(tmp_path):
    out = tmp_path / "reports"
    (out / "certificates").mkdir(parents=True)
    shutil.copy(REPO / "reports" / "certificates" / "lemma-2.1.json", out / "certificates")
    files = render.rendered(out)
    assert not any("phase-diagram" in p.name for p in files)
    assert "phase-diagram" not in files[out / "index.html"].decode()
    shutil.copytree(SWEEPS, out / "sweeps")
    files = render.rendered(out)
    assert 'href="phase-diagram.html"' in files[out / "index.html"].decode()
    assert "(phase-diagram.md)" in files[out / "index.md"].decode()


def test_a_summary_that_is_not_json_is_a_one_line_value_error(tmp_path):
    out = tmp_path / "reports"
    (out / "sweeps" / "rates").mkdir(parents=True)
    (out / "sweeps" / "rates" / "summary.json").write_text("{not json")
    with pytest.raises(ValueError, match="sweep summary .*summary.json: not JSON"):
        sweep_page.files(out)


def test_report_check_covers_the_page(tmp_path):
    """render_all then stale_pages is empty; an edited summary makes the page, its table and figure
    stale."""
    out = tmp_path / "reports"
    (out / "certificates").mkdir(parents=True)
    shutil.copytree(SWEEPS, out / "sweeps")
    render.render_all(out)
    assert render.stale_pages(out) == []
    path = out / "sweeps" / "rates" / "summary.json"
    summ = json.loads(path.read_text())
    summ["points"][0]["measured_slope"] += 0.05
    path.write_text(json.dumps(summ))
    stale = {p.name for p in render.stale_pages(out)}
    assert {"phase-diagram.md", "phase-diagram.html", "phase-diagram.png"} <= stale
