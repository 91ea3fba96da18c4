"""The same answer on every machine, and no verdict from a run that should have been refused: inputs
validated at their own scale and recorded exactly, memory bounded by the routes themselves, no work
lost to an interrupt or an unwritable --out, progress on a pipe, messages that say what is wrong.
Every case goes through the CLI as a user reaches it."""

from __future__ import annotations

import dataclasses
import errno
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from softlin import certio, cli
from softlin.core import progress, registry
from softlin.judge.check import union_bound
from softlin.numerics import selfnormalised, validate

REPO = Path(__file__).resolve().parents[1]


def write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def one_line_error(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("softlin: error: ") and err.count("\n") == 1 and "Traceback" not in err, (
        err
    )
    return err


def fake_claim(monkeypatch, claim_id, run):
    claim = registry.get(claim_id)
    # setting=None: a stand-in reads the merged scenario, not the claim's Setting
    stand_in = dataclasses.replace(claim, run=run, setting=None)
    monkeypatch.setitem(registry.CLAIMS, claim_id, stand_in)


def fake_certificate(claim_id, scenario, profile, seed, value=1.0):
    claim = registry.get(claim_id)
    from softlin.judge.check import Check
    from softlin.core.claim import certificate
    from softlin.core.findings import Findings

    return certificate(
        claim,
        scenario,
        profile,
        seed,
        Findings(
            [
                Check(
                    "a check",
                    "quadrature",
                    True,
                    value,
                    2.0,
                    "detail",
                    id="fake",
                    unit="relative error",
                )
            ],
            {"x": value},
        ),
    )


# --- inputs, at their own scale -------------------------------------------------------------------


def test_a_covariance_indefinite_at_its_own_scale_is_refused(tmp_path, capsys):
    f = write(tmp_path, "d = 2\ncov = [[1e-12, 0.0], [0.0, -5e-11]]\n")
    assert cli.main(["verify", "lemma-2.1", "--scenario", f, "--out", str(tmp_path / "out")]) == 2
    err = one_line_error(capsys)
    assert "cov" in err and "not positive semidefinite" in err and "-5e-11" in err
    assert not (tmp_path / "out").exists()


def test_tiny_and_huge_psd_covariances_are_accepted_and_tiny_indefinite_ones_are_not():
    for scale in (1e-12, 1.0, 1e12):
        B = np.array([[1.0, 0.0], [0.7, 0.2]]) * np.sqrt(scale)
        assert np.allclose(validate.covariance("cov", B @ B.T), B @ B.T)
        with pytest.raises(ValueError, match="not positive semidefinite"):
            validate.covariance("cov", scale * np.diag([1.0, -1e-6]))
    assert np.array_equal(validate.covariance("cov", np.zeros((2, 2))), np.zeros((2, 2)))


def test_a_nearly_singular_covariance_is_not_positive_definite_at_its_own_scale():
    validate.positive_definite("S", 1e-9 * np.eye(2))  # small, but well conditioned
    with pytest.raises(ValueError, match="singular at its own scale"):
        validate.positive_definite("S", np.diag([1.0, 1e-13]))


def test_entries_whose_squares_overflow_are_refused_before_any_work(tmp_path, capsys):
    f = write(tmp_path, "d = 2\ncov = [[1e308, 0.0], [0.0, 1.0]]\n")
    start = time.perf_counter()
    assert cli.main(["verify", "lemma-2.1", "--scenario", f, "--out", str(tmp_path / "out")]) == 2
    assert time.perf_counter() - start < 10
    err = one_line_error(capsys)
    assert "cov" in err and "1e+308" in err and "overflow" in err


def test_a_scenario_is_recorded_exactly_as_given():
    scenario = {
        "cov": [[1e-12, 0.0], [0.0, 3.0000000001]],
        "delta": 1e-300,
        "query": [0.123456789012345],
    }
    cert = {
        "claim": "x",
        "scenario": scenario,
        "quantities": {"tiny": 1e-300, "long": 0.123456789012345},
    }
    back = json.loads(certio.dumps(cert))
    assert back["scenario"] == scenario  # inputs: every bit
    assert back["quantities"] == {"tiny": 0.0, "long": 0.12345679}  # results: at their precision


def test_a_family_wise_false_alarm_is_a_probability():
    assert union_bound(4_000_000, 1e-6) == 1.0
    assert union_bound(72, 1e-6) == pytest.approx(7.2e-5)


# --- memory bounded in fact -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        # the default query
        "d = 2\nU = [[1000.0, 0.0], [0.0, 1000.0]]\nL = [16, 64]\ntrials = 200\n",
        # no query
        "d = 3\nU = [[1000.0, 0.0, 0.0], [0.0, 1000.0, 0.0], [0.0, 0.0, 1000.0]]\nL = [16, 64]\n",
    ],
)
def test_an_interaction_of_1000_is_refused_before_any_work_naming_the_values(
    tmp_path, capsys, text
):
    """U = 1000 I put q = a^T Gamma a ~ 1e6 at the fixed query: the quadrature's rows were 2.9e7
    wide (22 GB resident). The estimator refuses it now, in seconds."""
    f = write(tmp_path, text)
    start = time.perf_counter()
    assert (
        cli.main(
            ["verify", "prop-3.1", "--scenario", f, "--profile", "quick", "--out", str(tmp_path)]
        )
        == 2
    )
    assert time.perf_counter() - start < 20
    err = one_line_error(capsys)
    assert "q = a^T Gamma a" in err and "reach" in err and "U" in err


