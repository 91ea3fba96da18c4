"""numerics/streaming.py: the chunked mean and standard error equal NumPy's on the whole sample,
whatever the chunks, where the one-pass sum of squares cancels too."""

import math

import numpy as np
import pytest

from softlin.numerics.streaming import StreamedMean


@pytest.mark.parametrize("offset", [0.0, 1e8])
@pytest.mark.parametrize("cuts", [(), (1,), (3, 500, 501), (999,)])
def test_chunks_give_numpys_mean_and_standard_error(offset, cuts):
    """At an offset of 1e8 with unit spread, sum y^2 / n - mean^2 is pure rounding (1e16 against
    a variance of 1); the pairwise update keeps the standard error to 1e-9."""
    y = offset + np.random.default_rng(7).normal(size=1000)
    acc = StreamedMean()
    for chunk in np.split(y, list(cuts)):
        acc.add(chunk)
    assert acc.count == 1000
    assert math.isclose(acc.mean, y.mean(), rel_tol=1e-14, abs_tol=1e-12)
    assert math.isclose(acc.stderr(), y.std(ddof=1) / math.sqrt(1000), rel_tol=1e-9)


def test_one_value_has_no_standard_error():
    acc = StreamedMean()
    acc.add([2.0])
    acc.add([])
    with pytest.raises(ValueError, match="at least two values"):
        acc.stderr()
