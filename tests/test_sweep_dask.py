"""`softlin sweep` on Dask distributed with a real claim (slow tier:
`pytest -m slow tests/test_sweep_dask.py`).

A 2-point lemma-2.1 grid at quick (about 7 s a point on one core): a LocalCluster of 2 processes
gives the bytes of the in-process run; a worker that dies mid-point has its point rerun elsewhere; a
sweep killed (SIGKILL) after its first point resumes with only the missing points.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

import cloudpickle  # noqa: E402  (a dependency of distributed)

from softlin.sweep import engine as cs  # noqa: E402
from softlin.sweep import execute as sx  # noqa: E402
from softlin.sweep import grid  # noqa: E402
from softlin.sweep import store  # noqa: E402

pytestmark = pytest.mark.slow
GRID = {"claim": "lemma-2.1", "seed": 4, "profile": "quick", "axes": {"lambda": [0.1, 0.2]}}


def _plan(g=GRID):
    parsed = grid.parse(g)
    pts = grid.points(parsed)
    for p in pts:
        p["key"] = store.point_key(parsed["claim"], p["scenario"], parsed["profile"], p["seed"])
    return parsed, pts


def _bytes(out: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted((out / "points").glob("*.json"))}


@pytest.fixture(scope="module")
def client():
    c = sx.open_client(2, None)
    yield c
    sx.close_client(c)


def test_two_worker_processes_give_the_bytes_of_the_in_process_run(tmp_path, client):
    parsed, pts = _plan()
    assert len(client.scheduler_info()["workers"]) == 2
    cs.execute(parsed, pts, tmp_path / "dask", lambda t: sx.run_dask(client, t))
    cs.execute(parsed, pts, tmp_path / "inline", lambda t: sx.run_inline(t))
    dask_bytes = _bytes(tmp_path / "dask")
    assert len(dask_bytes) == 2 and dask_bytes == _bytes(tmp_path / "inline")
    assert (tmp_path / "dask" / "summary.json").read_bytes() == (
        tmp_path / "inline" / "summary.json"
    ).read_bytes()
    assert all(json.loads(b)["status"] == "verified" for b in dask_bytes.values())


def dies_once(claim_id, scenario, profile, seed):
    """Kill this worker process the first time any point runs (marked by a file), then compute."""
    marker = Path(scenario["_marker"])
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return sx.compute_point(
        claim_id, {k: v for k, v in scenario.items() if k != "_marker"}, profile, seed
    )


def test_a_worker_killed_mid_point_has_its_point_rerun_and_the_sweep_completes(tmp_path, client):
    parsed, pts = _plan()
    marker = tmp_path / "killed"
    for p in pts:
        p["scenario"] = {**p["scenario"], "_marker": str(marker)}
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    try:
        result = cs.execute(
            parsed, pts, tmp_path / "out", lambda t: sx.run_dask(client, t, dies_once)
        )
    finally:
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    assert marker.exists() and result["computed"] == 2
    assert [p["status"] for p in result["summary"]["points"]] == ["verified", "verified"]
    # the rerun point is the point a healthy run computes
    clean_parsed, clean_pts = _plan()
    cs.execute(clean_parsed, clean_pts, tmp_path / "clean", lambda t: sx.run_inline(t))
    killed = {
        json.loads(b)["seed"]: json.loads(b)["quantities"]
        for b in _bytes(tmp_path / "out").values()
    }
    clean = {
        json.loads(b)["seed"]: json.loads(b)["quantities"]
        for b in _bytes(tmp_path / "clean").values()
    }
    assert killed == clean


def test_a_sweep_killed_after_its_first_point_resumes_without_recomputing_it(tmp_path):
    g = tmp_path / "g.toml"
    g.write_text(
        'claim = "lemma-2.1"\nseed = 4\nprofile = "quick"\n[axes]\nlambda = [0.1, 0.2, 0.3]\n'
    )
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "softlin.cli",
        "sweep",
        str(g),
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 240
        while not list((out / "points").glob("*.json")) if (out / "points").exists() else True:
            assert proc.poll() is None and time.monotonic() < deadline, (
                "the sweep ended before its first point"
            )
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the CLI and the cluster it started
        proc.wait()
    first = _bytes(out)
    assert len(first) == 1 and not (out / "summary.json").exists()
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "2 computed, 1 reused from the store" in done.stdout
    assert done.stderr == ""  # no progress on a pipe
    after = _bytes(out)
    assert len(after) == 3 and all(after[k] == v for k, v in first.items())
    assert not list(out.rglob("*.tmp"))


def test_a_point_certificate_is_the_one_verify_writes_on_its_scenario(tmp_path):
    """The point's seed and scenario are all it depends on: `softlin verify CLAIM --scenario` on the
    point's scenario (written as TOML; JSON arrays and numbers are TOML) writes the same bytes."""
    from softlin import cli

    parsed, pts = _plan({**GRID, "axes": {"lambda": [0.2]}})
    cs.execute(parsed, pts, tmp_path / "sweep", lambda t: sx.run_inline(t))
    toml = "".join(
        f"{k} = {json.dumps(v)}\n" for k, v in pts[0]["scenario"].items() if v is not None
    )
    (tmp_path / "point.toml").write_text(toml)
    assert (
        cli.main(
            [
                "verify",
                "lemma-2.1",
                "--scenario",
                str(tmp_path / "point.toml"),
                "--profile",
                "quick",
                "--out",
                str(tmp_path / "verify"),
                "--quiet",
            ]
        )
        == 0
    )
    assert (tmp_path / "verify" / "certificates" / "lemma-2.1.json").read_bytes() == (
        tmp_path / "sweep" / "points" / f"{pts[0]['key']}.json"
    ).read_bytes()
