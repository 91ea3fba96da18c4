"""prop-3.4 at the fixed query z: the closed-form 1/L coefficients of both gradients (emitted
kernels) against the exact route's anchors, the fixed-query Monte Carlo against the exact
finite-L errors, the Arb enclosures of the exact route's grad_V and grad_U errors, and (beyond
`quick`) grad_V's bound proved for every integer L >= 2 (Arb boxes and a tail lemma)."""

from __future__ import annotations

import numpy as np

from ...core.findings import Findings
from ...core.setting import Setting
from . import exact as ex
from .enclosure import grad_u_enclosure_check, grad_v_enclosure_check
from .every_l import grad_v_every_l, not_proved


def fixed_query_step(
    setting: Setting,
    z0: np.ndarray,
    coefficients: tuple[float, float],
    b,
    profile: str,
    rng: np.random.Generator,
    errors_fn,
    n_tests: int,
) -> Findings:
    """The checks at the query `z0` (module docstring); `coefficients` are the closed-form 1/L
    coefficients of grad_V and grad_U there, `errors_fn` the Monte Carlo's gradient errors and
    `n_tests` the number of per-L tests sharing the false alarm (Bonferroni)."""
    law, U, V = setting.tokens, setting.U, setting.V
    cov = law.cov
    f = Findings()
    f.add(ex.anchor_checks(cov, U, V, z0, *coefficients, m=law.mean))
    fixed = ex.fixed_query_montecarlo(law, rng, cov, U, V, z0, b.Ls, b.prompts, errors_fn, n_tests)
    f.add(fixed, series_under="fixed_query")
    f.add(grad_v_enclosure_check(cov, U, V, z0, b.Ls, fixed.series["V_exact"]))
    if profile != "quick":  # grad_V's bound proved for every integer L >= 2 (Arb boxes, tail lemma)
        f.add(grad_v_every_l(cov, U, V, z0))
        f.add(not_proved())  # grad_U and the averaged grad_V: kept unjudged, with the reasons
    f.add(grad_u_enclosure_check(cov, U, V, z0, b.Ls, fixed.series["U_exact"]))
    return f
