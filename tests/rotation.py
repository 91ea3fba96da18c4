"""Which of the slow tier's rotating tests CI runs: a share chosen by the HEAD commit.

The slow tier holds end-to-end demonstrations (a hunt finding a planted slip, a full quick run under
a wrong formula) whose total exceeds CI's budget. A test marked `rotating` belongs to one of
ROTATION shares, by a hash of its key (its xdist group when it shares a fixture with others, so a
group's fixture is paid once, else its node id); with SOFTLIN_ROTATION=head, as `.ci/run` sets it,
only the share congruent to the HEAD commit's hash runs, so each commit runs a different,
reproducible third and three consecutive commits run them all; SOFTLIN_ROTATION=0, 1 or 2 runs that
share (to try the turn of a later commit). Unset (a developer's
`pytest -m slow`, or a test named on the command line), every rotating test runs. Without git the
selection cannot be computed and every test runs: a selection is never taken as empty.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ROTATION = 3


def share_of(key: str) -> int:
    """The share (0 .. ROTATION-1) a test key belongs to: stable across machines and Python runs."""
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % ROTATION


def turn(chosen: str = "head") -> tuple[int | None, str]:
    """(the share this commit runs, or None for all; one line saying why). `chosen` is "head" or
    a share's number (SOFTLIN_ROTATION=1: what CI runs on a commit whose turn is 1, to try a share
    before pushing)."""
    if chosen != "head":
        if chosen not in {str(k) for k in range(ROTATION)}:
            raise ValueError(f"SOFTLIN_ROTATION={chosen!r}: 'head' or a share 0 .. {ROTATION - 1}")
        return int(
            chosen
        ), f"rotating tests: share {chosen} of {ROTATION}, chosen by SOFTLIN_ROTATION"
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        return None, f"every rotating test (no HEAD commit: {str(exc).strip()[:100]})"
    share = int(head[:12], 16) % ROTATION
    return share, f"rotating tests: share {share} of {ROTATION}, chosen by HEAD {head[:10]}"
