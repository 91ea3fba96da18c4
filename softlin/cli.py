"""The `softlin` command line (docs/design.md, "CLI").

    softlin list
    softlin derive [--check]
    softlin verify [CLAIM ...] [--profile quick|standard|full] [--scenario F] [--seed N] [--json PATH|-]
                   [--out DIR] [--quiet] [--max-minutes M]
    softlin verify --check [CLAIM ...] [--out DIR]
    softlin report [--check] [--out DIR] [--preview]

Exit codes: 0 all verified (or up to date); 1 something refuted or inconclusive, or stale output;
2 usage or input error, found before any work and reported on one line (nothing written);
3 an unexpected internal error (one line, with the advice to report it).

`verify` checks everything first (scenario keys and values for every named claim, the work and memory
each claim would need, claims/budgets.py, and the output paths), then runs the claims.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import certio
from .claims import budgets, progress, registry, scenario as scen
from .claims.base import PROFILES, claim_rng

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
DEFAULT_OUT = Path("reports")
ISSUES = "https://github.com/softlin/softlin/issues"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse's default also prints usage)
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="softlin", description="Verify the theory of softmax attention in the large-prompt regime.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="claims, one line each")
    derive = sub.add_parser("derive", help="emit numeric kernels and the derivation report")
    derive.add_argument("--check", action="store_true", help="exit 1 with a diff if committed output is stale")
    derive.add_argument("--out", type=Path, default=DEFAULT_OUT, help="reports directory (default: reports)")
    verify = sub.add_parser("verify", help="run claims and write certificates and pages")
    verify.add_argument("claims", nargs="*", help="claim ids (default: all, or those that read the scenario's keys)")
    verify.add_argument("--profile", choices=PROFILES, default=None, help="budget (default: standard)")
    verify.add_argument("--scenario", type=Path, help="TOML scenario file (keys: see README)")
    verify.add_argument("--seed", type=int, help="overrides the scenario's seed")
    verify.add_argument("--json", dest="json_path", help="also write the certificates as one JSON list (- for stdout)")
    verify.add_argument("--out", type=Path, help="output directory (default: reports, or "
                        "reports/scenarios/<name> with --scenario)")
    verify.add_argument("--quiet", action="store_true", help="no progress and no table")
    verify.add_argument("--max-minutes", type=float, default=budgets.DEFAULT_MAX_MINUTES,
                        help=f"refuse a run estimated longer than this (default {budgets.DEFAULT_MAX_MINUTES:g})")
    verify.add_argument("--check", action="store_true", help="re-run the claims of the certificates in --out "
                        "(default reports) at their profile and seed; exit 1 naming each that would change; "
                        "writes nothing")
    report = sub.add_parser("report", help="render pages from reports/certificates")
    report.add_argument("--check", action="store_true", help="exit 1 if re-rendering would change a page")
    report.add_argument("--out", type=Path, default=DEFAULT_OUT)
    report.add_argument("--preview", action="store_true",
                        help="also screenshot index.html with headless Chromium into preview.png")
    return parser


def cmd_list() -> int:
    for claim in registry.CLAIMS.values():
        print(f"{claim.id:<20} {claim.title}")
    return EXIT_OK


def cmd_derive(args) -> int:
    from .derivations import catalogue

    start = time.perf_counter()
    progress.enable(True)               # draws only on a terminal
    try:
        groups = getattr(catalogue, "GROUPS", None)
        if groups is None:
            progress.progress("derive: proving the identities")
            proofs = catalogue.all_proofs()
        else:
            proofs = {name: groups[name]() for name in progress.sweep(list(groups), "derive: proofs", item="group")}
        return _derive_finish(args, proofs, start)
    finally:
        progress.clear()


def _derive_finish(args, proofs, start) -> int:
    from .derivations import emit
    from .derivations import report as derivation_page

    failed = [p.statement for group in proofs.values() for p in group if not p.passed]
    progress.progress("derive: rendering the derivation report")
    page = derivation_page.render(proofs)
    page_path = args.out / "derivations.md"
    if args.check:
        progress.progress("derive: emitting the kernels to compare")
        diff = emit.staleness_diff()
        progress.clear()
        stale_page = not page_path.exists() or page_path.read_text() != page
        if diff:
            sys.stdout.write(diff)
            print(f"{emit.GENERATED_PATH} is stale; fix: {emit.FIX_COMMAND}", file=sys.stderr)
        if stale_page:
            print(f"{page_path} is stale; fix: {emit.FIX_COMMAND}", file=sys.stderr)
        if failed:
            print("symbolic proofs failed: " + "; ".join(failed), file=sys.stderr)
        if diff or stale_page or failed:
            return EXIT_FAILED
        print(f"kernels and derivation report are up to date ({time.perf_counter() - start:.1f} s)")
        return EXIT_OK
    progress.progress("derive: emitting the kernels")
    path = emit.write()
    progress.clear()
    page_path.parent.mkdir(parents=True, exist_ok=True)
    page_path.write_text(page)
    n = sum(len(g) for g in proofs.values())
    print(f"wrote {path} and {page_path}; {n - len(failed)}/{n} proofs passed "
          f"({time.perf_counter() - start:.1f} s)")
    if failed:
        print("symbolic proofs failed: " + "; ".join(failed), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# verify: everything is checked before the first claim runs.

def _for_claim(claim_id: str, fn, *args):
    try:
        return fn(*args)
    except ValueError as exc:
        raise ValueError(f"{claim_id}: {exc}") from None


def _select(args, user: dict) -> list:
    """The claims to run: the named ones, or all; with a scenario and no claim named, those that read
    every key of the scenario (a note on stderr names the ones skipped and the key they do not read)."""
    if args.claims:
        return [registry.get(i) for i in dict.fromkeys(args.claims)]
    claims = list(registry.CLAIMS.values())
    if not user:
        return claims
    problems = {c.id: scen.reader_problem(user, c.scenario_keys) for c in claims}
    chosen = [c for c in claims if problems[c.id] is None]
    skipped = "; ".join(f"{cid} does not read {key}" for cid, key in problems.items() if key is not None)
    if not chosen:
        raise ValueError(f"no claim reads every key of {args.scenario}: {skipped}")
    if skipped and not args.quiet:
        print(f"softlin: {args.scenario} runs {', '.join(c.id for c in chosen)}; skipped: {skipped}",
              file=sys.stderr)
    return chosen


def _check_out(out: Path) -> None:
    for p in (out, *out.parents):
        if p.exists():
            if not p.is_dir():
                raise ValueError(f"--out {str(out)!r}: {str(p)!r} is a file, not a directory")
            return


def _check_json(path: str | None) -> None:
    if path in (None, "-"):
        return
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"--json {path!r} is a directory; give a file name")
    if not p.parent.is_dir():
        raise ValueError(f"--json {path!r}: the folder {str(p.parent)!r} does not exist")


def plan(args) -> tuple[list, dict, Path]:
    """(claims, merged scenario per claim id, output directory); ValueError before any work."""
    args.profile = args.profile or "standard"
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed {args.seed} must be >= 0")
    if not args.max_minutes > 0:
        raise ValueError(f"--max-minutes {args.max_minutes:g} must be > 0")
    user = scen.load_toml(args.scenario) if args.scenario else {}
    claims = _select(args, user)
    out = args.out or (DEFAULT_OUT / "scenarios" / args.scenario.stem if args.scenario else DEFAULT_OUT)
    _check_out(out)
    _check_json(args.json_path)
    scenarios, estimates = {}, []
    for c in claims:
        s = _for_claim(c.id, scen.merge, c.default_scenario(), user, c.scenario_keys)
        if args.seed is not None:
            s["seed"] = args.seed
        scenarios[c.id] = s
        validated = _for_claim(c.id, c.validate or scen.common, s)
        estimates.append(_for_claim(c.id, budgets.estimate, c.id, validated, args.profile))
    budgets.admit(estimates, args.max_minutes)
    return claims, scenarios, out


def _run_claims(claims, scenarios, profile, quiet) -> list[tuple[dict, float]]:
    progress.enable(not quiet)
    results = []
    for i, c in enumerate(claims):
        start = time.perf_counter()
        with progress.claim(c.id, i, len(claims)):
            try:
                cert = c.run(scenarios[c.id], profile, claim_rng(scenarios[c.id]["seed"], c.id))
            except (KeyboardInterrupt, InternalError):
                raise
            except Exception as exc:   # the input passed validation: this is a bug
                raise InternalError(f"{c.id}: {type(exc).__name__}: {exc}") from exc
        results.append((cert, time.perf_counter() - start))
    return results


class InternalError(Exception):
    pass


def cmd_verify(args) -> int:
    if args.check:
        return cmd_verify_check(args)
    from .render import render

    claims, scenarios, out = plan(args)
    results = []
    for cert, elapsed in _run_claims(claims, scenarios, args.profile, args.quiet):
        render.write_certificate(out, cert)
        results.append((cert, elapsed))
    render.render_all(out)
    certs = [c for c, _ in results]
    if args.json_path == "-":
        sys.stdout.write(certio.dumps(certs))
    elif args.json_path:
        Path(args.json_path).write_text(certio.dumps(certs))
    if not args.quiet and args.json_path != "-":
        print(f"{'claim':<20} {'status':<13} {'checks':>7} {'seconds':>8}")
        for cert, elapsed in results:
            ok = sum(ch["passed"] is True for ch in cert["checks"])
            print(f"{cert['claim']:<20} {cert['status']:<13} {ok:>3}/{len(cert['checks']):<3} {elapsed:>8.1f}")
        print(f"{'total':<20} {'':<13} {'':>7} {sum(e for _, e in results):>8.1f}")
        print(f"certificates and pages in {out}/ (open {out / 'index.html'})")
    return EXIT_OK if all(c["status"] == "verified" for c in certs) else EXIT_FAILED


def cmd_verify_check(args) -> int:
    """Re-run each committed certificate's claim on its built-in scenario at the certificate's profile
    and seed; exit 1 naming every certificate whose verdicts, checks or numbers would change."""
    for flag, value in (("--scenario", args.scenario), ("--seed", args.seed), ("--json", args.json_path),
                        ("--profile", args.profile)):
        if value is not None:
            raise UsageError(f"verify --check takes the profile and seed from the certificates; drop {flag}")
    out = args.out or DEFAULT_OUT
    folder = out / "certificates"
    if not folder.is_dir():
        raise ValueError(f"no certificates to check: {str(folder)!r} is not a directory")
    old = {}
    for path in sorted(folder.glob("*.json")):
        cert = certio.read(path)
        old[cert.get("claim", path.stem)] = (path, cert)
    wanted = list(dict.fromkeys(args.claims)) if args.claims else list(old)
    for cid in wanted:
        registry.get(cid)
        if cid not in old:
            raise ValueError(f"no certificate {folder / (cid + '.json')} to check")
    claims = [registry.get(cid) for cid in wanted]
    scenarios, estimates = {}, []
    for c in claims:
        cert = old[c.id][1]
        if cert.get("profile") not in PROFILES or not isinstance(cert.get("seed"), int):
            raise ValueError(f"{old[c.id][0]}: no valid profile and seed to re-run")
        s = c.default_scenario()
        s["seed"] = cert["seed"]
        scenarios[c.id] = s
        validated = _for_claim(c.id, c.validate or scen.common, s)
        estimates.append(_for_claim(c.id, budgets.estimate, c.id, validated, cert["profile"]))
    budgets.admit(estimates, args.max_minutes)
    changed = []
    progress.enable(not args.quiet)
    for i, c in enumerate(claims):
        path, cert = old[c.id]
        with progress.claim(c.id, i, len(claims)):
            try:
                new = c.run(scenarios[c.id], cert["profile"], claim_rng(cert["seed"], c.id))
            except Exception as exc:
                raise InternalError(f"{c.id}: {type(exc).__name__}: {exc}") from exc
        diffs = certio.differences(cert, json.loads(certio.dumps(new)))
        if diffs:
            changed.append(path)
            print(f"would change: {path}: " + "; ".join(diffs), file=sys.stderr)
    if changed:
        print(f"{len(changed)} of {len(claims)} certificates would change; fix: softlin verify "
              f"(then commit {folder}/ and the pages)", file=sys.stderr)
        return EXIT_FAILED
    print(f"{len(claims)} certificates reproduce at their profile and seed "
          f"({certio.SIGNIFICANT_DIGITS} significant digits)")
    return EXIT_OK


def cmd_report(args) -> int:
    from .render import render

    folder = args.out / "certificates"
    if not folder.is_dir() or not any(folder.glob("*.json")):
        raise ValueError(f"no certificates in {str(folder)!r} (run softlin verify first, or give --out)")
    if args.check:
        stale = render.stale_pages(args.out)
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        if stale:
            print("fix: softlin report", file=sys.stderr)
            return EXIT_FAILED
        print("reports are up to date")
        return EXIT_OK
    if args.preview:
        from .render import browser

        if browser.find_chromium() is None:
            raise ValueError("--preview needs Chromium (Debian package `chromium`, or set SOFTLIN_CHROMIUM)")
    written = render.render_all(args.out)
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
        return cmd_report(args)
    except (UsageError, ValueError, OSError) as exc:
        progress.clear()
        message = str(exc).replace("\n", " ")
        print(f"softlin: error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        progress.clear()
        print("softlin: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: one line, not a traceback, and not exit 1 (= refuted)
        progress.clear()
        message = f"{type(exc).__name__}: {exc}" if not isinstance(exc, InternalError) else str(exc)
        print(f"softlin: internal error: {message.splitlines()[0] if message else ''} -- this is a bug; "
              f"please report it with the command line ({ISSUES}); SOFTLIN_DEBUG=1 shows the traceback",
              file=sys.stderr)
        if _debug():
            raise
        return EXIT_INTERNAL


def _debug() -> bool:
    import os
    return os.environ.get("SOFTLIN_DEBUG") == "1"


if __name__ == "__main__":
    sys.exit(main())