def test_the_exact_quadrature_refuses_a_q_beyond_its_reach_before_allocating():
    with pytest.raises(validate.BeyondReach, match="reach"):
        selfnormalised.log_moments(selfnormalised.q_reach(16) * 1.01, 16)
    with pytest.raises(validate.BeyondReach):
        selfnormalised.table(16, 1e6)


def test_the_quadrature_rows_are_chunked_without_changing_the_result(monkeypatch):
    whole = selfnormalised.log_moments(30.0, 64)
    monkeypatch.setattr(selfnormalised, "CHUNK_ELEMENTS", 1000)  # a few rows at a time
    assert selfnormalised.log_moments(30.0, 64) == pytest.approx(whole, rel=1e-13)


# default-run budget: L = 10 and 100 (7 to 10 s each, four times the work of one table) run slow
@pytest.mark.parametrize(
    "L",
    [
        2,
        pytest.param(10, marks=[pytest.mark.slow, pytest.mark.rotating]),
        pytest.param(100, marks=[pytest.mark.slow, pytest.mark.rotating]),
    ],
)
def test_halved_steps_agree_at_the_edge_of_the_reach(L):
    """The reach is where the quadrature still converges: halved steps agree to 1e-6 relative there
    (log A, log B); 20 beyond it, at L = 2, they differ by 6e-4 (measured), so the limit is real."""
    q = selfnormalised.q_reach(L)
    assert q == dict(selfnormalised.REACH)[L]
    a, b = selfnormalised.log_moments(q, L)
    a2, b2 = selfnormalised.log_moments(
        q, L, step_v=selfnormalised.STEP_V / 2, step_g=selfnormalised.STEP_G / 2
    )
    assert abs(a - a2) < 1e-6 and abs(b - b2) < 1e-6


def test_the_reach_grows_with_the_prompt_length():
    qs = [selfnormalised.q_reach(L) for L in (2, 4, 10, 50, 100, 10**6)]
    assert qs == sorted(qs) and qs[-1] == 390.0 and selfnormalised.q_reach(1) == float("inf")


