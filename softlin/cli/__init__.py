"""The `softlin` command line (docs/design.md, "CLI"): list, derive, verify, report, hunt, sweep.
Their usage is the README's commands block, generated from `build_parser` (`commands_block`).

Exit codes: 0 all verified (or up to date); 1 something refuted or inconclusive, or stale output;
2 usage or input error, found before any work and reported on one line (nothing written);
3 an unexpected internal error (one line, with the advice to report it).

`verify` checks everything first (scenario keys and values for every named claim, the work and
memory each claim would need, core/budgets.py, and the output paths), then runs the claims; it
lives in `softlin/cli/verify.py`. This module holds the parser, `main`, `list`, `derive` and
`report`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..core import budgets, progress, registry
from ..core.claim import PROFILES
from .hunt import add_parser as add_hunt_parser, cmd_hunt
from .sweep import add_parser as add_sweep_parser, cmd_sweep
from ..commands import (
    DEFAULT_OUT,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_USAGE,
    InternalError,
    UsageError,
)
from .verify import check_one_profile, cmd_verify

ISSUES = "https://github.com/softlin/softlin/issues"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default also prints usage)
        raise UsageError(message)


COMMANDS_WIDTH = 100


def commands_block() -> str:
    """The README's commands block, from the parser itself (so it cannot miss a flag): each
    subcommand's usage, wrapped at COMMANDS_WIDTH whatever the terminal, and its help line."""
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help for a in subs._choices_actions}
    lines = []
    for name, sub in subs.choices.items():
        usage = " ".join(sub.format_usage().split()).removeprefix("usage: ").replace(" [-h]", "")
        # one chunk per option group: a line breaks between "[--json PATH|-]" groups, never
        # inside one
        chunks, depth = [], 0
        for word in usage.split(" "):
            if depth and chunks:
                chunks[-1] += " " + word
            else:
                chunks.append(word)
            depth += word.count("[") + word.count("(") - word.count("]") - word.count(")")
        line, indent = "   ", " " * (len(f"softlin {name} ") + 4)
        for chunk in chunks:
            if len(line) + 1 + len(chunk) > COMMANDS_WIDTH and line.strip():
                lines.append(line)
                line = indent[:-1]
            line += " " + chunk
        lines += [line, f"    #   {helps[name]}"]
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="softlin",
        description="Verify the theory of softmax attention in the large-prompt regime.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="claims, one line each")
    derive = sub.add_parser("derive", help="emit numeric kernels and the derivation report")
    derive.add_argument(
        "--check", action="store_true", help="exit 1 with a diff if committed output is stale"
    )
    derive.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=DEFAULT_OUT,
        help="reports directory (default: reports)",
    )
    verify = sub.add_parser("verify", help="run claims and write certificates and pages")
    verify.add_argument(
        "claims", nargs="*", help="claim ids (default: all, or those that read the scenario's keys)"
    )
    verify.add_argument(
        "--profile", choices=PROFILES, default=None, help="budget (default: standard)"
    )
    verify.add_argument(
        "--scenario",
        type=Path,
        metavar="F.toml",
        help="TOML scenario file (keys: docs/scenarios.md)",
    )
    verify.add_argument("--seed", type=int, metavar="N", help="overrides the scenario's seed")
    verify.add_argument(
        "--json",
        dest="json_path",
        metavar="PATH|-",
        help="also write the certificates as one JSON list (- for stdout)",
    )
    verify.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="output directory (default: reports, or reports/scenarios/<name> with --scenario)",
    )
    verify.add_argument(
        "--junit",
        type=Path,
        metavar="PATH|-",
        help="also write a JUnit XML report (- for stdout): one testsuite per claim, one "
        "testcase per check (with --check: and whether the certificate reproduces)",
    )
    verify.add_argument(
        "--github",
        action="store_true",
        help="GitHub Actions annotations (::error per refuted "
        "check or changed certificate) and a job summary when GITHUB_STEP_SUMMARY is set",
    )
    verify.add_argument(
        "--replace",
        action="store_true",
        help="replace certificates in --out made at another profile, seed or scenario "
        "(refused without it)",
    )
    verify.add_argument("--quiet", action="store_true", help="no progress and no table")
    verify.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="run N claims at a time, each in its own process (default: one per core)",
    )
    verify.add_argument(
        "--max-minutes",
        type=float,
        metavar="M",
        default=budgets.DEFAULT_MAX_MINUTES,
        help=f"refuse a run estimated longer than this (default {budgets.DEFAULT_MAX_MINUTES:g})",
    )
    verify.add_argument(
        "--dry-run",
        action="store_true",
        help="validate the scenario, print each claim's estimated time and memory, write nothing",
    )
    verify.add_argument(
        "--check",
        action="store_true",
        help="re-run the claims of the certificates in --out "
        "(default reports) at their profile and seed; exit 1 naming each that would change; "
        "writes nothing",
    )
    verify.add_argument(
        "--diff",
        action="store_true",
        help="with --check: print every difference, not the first few",
    )
    verify.add_argument(
        "--no-cache",
        action="store_true",
        help="prove every symbolic identity again instead of reading the proof cache "
        "(~/.cache/softlin/proofs, or SOFTLIN_PROOF_CACHE; --check never reads it)",
    )
    add_hunt_parser(sub)
    report = sub.add_parser("report", help="render pages from reports/certificates")
    report.add_argument(
        "--check", action="store_true", help="exit 1 if re-rendering would change a page"
    )
    report.add_argument("--out", type=Path, metavar="DIR", default=DEFAULT_OUT)
    report.add_argument(
        "--preview",
        action="store_true",
        help="also screenshot index.html with headless Chromium into preview.png",
    )
    add_sweep_parser(sub)
    return parser


