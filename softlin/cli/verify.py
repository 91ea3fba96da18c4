"""`softlin verify` and `softlin verify --check` (docs/design.md, "CLI"); the CLI layer.

Everything is checked before the first claim runs: scenario keys and values for every named claim,
the work and memory each claim would need (core/budgets.py) and the output paths; a problem raises
`ValueError` or `UsageError`, which `softlin.cli.main` prints on one line with exit code 2. A claim
that raises after its input passed validation is a bug: `InternalError`, exit code 3, except for
`BeyondReach`, a structural limit that only a run can meet (exit 2, like a rejected input).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from .. import certio
from ..core import execute
from ..commands import (
    DEFAULT_OUT,
    EXIT_FAILED,
    EXIT_OK,
    UsageError,
    check_out,
    output_problem,
    probe_writable,
)
from ..core import budgets, parallel, progress, registry, scenario as scen
from ..core.claim import PROFILES
from ..render import text


def _for_claim(claim_id: str, fn, *args):
    try:
        return fn(*args)
    except ValueError as exc:
        raise ValueError(f"{claim_id}: {exc}") from None


def _select(args, user: dict) -> list:
    """The claims to run: the named ones, or all; with a scenario and no claim named, those
    that read every key of the scenario (a note on stderr names the ones skipped and the key they do
    not read)."""
    if args.claims:
        return [registry.get(i) for i in dict.fromkeys(args.claims)]
    claims = list(registry.CLAIMS.values())
    if not user:
        return claims
    problems = {c.id: scen.reader_problem(user, c) for c in claims}
    chosen = [c for c in claims if problems[c.id] is None]
    skipped = "; ".join(
        f"{cid} does not read {key}" for cid, key in problems.items() if key is not None
    )
    if not chosen:
        raise ValueError(f"no claim reads every key of {args.scenario}: {skipped}")
    if skipped and not args.quiet:
        print(
            f"softlin: {args.scenario} runs {', '.join(c.id for c in chosen)}; skipped: {skipped}",
            file=sys.stderr,
        )
    return chosen


def _check_junit(path: Path | None) -> None:
    """--junit is probed before any work, like --out and --json."""
    _check_output_file("--junit", None if path is None else str(path))


def _write_output(path: str, data: bytes) -> None:
    """An output file the user named (--json, --junit): "-" is stdout; otherwise
    certio.atomic_write, which follows a symbolic link to its target and writes a device or FIFO
    as a stream instead of replacing it."""
    if path == "-":
        # a text stream without bytes underneath (a notebook's or a test's capture) takes text
        binary = getattr(sys.stdout, "buffer", None)
        if binary is None:
            sys.stdout.write(data.decode())
        else:
            binary.write(data)
        sys.stdout.flush()
    else:
        certio.atomic_write(Path(path), data)


def _write_junit(path: Path | None, runs: list[dict], bad=()) -> None:
    if path is not None:
        from .junit import document

        _write_output(str(path), document(runs, bad))


def _ci_reports(args, runs: list[dict], bad: list[tuple[Path, str]] = ()) -> None:
    """The reports CI systems read: --junit (JUnit XML) and --github (workflow commands); `bad`
    lists the certificate files --check found invalid, with the problem of each."""
    _write_junit(args.junit, runs, bad)
    if args.github:
        from .github import emit

        emit(runs, bad=bad)


def _check_json(path: str | None) -> None:
    _check_output_file("--json", path)


def _check_output_file(flag: str, path: str | None) -> None:
    """An output file named by `flag`, probed before any work: a regular file (or a new one in a
    folder that exists and is writable), a character device or a FIFO, a symbolic link to one of
    these (its target is written); None and "-" (stdout) need nothing."""
    if path in (None, "-"):
        return
    problem = output_problem(Path(path))
    if problem:
        raise ValueError(f"{flag} {path!r}: {problem}")
    target = Path(os.path.realpath(path))
    if not target.exists():
        if not target.parent.is_dir():
            raise ValueError(f"{flag} {path!r}: the folder {str(target.parent)!r} does not exist")
        probe_writable(target.parent, f"{flag} {path!r}")
    elif target.is_file():
        probe_writable(target.parent, f"{flag} {path!r}")  # the rename needs the folder


def _check_stdout(args) -> None:
    """At most one of --json -, --junit - and --github writes to stdout."""
    takers = [
        flag
        for flag, taken in (
            ("--json -", args.json_path == "-"),
            ("--junit -", args.junit is not None and str(args.junit) == "-"),
            ("--github", args.github),
        )
        if taken
    ]
    if len(takers) > 1:
        raise UsageError(
            f"{' and '.join(takers)} would all write to stdout: give a file to all but one"
        )


def _check_existing(out: Path) -> None:
    """The certificates already in `out`, which the run's pages are rendered with: a file named
    after another claim than the one it holds is refused before any work (the pages would show that
    claim twice). A file of a claim the registry does not know is rendered as it is."""
    folder = out / "certificates"
    if folder.is_dir() and any(folder.glob("*.json")):
        _, misnamed, _ = certificate_files(folder)
        for path, problem in misnamed:
            raise ValueError(f"{path}: {problem}")


def _stdout_taken(args) -> bool:
    """Whether stdout carries a machine-read output (--json -, --junit -): no table goes there."""
    return args.json_path == "-" or (args.junit is not None and str(args.junit) == "-")


def plan(args) -> tuple[list, dict, Path]:
    """(claims, merged scenario per claim id, output directory); ValueError before any work. The
    estimates are kept on `args.estimates` for --dry-run."""
    args.profile = args.profile or "standard"
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed {args.seed} must be >= 0")
    if not args.max_minutes > 0:
        raise ValueError(f"--max-minutes {args.max_minutes:g} must be > 0")
    user = scen.load_toml(args.scenario) if args.scenario else {}
    claims = _select(args, user)
    out = args.out or (
        DEFAULT_OUT / "scenarios" / args.scenario.stem if args.scenario else DEFAULT_OUT
    )
    check_out(out)
    _check_existing(out)
    _check_json(args.json_path)
    _check_junit(args.junit)
    _check_stdout(args)
    scenarios, estimates = {}, []
    for c in claims:
        with execute.named(c.id):
            planned = execute.plan(c, user, args.profile, seed=args.seed)
        scenarios[c.id] = planned.scenario
        estimates.append(planned.estimate)
    args.jobs = _jobs(args, len(claims))
    budgets.admit(estimates, args.max_minutes, jobs=args.jobs)
    _check_evidence(args, claims, scenarios, out)
    args.estimates = estimates
    return claims, scenarios, out


def _evidence(c, scenario, profile, seed) -> tuple[tuple, str]:
    """What a certificate of claim `c` is evidence of: (profile, seed, the scenario as validated),
    for comparison, and a label ("standard, seed 0, built-in scenario") for messages. A scenario
    that no longer validates (an older or damaged certificate) compares unequal to any run."""
    from ..core.claim import jsonable

    check = c.validate or scen.common
    try:
        validated = jsonable(check(dict(scenario, seed=seed)))
    except (TypeError, ValueError):
        validated = None
    built_in = validated is not None and validated == jsonable(
        check(dict(c.default_scenario(), seed=seed))
    )
    kind = "built-in" if built_in else "a user" if validated is not None else "an invalid"
    return (profile, seed, validated), f"{profile}, seed {seed}, {kind} scenario"


def _check_evidence(args, claims, scenarios: dict, out: Path) -> None:
    """Committed evidence is not replaced by other evidence silently. A certificate already in
    `out` made at another profile, seed or scenario than this run would be replaced by it (a quick
    run over the committed standard certificates, say): refused before any work, in one line,
    unless --replace. Where `out` has a README with a verdict table beside it, the run may not
    leave certificates of several profiles or seeds there, even with --replace: the table states one
    profile and seed for all its verdicts."""
    folder = out / "certificates"
    existing = certificate_files(folder)[0] if any(folder.glob("*.json")) else {}
    replaced, run = [], ""
    for c in claims:
        if c.id in existing:
            path, cert = existing[c.id]
            s = scenarios[c.id]
            now, run = _evidence(c, s, args.profile, s["seed"])
            scenario = cert.get("scenario") if isinstance(cert.get("scenario"), dict) else {}
            was, made = _evidence(c, scenario, cert.get("profile"), cert.get("seed"))
            if was != now:
                replaced.append((c.id, made))
    if replaced and not args.replace:
        ids = ", ".join(cid for cid, _ in replaced)
        made = "; ".join(dict.fromkeys(label for _, label in replaced))
        what = "certificate" if len(replaced) == 1 else f"{len(replaced)} certificates"
        raise ValueError(
            f"this run ({run}) would replace the {what} of {ids} in {folder} (made at {made}); "
            f"give --replace to replace {'it' if len(replaced) == 1 else 'them'}, or --out "
            f"another folder"
        )
    kept = [cert for cid, (_, cert) in existing.items() if cid not in scenarios]
    runs = {(cert.get("profile"), cert.get("seed")) for cert in kept}
    check_one_profile(out, runs | {(args.profile, s["seed"]) for s in scenarios.values()})


def check_one_profile(out: Path, runs: set) -> None:
    """The README beside `out` (when it has generated blocks) states one profile and seed for its
    whole verdict table: ValueError when the certificates of `out` would be of several `runs`
    ({(profile, seed)}). Used by `verify` before any work and by `report`."""
    from ..render import readme, render

    readme_file = render.readme_path(out)
    if len(runs) > 1 and readme_file.is_file() and readme.has_markers(readme_file.read_text()):
        labels = " and ".join(f"{p}, seed {s}" for p, s in sorted(runs, key=str))
        raise ValueError(
            f"{readme_file}'s verdict table would mix certificates of {labels}: run every claim "
            f"at one profile and seed, or give --out another folder"
        )


def proof_folder(args) -> Path | None:
    """Where `verify` (not `--check`) keeps its proofs across runs (derivations/proof_cache.py):
    nowhere with --no-cache; the folder SOFTLIN_PROOF_CACHE names when it is set (off when empty);
    otherwise the user's cache, outside the repository."""
    from ..derivations import proof_cache

    if getattr(args, "no_cache", False):
        return None
    if proof_cache.ENV in os.environ:
        return proof_cache.environment_folder()
    return proof_cache.default_folder()