def test_a_memory_error_is_exit_2_with_what_to_lower_and_debug_keeps_the_code(
    tmp_path, capsys, monkeypatch
):
    def oom(*args, **kwargs):
        raise MemoryError("Unable to allocate 56.0 GiB")

    fake_claim(monkeypatch, "lemma-2.1", oom)
    assert cli.main(["verify", "lemma-2.1", "--quiet", "--out", str(tmp_path / "out")]) == 2
    err = one_line_error(capsys)
    assert "out of memory" in err and "lower trials or L" in err

    def bug(*args, **kwargs):
        raise KeyError("a bug")

    fake_claim(monkeypatch, "lemma-2.1", bug)
    monkeypatch.setenv("SOFTLIN_DEBUG", "1")
    assert cli.main(["verify", "lemma-2.1", "--quiet", "--out", str(tmp_path / "out")]) == 3
    assert "Traceback" in capsys.readouterr().err


# --- no work lost ---------------------------------------------------------------------------------


def test_an_unwritable_out_is_found_before_any_work(tmp_path, capsys, monkeypatch):
    ran = []
    fake_claim(monkeypatch, "lemma-2.1", lambda *a, **k: ran.append(1))

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "TemporaryFile", read_only)
    assert cli.main(["verify", "lemma-2.1", "--out", str(tmp_path / "out")]) == 2
    err = one_line_error(capsys)
    assert "--out" in err and "Read-only file system" in err
    assert ran == []


def test_each_certificate_is_written_when_its_claim_finishes(tmp_path, monkeypatch):
    fake_claim(
        monkeypatch, "lemma-2.1", lambda s, p, rng: fake_certificate("lemma-2.1", s, p, s["seed"])
    )

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    fake_claim(monkeypatch, "prop-3.1", interrupted)
    assert cli.main(["verify", "lemma-2.1", "prop-3.1", "--quiet", "--out", str(tmp_path)]) == 130
    assert (
        json.loads((tmp_path / "certificates" / "lemma-2.1.json").read_text())["claim"]
        == "lemma-2.1"
    )
    assert not (tmp_path / "certificates" / "prop-3.1.json").exists()
    assert not list((tmp_path / "certificates").glob(".*.tmp"))  # no partial file left


def test_a_certificate_equal_within_its_precision_is_not_rewritten(tmp_path):
    cert = fake_certificate("lemma-2.1", {"seed": 0}, "quick", 0, value=1.0)
    path = certio.write(tmp_path, cert)
    before = path.read_bytes()
    os.utime(path, (0, 0))
    certio.write(
        tmp_path, fake_certificate("lemma-2.1", {"seed": 0}, "quick", 0, value=1.0 + 1e-12)
    )
    assert path.read_bytes() == before and path.stat().st_mtime == 0  # last digits only: untouched
    certio.write(tmp_path, fake_certificate("lemma-2.1", {"seed": 0}, "quick", 0, value=1.001))
    assert path.read_bytes() != before


def test_a_pipe_gets_a_heartbeat_per_claim_and_while_one_runs():
    stream = io.StringIO()
    progress.enable(True, stream)  # not a terminal: no status line
    with progress.heartbeat(False, stream, every=0.05):
        with progress.claim("lemma-2.1", 0, 2):
            time.sleep(0.3)
        progress.finished("lemma-2.1", "verified", 0.3, 0, 2)
    lines = stream.getvalue().splitlines()
    assert any(
        line.startswith("softlin: running lemma-2.1 (1/2); 0:00 since the start") for line in lines
    ), lines
    assert lines[-1] == "softlin: lemma-2.1 verified in 0.3 s (1/2 claims done)"
    quiet = io.StringIO()
    with progress.heartbeat(True, quiet, every=0.01):
        time.sleep(0.05)
    assert quiet.getvalue() == ""


