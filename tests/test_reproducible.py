"""Certificates are written at a stated precision above cross-CPU rounding noise, so the same seed
and profile give the same bytes with another BLAS thread count or kernel (softlin/certio.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from softlin import certio

REPO = Path(__file__).resolve().parents[1]


def test_floats_are_rounded_to_the_stated_digits_and_noise_is_written_as_zero():
    assert (
        certio.round_float(0.053237806370602395)
        == certio.round_float(-(-0.053237806370637575))
        == 0.053237806
    )
    assert certio.round_float(4.36e-16) == certio.round_float(1.09e-15) == 0.0
    assert certio.round_float(float("inf")) == float("inf")
    cert = {
        "checks": [{"value": 4.36e-16, "bound": 1e-25}],
        "quantities": {"x": [1.23456789012, 2e-13]},
    }
    once = certio.dumps(cert)
    assert json.loads(once) == {
        "checks": [{"value": 0.0, "bound": 1e-25}],
        "quantities": {"x": [1.2345679, 0.0]},
    }
    assert certio.dumps(json.loads(once)) == once  # idempotent: a rewrite is byte-identical


def test_differences_ignore_the_last_digit_but_name_verdicts_and_real_changes():
    a = {
        "status": "verified",
        "checks": [{"passed": True, "value": 1.2345678, "detail": "z = 0.51, drift 6.91e-14"}],
    }
    same = {
        "status": "verified",
        "checks": [{"passed": True, "value": 1.2345679, "detail": "z = 0.51, drift 6.95e-14"}],
    }
    assert certio.differences(a, same) == []
    flipped = {
        "status": "refuted",
        "checks": [{"passed": False, "value": 1.2346, "detail": "z = 5.2, drift 6.91e-14"}],
    }
    diffs = certio.differences(a, flipped)
    assert any(d.startswith("status") for d in diffs) and any(
        "checks[0].passed" in d for d in diffs
    )
    assert any("checks[0].value" in d for d in diffs) and any(
        "checks[0].detail" in d for d in diffs
    )


def _verify(tmp, env_extra):
    env = {**os.environ, "PYTHONPATH": str(REPO), **env_extra}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "softlin.cli",
            "verify",
            "lemma-2.1",
            "--profile",
            "quick",
            "--out",
            str(tmp),
            "--quiet",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return {
        p.relative_to(tmp): p.read_bytes()
        for p in sorted(tmp.rglob("*"))
        if p.is_file() and p.suffix != ".png"
    }


@pytest.mark.slow  # two subprocess runs of lemma-2.1 at quick (~15 s each on 2 shared cores)
def test_lemma21_certificate_and_pages_are_byte_identical_across_blas_threads_and_kernels(tmp_path):
    """Unrounded, these runs differ in 64 numbers (up to 7e-13 relative): Haswell against Prescott
    OpenBLAS kernels (OPENBLAS_CORETYPE, honoured by numpy's DYNAMIC_ARCH OpenBLAS), 2 threads
    against 1."""
    one = _verify(tmp_path / "a", {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
    two = _verify(
        tmp_path / "b",
        {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2", "OPENBLAS_CORETYPE": "Prescott"},
    )
    assert one.keys() == two.keys() and Path("certificates/lemma-2.1.json") in one
    assert [p for p in one if one[p] != two[p]] == []
