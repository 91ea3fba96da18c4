"""Claims side by side (softlin/core/parallel.py): the schedule, the progress of several running
claims, and `softlin verify --jobs` through the CLI, with stand-in claims run in worker processes
(tests/parallel_claims.py) and, in the slow tier, real claims whose certificates must not depend on
the number of workers."""

import io
import json
import os

import pytest

from softlin import cli
from softlin.core import budgets, parallel, progress, registry

from . import parallel_claims as stand_ins


@pytest.fixture(autouse=True)
def reset_progress():
    yield
    progress.enable(False)


def test_makespan_is_the_longest_first_schedule():
    assert budgets.makespan([1.0, 2.0, 3.0], 1) == 6.0
    assert budgets.makespan([1.0, 2.0, 3.0], 5) == 3.0
    # longest first: 5 | 4, then 3 -> 7, 3 -> 8, 3 -> 10 (the optimum, 9, is not what LPT gives)
    assert budgets.makespan([3.0, 5.0, 3.0, 4.0, 3.0], 2) == 10.0
    assert budgets.makespan([180.0, 90.0, 46.0, 34.0, 25.0], 2) == 195.0


def test_the_jobs_default_to_the_cores_and_never_exceed_the_claims(monkeypatch):
    monkeypatch.setattr(parallel, "usable_cores", lambda: 2)
    assert parallel.default_jobs(9) == 2
    assert parallel.default_jobs(1) == 1
    monkeypatch.setattr(parallel, "usable_cores", lambda: 8)
    assert parallel.default_jobs(3) == 3


def test_a_registered_claim_travels_by_id_a_stand_in_pickled_a_closure_not_at_all():
    lemma = registry.get("lemma-2.1")
    assert parallel.portable(lemma) == ("id", "lemma-2.1")
    assert parallel.portable(stand_ins.FAST) == ("object", stand_ins.FAST)
    import dataclasses

    closure = dataclasses.replace(stand_ins.FAST, run=lambda s, p, r: {})
    assert parallel.portable(closure) is None


def test_the_lines_name_every_running_claim_longest_first():
    lanes = {
        "total": 9,
        "done": 3,
        "running": {
            "prop-3.4": {"start": 60.0, "estimate": 90.0, "task": None},
            "authors-experiment": {
                "start": 30.0,
                "estimate": 180.0,
                "task": {"label": "SGD", "done": 2, "total": 5, "fraction": 0.4, "item": "L = 100"},
            },
        },
    }
    assert progress.lanes_heartbeat_line(lanes, now=100.0, start=0.0) == (
        "softlin: 3 of 9 claims done; running authors-experiment, 1:10 of about 3:00 estimated, "
        "2 of 5 steps of SGD done, running L = 100; running prop-3.4, 0:40 of about 1:30 "
        "estimated; 1:40 since the start"
    )
    line = progress.lanes_status_line(lanes, columns=200, now=100.0)
    assert line == (
        "claims [####--------] 3/9 done | authors-experiment 1:10 SGD [###-----] L = 100 2/5 | "
        "prop-3.4 0:40"
    )
    assert len(progress.lanes_status_line(lanes, columns=40, now=100.0)) <= 39


def _stand_in_registry(monkeypatch, *claims):
    monkeypatch.setattr(registry, "CLAIMS", {c.id: c for c in claims})


def test_verify_runs_claims_in_worker_processes_and_reports_each(monkeypatch, tmp_path):
    """Two stand-ins, two workers, on a pipe: each certificate written, made in a process other
    than this one and than the other claim's, in the order asked; heartbeats name the claim still
    running and how far its sweep has got."""
    _stand_in_registry(monkeypatch, stand_ins.FAST, stand_ins.SLOW)
    monkeypatch.setattr(progress, "HEARTBEAT_SECONDS", 0.3)
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    out = tmp_path / "out"
    assert cli.main(["verify", "--out", str(out), "--no-cache", "--jobs", "2", "--json", "-"]) == 0
    certs = {p.stem: json.loads(p.read_text()) for p in (out / "certificates").glob("*.json")}
    assert set(certs) == {"fast-claim", "slow-claim"}
    pids = {cid: cert["quantities"]["pid"] for cid, cert in certs.items()}
    assert os.getpid() not in pids.values() and len(set(pids.values())) == 2
    err = pipe.getvalue()
    assert "softlin: fast-claim verified in" in err and "softlin: slow-claim verified in" in err
    # the slow claim (its estimate the larger) is named first while both run, and its sweep's
    # steps reach the parent from its worker
    assert "running slow-claim, " in err
    assert any(
        "steps of slow: Monte Carlo done, running L = " in line for line in err.splitlines()
    ), err


