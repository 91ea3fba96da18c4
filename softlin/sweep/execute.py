"""Running a sweep's points: in this process, or on Dask distributed (docs/design.md, "Sweeps").

A point is a pure function call, `compute_point(claim_id, scenario, profile, seed)`, that
returns the certificate's bytes (certio.dumps: 8 significant digits) and the seconds it took. Its
result depends only on its arguments (the claim's stream is claim_rng(seed, claim)), so it does not
matter which process runs it, in what order, or how often: 1 worker and N workers give the same
bytes.

Dask. `open_client(workers, scheduler)` starts a `LocalCluster` of `workers` processes with one
thread each, or connects to an existing scheduler (`tcp://HOST:PORT`): the same code runs on one
machine or a cluster whose workers have softlin installed. Distributed's nanny starts each
worker with OMP_NUM_THREADS = MKL_NUM_THREADS = OPENBLAS_NUM_THREADS = 1 (its `pre-spawn-environ`
default), so workers do not oversubscribe the cores with BLAS threads. When a worker dies mid-point
the scheduler reschedules the point on another worker (up to
`distributed.scheduler.allowed-failures`, default 3, deaths per point); an exception inside a claim
is a bug and is not retried. Results come back to the client, which alone writes files
(sweep/store.py), so the workers need no shared file system.
"""

from __future__ import annotations

import time
from typing import Callable, Iterable, Iterator

from .. import certio
from ..core import execute
from ..commands import InternalError
from ..core import registry

INSTALL_HINT = (
    "softlin sweep needs Dask distributed: pip install 'softlin[sweep]' "
    "(or pip install 'dask[distributed]')"
)


def compute_point(claim_id: str, scenario: dict, profile: str, seed: int) -> tuple[str, float]:
    """(certificate text, seconds) of one point, planned by the sweep's plan (softlin/cli/sweep.py)
    and run as `softlin verify` runs a claim (softlin/core/execute.py). The claim is named by its
    id: a
    Dask worker receives the id."""
    if scenario["seed"] != seed:  # the claim's stream is drawn from the scenario's seed
        raise InternalError(f"point seed {seed} is not its scenario's seed {scenario['seed']}")
    start = time.perf_counter()
    cert = execute.run(registry.get(claim_id), scenario, profile)
    return certio.dumps(cert), time.perf_counter() - start


def require_dask():
    """The `distributed` module, or ValueError with the install hint (exit 2 in the CLI)."""
    try:
        import distributed
    except ImportError:
        raise ValueError(INSTALL_HINT) from None
    return distributed


def open_client(workers: int | None, scheduler: str | None):
    """A distributed.Client: on `scheduler` if given, else on a new LocalCluster of `workers`
    processes (one thread each). The caller closes it (and its cluster)."""
    import logging

    distributed = require_dask()
    if scheduler:
        try:
            return distributed.Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise ValueError(f"--scheduler {scheduler!r}: cannot connect ({exc})") from None
    # The scheduler's HTTP server (health, dashboard) on a free local port: no clash with another
    # cluster on 8787, and no warning about it on stderr. Worker logs below CRITICAL are silenced:
    # when the cluster closes, a worker's heartbeat in flight may find the scheduler gone and log an
    # ERROR with a traceback, which is noise; an error of a point reaches the sweep through its
    # future's exception, and a worker lost to memory as KilledWorker, so nothing is hidden.
    cluster = distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.CRITICAL,
    )
    return distributed.Client(cluster)


def close_client(client) -> None:
    cluster = getattr(client, "cluster", None)
    client.close()
    if cluster is not None:
        cluster.close()


PointFn = Callable[[str, dict, str, int], tuple[str, float]]


def run_inline(
    tasks: Iterable[dict], point_fn: PointFn = compute_point
) -> Iterator[tuple[dict, str, float]]:
    """Yield (task, text, seconds) computing each task
    {"claim", "scenario", "profile", "seed", "key"} here."""
    for t in tasks:
        text, seconds = point_fn(t["claim"], t["scenario"], t["profile"], t["seed"])
        yield t, text, seconds


def run_dask(
    client, tasks: list[dict], point_fn: PointFn = compute_point
) -> Iterator[tuple[dict, str, float]]:
    """Yield (task, text, seconds) as the points finish on the cluster (any order). Each future's
    key is the point's store key, so a resubmitted sweep shares work already running on a shared
    scheduler."""
    distributed = require_dask()
    futures = {}
    for t in tasks:
        f = client.submit(
            point_fn,
            t["claim"],
            t["scenario"],
            t["profile"],
            t["seed"],
            key=f"softlin-point-{t['key']}",
            pure=False,
        )
        futures[f] = t
    try:
        for future in distributed.as_completed(list(futures)):
            text, seconds = future.result()
            yield futures[future], text, seconds
    finally:
        for f in futures:
            f.cancel()
