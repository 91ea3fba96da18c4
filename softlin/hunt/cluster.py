"""`softlin hunt --scheduler ADDR | --workers N`: the hunt's claim runs on Dask distributed
(docs/design.md, "Hunt"); the same result as the in-process hunt, sooner.

Hypothesis draws and shrinks one example at a time, but its draws do not depend on the verdicts
until one fails (the seed is fixed, no example is rejected by `assume`, nothing is targeted). So the
hunt runs in three steps:

1. draw: the hunt's Hypothesis test is run with a judge that records each validated scenario and
   passes it; this yields, in order, the (at most N) scenarios that the in-process hunt would judge.
   Cheap: classification only.
2. prefetch: every recorded scenario's claim run (search.judge_scenario, a pure function, reached as
   `Hunt.scenario_judge` so that this module does not import hunt/search.py, which imports it) is
   submitted to the cluster at once; the verdicts come back in any order.
3. replay: the in-process hunt is run again with a judge that reads those verdicts and sends a
   scenario it has not seen (a shrink candidate) to the cluster, waiting for it. The replay draws
   the same scenarios, so it stops at the same first failure and shrinks it the same way: the
   summary JSON is the in-process one (apart from `seconds` and `dask`).

Shrinking stays sequential (each candidate depends on the last verdict); only the generate phase is
spread. The workers need softlin installed (pip install 'softlin[sweep]' on the cluster).
"""

from __future__ import annotations

import json

from ..sweep import execute as dask_exec
from ..core import progress

PASS = {"failing": [], "control_misses": [], "undecided": 0, "false_alarm": 0.0}


def _key(user: dict) -> str:
    return json.dumps(user, sort_keys=True)


def draw(hunt) -> list[tuple[dict, dict]]:
    """The (user, merged) scenarios the in-process hunt (a search.Hunt) would judge, in its order
    (step 1)."""
    recorder = type(hunt)(hunt.claim, hunt.n, hunt.seed, hunt.budget, hunt.max_shrink, hunt.level)
    drawn: list[tuple[dict, dict]] = []

    def record(user, merged):
        drawn.append((user, merged))
        return PASS

    recorder.judge = record
    recorder.run()
    return drawn


class ClusterJudge:
    """Verdicts from the cluster: prefetched ones by scenario, others computed on demand
    (step 3)."""

    def __init__(self, client, hunt):
        self.client, self.hunt, self.verdicts = client, hunt, {}
        self.prefetched = self.on_demand = 0

    def _submit(self, merged: dict):
        h = self.hunt
        # search.judge_scenario, reached through the hunt (this module is imported by search, not
        # the reverse)
        return self.client.submit(
            h.scenario_judge, h.claim.id, merged, h.budget, h.seed, h.per_check, pure=False
        )

    def prefetch(self, drawn: list[tuple[dict, dict]]) -> None:
        distributed = dask_exec.require_dask()
        futures = {self._submit(merged): _key(user) for user, merged in drawn}
        try:
            for i, future in enumerate(distributed.as_completed(list(futures)), 1):
                self.verdicts[futures[future]] = future.result()
                progress.progress(
                    f"hunt {self.hunt.claim.id}: {i}/{len(futures)} claim runs done on the cluster"
                )
        finally:
            for f in futures:
                f.cancel()
        self.prefetched = len(futures)

    def __call__(self, user: dict, merged: dict) -> dict:
        key = _key(user)
        if key not in self.verdicts:
            self.on_demand += 1
            self.verdicts[key] = self._submit(merged).result()
        return self.verdicts[key]


def run_on_cluster(hunt, workers: int | None, scheduler: str | None) -> dict:
    """Run `hunt` with its claim runs on Dask (module docstring); returns what the summary
    records."""
    client = dask_exec.open_client(workers, scheduler)
    try:
        judge = ClusterJudge(client, hunt)
        judge.prefetch(draw(hunt))
        hunt.judge = judge
        hunt.run()
        n_workers = len(client.scheduler_info().get("workers", {}))
    finally:
        dask_exec.close_client(client)
    return {
        "scheduler": scheduler or f"LocalCluster({workers} processes)",
        "workers": n_workers,
        "prefetched_runs": judge.prefetched,
        "runs_on_demand": judge.on_demand,
    }
