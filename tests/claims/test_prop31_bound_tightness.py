"""prop-3.1's fixed/expectation-bound-tightness: the bound / exact ratio at L = 1e7 against its
derived limit (4) is two-sided, so a slip in a constant of the bound's first term, made where the
floats are assembled, turns the check red (tier numerical: the claim is refuted), and so does
a bound that is merely too loose."""

from __future__ import annotations

import math

import numpy as np
import pytest

from softlin.claims.prop_3_1 import bounds
from softlin.claims.prop_3_1.claim import default_scenario
from softlin.numerics import kernels, selfnormalised

_EXACT = {}
_REAL = selfnormalised.exact_second_moment


def _exact(Gamma, U, V, z, L):
    """The exact route does not read the bound: computed once per L for the module."""
    if L not in _EXACT:
        _EXACT[L] = _REAL(Gamma, U, V, z, L)
    return _EXACT[L]


def _check(monkeypatch, factor=None, trace_plus=None):
    monkeypatch.setattr(selfnormalised, "exact_second_moment", _exact)
    if factor is not None:
        monkeypatch.setattr(kernels, "expectation_bound_factor", factor)
    s = default_scenario()
    G, U, V, z = (np.array(s[k], float) for k in ("cov", "U", "V", "query"))
    a = U @ z
    tp = float(kernels.first_order_numerator(G, V, U, z[:, None])[0, 0])
    q = float(a @ G @ a)
    return bounds.tightness_check(G, U, V, z, tp if trace_plus is None else trace_plus(tp), q)


def test_the_bound_is_tight_to_its_derived_limit_at_the_default_scenario(monkeypatch):
    c = _check(monkeypatch)
    assert c.passed is True and c.judged
    assert c.bound < 1e-5  # a 0.001 % slip of the ratio is outside it


GOOD = kernels.expectation_bound_good_event
BAD = kernels.expectation_bound_bad_event


@pytest.mark.parametrize(
    "slip",
    [
        lambda L, q: GOOD(L, q) * np.exp(-q) + BAD(L, q),  # e^q dropped (4 / L)
        lambda L, q: GOOD(L, q) / 2 + BAD(L, q),  # sup 1/D, not 1/D^2 (2 e^q / L)
        lambda L, q: GOOD(L, q / 2) + BAD(L, q),  # e^{q/2} for e^q
        lambda L, q: GOOD(L, q) * 1.1 + BAD(L, q),  # a bound 10 % looser
    ],
    ids=["e-q-dropped", "good-constant-2", "half-q", "ten-percent-looser"],
)
def test_a_slipped_constant_of_the_first_term_is_refuted(monkeypatch, slip):
    c = _check(monkeypatch, factor=slip)
    assert c.passed is False


def test_the_numerator_without_its_v_gamma_a_term_is_refuted(monkeypatch):
    s = default_scenario()
    G, U, V, z = (np.array(s[k], float) for k in ("cov", "U", "V", "query"))
    trace = float(np.trace(V @ G @ V.T))  # tr(V Gamma V^T) alone
    assert not math.isclose(trace, float(kernels.first_order_numerator(G, V, U, z[:, None])[0, 0]))
    assert _check(monkeypatch, trace_plus=lambda tp: trace).passed is False
