"""The accumulator's conditional sampler (sampling.sampled_accumulator, sampler="conditional": the
limit battery of lemma-2.1 and mixture) is equal in law to drawing every token, judged against two
referees:

- exact means: the fixed-shift sums have E S_c = L E e^{a.z - c} and E N_c = L E e^{a.z - c} V z,
  for N(m, Gamma) tokens L e^{a.m + a^T Gamma a / 2 - c} (1 and V (m + Gamma a)), and for a mixture
  the same weighted by the component weights; every (query, coordinate) studentised;
- the full sampler itself, two independent samples: every output coordinate, every product of two
  output coordinates (the cross-query covariances) and the fixed-shift sums, two-sample z.

Each test makes m comparisons at a family-wise level of 1e-6 (two-sided normal critical value at
1e-6 / m; nominal: the normal approximation at 10 000 prompts), on fixed seeds. Sensitivity:
residuals not projected off the score directions, the mixture's labels drawn with swapped weights,
and the fixed-shift sums rescaled the wrong way are each refuted by the same comparisons.
"""

import numpy as np
import pytest

from softlin.numerics import attention, conditional_sampler, sampling
from softlin.numerics.laws import GaussianLaw, MixtureLaw, RademacherLaw
from softlin.numerics.significance import z_critical

FAMILY = 1e-6
PROMPTS = 10_000


def _gaussian(rng, d, rank):
    B = rng.normal(size=(d, rank)) / np.sqrt(max(rank, 1))
    return GaussianLaw(0.3 * rng.normal(size=d), B @ B.T)


def _mixture(rng, d):
    """Two components, the second singular (rank 1), as in the mixture claim's default scenario."""
    A = rng.normal(size=(d, d)) / np.sqrt(d)
    b = rng.normal(size=(d, 1))
    return MixtureLaw(
        [0.35, 0.65], rng.normal(size=(2, d)), np.stack([A @ A.T + 0.1 * np.eye(d), 0.5 * b @ b.T])
    )


def _exact_fixed_means(law, U, V, queries, shift, L):
    """(E S_c (Q,), E N_c (Q, k)) for Gaussian or Gaussian-mixture tokens."""
    weights, means, covs = (
        (np.ones(1), law.mean[None, :], law.cov[None])
        if isinstance(law, GaussianLaw)
        else (law.weights, law.means, law.covs)
    )
    A = queries @ U.T
    den, num = np.zeros(len(A)), np.zeros((len(A), V.shape[0]))
    for w, m, G in zip(weights, means, covs):
        e = w * np.exp(A @ m + 0.5 * np.einsum("qi,ij,qj->q", A, G, A) - shift)
        den += e
        num += e[:, None] * ((m + A @ G) @ V.T)
    return L * den, L * num


def _sample(law, seed, L, U, V, queries, shift, sampler):
    acc = sampling.sampled_accumulator(
        law, np.random.default_rng(seed), PROMPTS, L, U, V, queries, shift, sampler=sampler
    )
    return acc


def _setting(seed, law_kind, d, rank, Q):
    rng = np.random.default_rng(seed)
    law = _gaussian(rng, d, rank) if law_kind == "gaussian" else _mixture(rng, d)
    U, V = 0.6 * rng.normal(size=(d, d)) / np.sqrt(d), rng.normal(size=(2, d))
    base = rng.normal(size=d)
    queries = base + 0.3 * rng.normal(size=(Q, d))  # correlated weights across the queries
    shift = rng.normal(size=Q)
    return law, U, V, queries, shift


# (law, d, rank of Gamma, Q, L): Q < r, Q = r, Q > r, singular Gamma, a long prompt; the mixture
# with a singular component at Q < d and Q > d
CASES = [
    ("gaussian", 4, 4, 1, 64),
    ("gaussian", 5, 3, 2, 40),
    ("gaussian", 3, 3, 4, 16),
    ("gaussian", 3, 2, 2, 300),
    ("mixture", 3, 3, 1, 50),
    ("mixture", 2, 2, 3, 20),
]


def _exact_z(case, seed):
    law, U, V, queries, shift = _setting(seed, *case[:4])
    L = case[4]
    acc = _sample(law, seed + 1, L, U, V, queries, shift, "conditional")
    den, num = _exact_fixed_means(law, U, V, queries, shift, L)
    values = np.concatenate([acc.fixed_den, acc.fixed_num.reshape(PROMPTS, -1)], axis=1)
    exact = np.concatenate([den, num.ravel()])
    return (values.mean(axis=0) - exact) / (values.std(axis=0, ddof=1) / np.sqrt(PROMPTS))


