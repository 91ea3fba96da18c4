"""authors-experiment's `softmax/test-risk-exact`: the exact risk's stated quadrature error is a
deterministic allowance (subtracted from |MC - exact| before dividing by the Monte Carlo's
standard error), not a variance combined with it in quadrature (issue 40 item 6).

The exact route is replaced by a stand-in with a chosen value and stated error, so the rule is
tested on its own: with se = 1e-3 and a stated error of 1e-2, a Monte Carlo mean 3e-2 away is
20 s.e. beyond the allowance (refuted), while the quadrature combination would have read it as
|3e-2| / hypot(1e-3, 1e-2) ~ 3 (passed); a mean within the allowance passes."""

import numpy as np
import pytest

from softlin.claims.authors_experiment import exact
from softlin.numerics import finite_risk as fr

VALUE, ERROR, SE = 0.5, 1e-2, 1e-3


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(exact.fr, "exact_risk", lambda *a, **k: fr.RiskValue(VALUE, ERROR))


def run(offset):
    Ls = [10, 20]
    params = {L: (1.0, 0.4) for L in Ls}
    risk = {L: (VALUE + offset, SE) for L in Ls}
    I = np.eye(2)
    (check,) = exact.endpoint_check(I, I, 0.01, 0.5, Ls, params, risk).checks
    return check


def test_a_mean_beyond_the_allowance_by_many_standard_errors_is_refuted(stand_in):
    check = run(3 * ERROR)
    assert check.passed is False
    assert check.value == pytest.approx((3 * ERROR - ERROR) / SE)


def test_a_mean_within_the_stated_error_passes(stand_in):
    check = run(0.9 * ERROR)
    assert check.passed is True and check.value == 0.0


def test_the_resolution_includes_the_allowance(stand_in):
    # A slip must exceed the allowance too: detectable >= ERROR / VALUE.
    assert run(0.0).detectable >= ERROR / VALUE
