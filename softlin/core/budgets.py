"""Work and memory of a claim on a scenario, estimated before anything runs (the CLI refuses above a
cap).

Two parts are estimated: the work that grows with the scenario (Monte Carlo and training sweeps,
whose cost is proportional to the tokens they stream, and the arrays they hold per prompt), and a
claim's fixed part (`Estimate.fixed`: its symbolic proofs, quadrature and enclosures), which does
not grow with L or the trials but is most of a `quick` run: measured per claim on an idle machine
(benchmarks/bench_estimates.py), 0 where a claim has not declared it. The estimate printed before a
run is `fixed + units * SECONDS_PER_UNIT`.

Which seconds. The development machine is a guest on a shared host, and the same code ran 1.1 to
1.7 times longer in CPU time on some days than on others. The claims' constants were recalibrated
on 2026-12-07 ("Recalibrated" next to each), the day bench_estimates.REFERENCE_IDLE_SECONDS (its
reference workload's idle time) was measured: they count seconds of the machine in that state, and
tests/test_estimates.py scales them by the machine's speed as it is before comparing them with a
run.

Work model. A sweep over prompt lengths L_1..L_n with P prompts streams P sum_j L_j tokens, and a
token costs about `max(d, Q)` units (drawing d coordinates, scoring Q queries). The rate constant

    SECONDS_PER_UNIT = 2e-7 s

was measured with numerics.sampling.sampled_accumulator (d = 3, Q = 2 and 4, P L = 2e6 tokens):
0.96e-7 to 1.4e-7 s per unit on the 2 shared cores of the development machine under load ~2; the
constant doubles the slower figure so that an estimate errs towards refusing a run that is near the
cap. A claim whose sweeps were timed against its runs counts them at its own measured rate, in these
units (seconds / SECONDS_PER_UNIT): mixture, prop-3.1, thm-5.2 and finite-prompt-risk, whose
vectorised sweeps run 10 to 20 times faster than the model (docs/performance.md).

Memory model. Arrays per prompt times prompts (the streamed chunks are bounded separately, by
numerics.attention's working set), against MEMORY_CAP_BYTES.

Each claim declares its own estimator (`Claim.estimate`, next to the budgets it reads); this module
holds the model, the helpers they share, and the admission against the caps. Structural limits that
would otherwise stop a claim in the middle of a run are checked by the estimators too: the
Gauss-Hermite route (rank of the token covariance <= 3), the 2^d point masses of the mixture's
degenerate check, the SymPy routes' dimension, and positive definite query covariances.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


SECONDS_PER_UNIT = 2e-7
MEMORY_CAP_BYTES = 4 * 2**30
# above the built-in scenarios at `full` (about 60 min estimated), so each profile runs by default
DEFAULT_MAX_MINUTES = 90.0
# Dimension limits of the exact routes: SymPy rational matrices (prop-3.1, prop-3.4, asm-3.3) and
# the tensor Gauss-Hermite rule (numerics/quadrature.py supports rank(Gamma) <= 3).
SYMBOLIC_MAX_D = 6
GAUSS_HERMITE_MAX_RANK = 3
MIXTURE_MAX_D = 10  # the degenerate check enumerates the 2^d Rademacher point masses


@dataclass(frozen=True)
class Estimate:
    claim: str
    units: float  # work units (token x max(d, Q))
    memory: float  # bytes held per sweep
    what: str  # the sweep that dominates, for messages
    fixed: float = 0.0  # seconds that do not grow with the scenario (proofs, quadrature, balls)

    @property
    def seconds(self) -> float:
        return self.fixed + self.units * SECONDS_PER_UNIT


def rank(cov) -> int:
    return int(np.linalg.matrix_rank(np.asarray(cov, float), tol=1e-10))


def max_d(claim: str, d: int, cap: int, why: str) -> None:
    if d > cap:
        raise ValueError(f"d = {d} is too large for {claim} (at most {cap}: {why})")


def estimate_for(claim, validated: dict, profile: str) -> Estimate:
    """The estimate for `claim` (a base.Claim) on its validated scenario, from the claim's own
    `estimate` (ValueError for a structural limit). A claim without an estimator is a bug (its work
    would escape --max-minutes): LookupError."""
    if claim.estimate is None:
        raise LookupError(
            f"claim {claim.id!r} declares no work and memory estimator (Claim.estimate)"
        )
    return claim.estimate(validated, profile)


def estimate(claim_id: str, validated: dict, profile: str) -> Estimate:
    """`estimate_for` the registered claim `claim_id`."""
    from . import registry

    return estimate_for(registry.get(claim_id), validated, profile)


def size(nbytes: float) -> str:
    """A memory size in one style: binary units (B, KiB, MiB, GiB, TiB), three significant digits
    ("672 B", "375 KiB", "4.58 MiB")."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes:.0f} B"


def duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.1f} h"
    years = seconds / (365.25 * 86400)
    return f"{seconds / 86400:.0f} days" if years < 1 else f"{years:.2g} years"


def makespan(seconds: list[float], jobs: int) -> float:
    """The wall time of running tasks of these durations on `jobs` workers, longest first, each
    free worker taking the next (the schedule of core/parallel.py)."""
    import heapq

    lanes = [0.0] * max(1, jobs)
    for s in sorted(seconds, reverse=True):
        heapq.heapreplace(lanes, lanes[0] + s)
    return max(lanes)


def admit(
    estimates: list[Estimate],
    max_minutes: float,
    raise_cap: str = "raise the cap with --max-minutes",
    jobs: int = 1,
) -> None:
    """Raise ValueError (one line, naming the claim and the estimate) when a claim needs more memory
    than MEMORY_CAP_BYTES, or the run more time than max_minutes (`raise_cap` says how a user lifts
    that cap). With `jobs` claims at a time (core/parallel.py) the run's time is the wall time of
    that schedule (`makespan`), never less than its longest claim."""

    for e in estimates:
        if e.memory > MEMORY_CAP_BYTES:
            raise ValueError(
                f"{e.claim} would hold about {size(e.memory)} in memory ({e.what}), above the "
                f"{size(MEMORY_CAP_BYTES)} cap: lower trials or L"
            )
    total = makespan([e.seconds for e in estimates], jobs)
    if total > max_minutes * 60:
        worst = max(estimates, key=lambda e: e.seconds)
        raise ValueError(
            f"estimated {duration(total)} "
            f"{'of work' if jobs <= 1 else f'with {jobs} claims at a time'}, above the "
            f"{max_minutes:g} min cap: "
            f"{worst.claim} needs about {duration(worst.seconds)} ({worst.what}; "
            f"{SECONDS_PER_UNIT:g} s per token and coordinate); lower L or trials, or {raise_cap}"
        )
