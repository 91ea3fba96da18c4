"""What every command shares: its exit codes, the errors that map to them, the default output
folder and the probe of an --out folder. A leaf (imports nothing from softlin), so the command
packages (softlin.cli, softlin.hunt, softlin.sweep) use it without importing one another.

Exit codes: 0 success (every claim verified), 1 a claim not verified or a certificate that would
change, 2 bad input (`ValueError`, `UsageError`: one line, before any work), 3 a bug
(`InternalError`: a claim that raised after its input passed validation).
"""

from __future__ import annotations

import os
import stat
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
                raise ValueError(
                    f"--out {str(out)!r}: {str(p)!r} is {file_kind(p)}, not a directory"
                )
            for sub in (p / "certificates", p / "figures"):
                if p == out and sub.exists() and not sub.is_dir():
                    raise ValueError(
                        f"--out {str(out)!r}: {str(sub)!r} is {file_kind(sub)}, not a directory"
                    )
            probe_writable(p, f"--out {str(out)!r}")
            return


def file_kind(path: Path) -> str:
    """What `path` is, in words ("a character device" for /dev/full): errors say what is really
    there, not just "a file"."""
    mode = os.stat(path).st_mode
    for test, words in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def output_problem(path: Path) -> str | None:
    """Why an output file (--json, --junit) cannot be written at `path`, symbolic links followed,
    or None. Accepted: a regular file or a new one (its folder is checked by the caller), a
    character device or a FIFO (written as a stream, certio.atomic_write), each writable by this
    process. Opens nothing: opening a FIFO without a reader would block."""
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:  # a loop of symbolic links, a forbidden folder
        return exc.strerror or str(exc)
    if stat.S_ISDIR(mode):
        return "it is a directory; give a file name"
    if not (stat.S_ISREG(mode) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        return f"it is {file_kind(target)}; give a regular file, a character device or a FIFO"
    if not os.access(target, os.W_OK):
        return f"it is {file_kind(target)} this process cannot write to"
    return None


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
