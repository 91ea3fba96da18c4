"""Proofs cached on disk by the content hash of the code that states them.

A proof group (the function a derivation's GROUP names, derivations/group.py) is a pure function
of the source of softlin.derivations and softlin.numerics and of the SymPy and Python versions: the
identities are built and reduced there and nowhere else. So its result is stored under

    sha256(group name, every .py file of those two packages (path and bytes), SymPy version,
           Python version)

in the folder named by the environment variable SOFTLIN_PROOF_CACHE, and read back by any later
process with the same key: the test run's xdist workers (tests/conftest.py points them at one
folder) and repeated runs stop re-proving the same identities. A change to any byte of that code,
a planted slip included, gives another key, so it is proved again. Without the variable nothing is
read or written and every proof runs; set empty, the cache is off whatever else asks for it.

`softlin verify` (not `--check`) reads and writes the folder `default_folder()`, outside the
repository (the user's cache, $XDG_CACHE_HOME/softlin/proofs or ~/.cache/softlin/proofs), unless
SOFTLIN_PROOF_CACHE is set (its folder, or off when empty) or `--no-cache` is given: it chooses
with `use(folder)`, which takes precedence over the environment inside its block. `verify --check`
runs inside `use(None)`: a re-run that checks a certificate proves every identity again.

Files are JSON, written to a temporary name and renamed, so two workers proving the same group at
once both write a whole file; a file that does not parse is ignored and proved again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import platform
import tempfile
from pathlib import Path
from typing import Iterator

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


_ENVIRONMENT = object()  # `use` has not chosen: the environment decides
_chosen: object = _ENVIRONMENT


def default_folder() -> Path:
    """The user's proof cache, outside any repository: $XDG_CACHE_HOME/softlin/proofs, or
    ~/.cache/softlin/proofs."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(base) if base else Path.home() / ".cache") / "softlin" / "proofs"


def environment_folder() -> Path | None:
    """The folder SOFTLIN_PROOF_CACHE names (None when it is unset or empty)."""
    value = os.environ.get(ENV, "")
    return Path(value) if value else None


@contextlib.contextmanager
def use(folder: Path | None) -> Iterator[None]:
    """Inside the block, proofs are read from and written to `folder` (None: neither), whatever
    SOFTLIN_PROOF_CACHE says."""
    global _chosen
    before, _chosen = _chosen, folder
    try:
        yield
    finally:
        _chosen = before


def _folder() -> Path | None:
    if os.environ.get(ENV) == "":  # off, whatever chose a folder (the mutant harness sets this)
        return None
    return environment_folder() if _chosen is _ENVIRONMENT else _chosen


def _load(path: Path) -> tuple[Proof, ...] | None:
    try:
        return tuple(Proof(**record) for record in json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None


def _store(path: Path, proofs: tuple[Proof, ...]) -> None:
    """Write the proofs to `path`; a folder that cannot be written (a read-only home, a full disk)
    leaves the cache empty, not the run failed: the cache only saves time."""
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
    name = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=path.parent, suffix=".tmp", delete=False
        ) as handle:
            name = handle.name
            json.dump(records, handle)
        os.replace(name, path)
    except OSError:
        if name is not None:
            with contextlib.suppress(OSError):
                os.unlink(name)


def cached(group):
    """Decorate a proof group: once per process (in memory), and once per content hash across
    processes when a folder is chosen (`use`, or SOFTLIN_PROOF_CACHE)."""

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
