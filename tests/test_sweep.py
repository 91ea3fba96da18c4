"""`softlin sweep` without a cluster: grids, bad grids, seeds, store keys, atomic writes, resume.

The engine is run in this process with a fake point function (a few-line certificate), so these
tests take well under a second; the Dask path and real claims are in test_sweep_dask.py (slow tier).
"""

import hashlib
import json
import os
import sys

import numpy as np
import pytest

from softlin import cli
from softlin.sweep import engine as cs
from softlin.sweep import execute as sx
from softlin.sweep import grid
from softlin.sweep import store
from softlin.sweep import summary
from softlin.core import registry


def _eigmax(s):
    """lambda_max(U^T Gamma U Sigma_q) as the largest eigenvalue of the (non-symmetric) product."""
    U, G, Q = (np.asarray(s[k], dtype=float) for k in ("U", "cov", "query_cov"))
    return float(np.max(np.linalg.eigvals(U.T @ G @ U @ Q).real))


def test_the_lambda_axis_realises_lambda_and_keeps_the_fixed_query_part():
    base = registry.get("prop-3.1").default_scenario()
    parsed = grid.parse({"claim": "prop-3.1", "axes": {"lambda": [0.05, 0.5, 4.0]}})
    for p in grid.points(parsed):
        s = p["scenario"]
        assert _eigmax(s) == pytest.approx(p["params"]["lambda"], rel=1e-10)
        assert np.asarray(s["U"]) @ np.asarray(s["query"]) == pytest.approx(
            np.asarray(base["U"]) @ np.asarray(base["query"]), rel=1e-12
        )
        assert s["cov"] == base["cov"] and s["seed"] == p["seed"]


def test_sigma_and_d_axes_and_their_order_of_application():
    parsed = grid.parse({"claim": "lemma-2.1", "axes": {"lambda": [0.3], "sigma": [2.0], "d": [3]}})
    (p,) = grid.points(parsed)
    s = p["scenario"]
    assert len(s["mean"]) == 3 and np.asarray(s["U"]).shape == (3, 3)
    assert np.sqrt(np.max(np.linalg.eigvalsh(np.asarray(s["cov"])))) == pytest.approx(
        2.0, rel=1e-12
    )
    assert _eigmax(s) == pytest.approx(0.3, rel=1e-10)  # lambda applied after sigma, so it holds


def test_points_are_the_product_of_the_axes_first_axis_slowest():
    parsed = grid.parse(
        {"claim": "lemma-2.1", "axes": {"trials": [200, 300], "lambda": [0.1, 0.2, 0.3]}}
    )
    params = [p["params"] for p in grid.points(parsed)]
    assert params[:4] == [
        {"trials": 200, "lambda": 0.1},
        {"trials": 200, "lambda": 0.2},
        {"trials": 200, "lambda": 0.3},
        {"trials": 300, "lambda": 0.1},
    ]
    assert len(params) == 6


def test_a_point_seed_depends_on_the_sweep_seed_and_the_point_only():
    a = grid.points(grid.parse({"claim": "lemma-2.1", "seed": 5, "axes": {"lambda": [0.1, 0.2]}}))
    b = grid.points(grid.parse({"claim": "lemma-2.1", "seed": 5, "axes": {"lambda": [0.3, 0.2]}}))
    c = grid.points(grid.parse({"claim": "lemma-2.1", "seed": 6, "axes": {"lambda": [0.2]}}))
    assert a[1]["seed"] == b[1]["seed"] != c[0]["seed"]
    assert len({a[0]["seed"], a[1]["seed"], b[0]["seed"]}) == 3
    # the documented formula, recomputed here
    text = json.dumps({"params": {"lambda": 0.2}, "sweep_seed": 5}, separators=(",", ":"))
    assert a[1]["seed"] == int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big") >> 1


def test_the_store_key_changes_with_each_input_and_nothing_else():
    s = {"d": 1, "U": [[0.5]], "seed": 1}
    k = store.point_key("lemma-2.1", s, "quick", 1, "h")
    assert k == store.point_key("lemma-2.1", dict(reversed(list(s.items()))), "quick", 1, "h")
    others = [
        store.point_key("lemma-2.1", {**s, "U": [[0.6]]}, "quick", 1, "h"),
        store.point_key("lemma-2.1", s, "standard", 1, "h"),
        store.point_key("lemma-2.1", s, "quick", 2, "h"),
        store.point_key("lemma-2.1", s, "quick", 1, "other derivations"),
        store.point_key("mixture", s, "quick", 1, "h"),
    ]
    assert len({k, *others}) == 6


