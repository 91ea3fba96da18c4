"""GitHub Actions workflow commands for `softlin verify --github` (and `verify --check --github`).

An `::error` line on stdout per refuted check, per check that would change (under --check) and per
certificate that would change, titled with the check's id (GitHub shows them as annotations on the
run), a `::warning` per undecided check, a `::notice` per check not judged, and, when the
environment names a job summary file (GITHUB_STEP_SUMMARY), a Markdown table of the verdicts
appended to it. Messages are escaped as the workflow-command syntax requires
(%, CR and LF in the message; also : and , in properties).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..certio import changed_checks
from ..judge.check import judged
from ..render.text import count_text


def _escape(text: str, prop: bool = False) -> str:
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _command(kind: str, title: str, message: str, file: str | None = None) -> str:
    props = f"title={_escape(title, prop=True)}" + (
        f",file={_escape(file, prop=True)}" if file else ""
    )
    return f"::{kind} {props}::{_escape(message)}"


def commands(runs: list[dict], bad=()) -> list[str]:
    """The workflow-command lines for `runs` (dicts with `cert`, and under --check `differences`,
    `reproduce` and `path`, the certificate file), and an `::error` per certificate file in `bad`
    ([(path, problem)]: files --check found invalid)."""
    lines = [
        _command("error", f"{path}: invalid certificate file", problem, str(path))
        for path, problem in bad
    ]
    for run in runs:
        cert, cid = run["cert"], run["cert"]["claim"]
        for check in cert.get("checks", []):
            name = check.get("id") or cid
            if check.get("passed") is False:
                lines.append(
                    _command(
                        "error",
                        f"{name}: refuted",
                        f"{check['name']} (value {check.get('value')}, "
                        f"bound {check.get('bound')}; seed {cert.get('seed')}, "
                        f"profile {cert.get('profile')})",
                    )
                )
            elif not judged(check):
                lines.append(
                    _command(
                        "notice",
                        f"{name}: not judged",
                        f"{check['name']}: {check.get('reason', '')}",
                    )
                )
            elif check.get("passed") is None:
                lines.append(_command("warning", f"{name}: undecided", str(check["name"])))
        for check_id, diffs in changed_checks(run.get("differences") or []).items():
            lines.append(
                _command(
                    "error",
                    f"{check_id}: would change",
                    "; ".join(diffs) + f"\nreproduce: {run.get('reproduce')}",
                    run.get("path"),
                )
            )
        # One annotation per change: the differences of a check are annotated on it (above), so
        # the certificate's annotation carries only the others (quantities, series, errata).
        changed = changed_checks(run.get("differences") or [])
        rest = [
            d for d in run.get("differences") or [] if not any(d in v for v in changed.values())
        ]
        if rest:
            lines.append(
                _command(
                    "error",
                    f"{cid}: certificate would change",
                    "; ".join(rest) + f"\nreproduce: {run.get('reproduce')}",
                    run.get("path"),
                )
            )
    return lines


def summary(runs: list[dict]) -> str:
    """The Markdown job summary: one row per claim; the column "certificate" (reproduces, or would
    change with its number of differences) only under --check, where it has something to say."""
    checking = any("differences" in run for run in runs)
    head = ["claim", "verdict", "checks passed / judged / all"] + ["certificate"] * checking
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for run in runs:
        cert = run["cert"]
        cells = [f"`{cert['claim']}`", f"**{cert['status']}**", count_text(cert)]
        if checking:
            n = len(run.get("differences") or [])
            cells.append(
                "reproduces" if not n else f"would change ({n} difference{'s' * (n != 1)})"
            )
        rows.append("| " + " | ".join(cells) + " |")
    return "## softlin verify\n\n" + "\n".join(rows) + "\n"


def emit(runs: list[dict], environ=os.environ, bad=()) -> None:
    for line in commands(runs, bad):
        print(line, flush=True)
    target = environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with Path(target).open("a", encoding="utf-8") as f:
            f.write(summary(runs))