def cmd_list() -> int:
    for claim_id, title in registry.headlines():
        print(f"{claim_id:<20} {title}")
    return EXIT_OK


def cmd_derive(args) -> int:
    from ..derivations import catalogue

    start = time.perf_counter()
    progress.enable(True)  # draws only on a terminal
    try:
        groups = getattr(catalogue, "GROUPS", None)
        if groups is None:
            progress.progress("derive: proving the identities")
            proofs = catalogue.all_proofs()
        else:
            proofs = {
                name: groups[name]()
                for name in progress.sweep(list(groups), "derive: proofs", item="group")
            }
        return _derive_finish(args, proofs, start)
    finally:
        progress.clear()


def _derive_finish(args, proofs, start) -> int:
    from ..derivations import emit
    from ..derivations import report as derivation_page
    from ..render import derivations_page

    failed = [p.statement for group in proofs.values() for p in group if not p.passed]
    progress.progress("derive: rendering the derivation report")
    pages = {
        args.out / "derivations.md": derivation_page.render(proofs),
        args.out / "derivations.html": derivations_page.render_html(proofs),
    }
    if args.check:
        progress.progress("derive: emitting the kernels to compare")
        diff = emit.staleness_diff()
        progress.clear()
        # From an installed wheel there is no reports/ folder in the working directory: the
        # pages are a checkout's, so they are skipped with a note, and the kernels the wheel holds
        # are checked.
        skipped = [p for p in pages if not p.parent.is_dir()]
        for page_path in skipped:
            print(
                f"skipped {page_path}: no {page_path.parent}/ folder here (a checkout's page; "
                f"give --out to check one elsewhere)",
                file=sys.stderr,
            )
        stale_pages = [
            p
            for p, text in pages.items()
            if p not in skipped and (not p.exists() or p.read_text() != text)
        ]
        if diff:
            sys.stdout.write(diff)
            print(f"{emit.GENERATED_PATH} is stale; fix: {emit.FIX_COMMAND}", file=sys.stderr)
        for page_path in stale_pages:
            print(f"{page_path} is stale; fix: {emit.FIX_COMMAND}", file=sys.stderr)
        if failed:
            print("symbolic proofs failed: " + "; ".join(failed), file=sys.stderr)
        if diff or stale_pages or failed:
            return EXIT_FAILED
        what = "kernels are" if skipped else "kernels and derivation report are"
        print(f"{what} up to date ({time.perf_counter() - start:.1f} s)")
        return EXIT_OK
    progress.progress("derive: emitting the kernels")
    path = emit.write()
    progress.clear()
    for page_path, text in pages.items():
        page_path.parent.mkdir(parents=True, exist_ok=True)
        page_path.write_text(text)
    n = sum(len(g) for g in proofs.values())
    print(
        f"wrote {path} and {' and '.join(str(p) for p in pages)}; {n - len(failed)}/{n} proofs "
        f"passed ({time.perf_counter() - start:.1f} s)"
    )
    if failed:
        print("symbolic proofs failed: " + "; ".join(failed), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def cmd_report(args) -> int:
    from ..render import render

    folder = args.out / "certificates"
    if not folder.is_dir() or not any(folder.glob("*.json")):
        raise ValueError(
            f"no certificates in {str(folder)!r} (run softlin verify first, or give --out)"
        )
    certs = render.load_certificates(args.out)
    check_one_profile(args.out, {(c.get("profile"), c.get("seed")) for c in certs})
    if args.check:
        stale = render.stale_pages(args.out, {"commands": commands_block()})
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        if stale:
            print("fix: softlin report", file=sys.stderr)
            return EXIT_FAILED
        print("reports are up to date")
        return EXIT_OK
    if args.preview:
        from ..render import browser

        if browser.find_chromium() is None:
            raise ValueError(
                "--preview needs Chromium (Debian package `chromium`, or set SOFTLIN_CHROMIUM)"
            )
    written = render.render_all(args.out, {"commands": commands_block()})
    print(f"rendered {len(written)} files in {args.out}/")
    if args.preview:
        png = args.out / "preview.png"
        try:
            browser.preview(args.out / "index.html", png)
        except RuntimeError as exc:
            print(f"softlin: preview failed: {exc}", file=sys.stderr)
            return EXIT_FAILED
        print(f"wrote {png}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        if args.command == "list":
            return cmd_list()
        if args.command == "derive":
            return cmd_derive(args)
        if args.command == "verify":
            return cmd_verify(args)
        if args.command == "hunt":
            return cmd_hunt(args)
        if args.command == "sweep":
            return cmd_sweep(args)
        return cmd_report(args)
    except (UsageError, ValueError, OSError) as exc:
        progress.clear()
        message = _bounded(str(exc).replace("\n", " "))
        print(f"softlin: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as exc:
        progress.clear()
        print(
            f"softlin: error: out of memory ({exc}); lower trials, L or the scale of the "
            f"scenario's matrices",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:
        progress.clear()
        print("softlin: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, not a traceback, and not exit 1 (= refuted)
        progress.clear()
        message = f"{type(exc).__name__}: {exc}" if not isinstance(exc, InternalError) else str(exc)
        print(
            f"softlin: internal error: {_bounded(message.splitlines()[0] if message else '')} -- "
            f"this is a bug; please report it with the command line ({ISSUES}); "
            f"SOFTLIN_DEBUG=1 shows the traceback",
            file=sys.stderr,
        )
        if _debug():  # shows more, never changes the exit code
            import traceback

            traceback.print_exc()
        return EXIT_INTERNAL


# The longest error line: scenario values are shortened where they are named
# (core/scenario.py, `show`), and this bounds what a validator prints whole (a 64 x 64 matrix).
MAX_MESSAGE = 1000


def _bounded(message: str) -> str:
    """`message`, its middle cut when it is longer than MAX_MESSAGE characters (the start names the
    key, the end often says what to do)."""
    if len(message) <= MAX_MESSAGE:
        return message
    cut = len(message) - MAX_MESSAGE + 40
    return f"{message[:700]} ... ({cut} characters cut) ... {message[700 + cut :]}"


def _debug() -> bool:
    import os

    return os.environ.get("SOFTLIN_DEBUG") == "1"
