"""The estimate `softlin verify` prints before a run (core/budgets.py) is within a factor 1.5 of
the run's time, for the claims whose fixed part has been measured (benchmarks/bench_estimates.py
prints every claim). The time is the CPU time of a fresh process with one BLAS thread and no proof
cache: on an idle machine it is the wall time, and on a shared one it does not count the other
jobs, so the comparison holds under load."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FACTOR = 1.5
CALIBRATED = ("lemma-2.1", "asm-3.3")

SCRIPT = """
import json, sys
sys.path.insert(0, "benchmarks")
from bench_estimates import measure
print(json.dumps(measure(sys.argv[1], sys.argv[2])))
"""


@pytest.mark.slow  # a claim's run in a fresh process: 7 to 11 s of CPU each
@pytest.mark.parametrize("profile", ["quick", "standard"])
@pytest.mark.parametrize("claim_id", CALIBRATED)
def test_the_estimate_is_within_a_factor_of_the_run(claim_id, profile):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "SOFTLIN_PROOF_CACHE": ""}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, claim_id, profile],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    r = json.loads(out.stdout.splitlines()[-1])
    assert 1 / FACTOR <= r["estimate"] / r["cpu"] <= FACTOR, r
