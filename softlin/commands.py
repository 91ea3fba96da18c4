"""What every command shares: its exit codes, the errors that map to them, the default output
folder and the probe of an --out folder. A leaf (imports nothing from softlin), so the command
packages (softlin.cli, softlin.hunt, softlin.sweep) use it without importing one another.

Exit codes: 0 success (every claim verified), 1 a claim not verified or a certificate that would
change, 2 bad input (`ValueError`, `UsageError`: one line, before any work), 3 a bug
(`InternalError`: a claim that raised after its input passed validation).
"""

from __future__ import annotations

from pathlib import Path

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
DEFAULT_OUT = Path("reports")


class UsageError(Exception):
    """A command line that cannot be run as given (exit 2)."""


class InternalError(Exception):
    """A failure after the input passed validation: a bug (exit 3)."""


def check_out(out: Path) -> None:
    """--out must be a directory (or creatable inside one) that this process can write to: probed
    with a temporary file in the nearest existing folder, before any work (a read-only file system
    is found now, not after the run)."""
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                raise ValueError(f"--out {str(out)!r}: {str(p)!r} is a file, not a directory")
            for sub in (p / "certificates", p / "figures"):
                if p == out and sub.exists() and not sub.is_dir():
                    raise ValueError(f"--out {str(out)!r}: {str(sub)!r} is a file, not a directory")
            probe_writable(p, f"--out {str(out)!r}")
            return


def probe_writable(folder: Path, what: str) -> None:
    """Raise ValueError naming `what` when this process cannot create a file in `folder`."""
    import tempfile

    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise ValueError(
            f"{what}: cannot write in {str(folder)!r} ({exc.strerror or exc})"
        ) from None
