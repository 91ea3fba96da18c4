"""`softlin hunt CLAIM`: the command's arguments, their checks before any work, and its output; the
search itself is softlin/hunt/search.py."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import certio
from ..core import progress, registry
from ..commands import EXIT_FAILED, EXIT_OK
from ..hunt.scenario_toml import to_toml
from ..hunt.search import DEFAULT_OUT, PROFILE, Hunt, summary, supported


def add_parser(sub) -> None:
    hunt = sub.add_parser(
        "hunt", help="search a claim's hypothesis space for a counterexample (Hypothesis)"
    )
    # the claims are not imported for the parser (`softlin --help` stays fast): check_args names
    # the supported ones
    hunt.add_argument("claim", help="claim id, of a claim that declares a hunt space")
    hunt.add_argument(
        "--examples",
        type=int,
        metavar="N",
        default=100,
        help="scenarios judged before giving up (default 100)",
    )
    hunt.add_argument(
        "--seed",
        type=int,
        metavar="N",
        default=0,
        help="seed of Hypothesis and of every claim run (default 0)",
    )
    hunt.add_argument(
        "--budget", choices=tuple(PROFILE), default="quick", help="claim profile per example"
    )
    hunt.add_argument(
        "--false-alarm",
        type=float,
        metavar="A",
        default=1e-3,
        dest="false_alarm",
        help="family-wise false alarm of the whole hunt (default 1e-3); sets each check's level",
    )
    hunt.add_argument(
        "--max-shrink",
        type=int,
        metavar="K",
        default=100,
        help="claim runs spent shrinking (default 100)",
    )
    where = hunt.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="run the claim runs on this Dask scheduler (tcp://HOST:PORT; needs softlin[sweep])",
    )
    where.add_argument(
        "--workers",
        type=int,
        metavar="N",
        help="run the claim runs on a local Dask cluster of N processes",
    )
    hunt.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        default=DEFAULT_OUT,
        help=f"output folder (default {DEFAULT_OUT})",
    )
    hunt.add_argument(
        "--json",
        dest="json_path",
        metavar="PATH|-",
        help="also write the summary JSON to PATH (- for stdout)",
    )


def check_args(args):
    """The claim's space, or ValueError naming the bad value, before any work."""
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers {args.workers} must be >= 1")
    if args.scheduler is not None or args.workers is not None:
        from ..sweep.execute import require_dask

        require_dask()
    claim = registry.get(args.claim)
    if claim.hunt is None:
        names = ", ".join(supported())
        raise ValueError(f"hunt does not support {claim.id!r} yet (supported: {names})")
    if args.examples < 1:
        raise ValueError(f"--examples {args.examples} must be >= 1")
    if not 0 < args.false_alarm < 1:
        raise ValueError(f"--false-alarm {args.false_alarm:g} must be in (0, 1)")
    if args.max_shrink < 0:
        raise ValueError(f"--max-shrink {args.max_shrink} must be >= 0")
    if args.seed < 0:
        raise ValueError(f"--seed {args.seed} must be >= 0")
    for p in (args.out, *args.out.parents):
        if p.exists():
            if not p.is_dir():
                raise ValueError(f"--out {str(args.out)!r}: {str(p)!r} is a file, not a directory")
            break
    if args.json_path not in (None, "-") and Path(args.json_path).is_dir():
        raise ValueError(f"--json {args.json_path!r} is a directory; give a file name")
    return claim


def cmd_hunt(args) -> int:
    claim = check_args(args)
    hunt = Hunt(claim, args.examples, args.seed, args.budget, args.max_shrink, args.false_alarm)
    start = time.perf_counter()
    progress.enable(True)  # draws only on a terminal
    dask = None
    try:
        if args.scheduler is not None or args.workers is not None:
            from ..hunt.cluster import run_on_cluster

            dask = run_on_cluster(hunt, args.workers, args.scheduler)
        else:
            hunt.run()
    finally:
        progress.clear()
    result = summary(hunt, time.perf_counter() - start)
    if dask is not None:
        result["dask"] = dask
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / claim.id
    if hunt.found:
        toml = Path(f"{stem}-counterexample.toml")
        toml.write_text(
            to_toml(
                hunt.found.scenario,
                f"softlin hunt {claim.id} --seed {args.seed} --budget "
                f"{args.budget}: counterexample\nre-run: softlin verify {claim.id} --scenario "
                f"{toml} --profile {PROFILE[args.budget]}",
            )
        )
        Path(f"{stem}-counterexample.json").write_text(certio.dumps(hunt.found.failing))
        result["counterexample"]["toml"] = str(toml)
    text = certio.dumps(result)
    Path(f"{stem}.json").write_text(text)
    if args.json_path == "-":
        sys.stdout.write(text)
    else:
        if args.json_path:
            Path(args.json_path).write_text(text)
        _print(result)
    return EXIT_FAILED if hunt.found else EXIT_OK


def _print(r: dict) -> None:
    fa = r["false_alarm"]
    print(
        f"hunt {r['claim']}: {r['result']} after {r['runs']} claim runs ({r['seconds']:.0f} s, "
        f"budget {r['budget']}, seed {r['seed']})"
    )
    print(
        "regions: "
        + ", ".join(f"{k}: {v}" for k, v in r["regions"].items())
        + f"; outside hypotheses: {sum(r['outside_hypotheses'].values())}"
    )
    print(
        f"family-wise false alarm <= {fa['stated']:.2g} (= {r['examples']} runs x "
        f"{fa['statistical_checks_per_run']} checks x {fa['per_check']:.2g} per check; "
        f"{fa['family_wise']:.2g} over the runs made); undecided runs: {r['undecided_runs']}; "
        f"control misses: {len(r['control_misses'])}"
    )
    if "counterexample" in r:
        ids = ", ".join(c["id"] for c in r["counterexample"]["failing_checks"])
        print(
            f"counterexample (shrunk in {r['shrink_runs']} runs): {r['counterexample']['toml']}; "
            f"failing: {ids}"
        )
