"""The sweep's store of finished points: content-addressed, atomic, resumable (docs/design.md,
"Sweeps").

A point's certificate is stored under

    <out>/points/<key>.json,   key = SHA-256(canonical JSON of {claim, scenario, profile, seed,
                                                               kernels_input_hash})

(`kernels_input_hash` is the SHA-256 of the emitted kernels that every certificate's provenance
records), so a point is recomputed exactly when something that determines its certificate changed:
its scenario, the profile, the seed or the derivations. A sweep that was killed resumes by skipping
every key already in the store, whatever grid it belonged to.

Every file is written atomically: to a temporary file in the same folder, flushed and fsync'ed, then
`os.replace`d onto its name (atomic on POSIX within one file system). A reader therefore sees
the old file or the new one, never a half-written one; a crash leaves at most a stray `*.tmp`, which
is never read as a point.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from .grid import canonical
from ..numerics import kernels


def point_key(
    claim_id: str, scenario: dict, profile: str, seed: int, input_hash: str = kernels.INPUT_HASH
) -> str:
    return hashlib.sha256(
        canonical(
            {
                "claim": claim_id,
                "scenario": scenario,
                "profile": profile,
                "seed": seed,
                "kernels_input_hash": input_hash,
            }
        ).encode()
    ).hexdigest()


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write `data` to `path` so that no reader ever sees a partial file (module docstring)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


class Store:
    """Finished points under `<root>/points/`."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.folder = self.root / "points"

    def path(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def has(self, key: str) -> bool:
        """True when the point is stored and reads as a certificate (a corrupt file is
        recomputed)."""
        try:
            return isinstance(json.loads(self.path(key).read_text()).get("status"), str)
        except (OSError, ValueError, AttributeError):
            return False

    def read(self, key: str) -> dict:
        return json.loads(self.path(key).read_text())

    def write(self, key: str, text: str) -> Path:
        path = self.path(key)
        atomic_write(path, text)
        return path