def test_an_atomic_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "x.json"
    store.atomic_write(path, "old\n")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        store.atomic_write(path, "new\n")
    assert path.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


CALLS = []


def fake_point(claim_id, scenario, profile, seed):
    """A tiny certificate whose numbers are a function of the point's inputs."""
    CALLS.append(seed)
    lam = _eigmax(scenario)
    cert = {
        "claim": claim_id,
        "status": "verified",
        "scenario": scenario,
        "profile": profile,
        "seed": seed,
        "quantities": {
            "lambda_max": lam,
            "exponent": min(1.0, (np.sqrt(1 + 4 / lam) - 1) / 2),
            "measured_slope": 0.9,
            "measured_slope_stderr": 0.01,
            "predicted_slope_tested_range": 0.91,
            "c2": 1.0,
            "sigma": 2.0,
        },
    }
    return json.dumps(cert, indent=1) + "\n", 0.0


def _plan(lams=(0.1, 0.3, 0.7)):
    parsed = grid.parse(
        {"claim": "prop-3.1", "seed": 1, "profile": "quick", "axes": {"lambda": list(lams)}}
    )
    pts = grid.points(parsed)
    for p in pts:
        p["key"] = store.point_key("prop-3.1", p["scenario"], "quick", p["seed"])
    return parsed, pts


def test_execute_writes_every_point_and_the_summary_then_resumes_without_recomputing(tmp_path):
    parsed, pts = _plan()
    CALLS.clear()
    result = cs.execute(parsed, pts, tmp_path, lambda t: sx.run_inline(t, fake_point))
    assert result["computed"] == 3 and len(CALLS) == 3
    summ = json.loads((tmp_path / "summary.json").read_text())
    assert summ["claim"] == "prop-3.1" and summ["seed"] == 1
    assert [p["params"]["lambda"] for p in summ["points"]] == [0.1, 0.3, 0.7]
    first = summ["points"][0]
    assert first["lambda_max"] == pytest.approx(0.1, rel=1e-10)
    assert (
        first["exact_slope"] == 0.91
        and first["measured_slope"] == 0.9
        and first["paper_exponent"] == 0.25
    )
    assert (tmp_path / first["certificate"]).is_file() and (
        tmp_path / "rates.png"
    ).stat().st_size > 1000
    again = cs.execute(parsed, pts, tmp_path, lambda t: sx.run_inline(t, fake_point))
    assert again["computed"] == 0 and len(CALLS) == 3 and again["summary"] == summ


def test_an_interrupted_sweep_keeps_finished_points_and_recomputes_only_the_rest(tmp_path):
    parsed, pts = _plan()
    CALLS.clear()

    def dies_on_the_second(claim_id, scenario, profile, seed):
        if len(CALLS) == 1:
            raise KeyboardInterrupt
        return fake_point(claim_id, scenario, profile, seed)

    with pytest.raises(KeyboardInterrupt):
        cs.execute(parsed, pts, tmp_path, lambda t: sx.run_inline(t, dies_on_the_second))
    assert (
        len(list((tmp_path / "points").glob("*.json"))) == 1
        and not (tmp_path / "summary.json").exists()
    )
    (tmp_path / "points" / f"{pts[2]['key']}.json").write_text(
        '{"claim": "prop-3.1", "stat'
    )  # a torn file
    result = cs.execute(parsed, pts, tmp_path, lambda t: sx.run_inline(t, fake_point))
    assert result["computed"] == 2 and len(CALLS) == 3  # the torn file is not taken for a point


