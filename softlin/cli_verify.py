"""`softlin verify` and `softlin verify --check` (docs/design.md, "CLI"); the CLI layer.

Everything is checked before the first claim runs: scenario keys and values for every named claim,
the work and memory each claim would need (claims/budgets.py) and the output paths; a problem raises
`ValueError` or `UsageError`, which `softlin.cli.main` prints on one line with exit code 2. A claim
that raises after its input passed validation is a bug: `InternalError`, exit code 3, except for
`budgets.BeyondReach`, a structural limit that only a run can meet (exit 2, like a rejected input).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from . import certio
from .claims import budgets, progress, registry, scenario as scen
from .claims.base import PROFILES, claim_rng

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3
DEFAULT_OUT = Path("reports")


class UsageError(Exception):
    pass


class InternalError(Exception):
    pass


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
            except budgets.BeyondReach as exc:   # a structural limit met during the run: exit 2
                raise ValueError(f"{c.id}: {exc}") from None
            except Exception as exc:   # the input passed validation: this is a bug
                raise InternalError(f"{c.id}: {type(exc).__name__}: {exc}") from exc
        results.append((cert, time.perf_counter() - start))
    return results


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