def _run_claims(
    claims,
    scenarios,
    profiles: dict,
    quiet,
    done,
    proofs: Path | None = None,
    estimates: dict | None = None,
    jobs: int = 1,
) -> list[tuple[dict, float]]:
    """Run the claims, `jobs` at a time (core/parallel.py), each at its profile (by claim id);
    `done(cert)` is called as soon as each finishes (its certificate is written then, so an
    interrupt keeps the finished ones). A heartbeat goes to stderr, with each claim's `estimates`
    (seconds by claim id). The proof groups are read from and kept in the folder `proofs` (None:
    proved in each process). The results are in the order of `claims`."""
    progress.enable(not quiet)
    todo = [
        parallel.Job(c, scenarios[c.id], profiles[c.id], (estimates or {}).get(c.id))
        for c in claims
    ]
    with progress.heartbeat(quiet):
        return parallel.run(todo, jobs, done, proofs, _run_one)


def _run_one(job: parallel.Job) -> dict:
    """The certificate of a job's claim on its planned scenario (softlin/core/execute.py)."""
    return execute.run_reported(job.claim, job.scenario, job.profile)


def _estimate_line(n: int, wall: float, jobs: int, profile: str) -> str:
    """The line `verify` prints before its first claim: the n claims, how many at a time, and
    `wall`, the estimated wall time of that schedule (core/budgets.py `makespan`: calibrated on
    an idle machine)."""
    at_a_time = f", {jobs} at a time" if jobs > 1 else ""
    return (
        f"softlin: running {n} claim{'s' * (n != 1)} at {profile}{at_a_time}: about "
        f"{budgets.duration(wall)} estimated on an idle machine"
    )


