"""The authors' experiment run for claim `authors-experiment` (docs/paper.md section 6): SGD for
both models and both data generators at every L, the best softmax parameters per L, and test risks
on fresh prompts, with the budget per profile. Cached per process, so the sensitivity tests
re-judge one run. The algorithms are in numerics/authors_sgd.py (SGD by the fast step of
numerics/authors_sgd_fast.py: the same seeded updates to rounding); this module only plans and
seeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...numerics import authors_sgd, authors_sgd_fast
from ...core import progress
from .exact import AUTHORS_LS, QUICK_LS

LR, BATCH, INIT = 1e-3, 128, (0.5, 0.5)
# The correct-data control's pilot draws this fraction of the test prompts
# (claims/authors_experiment/checks.py
# plans the control's power from it).
PILOT_FRACTION = 8


@dataclass(frozen=True)
class Budget:
    """What `authors-experiment` spends at a profile (BUDGETS). Steps measured on 2 shared cores
    (load ~2): quick 32 s, standard ~2 min, full ~6 min (about 5 ms per step per generator at
    L_max = 1000, two generators; budgets 1, 3 and 10 min)."""

    steps: int
    """SGD steps per L, model and generator"""
    test: int
    """fresh test prompts per L (the same prompts for every model)"""
    fit: int
    """prompts of the fixed sample on which the best softmax parameters are found (capped by memory
    at large L)"""
    flow_Ls: tuple[int, ...]
    """the authors' prompt lengths of the exact optima and gradient flows (quick: the first few)"""

    @property
    def pilot(self) -> int:
        """prompts per L of the pilot that plans the correct-data control's power"""
        return max(2, self.test // PILOT_FRACTION)


BUDGETS = {
    "quick": Budget(steps=2000, test=20000, fit=4000, flow_Ls=tuple(AUTHORS_LS[:QUICK_LS])),
    "standard": Budget(steps=6000, test=40000, fit=20000, flow_Ls=tuple(AUTHORS_LS)),
    "full": Budget(steps=30000, test=100000, fit=40000, flow_Ls=tuple(AUTHORS_LS)),
}


@lru_cache(maxsize=4)
def _experiment(key):
    sigma, s2, Ls, seed, budget = key
    return experiment(np.array(sigma), s2, list(Ls), seed, budget)


def cached_experiment(s: dict, budget: Budget) -> dict:
    return _experiment(
        (tuple(map(tuple, s["Sigma"].tolist())), s["s2"], tuple(s["Ls"]), s["seed"], budget)
    )


def experiment(Sigma, s2, Ls, seed, budget: Budget) -> dict:
    """Both generators: SGD for both models at every L, the best softmax parameters per L, and test
    risks on fresh prompts (the authors' trained parameters also on correct data). Streams:
    default_rng([seed, tag, generator, L]) so each piece is reproducible on its own."""
    tau = 1.0 / Sigma.shape[0]
    out = {}
    for gi, gen in enumerate(authors_sgd.GENERATORS):

        def report(k, n, gen=gen):
            if k % max(1, n // 20) == 0:
                progress.progress(f"{gen} generator: SGD step {k}/{n}")

        tr = authors_sgd_fast.train(
            Sigma,
            s2,
            tau,
            Ls,
            gen,
            budget.steps,
            LR,
            BATCH,
            INIT,
            np.random.default_rng([seed, 6, gi]),
            progress=report,
        )
        per_L = {}
        for L in progress.sweep(Ls, f"{gen} generator: evaluation", weights=Ls, item="L"):
            mu_b, om_b, n_fit = authors_sgd.best_softmax(
                Sigma, s2, tau, L, gen, budget.fit, np.random.default_rng([seed, 8, gi, L])
            )
            params = {
                "softmax": ("softmax", *tr["params"]["softmax"][L]),
                "linear": ("linear", *tr["params"]["linear"][L]),
                "softmax_best": ("softmax", mu_b, om_b),
            }
            ev = authors_sgd.evaluate(
                params,
                Sigma,
                s2,
                tau,
                L,
                gen,
                budget.test,
                np.random.default_rng([seed, 7, gi, L]),
                keep=("linear",),  # the sample of the linear risk's Catoni tests
            )
            ev["params"] = {k: [v[1], v[2]] for k, v in params.items()}
            ev["n_fit"] = n_fit
            if (
                gen == "authors"
            ):  # what the authors' trained parameters do on correctly generated data
                ev["on_correct_data"] = authors_sgd.evaluate(
                    {k: params[k] for k in ("softmax", "linear")},
                    Sigma,
                    s2,
                    tau,
                    L,
                    "correct",
                    budget.test,
                    np.random.default_rng([seed, 9, L]),
                )["risk"]
            per_L[L] = ev
        out[gen] = {"per_L": per_L, "covariances": authors_sgd.covariances(Sigma, gen)}
    return out


def pilot_linear_se(Sigma, s2, Ls, linear_params: dict, n: int, seed: int) -> dict:
    """{L: standard error of the linear model's test risk on the authors' generator from n prompts},
    on streams of their own (default_rng([seed, 10, L])): the pilot that plans the power of the
    correct-data control before its data (the run's test prompts) are read."""
    tau = 1.0 / Sigma.shape[0]
    out = {}
    for L in Ls:
        ev = authors_sgd.evaluate(
            {"linear": ("linear", *linear_params[L])},
            Sigma,
            s2,
            tau,
            L,
            "authors",
            n,
            np.random.default_rng([seed, 10, L]),
        )
        out[L] = float(ev["risk"]["linear"][1])
    return out