def test_help_imports_neither_sympy_nor_scipy():
    code = (
        "import sys, contextlib, io\nfrom softlin import cli\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        cli.main(['--help'])\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in ('sympy', 'scipy', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert out.stdout.strip() == "[]", out.stderr


# --- verify --check on the certificate's own scenario ---------------------------------------------


def test_check_reruns_the_certificates_own_scenario_and_never_proposes_the_default(
    tmp_path, capsys, monkeypatch
):
    seen = []

    def run(s, profile, rng):
        seen.append(s["L"])
        return fake_certificate("lemma-2.1", s, profile, s["seed"], value=float(sum(s["L"])))

    fake_claim(monkeypatch, "lemma-2.1", run)
    f = write(tmp_path, "L = [16, 32]\ntrials = 50\n")
    out = tmp_path / "mine"
    assert (
        cli.main(
            [
                "verify",
                "lemma-2.1",
                "--scenario",
                f,
                "--profile",
                "quick",
                "--quiet",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert cli.main(["verify", "--check", "lemma-2.1", "--quiet", "--out", str(out)]) == 0
    assert seen == [[16, 32], [16, 32]]
    path = out / "certificates" / "lemma-2.1.json"
    cert = json.loads(path.read_text())
    cert["quantities"]["x"] = 7.0
    path.write_text(json.dumps(cert))
    capsys.readouterr()
    assert cli.main(["verify", "--check", "lemma-2.1", "--quiet", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "quantities.x 7.0 -> 48.0" in err
    assert (
        "--scenario YOUR.toml" in err
        and "--profile quick --seed 0" in err
        and "user scenario" in err
    )


# --- messages that say what is wrong --------------------------------------------------------------


def test_a_symlink_loop_a_fifo_and_a_missing_grid_are_named(tmp_path, capsys):
    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    assert cli.main(["verify", "--scenario", str(loop), "--out", str(tmp_path / "out")]) == 2
    assert "loop of symbolic links" in one_line_error(capsys)
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    assert cli.main(["verify", "--scenario", str(fifo), "--out", str(tmp_path / "out")]) == 2
    assert "not a regular file" in one_line_error(capsys)
    assert cli.main(["sweep", str(tmp_path / "grid.toml"), "--out", str(tmp_path / "out")]) == 2
    err = one_line_error(capsys)
    assert "sweep grid" in err and "does not exist" in err and "scenario" not in err


@pytest.mark.slow  # default-run budget (180 s): a full emission (~14 s)
def test_derive_check_outside_a_checkout_checks_the_kernels_and_names_what_it_skipped(
    tmp_path, capsys, monkeypatch
):
    from softlin.derivations import catalogue

    monkeypatch.setattr(catalogue, "GROUPS", {})  # the proofs are tested elsewhere
    assert cli.main(["derive", "--check", "--out", str(tmp_path / "reports")]) == 0
    captured = capsys.readouterr()
    assert "skipped" in captured.err and "derivations.md" in captured.err
    assert "kernels are up to date" in captured.out


# --- numbers compared at their stated precision ---------------------------------------------------


def _cert(**quantities):
    return {
        "claim": "x",
        "status": "verified",
        "checks": [{"name": "c", "passed": True, "value": 1.0}],
        "quantities": quantities,
        "precision": [
            certio.precision_entry("quantities.optimum[*].mu", "an argmin, xatol 1e-6", abs=1e-6)
        ],
    }


def test_a_declared_number_is_compared_within_its_stated_error_and_no_further():
    old = _cert(optimum=[{"mu": 2.0, "risk": 0.5}])
    assert certio.differences(old, _cert(optimum=[{"mu": 2.0 + 9e-7, "risk": 0.5}])) == []
    assert certio.differences(old, _cert(optimum=[{"mu": 2.0 + 2e-6, "risk": 0.5}])) == [
        "quantities.optimum[0].mu 2.0 -> 2.000002"
    ]
    # an undeclared number keeps the eight digits: 1e-6 relative is a change
    assert certio.differences(old, _cert(optimum=[{"mu": 2.0, "risk": 0.5 * (1 + 1e-6)}])) == [
        "quantities.optimum[0].risk 0.5 -> 0.5000005"
    ]


def test_verdicts_and_the_declared_paths_are_compared_exactly():
    old = _cert(optimum=[{"mu": 2.0}])
    flipped = _cert(optimum=[{"mu": 2.0}])
    flipped["checks"][0]["passed"] = False
    assert certio.differences(old, flipped) == ["checks[0].passed true -> false"]
    widened = _cert(optimum=[{"mu": 2.0}])
    widened["precision"][0]["path"] = "quantities.*"
    assert certio.differences(old, widened)[0].startswith("precision paths")


def test_checks_are_matched_by_id_named_so_and_declared_precise_by_id():
    def cert(*checks, precision=()):
        return {
            "claim": "x",
            "checks": [{"id": i, "passed": p, "value": v} for i, p, v in checks],
            "precision": list(precision),
        }

    old = cert(("x/a", True, 1.0), ("x/b", True, 2.0))
    # a check inserted before the others shifts no comparison: each is compared with its namesake
    new = cert(("x/new", True, 5.0), ("x/a", True, 1.0), ("x/b", False, 2.0))
    assert certio.differences(old, new) == ["check x/new added", "checks[x/b].passed true -> false"]
    assert certio.differences(new, old) == [
        "check x/new removed",
        "checks[x/b].passed false -> true",
    ]
    assert certio.changed_checks(certio.differences(old, new)) == {
        "x/new": ["check x/new added"],
        "x/b": ["checks[x/b].passed true -> false"],
    }
    # a precision declared for one check by id covers that check and no other
    loose = certio.precision_entry("checks[x/a].value", "a stated error", rel=1e-3)
    moved = cert(("x/a", True, 1.0005), ("x/b", True, 2.001), precision=[loose])
    assert certio.differences(
        cert(("x/a", True, 1.0), ("x/b", True, 2.0), precision=[loose]), moved
    ) == ["checks[x/b].value 2.0 -> 2.001"]
    # every difference is listed with limit=None (verify --check --diff), at most `limit` otherwise
    many = cert(*[(f"x/c{i}", True, 1.0) for i in range(12)])
    changed = cert(*[(f"x/c{i}", False, 1.0) for i in range(12)])
    assert (
        len(certio.differences(many, changed)) == 8
        and len(certio.differences(many, changed, limit=None)) == 12
    )


def test_a_precision_needs_a_tolerance_and_a_reason():
    with pytest.raises(ValueError, match="reason"):
        certio.precision_entry("quantities.x", "", abs=1.0)
    with pytest.raises(ValueError, match="rel or abs"):
        certio.precision_entry("quantities.x", "why")


def test_the_committed_certificates_declare_only_paths_that_exist():
    """A declaration that matches nothing would hide a renamed quantity: every committed precision
    path matches at least one number of its certificate."""
    for path in sorted((REPO / "reports" / "certificates").glob("*.json")):
        cert = json.loads(path.read_text())
        leaves = []

        def walk(x, where):
            if isinstance(x, dict):
                for k, v in x.items():
                    walk(v, f"{where}.{k}" if where else k)
            elif isinstance(x, list):  # the checks are addressed by id, as certio.differences does
                for i, v in enumerate(x):
                    walk(v, f"{where}[{v['id'] if where == 'checks' else i}]")
            else:
                leaves.append(where)

        walk({k: v for k, v in cert.items() if k != "precision"}, "")
        for entry in cert.get("precision", []):
            pattern = certio.path_pattern(entry["path"])
            assert any(pattern.fullmatch(leaf) for leaf in leaves), (path.name, entry["path"])


# The certificates are made with the CPU's own OpenBLAS kernels on two threads; this configuration
# differs in both (OpenBLAS's generic Prescott kernels, one thread), so it changes the order and the
# instructions of every BLAS reduction, as another CPU of the kind does.
OTHER_BLAS = {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "1"}


# CI's certificate check, one claim per test so that xdist spreads the ~6 min of one core over both
# workers instead of leaving one worker on a single 20-minute test beside the rest of the slow tier.
@pytest.mark.slow
@pytest.mark.parametrize("claim_id", sorted(registry.CLAIMS))
def test_verify_check_is_green_under_other_blas_kernels_and_thread_count(claim_id):
    """The committed certificate of each claim reproduces under another BLAS configuration than the
    one that made it: every number within its stated precision, verdicts and checks exactly. CI runs
    these instead of a separate `softlin verify --check` step."""
    result = subprocess.run(
        [sys.executable, "-m", "softlin.cli", "verify", claim_id, "--check", "--quiet"],
        cwd=REPO,
        env={**os.environ, **OTHER_BLAS},
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert result.returncode == 0, (
        f"exit {result.returncode}\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
    )
    assert "1 certificate file checked: it reproduces" in result.stdout, result.stdout


def test_every_claim_has_a_work_estimate_that_max_minutes_binds(tmp_path, capsys):
    for claim in registry.CLAIMS.values():
        assert (
            cli.main(
                ["verify", claim.id, "--max-minutes", "0.0001", "--out", str(tmp_path / "out")]
            )
            == 2
        )
        err = one_line_error(capsys)
        assert "above the 0.0001 min cap" in err and claim.id in err, err
    assert not (tmp_path / "out").exists()


def test_the_documented_scalar_sigma_and_points_reach_finite_prompt_risk_through_the_loader(
    tmp_path,
):
    from softlin.cli import verify as cli_verify

    f = write(
        tmp_path,
        "[scalar]\nd = 2\nnoise = 0.1\nmu = [1.0]\nomega = [0.3]\nL = [30, 60]\n"
        "sigma = [[1.0, 0.5], [0.5, 1.0]]\n"
        "[[scalar.points]]\nmu = [1.0]\nomega = [0.2]\nL = 50\n"
        "[[scalar.points]]\nmu = [1.0, -0.5]\nomega = [0.2, 0.1]\nL = 80\n",
    )
    args = cli.build_parser().parse_args(
        [
            "verify",
            "finite-prompt-risk",
            "--scenario",
            f,
            "--profile",
            "quick",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    claims, scenarios, _ = cli_verify.plan(args)
    table = scenarios["finite-prompt-risk"]["scalar"]
    assert table["sigma"] == [[1.0, 0.5], [0.5, 1.0]] and [p["L"] for p in table["points"]] == [
        50,
        80,
    ]
    validated = claims[0].validate(scenarios["finite-prompt-risk"])
    assert validated["scalar"]["sigma"] == [[1.0, 0.5], [0.5, 1.0]]


@pytest.mark.slow  # default-run budget (180 s): two claims in a subprocess (~17 s)
def test_an_interrupt_is_answered_within_seconds_and_keeps_what_finished(tmp_path):
    """SIGINT during prop-3.1's Monte Carlo sweep (~30 s of work), sent once the heartbeat says
    lemma-2.1 finished: the work is chunked, so Python sees the signal within a chunk; lemma-2.1's
    certificate is kept, nothing partial is left. Synchronised on the heartbeat line, not on a
    sleep, so a fast machine cannot finish the run before the signal."""
    import signal

    env = {**os.environ, "PYTHONPATH": str(REPO)}
    # SIG_DFL in the child: a shell without job control starts background jobs (CI's, say) with
    # SIGINT ignored, and Python keeps an ignored SIGINT ignored, as a backgrounded
    # `softlin verify &` should
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "softlin.cli",
            "verify",
            "lemma-2.1",
            "prop-3.1",
            "--out",
            str(tmp_path),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    seen = []
    for line in proc.stderr:  # blocks until the line arrives (the process keeps working)
        seen.append(line)
        if line.startswith("softlin: lemma-2.1 verified in"):
            break
    time.sleep(2)  # into prop-3.1's work
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert time.perf_counter() - sent < 10, err
    assert proc.returncode == 130 and "interrupted" in err, "".join(seen) + err
    assert (tmp_path / "certificates" / "lemma-2.1.json").exists()
    assert not (tmp_path / "certificates" / "prop-3.1.json").exists()
    assert not list(tmp_path.rglob("*.tmp"))


def test_list_reads_the_claims_titles_without_importing_them():
    code = (
        "import sys\nfrom softlin.core import registry\nprint(registry.headlines())\n"
        "print(sorted(m for m in ('sympy', 'scipy') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ).stdout.splitlines()
    assert out[1] == "[]"
    assert out[0] == str([(c.id, c.title) for c in registry.CLAIMS.values()])
