"""Proofs cached on disk by the content hash of the code that states them.

A proof group (the function a derivation's GROUP names, derivations/group.py) is a pure function
of the source of softlin.derivations and softlin.numerics and of the SymPy and Python versions: the
identities are built and reduced there and nowhere else. So its result is stored under

    sha256(group name, every .py file of those two packages (path and bytes), SymPy version,
           Python version)

in the folder named by the environment variable SOFTLIN_PROOF_CACHE, and read back by any later
process with the same key: the test run's xdist workers (tests/conftest.py points them at one
folder) and repeated runs stop re-proving the same identities. A change to any byte of that code,
a planted slip included, gives another key, so it is proved again. Without the variable (the
`softlin` commands' default) nothing is read or written and every proof runs.

Files are JSON, written to a temporary name and renamed, so two workers proving the same group at
once both write a whole file; a file that does not parse is ignored and proved again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import tempfile
from pathlib import Path

import sympy as sp

from .proof import Proof

ENV = "SOFTLIN_PROOF_CACHE"
PACKAGES = ("derivations", "numerics")


@functools.lru_cache(maxsize=None)
def source_digest(root: Path | None = None) -> str:
    """sha256 over the path and bytes of every .py file of softlin.derivations and softlin.numerics
    (found next to this module unless `root`, their parent folder, is given), with the SymPy and
    Python versions."""
    root = root or Path(__file__).resolve().parent.parent
    digest = hashlib.sha256(f"sympy {sp.__version__}; python {platform.python_version()}".encode())
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(
                path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0"
            )
    return digest.hexdigest()


def _folder() -> Path | None:
    value = os.environ.get(ENV, "")
    return Path(value) if value else None


def _load(path: Path) -> tuple[Proof, ...] | None:
    try:
        return tuple(Proof(**record) for record in json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _store(path: Path, proofs: tuple[Proof, ...]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    records = [
        {
            "statement": p.statement,
            "passed": p.passed,
            "seconds": p.seconds,
            "residual": p.residual,
            "back_substitution": p.back_substitution,
        }
        for p in proofs
    ]
    with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".tmp", delete=False) as handle:
        json.dump(records, handle)
    os.replace(handle.name, path)


def cached(group):
    """Decorate a proof group: once per process (in memory), and once per content hash across
    processes when SOFTLIN_PROOF_CACHE names a folder."""

    @functools.lru_cache(maxsize=None)
    @functools.wraps(group)
    def run() -> tuple[Proof, ...]:
        folder = _folder()
        if folder is None:
            return tuple(group())
        path = (
            folder / f"{group.__name__}-"
            f"{hashlib.sha256((group.__name__ + source_digest()).encode()).hexdigest()[:32]}.json"
        )
        proofs = _load(path)
        if proofs is None:
            proofs = tuple(group())
            _store(path, proofs)
        return proofs

    return run
