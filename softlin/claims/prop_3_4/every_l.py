"""prop-3.4, fixed query, grad_V "proved for every L" (issue 42): for every integer L >= 2,

    E||grad_V T[mu_L](z) - grad_V T[mu](z)||_F^2
        <= k (tr Gamma + |Gamma a|^2) (4 e^q / L + L exp(-(L-2)^2 / (8 (L-1) e^q))).

Why this bound: J_V = zhat^T kron I_k (derivations/jacobians.py), so the grad_V error is exactly
k |zhat_L - mu_a|^2 = k times prop-3.1's output error with V = I (numerics/selfnormalised_gradients
.py; its exact value k (tr Gamma A_L + |Gamma a|^2 / q (B_L - A_L)) is prop-3.1's with V = I, times
k), and prop-3.1's in-expectation bound eps_L^2(z) with V = I, times k, bounds it (the proof of that
bound holds for any V). The proof, the box table (series `for_every_L_boxes_grad_V`), the tail lemma
and the three negative controls are prop-3.1's (softlin/claims/shared/every_l.py,
numerics/every_l.py) run with V = I and both sides multiplied by k: on the query's invariants
trace k tr Gamma, rho k |Gamma a|^2 / q, tp k (tr Gamma + |Gamma a|^2).
"""

from __future__ import annotations

import numpy as np

from ...core.findings import Findings
from ..shared.every_l import AVERAGE_NOT_PROVED, every_l_checks, not_proved_for_every_l

__all__ = ["grad_v_every_l", "not_proved"]

# grad_U: no bound to prove (see `not_proved`).
GRAD_U_NOT_PROVED = (
    "not proved for every L: softlin has no explicit finite-L bound on the grad_U error to prove "
    "(the paper's constants are implicit; softlin derives the grad_U error exactly and its sharp "
    "rate, and proves an explicit bound only for grad_V, which reduces to prop-3.1's output error)"
)

NAME = (
    "fixed query: E||grad_V T[mu_L](z) - grad_V T[mu](z)||_F^2 <= k (tr Gamma + |Gamma a|^2) "
    "(4 e^q / L + L e^{-(L-2)^2 / (8 (L-1) e^q)}) for every integer L >= 2 (Arb enclosures over "
    "boxes of L, tail lemma beyond L_max)"
)


def grad_v_every_l(Gamma, U, V, z0) -> Findings:
    """The check `fixed/grad-v-bound-every-l`, its controls, the series `for_every_L_boxes_grad_V`
    and the quantity `grad_v_bound_every_l` (module docstring)."""
    d, k = Gamma.shape[0], V.shape[0]
    return every_l_checks(
        Gamma,
        U,
        np.eye(d),
        z0,
        multiplier=k,
        id="fixed/grad-v-bound-every-l",
        series="for_every_L_boxes_grad_V",
        quantity="grad_v_bound_every_l",
        name=NAME,
    )


def not_proved() -> Findings:
    """The two statements of prop-3.4 kept unjudged with their reasons: grad_U at the fixed query
    (`fixed/grad-u-bound-every-l`: no explicit bound) and the query-averaged grad_V
    (`average/grad-v-bound-every-l`: no reduction from the fixed query)."""
    f = Findings()
    f.add(
        not_proved_for_every_l(
            "fixed query: E||grad_U T[mu_L](z) - grad_U T[mu](z)||_F^2 below an explicit bound "
            "for every integer L >= 2",
            "fixed/grad-u-bound-every-l",
            GRAD_U_NOT_PROVED,
            "fixed/grad-u-enclosure and fixed/grad-u-montecarlo (the exact error), the regimes' "
            "grad-u-slope (its rate)",
        )
    )
    f.add(
        not_proved_for_every_l(
            "query average: E_z E||grad_V T[mu_L](z) - grad_V T[mu](z)||_F^2 below k times "
            "prop-3.1's averaged bound with V = I for every integer L >= 2",
            "average/grad-v-bound-every-l",
            AVERAGE_NOT_PROVED,
            "average/grad-v-quadrature",
        )
    )
    return f
