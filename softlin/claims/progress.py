"""Progress on a terminal, silence on a pipe.

`progress(message)` rewrites one status line on stderr when stderr is a terminal and progress is
enabled (the CLI enables it unless --quiet); everywhere else it does nothing.
"""

from __future__ import annotations

import sys

_enabled = False


def enable(on: bool = True) -> None:
    global _enabled
    _enabled = bool(on) and sys.stderr.isatty()


def progress(message: str) -> None:
    if _enabled:
        sys.stderr.write("\r\033[K" + message[:120])
        sys.stderr.flush()


def clear() -> None:
    if _enabled:
        sys.stderr.write("\r\033[K")
        sys.stderr.flush()