def test_a_lambda_sweeps_summary_carries_the_series_and_the_derived_curves_its_figure_draws():
    """The renderer computes nothing (tests/test_layers.py), so the summary holds the claim's
    declared series and the derived exponents on a grid spanning the points: kappa and the naive
    exponent, checked here against their closed forms (docs/paper.md), not the kernels."""
    parsed, pts = _plan(lams=(0.02, 0.3, 7.0))
    entries = [{"index": p["index"], "params": p["params"]} for p in pts]
    summ = summary.summary(parsed, entries, "hash")
    declared = registry.get("prop-3.1").sweep_series
    assert [tuple(s[k] for k in summary.SERIES_KEYS) for s in summ["series"]] == list(declared)
    lam = np.array(summ["curves"]["lambda"])
    assert len(lam) == summary.CURVE_POINTS and np.all(np.diff(lam) > 0)
    assert lam[0] == pytest.approx(0.02 / 1.25) and lam[-1] == pytest.approx(7.0 * 1.25)
    kappa = np.minimum(1.0, (np.sqrt(1 + 4 / lam) - 1) / 2)
    assert summ["curves"]["exponent"] == pytest.approx(kappa, rel=1e-12)
    assert summ["curves"]["naive_exponent"] == pytest.approx(
        np.minimum(1.0, 1 / (2 * lam)), rel=1e-12
    )
    # the default range: at least [0.05, 4] with the margins, whatever the points
    narrow = summary.curves([0.3, 0.4])["lambda"]
    assert narrow[0] == pytest.approx(0.05 / 1.25) and narrow[-1] == pytest.approx(5.0)
    # a sweep over another axis draws no phase diagram, and carries neither
    other = summary.summary({**parsed, "axes": {"trials": [10, 20]}}, entries, "hash")
    assert "series" not in other and "curves" not in other


def test_a_claim_without_declared_series_gets_the_default_series():
    assert registry.get("lemma-2.1").sweep_series == ()
    assert summary.series("lemma-2.1") == [
        dict(zip(summary.SERIES_KEYS, summary.DEFAULT_SERIES[0]))
    ]


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('claim = "prop-3.1"\nwobble = 1\n[axes]\nlambda = [0.1]\n', "unknown grid key 'wobble'"),
        ('[axes]\nlambda = [0.1]\n', "names no claim"),
        ('claim = "prop-9.9"\n[axes]\nlambda = [0.1]\n', "unknown claim id 'prop-9.9'"),
        ('claim = "prop-3.1"\n', "no [axes]"),
        ('claim = "prop-3.1"\n[axes]\nlambda = []\n', "non-empty list"),
        ('claim = "prop-3.1"\n[axes]\nlambda = [0.1, -0.2]\n', "must be > 0"),
        ('claim = "prop-3.1"\n[axes]\nlambda = [0.1, 0.1]\n', "repeats a value"),
        ('claim = "prop-3.1"\n[axes]\nlambda = ["big"]\n', "not a finite number"),
        ('claim = "prop-3.1"\n[axes]\nwidth = [1, 2]\n', "reads no such key"),
        ('claim = "thm-5.2"\n[axes]\nlambda = [0.1]\n', "no U, cov and query_cov"),
        ('claim = "prop-3.1"\nseed = -1\n[axes]\nlambda = [0.1]\n', "seed = -1"),
        ('claim = "prop-3.1"\n[scenario]\nwobble = 2\n[axes]\nlambda = [0.1]\n', "wobble"),
        ('claim = "prop-3.1"\n[axes]\nd = [2, 99]\n', "99"),
        (
            'claim = "lemma-2.1"\nmax_minutes = 1\n[axes]\ntrials = [2000000]\n',
            "above the 1 min cap",
        ),
        ('claim = "prop-3.1"\n[axes]\nlambda = [0.1\n', "not valid TOML"),
    ],
)
def test_bad_grids_exit_2_with_one_line_naming_the_value(tmp_path, capsys, text, fragment):
    path = tmp_path / "g.toml"
    path.write_text(text)
    assert cli.main(["sweep", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["sweep"], "grid file or --builtin"),
        (["sweep", "g.toml", "--builtin", "rates"], "grid file or --builtin"),
        (["sweep", "--builtin", "rates", "--workers", "0"], "--workers 0"),
        (["sweep", "--builtin", "rates", "--workers", "2", "--scheduler", "tcp://h:1"], "not both"),
        (["sweep", "--builtin", "rates", "--scheduler", "h:1"], "tcp://HOST:PORT"),
        (["sweep", "--builtin", "nope"], "not a built-in grid (known: rates, rates-gradients)"),
    ],
)
def test_bad_sweep_options_exit_2(capsys, argv, fragment):
    assert cli.main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_without_dask_the_sweep_exits_2_with_an_install_hint(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    assert cli.main(["sweep", "--builtin", "rates", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'softlin[sweep]'" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()
