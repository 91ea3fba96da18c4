"""Samplers draw the law they claim (including singular covariances); bad input names itself."""

import math

import numpy as np
import pytest
from hypothesis import given
from scipy import stats

from softlin.numerics import validate
from softlin.numerics.laws import GaussianLaw, MixtureLaw, RademacherLaw, UniformLaw, psd_root

from ..strategies import seeds

# Each moment test below is a z-test with |z| <= Z_CRIT over at most 20 entries; Z_CRIT puts the
# total false-alarm probability under 1e-6 (Bonferroni, normal approximation of sample means).
Z_CRIT = float(stats.norm.isf(1e-6 / 40))


def _assert_mean_and_cov(samples, mean, cov):
    n = samples.shape[0]
    centred = samples - mean
    z_mean = centred.mean(axis=0) / np.sqrt(np.maximum(np.diag(cov), 1e-300) / n)
    assert np.all(np.abs(z_mean[np.diag(cov) > 0]) <= Z_CRIT)
    products = np.einsum("ni,nj->nij", centred, centred)
    se = products.std(axis=0) / math.sqrt(n)
    z_cov = (products.mean(axis=0) - cov) / np.where(se > 0, se, 1.0)
    assert np.all(np.abs(z_cov) <= Z_CRIT)


@given(seeds)
def test_singular_gaussian_samples_have_the_covariance_and_stay_in_its_range(seed):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(3, 2))
    cov, mean = B @ B.T, rng.normal(size=3)
    law = GaussianLaw(mean, cov)
    x = law.sample(rng, (50_000,))
    _assert_mean_and_cov(x, mean, cov)
    null = np.linalg.svd(B)[0][:, 2]  # direction orthogonal to range(Gamma)
    assert np.max(np.abs((x - mean) @ null)) < 1e-10


@given(seeds)
def test_a_cholesky_rooted_gaussian_draws_the_same_law(seed):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(3, 3))
    cov, mean = B @ B.T + 0.1 * np.eye(3), rng.normal(size=3)
    law = GaussianLaw(mean, cov, factor="cholesky")
    assert np.allclose(law.root, np.tril(law.root)) and np.allclose(law.root @ law.root.T, cov)
    _assert_mean_and_cov(law.sample(rng, (50_000,)), mean, cov)


def test_a_cholesky_root_of_a_singular_covariance_or_an_unknown_factor_is_refused():
    with pytest.raises(ValueError, match="positive definite"):
        GaussianLaw(np.zeros(2), np.ones((2, 2)), factor="cholesky")
    with pytest.raises(ValueError, match="factor must be"):
        GaussianLaw(np.zeros(2), np.eye(2), factor="svd")


def test_psd_root_reproduces_the_covariance():
    B = np.array([[1.0, 0.0], [0.5, 0.8], [-0.3, 0.6]])
    root = psd_root(B @ B.T)
    assert root.shape == (3, 2)
    np.testing.assert_allclose(root @ root.T, B @ B.T, atol=1e-14)


def test_mixture_and_control_samplers_match_their_moments():
    rng = np.random.default_rng(3)
    law = MixtureLaw(
        [0.3, 0.7], [[1.0, -1.0], [0.0, 0.5]], [[[0.5, 0.1], [0.1, 0.2]], [[1.0, 0.0], [0.0, 0.0]]]
    )
    mean, cov = law.moments()
    _assert_mean_and_cov(law.sample(rng, (80_000,)), mean, cov)
    for control in (RademacherLaw(2), UniformLaw(2)):
        _assert_mean_and_cov(control.sample(rng, (80_000,)), np.zeros(2), np.eye(2))


@pytest.mark.parametrize(
    "value, fragment",
    [
        ([[1.0, 0.2], [0.0, 1.0]], "not symmetric"),
        ([[1.0, 0.0], [0.0, -0.5]], "not positive semidefinite"),
        ([[1.0, float("nan")], [float("nan"), 1.0]], "NaN or inf"),
        ([[1.0, 0.0, 0.0]], "must have shape"),
    ],
)
def test_bad_covariances_raise_value_errors_naming_the_value(value, fragment):
    with pytest.raises(ValueError, match=fragment) as info:
        validate.covariance("cov", value, 2)
    assert "cov" in str(info.value)


def test_prompt_length_below_one_is_rejected():
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="L"):
            validate.prompt_length("L", bad)


def test_integers_lists_of_lengths_and_of_numbers_refuse_booleans_and_bad_values():
    assert validate.integer("seed", 3) == 3 and validate.integer("d", 5, 1, 5) == 5
    for bad in (True, -1, 2.0, "3"):
        with pytest.raises(ValueError, match="seed"):
            validate.integer("seed", bad)
    assert validate.prompt_lengths("L", [2, 10], 2, at_least=2) == [2, 10]
    for bad in ([10, 10], [10, 2], [True, 10], [1, 10], [10], [], 10, [2.0, 10]):
        with pytest.raises(ValueError, match="L = "):
            validate.prompt_lengths("L", bad, 2, at_least=2)
    assert validate.numbers("eps", [0.1, 1]) == [0.1, 1.0]
    for bad in ([True, 0.1], [0.0], [float("inf")], [], 0.1):
        with pytest.raises(ValueError, match="eps"):
            validate.numbers("eps", bad, 0.0, open_low=True)
