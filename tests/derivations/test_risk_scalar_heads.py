"""The matrix forms of the scalar model's risk terms (derivations/risk_scalar_heads.py): their
proofs by exact evaluation at rational heads reject plausible slips, and the emitted kernels agree
with the per-pair kernels summed over heads in NumPy."""

from __future__ import annotations

import numpy as np
import sympy as sp

from softlin.derivations import risk_scalar_heads as rh
from softlin.numerics import kernels


def test_a_cross_term_without_its_factor_2_fails_the_proof(monkeypatch):
    _, pair, bias = rh.entrywise_terms()
    monkeypatch.setattr(
        rh, "first_order", lambda: rh.MU.T * pair * rh.MU + rh.residual_factor() * (rh.MU.T * bias)
    )
    proofs = [p for p in rh.proofs() if p.statement.startswith("C1")]
    assert proofs and not any(p.passed for p in proofs)


def test_a_heuristic_with_a_wrong_exponent_fails_the_proof(monkeypatch):
    C = rh.OMEGA * rh.OMEGA.T
    x = sp.Symbol("entry", real=True)
    monkeypatch.setattr(
        rh,
        "heuristic",
        lambda: rh.MU.T * ((rh.d + 1) * C).applyfunc(sp.Lambda(x, (1 + rh.s2) * sp.exp(x))) * rh.MU,
    )
    proofs = [p for p in rh.proofs() if p.statement.startswith("heuristic")]
    assert proofs and not any(p.passed for p in proofs)


def test_emitted_head_sums_equal_the_per_pair_kernels_summed_over_heads():
    rng = np.random.default_rng(2)
    for H in (1, 2, 4):
        mu, om = rng.normal(size=H), rng.uniform(-0.6, 0.6, size=H)
        d, s2 = 4, 0.3
        c = np.outer(om, om)
        C1 = mu @ kernels.scalar_pair_term(c, d, s2) @ mu + 2 * (1 - mu @ om) * (
            mu @ kernels.scalar_bias_term(om, d)
        )
        heur = mu @ kernels.scalar_heuristic_pair(c, d, s2) @ mu
        cols = mu[:, None], om[:, None]
        assert abs(kernels.scalar_first_order(*cols, d, s2).item() - C1) <= 1e-12 * max(1, abs(C1))
        assert abs(kernels.scalar_heuristic(*cols, d, s2).item() - heur) <= 1e-12 * max(
            1, abs(heur)
        )
        assert (
            abs(kernels.scalar_infinite_risk(*cols, s2).item() - ((1 - mu @ om) ** 2 + s2)) <= 1e-12
        )