# the worker tests below start two processes each (about 3 s on 2 idle cores): one in the default
# run, the others in the slow tier
@pytest.mark.slow
def test_the_certificates_do_not_depend_on_the_number_of_workers(monkeypatch, tmp_path):
    """The same stand-ins at --jobs 1 (in this process) and --jobs 2 (in workers): the same
    numbers (each claim draws from its own stream)."""
    _stand_in_registry(monkeypatch, stand_ins.FAST, stand_ins.SLOW)
    values = {}
    for jobs in ("1", "2"):
        out = tmp_path / jobs
        assert cli.main(["verify", "--out", str(out), "--no-cache", "--quiet", "--jobs", jobs]) == 0
        values[jobs] = {
            p.stem: json.loads(p.read_text())["checks"][0]["value"]
            for p in (out / "certificates").glob("*.json")
        }
    assert values["1"] == values["2"] and len(values["1"]) == 2


@pytest.mark.slow
def test_a_failing_claim_in_a_worker_stops_the_run_as_a_bug_with_its_traceback(
    monkeypatch, tmp_path, capsys
):
    _stand_in_registry(monkeypatch, stand_ins.SLOW, stand_ins.FAILING)
    monkeypatch.setenv("SOFTLIN_DEBUG", "1")
    code = cli.main(["verify", "--out", str(tmp_path), "--no-cache", "--quiet", "--jobs", "2"])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "softlin: internal error: failing-claim: ZeroDivisionError: a stand-in bug" in err
    assert "in a verify worker process:" in err and "_failing_run" in err


def test_jobs_must_be_positive(tmp_path, capsys):
    assert cli.main(["verify", "lemma-2.1", "--out", str(tmp_path), "--jobs", "0"]) == 2
    assert "--jobs 0 must be >= 1" in capsys.readouterr().err


# ~25 s: two quick claims twice
@pytest.mark.slow
def test_real_certificates_made_side_by_side_reproduce_one_at_a_time(tmp_path):
    """lemma-2.1 and mixture at quick, two workers; `verify --check --jobs 1` (in one process)
    finds every number the same."""
    out = str(tmp_path)
    args = ["verify", "lemma-2.1", "mixture", "--profile", "quick", "--out", out, "--quiet"]
    assert cli.main([*args, "--jobs", "2", "--no-cache"]) == 0
    assert cli.main(["verify", "--check", "--out", out, "--quiet", "--jobs", "1"]) == 0


# ~10 s: quick claims started in a subprocess, its parent killed once both workers run
@pytest.mark.slow
def test_workers_stop_when_verify_is_killed_outright(tmp_path):
    """SIGKILL skips verify's clean-up: its workers must notice they were orphaned and exit,
    not run the rest of the queue."""
    import signal
    import subprocess
    import sys
    import time

    import psutil

    # four claims (about 30 s of work at quick): an orphan that ran the rest of the queue would
    # outlast the 5 s allowed below
    argv = [sys.executable, "-m", "softlin.cli", "verify", "lemma-2.1", "mixture", "asm-3.3"]
    argv += ["thm-4.3", "--profile", "quick", "--jobs", "2", "--out", str(tmp_path), "--quiet"]
    parent = subprocess.Popen(argv)
    try:
        deadline = time.monotonic() + 120
        workers = []
        while len(workers) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = [
                p
                for p in psutil.Process(parent.pid).children()
                if "multiprocessing" in " ".join(p.cmdline())
                and "resource_tracker" not in " ".join(p.cmdline())
            ]
        assert len(workers) == 2, "verify did not start two workers"
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 5

        def running(p):  # an exited worker may linger as a zombie of its new parent
            try:
                return p.status() != psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                return False

        while any(running(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.2)
        alive = [p for p in workers if running(p)]
        assert not alive, f"workers still running 5 s after their parent died: {alive}"
    finally:
        if parent.poll() is None:
            parent.kill()
