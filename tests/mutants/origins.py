"""Which module builds each check: the file whose edit may disarm the check that killed a mutant.

Every check is a `softlin.judge.check.Check`, built through softlin/judge/kinds.py by a claim's
module. `record()` wraps `Check.__post_init__` in the mutant's process so that each check, when
built, notes the first frame outside softlin/judge (and outside the dataclass machinery) that is
building it: the module that states the check's value, bound and rule. `origin(claim, id)` then
names that file as a repository path, for the record and for CI's selection (a mutant is re-run
when the module that holds its killing check changes).
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
_JUDGE = str(REPO / "softlin" / "judge")
_ORIGINS: dict[tuple[str, str], str] = {}
_CLAIM = [""]


def _builder_path() -> str:
    """The repository path of the first calling frame outside the judge and dataclasses."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_JUDGE) and not name.startswith("<") and "dataclasses" not in name:
            try:
                return Path(name).resolve().relative_to(REPO).as_posix()
            except ValueError:
                return name
        frame = frame.f_back
    return ""


def record() -> None:
    """Note the builder of every check from now on (call after the slip is installed)."""
    from softlin.judge.check import Check

    original = Check.__post_init__

    def post_init(self):
        original(self)
        if self.id:
            # the first construction names the builder; dataclasses.replace re-runs this hook
            # from wherever the copy is made, which is not where the check is stated
            _ORIGINS.setdefault((_CLAIM[0], self.id), _builder_path())

    Check.__post_init__ = post_init


def running(claim_id: str) -> None:
    """The claim whose checks are built next."""
    _CLAIM[0] = claim_id


def origin(full_id: str) -> str:
    """The module that built the check `<claim>/<id>` (a repository path), "" when not recorded."""
    claim, _, short = full_id.partition("/")
    return _ORIGINS.get((claim, short), "")
