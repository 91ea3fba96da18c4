"""Claims run side by side, one worker process per core (`softlin verify --jobs N`).

A claim's run is one process's work: its Monte Carlo, quadrature and proofs are sequential NumPy,
SciPy and SymPy. On a machine with several cores `verify` therefore runs `jobs` claims at a time,
each in its own worker process (started by `spawn`, so no BLAS thread pool is inherited half-made
from a `fork`). The certificates are the same as a sequential run's: a claim draws from its own
random stream (`claim_rng(seed, claim id)`), and nothing a claim computes depends on which claims
ran before it in the same process (the caches the claims keep are held bit for bit to a fresh
computation by their tests).

Scheduling: longest estimate first, each free worker taking the next claim (LPT), so the longest
claim starts at once and the short ones fill the other worker; `budgets.makespan` is the wall time
this gives for the estimates (what `--max-minutes` and the dry run compare). The results come back
in the caller's order; `done(cert)` is called in the parent as each finishes, so an interrupted run
keeps the certificates already written.

Each worker runs with `cores // jobs` BLAS threads (at least 1) unless the user has set
OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or MKL_NUM_THREADS: two workers of two threads each on two
cores cost three times the CPU of one thread (docs/performance.md). The certificates do not depend
on the thread count (tests/test_reproducible.py).

Progress: a worker forwards its claim's progress (core/progress.py) to the parent, which draws one
status line or heartbeat for all running claims (`progress.lanes`). An exception of a claim stops
the run: the other workers are stopped, and the exception is raised in the parent as
`execute.run_reported` gives it (the worker's traceback attached as a note, for SOFTLIN_DEBUG=1).

A worker finds a registered claim by its id (core/registry.py); any other claim (a test's
stand-in) is sent pickled, its functions by reference. A claim that is neither (built from
closures) makes the whole run sequential, in the calling process.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import pickle
import queue as queue_module
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from . import progress

BLAS_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Job:
    """One claim to run: the claim (registered), its planned scenario and profile, and its estimated
    seconds (core/budgets.py), which order the queue and feed the heartbeat."""

    claim: object
    scenario: dict
    profile: str
    estimate: float | None = None


def usable_cores() -> int:
    """The cores this process may run on (its affinity mask where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def default_jobs(n_claims: int) -> int:
    """One worker per usable core, no more than there are claims."""
    return max(1, min(n_claims, usable_cores()))


def portable(claim) -> tuple[str, object] | None:
    """How a worker receives the claim: ("id", its id) when importing its module finds this very
    claim, ("object", the claim) when it pickles, else None."""
    from .registry import module_of

    try:
        if importlib.import_module(module_of(claim.id)).CLAIM is claim:
            return ("id", claim.id)
    except (ImportError, AttributeError):
        pass
    try:
        pickle.dumps(claim)
    except Exception:  # noqa: BLE001 - any failure to pickle (a closure, a lambda)
        return None
    return ("object", claim)


def _received(sent: tuple[str, object]):
    from . import registry

    kind, what = sent
    return registry.get(what) if kind == "id" else what


def run(
    jobs_list: list[Job],
    jobs: int,
    done: Callable[[dict], None],
    proofs: Path | None,
    run_one: Callable[[Job], dict],
) -> list[tuple[dict, float]]:
    """(certificate, seconds) per job, in the order given. With jobs <= 1, a single claim or a claim
    that does not pickle, the claims run here one after another through `run_one` (the proof
    groups read from and kept in `proofs`, as in a worker)."""
    from ..derivations import proof_cache

    workers = min(jobs, len(jobs_list))
    sent = [portable(j.claim) for j in jobs_list] if workers > 1 else []
    if workers <= 1 or None in sent:
        return _run_here(jobs_list, done, proofs, run_one, proof_cache)
    return _run_in_workers(jobs_list, sent, workers, done, proofs)


def _run_here(jobs_list, done, proofs, run_one, proof_cache) -> list[tuple[dict, float]]:
    results = []
    total = len(jobs_list)
    with proof_cache.use(proofs):
        for i, job in enumerate(jobs_list):
            start = time.perf_counter()
            with progress.claim(job.claim.id, i, total, job.estimate):
                cert = run_one(job)
            elapsed = time.perf_counter() - start
            done(cert)
            progress.finished(job.claim.id, cert["status"], elapsed, i, total)
            results.append((cert, elapsed))
    return results


def _run_in_workers(jobs_list, sent, workers, done, proofs) -> list[tuple[dict, float]]:
    ctx = multiprocessing.get_context("spawn")
    tasks, messages = ctx.Queue(), ctx.Queue()
    order = sorted(
        range(len(jobs_list)), key=lambda i: -(jobs_list[i].estimate or 0.0)
    )  # longest first; sorted() is stable, so ties keep the caller's order
    for i in order:
        j = jobs_list[i]
        tasks.put((i, sent[i], j.scenario, j.profile))
    for _ in range(workers):
        tasks.put(None)
    with _blas_threads(max(1, usable_cores() // workers)):
        procs = [
            ctx.Process(target=_worker, args=(tasks, messages, proofs, os.getpid()), daemon=True)
            for _ in range(workers)
        ]
        for p in procs:
            p.start()
    names = [j.claim.id for j in jobs_list]
    results: list[tuple[dict, float] | None] = [None] * len(jobs_list)
    finished = 0
    progress.lanes_begin(len(jobs_list))
    try:
        while finished < len(jobs_list):
            try:
                msg = messages.get(timeout=1.0)
            except queue_module.Empty:
                dead = [p for p in procs if not p.is_alive() and p.exitcode not in (0, None)]
                if dead:
                    raise RuntimeError(
                        f"a verify worker stopped (exit code {dead[0].exitcode}) before its claim "
                        f"finished"
                    )
                continue
            kind, i = msg[0], msg[1]
            if kind == "start":
                progress.lane_started(names[i], jobs_list[i].estimate)
            elif kind == "task":
                progress.lane_task(names[i], msg[2])
            elif kind == "done":
                cert, elapsed = msg[2], msg[3]
                results[i] = (cert, elapsed)
                done(cert)
                progress.lane_finished(names[i], cert["status"], elapsed, finished, len(jobs_list))
                finished += 1
            elif kind == "error":
                raise _rebuilt(msg[2], msg[3])
    finally:
        progress.lanes_end()
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join()
    return results  # type: ignore[return-value]


@contextlib.contextmanager
def _blas_threads(n: int) -> Iterator[None]:
    """The BLAS thread variables set to `n` while the workers start (a spawned process reads the
    environment at its start), unless the user set them; restored after."""
    saved = {k: os.environ.get(k) for k in BLAS_VARIABLES}
    if not any(v is not None for v in saved.values()):
        for k in BLAS_VARIABLES:
            os.environ[k] = str(n)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# A parent killed outright (SIGKILL, or SIGTERM, whose default action skips its clean-up) cannot
# stop its workers, and a worker holds both ends of the queues' pipes, so nothing it does fails:
# it would run the rest of the queue. Each worker checks its parent this often and exits once it
# has been re-parented.
ORPHAN_POLL_SECONDS = 1.0


def _exit_when_orphaned(parent: int, every: float) -> None:
    """A daemon thread that ends this process as soon as its parent is no longer `parent`."""

    def watch():
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


def _worker(tasks, messages, proofs, parent: int) -> None:
    """A worker of the process `parent`: run claims from `tasks` until None, reporting to
    `messages`. (`parent` is passed, not read here: a parent killed while this process was still
    starting has already handed it to another.)"""
    from ..derivations import proof_cache
    from . import execute

    # the parent answers an interrupt by stopping the workers; a worker that raised
    # KeyboardInterrupt itself would report it as a claim's error
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_when_orphaned(parent, ORPHAN_POLL_SECONDS)
    with proof_cache.use(proofs):
        while (task := tasks.get()) is not None:
            i, claim, scenario, profile = task
            claim = _received(claim)
            progress.forward(lambda kind, payload, i=i: messages.put((kind, i, payload)))
            messages.put(("start", i, None))
            start = time.perf_counter()
            try:
                cert = execute.run_reported(claim, scenario, profile)
            except BaseException as exc:  # noqa: BLE001 - every failure goes to the parent
                messages.put(("error", i, _picklable(exc), traceback.format_exc()))
                return
            finally:
                progress.forward(None)
            messages.put(("done", i, cert, time.perf_counter() - start))


def _picklable(exc: BaseException) -> BaseException:
    """The exception itself when it survives pickling, else a RuntimeError with its message."""
    try:
        return pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any failure to pickle
        return RuntimeError(f"{type(exc).__name__}: {exc}")


def _rebuilt(exc: BaseException, worker_traceback: str) -> BaseException:
    exc.add_note("in a verify worker process:\n" + worker_traceback.rstrip())
    return exc