def _jobs(args, n_claims: int) -> int:
    """--jobs, or one worker per usable core (no more than the claims)."""
    if args.jobs is None:
        return parallel.default_jobs(n_claims)
    if args.jobs < 1:
        raise ValueError(f"--jobs {args.jobs} must be >= 1")
    return min(args.jobs, max(1, n_claims))


def cmd_verify(args) -> int:
    if args.check and args.dry_run:
        raise UsageError(
            "--dry-run plans a new run; --check re-runs the committed certificates: "
            "give one of them"
        )
    if args.check:
        return cmd_verify_check(args)
    if args.diff:
        raise UsageError("--diff prints the differences that --check finds: give --check")
    from ..render import render

    claims, scenarios, out = plan(args)
    # the wall time of the schedule `--jobs` gives, from the claims' estimates
    estimated = budgets.makespan([e.seconds for e in args.estimates], args.jobs)
    if args.dry_run:
        print(f"{'claim':<20} {'estimated':>10} {'memory':>10}  work")
        for e in args.estimates:
            print(
                f"{e.claim:<20} {budgets.duration(e.seconds):>10} {budgets.size(e.memory):>10}  "
                f"{e.what}"
            )
        print(
            f"the scenario is valid for {len(claims)} claim{'' if len(claims) == 1 else 's'} at "
            f"{args.profile}, about {budgets.duration(estimated)} "
            f"{f'with {args.jobs} claims at a time' if args.jobs > 1 else 'in all'}; "
            "nothing was run or written"
        )
        return EXIT_OK
    # a run long enough to beat (a minute or more) says first how long it should take; a short
    # one, or one that stops at once on an error, keeps stderr to its result
    if not args.quiet and estimated >= progress.HEARTBEAT_SECONDS:
        print(
            _estimate_line(len(claims), estimated, args.jobs, args.profile),
            file=sys.stderr,
            flush=True,
        )
    started = time.perf_counter()
    results = _run_claims(
        claims,
        scenarios,
        {c.id: args.profile for c in claims},
        args.quiet,
        lambda cert: render.write_certificate(out, cert),
        proof_folder(args),
        {e.claim: e.seconds for e in args.estimates},
        args.jobs,
    )
    wall = time.perf_counter() - started
    render.render_all(out)
    certs = [c for c, _ in results]
    _ci_reports(args, [{"cert": c, "seconds": e} for c, e in results])
    if args.json_path:
        _write_output(args.json_path, certio.dumps(certs).encode())
    if not args.quiet and not _stdout_taken(args):
        print(f"{'claim':<20} {'status':<13} {'passed/judged/all':>17} {'seconds':>8}")
        for cert, elapsed in results:
            ok, judged, total = text.passed_count(cert)
            print(
                f"{cert['claim']:<20} {cert['status']:<13} {f'{ok}/{judged}/{total}':>17} "
                f"{elapsed:>8.1f}"
            )
        print(f"{'total':<20} {'':<13} {'':>17} {sum(e for _, e in results):>8.1f}")
        if args.jobs > 1:
            print(f"{'wall clock':<20} {f'{args.jobs} claims at a time':<31} {wall:>8.1f}")
        print(f"certificates and pages in {out}/ (open {out / 'index.html'})")
    return EXIT_OK if all(c["status"] == "verified" for c in certs) else EXIT_FAILED


