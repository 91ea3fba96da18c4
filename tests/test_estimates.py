"""The estimate `softlin verify` prints before a run (core/budgets.py) is within a factor 1.5 of
the run's time, for the claims whose estimate has been calibrated against their runs
(benchmarks/bench_estimates.py prints every claim; docs/performance.md has the table), on the
built-in scenario and on one that moves the work (other L, trials). The time is the CPU time of a
fresh process with one BLAS thread and no proof cache: on an idle machine it is the wall time, and
on a shared one it does not count the other jobs' turns on the cores. It still counts their
contention (shared caches, memory bandwidth, the host's other guests: the same code took 1.1 to 1.7
times its calibrated CPU time here on 2026-12-07, and CI's run at c124ea0 failed on it), so the
estimate is scaled by the machine's speed as it is, measured by a reference workload just before
and after the run (bench_estimates.reference_workload: 1 in the state the constants were
calibrated in)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FACTOR = 1.5
CALIBRATED = (
    "lemma-2.1",
    "asm-3.3",
    "mixture",
    "thm-4.3",
    "thm-5.2",
    "finite-prompt-risk",
    "prop-3.1",
)

# Scenarios that move the work the estimates count (trials, L): the estimate must follow the run
# there too, not only on the built-in scenario it was measured on.
MOVED = (
    ("mixture", "standard", {"trials": 16000}),
    ("thm-5.2", "standard", {"icl": {"L": [20, 60, 200, 600]}}),
    ("finite-prompt-risk", "quick", {"scalar": {"L": [50, 100, 200, 400]}}),
    ("prop-3.1", "standard", {"L": [16, 64, 256, 1024]}),
    # prop-3.4 is not in CALIBRATED (its two runs take ~140 s of CPU): one quick run on other L
    ("prop-3.4", "quick", {"L": [16, 64, 256]}),
)

SCRIPT = """
import json, sys
sys.path.insert(0, "benchmarks")
from bench_estimates import measure
print(json.dumps(measure(sys.argv[1], sys.argv[2], user=json.loads(sys.argv[3]))))
"""


def ratio(claim_id: str, profile: str, user: dict) -> dict:
    """The benchmark's measure in a fresh process (one BLAS thread, no proof cache), with the ratio
    estimate x speed / CPU time: the estimate in seconds of this machine as it is, against the
    run."""
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "SOFTLIN_PROOF_CACHE": ""}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, claim_id, profile, json.dumps(user)],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    r = json.loads(out.stdout.splitlines()[-1])
    return {**r, "ratio": r["estimate"] * r["speed"] / r["cpu"]}


# 19 runs, about 9 minutes of one core together: CI runs a third per commit (tests/rotation.py), so
# three consecutive commits hold every estimate to its run.
@pytest.mark.slow  # a claim's run in a fresh process: 6 to 52 s of CPU each
@pytest.mark.rotating
@pytest.mark.parametrize("profile", ["quick", "standard"])
@pytest.mark.parametrize("claim_id", CALIBRATED)
def test_the_estimate_is_within_a_factor_of_the_run(claim_id, profile):
    r = ratio(claim_id, profile, {})
    assert 1 / FACTOR <= r["ratio"] <= FACTOR, r


@pytest.mark.slow  # 6 to 45 s of CPU each
@pytest.mark.rotating
@pytest.mark.parametrize("claim_id, profile, user", MOVED)
def test_the_estimate_follows_the_scenario(claim_id, profile, user):
    r = ratio(claim_id, profile, user)
    assert 1 / FACTOR <= r["ratio"] <= FACTOR, r
