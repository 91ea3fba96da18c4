"""Certificate I/O: the one place that turns a certificate dict into bytes and back.

A leaf module (imports nothing from softlin), so claims, the renderer and the CLI share one writer.
"""

from __future__ import annotations

import json
from pathlib import Path


def dumps(cert: dict) -> str:
    """The bytes of a certificate file: indented JSON, no NaN (non-finite numbers are strings)."""
    return json.dumps(cert, indent=2, allow_nan=False) + "\n"


def write(out: Path, cert: dict) -> Path:
    """Write `cert` to `<out>/certificates/<claim>.json` and return the path."""
    path = Path(out) / "certificates" / f"{cert['claim']}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(cert))
    return path


def read(path: Path) -> dict:
    """One certificate file, as a dict; a ValueError names the file when it is not JSON."""
    try:
        return json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"certificate {path} is not valid JSON: {exc}") from exc