# `verify --check` prints this many differences per certificate unless --diff asks for all.
DIFF_LINES = 8


def cmd_verify_check(args) -> int:
    """Re-run each certificate's claim on the certificate's own scenario, profile and seed (recorded
    exactly); exit 1 naming every certificate whose verdicts, checks or numbers would change beyond
    their stated precision (certio.differences). Writes nothing."""
    for flag, value in (
        ("--scenario", args.scenario),
        ("--seed", args.seed),
        ("--json", args.json_path),
        ("--profile", args.profile),
        ("--replace", args.replace or None),
    ):
        if value is not None:
            raise UsageError(
                f"verify --check takes the scenario, profile and seed from the certificates; "
                f"drop {flag}"
            )
    out = args.out or DEFAULT_OUT
    folder = out / "certificates"
    if not folder.is_dir():
        raise ValueError(f"no certificates to check: {str(folder)!r} is not a directory")
    _check_junit(args.junit)
    _check_stdout(args)
    for cid in args.claims:
        registry.get(cid)  # an unknown id is a usage error (exit 2)
    # Every file is checked: a certificate is known by its file name, and a file whose inner claim
    # differs, a file no claim owns or a second copy of a claim is an error naming the file.
    old, misnamed, unowned = certificate_files(folder, args.claims or None)
    bad = misnamed + unowned
    for path, problem in bad:
        print(f"softlin: error: {path}: {problem}", file=sys.stderr)
    claims = [registry.get(cid) for cid in old]
    scenarios, estimates, built_in = {}, [], {}
    for c in claims:
        path, cert = old[c.id]
        if (
            cert.get("profile") not in PROFILES
            or not isinstance(cert.get("seed"), int)
            or not isinstance(cert.get("scenario"), dict)
        ):
            raise ValueError(f"{path}: no valid scenario, profile and seed to re-run")
        s = dict(cert["scenario"])
        s["seed"] = cert["seed"]
        scenarios[c.id] = s
        check = c.validate or scen.common
        validated = _for_claim(c.id, check, s)
        default = dict(c.default_scenario(), seed=cert["seed"])
        built_in[c.id] = _same_scenario(validated, check(default))
        estimates.append(_for_claim(c.id, budgets.estimate, c.id, validated, cert["profile"]))
    jobs = _jobs(args, len(claims))
    budgets.admit(estimates, args.max_minutes, jobs=jobs)
    changed, runs = [], []
    # a check re-proves every identity (proofs=None): a cached proof would vouch for code it was
    # not run on if the cache were stale or tampered with
    results = _run_claims(
        claims,
        scenarios,
        {c.id: old[c.id][1]["profile"] for c in claims},
        args.quiet,
        lambda cert: None,
        None,
        {c.id: e.seconds for c, e in zip(claims, estimates)},
        jobs,
    )
    for c, (new, seconds) in zip(claims, results):
        path, cert = old[c.id]
        diffs = certio.differences(cert, json.loads(certio.dumps(new)), limit=None)
        command = _rerun_command(c.id, cert, out, built_in[c.id])
        runs.append(
            {
                "cert": new,
                "seconds": seconds,
                "differences": diffs,
                "reproduce": command,
                "path": str(path),
            }
        )
        if diffs:
            changed.append(c.id)
            shown = diffs if args.diff else diffs[:DIFF_LINES]
            print(
                f"would change: {path} (seed {cert['seed']}, profile {cert['profile']}), "
                f"{len(diffs)} difference{'s' * (len(diffs) != 1)}:",
                file=sys.stderr,
            )
            for line in shown:
                print(f"  {line}", file=sys.stderr)
            if len(shown) < len(diffs):
                print(f"  ... {len(diffs) - len(shown)} more (--diff prints all)", file=sys.stderr)
            print(f"  reproduce: {command}", file=sys.stderr)
    _ci_reports(args, runs, bad)
    files = len(claims) + len(bad)
    if changed or bad:
        what = []
        if changed:
            what.append(f"{len(changed)} would change")
        if bad:
            what.append(f"{len(bad)} {'is' if len(bad) == 1 else 'are'} not a valid certificate")
        print(
            f"{files} certificate file{'s' * (files != 1)} checked: {' and '.join(what)}",
            file=sys.stderr,
        )
        return EXIT_FAILED
    counted = (
        "1 certificate file checked: it reproduces"
        if files == 1
        else f"{files} certificate files checked: each reproduces"
    )
    # on stderr when stdout carries the JUnit report (--junit -)
    print(
        f"{counted} at its scenario, profile and seed (every number within its stated precision)",
        file=sys.stderr if _stdout_taken(args) else sys.stdout,
    )
    return EXIT_OK


