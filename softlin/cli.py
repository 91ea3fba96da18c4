"""The `softlin` command line (docs/design.md, "CLI").

    softlin list
    softlin derive [--check]
    softlin verify [CLAIM ...] [--profile quick|standard|full] [--scenario F] [--seed N] [--json PATH|-]
                   [--out DIR] [--quiet]
    softlin report [--check] [--out DIR] [--preview]

Exit codes: 0 all verified, 1 something refuted or inconclusive (or stale output), 2 usage or
input error (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from .claims import progress, registry, scenario as scen
from .claims.base import PROFILES, claim_rng

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
DEFAULT_OUT = Path("reports")


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
    verify.add_argument("claims", nargs="*", help="claim ids (default: all)")
    verify.add_argument("--profile", choices=PROFILES, default="standard")
    verify.add_argument("--scenario", type=Path, help="TOML scenario file (keys: see README)")
    verify.add_argument("--seed", type=int, help="overrides the scenario's seed")
    verify.add_argument("--json", dest="json_path", help="also write the certificates as one JSON list (- for stdout)")
    verify.add_argument("--out", type=Path, help="output directory (default: reports, or "
                        "reports/scenarios/<name> with --scenario)")
    verify.add_argument("--quiet", action="store_true", help="no progress and no table")
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
    from .derivations import catalogue, emit
    from .derivations import report as derivation_page

    start = time.perf_counter()
    proofs = catalogue.all_proofs()
    failed = [p.statement for group in proofs.values() for p in group if not p.passed]
    page = derivation_page.render(proofs)
    page_path = args.out / "derivations.md"
    if args.check:
        diff = emit.staleness_diff()
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
    path = emit.write()
    page_path.parent.mkdir(parents=True, exist_ok=True)
    page_path.write_text(page)
    n = sum(len(g) for g in proofs.values())
    print(f"wrote {path} and {page_path}; {n - len(failed)}/{n} proofs passed "
          f"({time.perf_counter() - start:.1f} s)")
    if failed:
        print("symbolic proofs failed: " + "; ".join(failed), file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def cmd_verify(args) -> int:
    from .render import render

    ids = args.claims or list(registry.CLAIMS)
    claims = [registry.get(i) for i in ids]
    user = scen.load_toml(args.scenario) if args.scenario else {}
    out = args.out or (DEFAULT_OUT / "scenarios" / args.scenario.stem if args.scenario else DEFAULT_OUT)
    scenarios = {c.id: scen.merge(c.default_scenario(), user, c.scenario_keys) for c in claims}
    if args.seed is not None:
        if args.seed < 0:
            raise ValueError(f"--seed {args.seed} must be >= 0")
        for s in scenarios.values():
            s["seed"] = args.seed
    for c in claims:  # validate every scenario before any long work starts
        (c.validate or scen.common)(scenarios[c.id])
    progress.enable(not args.quiet)
    certs, rows = [], []
    for i, c in enumerate(claims):
        start = time.perf_counter()
        with progress.claim(c.id, i, len(claims)):
            cert = c.run(scenarios[c.id], args.profile, claim_rng(scenarios[c.id]["seed"], c.id))
        elapsed = time.perf_counter() - start
        certs.append(cert)
        rows.append((c.id, cert["status"], sum(ch["passed"] is True for ch in cert["checks"]),
                     len(cert["checks"]), elapsed))
        render.write_certificate(out, cert)
    render.render_all(out)
    if args.json_path == "-":
        sys.stdout.write(json.dumps(certs, indent=2) + "\n")
    elif args.json_path:
        Path(args.json_path).write_text(json.dumps(certs, indent=2) + "\n")
    if not args.quiet and args.json_path != "-":
        print(f"{'claim':<20} {'status':<13} {'checks':>7} {'seconds':>8}")
        for cid, status, ok, total, elapsed in rows:
            print(f"{cid:<20} {status:<13} {ok:>3}/{total:<3} {elapsed:>8.1f}")
        print(f"{'total':<20} {'':<13} {'':>7} {sum(r[4] for r in rows):>8.1f}")
        print(f"certificates and pages in {out}/ (open {out / 'index.html'})")
    return EXIT_OK if all(r[1] == "verified" for r in rows) else EXIT_FAILED


def cmd_report(args) -> int:
    from .render import render

    if args.check:
        stale = render.stale_pages(args.out)
        for path in stale:
            print(f"stale: {path}", file=sys.stderr)
        if stale:
            print("fix: softlin report", file=sys.stderr)
            return EXIT_FAILED
        print("reports are up to date")
        return EXIT_OK
    written = render.render_all(args.out)
    print(f"rendered {len(written)} files in {args.out}/")
    if args.preview:
        from .render import browser

        if browser.find_chromium() is None:
            raise ValueError("--preview needs Chromium (Debian package `chromium`, or set SOFTLIN_CHROMIUM)")
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
    except (UsageError, ValueError) as exc:
        print(f"softlin: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("softlin: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
