"""numerics/logspace.py: the same arithmetic as scipy.special.logsumexp, bit for bit; exp_or_zero is
NumPy's exp above its floor and 0 below; expm1_neg is NumPy's expm1(-x) to the bit."""

import numpy as np
from hypothesis import given, settings, strategies as st
from scipy.special import logsumexp as scipy_logsumexp

from softlin.numerics.logspace import EXP_FLOOR, EXPM1_CAP, exp_or_zero, expm1_neg, logsumexp

from ..strategies import seeds


@settings(max_examples=60)
@given(
    seed=seeds,
    n=st.integers(1, 500),
    scale=st.sampled_from([1e-3, 1.0, 30.0, 700.0]),
    holes=st.integers(0, 3),
    ties=st.integers(0, 3),
)
def test_agrees_with_scipy_bit_for_bit(seed, n, scale, holes, ties):
    """Random logs with -inf entries (zero terms) and ties at the maximum, as the tables' sums
    meet them."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n) * scale
    a[rng.integers(0, n, size=holes)] = -np.inf
    a[rng.integers(0, n, size=ties)] = np.max(a)
    assert logsumexp(a).hex() == float(scipy_logsumexp(a)).hex()


def test_a_plain_max_plus_log_sum_is_not_the_same_arithmetic():
    """The one-term-apart form keeps digits that M + log(sum e^(a - M)) rounds away: where they
    differ, the function follows SciPy (a slip to the plain form fails the test above)."""
    rng = np.random.default_rng(1)
    differ = 0
    for _ in range(2000):
        a = rng.normal(size=50) * 0.01
        top = float(np.max(a))
        plain = top + float(np.log(np.sum(np.exp(a - top))))
        differ += plain != logsumexp(a)
        assert logsumexp(a) == float(scipy_logsumexp(a))
    assert differ > 0


def test_what_it_does_not_cover_goes_to_scipy():
    for a in ([], [-np.inf, -np.inf], [np.inf, 1.0], [np.nan, 0.0]):
        x, y = logsumexp(np.array(a, float)), float(scipy_logsumexp(np.array(a, float)))
        assert x == y or (np.isnan(x) and np.isnan(y))


def test_exp_or_zero_is_exp_above_the_floor_and_zero_below():
    x = np.array([[0.0, -1.0, -699.9, EXP_FLOOR, -700.1, -745.5, -1e4, -np.inf, np.nan, 3.0]])
    out = exp_or_zero(x)
    above = x >= EXP_FLOOR
    assert np.array_equal(out[above], np.exp(x[above]))  # the same bits where it is kept
    assert np.all(out[x < EXP_FLOOR] == 0.0)
    assert np.isnan(out[np.isnan(x)]).all()
    assert out.shape == x.shape and not np.shares_memory(out, x)


def test_expm1_neg_is_numpys_expm1_of_minus_x_to_the_bit():
    """The cap at EXPM1_CAP changes no bit: beyond it expm1(-x) is already -1."""
    x = np.concatenate(
        [
            np.linspace(0.0, 60.0, 6001),
            [EXPM1_CAP, np.nextafter(EXPM1_CAP, 50), 745.2, 1e300, np.inf],
        ]
    )
    with np.errstate(over="ignore"):
        assert np.array_equal(expm1_neg(x), np.expm1(-x))
    assert np.isnan(expm1_neg(np.array([np.nan]))).all()