def certificate_files(
    folder: Path, wanted: list[str] | None = None
) -> tuple[dict[str, tuple[Path, dict]], list[tuple[Path, str]], list[tuple[Path, str]]]:
    """The certificate files of `folder` (only those of the `wanted` claim ids when given): ({claim
    id: (path, certificate)} for each file named after the registered claim it holds, in the
    registry's order; then [(path, problem)] for each misnamed file, whose `claim` differs from its
    name (a copy of another claim's certificate, which would be checked twice under one name), and
    [(path, problem)] for each file no registered claim owns. A file that is not a JSON object
    with a string `claim`, a folder without certificates, or a wanted claim without its file:
    ValueError (a malformed folder, exit 2)."""
    good, misnamed, unowned, holders = {}, [], [], {}
    certs = {path: certio.read(path) for path in sorted(folder.glob("*.json"))}
    for path, cert in certs.items():
        if not isinstance(cert, dict) or not isinstance(cert.get("claim"), str):
            raise ValueError(f"certificate {path} is not a JSON object with a string 'claim'")
        holders.setdefault(cert["claim"], []).append(path)
    for path, cert in certs.items():
        if wanted is not None and path.stem not in wanted:
            continue
        claim = cert["claim"]
        if claim != path.stem:
            copies = [p.name for p in holders[claim] if p != path]
            also = f"; {', '.join(copies)} holds it too" if copies else ""
            misnamed.append(
                (
                    path,
                    f"holds the certificate of claim {claim!r}, not of {path.stem!r} (a "
                    f"certificate file is named after its claim){also}",
                )
            )
        elif claim not in registry.CLAIMS:
            unowned.append(
                (path, f"no claim {claim!r} owns this file (claims: {', '.join(registry.CLAIMS)})")
            )
        else:
            good[claim] = (path, cert)
    if not certs:
        raise ValueError(f"no certificates to check: no *.json file in {str(folder)!r}")
    for cid in wanted or []:
        if cid not in good and not any(p.stem == cid for p, _ in misnamed + unowned):
            raise ValueError(f"no certificate {folder / (cid + '.json')} to check")
    order = list(registry.CLAIMS)
    return dict(sorted(good.items(), key=lambda kv: order.index(kv[0]))), misnamed, unowned


def _same_scenario(a: dict, b: dict) -> bool:
    from ..core.claim import jsonable

    return jsonable(a) == jsonable(b)


def _rerun_command(claim_id: str, cert: dict, out: Path, built_in: bool) -> str:
    """The command that regenerates one certificate. A certificate made from a user's scenario is
    never pointed at the built-in one: its command names the scenario file, which the user holds
    (the certificate records its contents)."""
    where = "" if out == DEFAULT_OUT else f" --out {out}"
    command = f"softlin verify {claim_id} --profile {cert['profile']} --seed {cert['seed']}{where}"
    if built_in:
        return command
    return (
        command.replace(f" {claim_id} ", f" {claim_id} --scenario YOUR.toml ", 1)
        + "  (made from a user scenario, recorded in the certificate: YOUR.toml is the file that "
        "made it)"
    )