def _full_versus_conditional_z(case, seed):
    law, U, V, queries, shift = _setting(seed, *case[:4])
    L = case[4]
    samples = []
    for k, sampler in enumerate(("full", "conditional")):
        acc = _sample(law, seed + 10 + k, L, U, V, queries, shift, sampler)
        flat = acc.result().reshape(PROMPTS, -1)
        iu = np.triu_indices(flat.shape[1])
        products = (flat[:, :, None] * flat[:, None, :])[:, iu[0], iu[1]]
        samples.append(np.concatenate([flat, products, acc.fixed_den / L], axis=1))
    a, b = samples
    se = np.sqrt(a.var(axis=0, ddof=1) / a.shape[0] + b.var(axis=0, ddof=1) / b.shape[0])
    return (a.mean(axis=0) - b.mean(axis=0)) / se


def _all_z(cases=CASES):
    return np.concatenate(
        [
            np.concatenate([_exact_z(case, i), _full_versus_conditional_z(case, i)])
            for i, case in enumerate(cases)
        ]
    )


def test_the_conditional_accumulator_has_the_law_of_the_full_draw():
    zs = _all_z()
    assert np.all(np.isfinite(zs)) and np.max(np.abs(zs)) < z_critical(FAMILY, len(zs)), zs


def test_a_residual_not_projected_off_the_score_directions_is_refuted(monkeypatch):
    monkeypatch.setattr(conditional_sampler, "project_off", lambda W, xi: xi)
    zs = _all_z([case for case in CASES if case[0] == "gaussian"])
    assert np.max(np.abs(zs)) > z_critical(FAMILY, len(zs))


def test_mixture_labels_drawn_with_swapped_weights_are_refuted(monkeypatch):
    real = conditional_sampler.gaussian_components

    def swapped(law):
        weights, means, roots = real(law)
        return weights[::-1], means, roots

    monkeypatch.setattr(sampling, "gaussian_components", swapped)  # where it is looked up
    zs = _all_z([case for case in CASES if case[0] == "mixture"])
    assert np.max(np.abs(zs)) > z_critical(FAMILY, len(zs))


def test_fixed_shift_sums_rescaled_the_wrong_way_are_refuted(monkeypatch):
    real = attention.SoftmaxAccumulator.from_sums.__func__

    def inverted(cls, top, den, num, fixed_shift, count):
        return (
            real(cls, -top + 2 * np.asarray(fixed_shift), den, num, fixed_shift, count)
            if fixed_shift is not None
            else real(cls, top, den, num, fixed_shift, count)
        )

    monkeypatch.setattr(attention.SoftmaxAccumulator, "from_sums", classmethod(inverted))
    zs = np.concatenate([_exact_z(case, i) for i, case in enumerate(CASES[:2])])
    assert np.max(np.abs(zs)) > z_critical(FAMILY, len(zs))


def test_auto_takes_the_conditional_sampler_where_it_pays_and_never_for_other_laws():
    law = GaussianLaw(np.zeros(3), np.eye(3))
    q2 = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    run = lambda lw, L, s: sampling.sampled_accumulator(
        lw, np.random.default_rng(0), 3, L, 0.5 * np.eye(3), np.eye(3), q2, np.zeros(2), sampler=s
    ).result()
    assert np.array_equal(run(law, 32, "auto"), run(law, 32, "conditional"))  # L >= 16 Q
    assert np.array_equal(run(law, 31, "auto"), run(law, 31, "full"))
    rademacher = RademacherLaw(3)
    assert np.array_equal(run(rademacher, 1000, "auto"), run(rademacher, 1000, "full"))
    with pytest.raises(ValueError, match="Gaussian or Gaussian-mixture"):
        run(rademacher, 10, "conditional")


@pytest.mark.parametrize("work_bytes", [300, 10**6])
def test_streamed_sums_are_those_of_their_weights(work_bytes):
    """Chunked or not, the running-maximum rescaling keeps the sums consistent: with U = 0 every
    weight is 1, so the fixed-shift denominator is exactly L e^{-c} and the output a mean
    of L tokens; a point-mass component (covariance 0) contributes its mean exactly."""
    law = MixtureLaw([0.5, 0.5], [[1.0, 0.0], [0.0, 2.0]], [np.eye(2), np.zeros((2, 2))])
    acc = sampling.sampled_accumulator(
        law,
        np.random.default_rng(0),
        5,
        50,
        np.zeros((2, 2)),
        np.eye(2),
        np.ones((2, 2)),
        np.array([0.0, 1.0]),
        sampler="conditional",
        work_bytes=work_bytes,
    )
    np.testing.assert_allclose(
        acc.fixed_den, np.broadcast_to(50 * np.exp([0.0, -1.0]), (5, 2)), rtol=1e-12
    )
    out = acc.result()
    assert np.all(np.isfinite(out)) and np.allclose(
        out[:, 0], out[:, 1]
    )  # same weights, same output
