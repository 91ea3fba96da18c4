"""The conditional sampler (sampling.sampled_outputs, sampler="conditional") is equal in law to the
full draw of every token coordinate, judged against two referees:

- the exact finite-L moments of one query (numerics/selfnormalised.exact_second_moment: E err and
  E err err^T from the quadrature of A_L and B_L), every entry studentised;
- the full sampler itself, two independent samples, for several queries sharing a prompt (where the
  Gram matrix G = P P^T couples the residuals of the queries): every output mean, every product of
  two output coordinates (the cross-query covariances) and every participation ratio, two-sample z.

Each test makes m comparisons at a family-wise level of 1e-6 (two-sided normal critical value at
1e-6 / m; nominal: the normal approximation at 20 000 prompts or more), on fixed seeds, so a run is
deterministic. Sensitivity: two plausible wrong samplers (residuals independent across queries, the
projector I - W W^T dropped) are refuted on the same scenarios, and a Gram matrix that is not
rescaled with the running maximum is caught by the first comparison.
"""

import numpy as np
import pytest

from softlin.numerics import conditional_sampler, sampling, selfnormalised
from softlin.numerics.laws import GaussianLaw
from softlin.numerics.significance import z_critical

FAMILY = 1e-6


def _law(rng, d, rank):
    B = rng.normal(size=(d, rank)) / np.sqrt(rank)
    return GaussianLaw(0.3 * rng.normal(size=d), B @ B.T)


def _one_sample_z(values: np.ndarray, exact: np.ndarray) -> np.ndarray:
    n = values.shape[0]
    return (values.mean(axis=0) - exact) / (values.std(axis=0, ddof=1) / np.sqrt(n))


def _two_sample_z(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    se = np.sqrt(a.var(axis=0, ddof=1) / a.shape[0] + b.var(axis=0, ddof=1) / b.shape[0])
    return (a.mean(axis=0) - b.mean(axis=0)) / se


# (d, rank of Gamma, L, tilt scale): full rank, singular, a long prompt, a strong tilt
ONE_QUERY = [(3, 3, 8, 1.0), (5, 2, 40, 1.0), (2, 2, 1000, 0.7), (4, 4, 4, 1.6)]


def _exact_moment_z(case, seed=0, prompts=40_000, sampler="conditional"):
    d, rank, L, scale = case
    rng = np.random.default_rng(seed)
    law = _law(rng, d, rank)
    U, V, z = (
        scale * rng.normal(size=(d, d)) / np.sqrt(d),
        rng.normal(size=(2, d)),
        rng.normal(size=d),
    )
    limit = V @ (law.mean + law.cov @ U @ z)
    out = sampling.sampled_outputs(
        law, np.random.default_rng(seed + 1), prompts, L, U, V, z[None, :], sampler=sampler
    )
    err = out.output[:, 0, :] - limit
    mean, second = selfnormalised.exact_second_moment(law.cov, U, V, z, L)
    iu = np.triu_indices(2)
    products = (err[:, :, None] * err[:, None, :])[:, iu[0], iu[1]]
    return np.concatenate([_one_sample_z(err, np.ravel(mean)), _one_sample_z(products, second[iu])])


def test_one_query_matches_the_exact_finite_L_bias_and_second_moment():
    zs = np.concatenate([_exact_moment_z(case) for case in ONE_QUERY])
    assert np.max(np.abs(zs)) < z_critical(FAMILY, len(zs)), zs


def _full_versus_conditional(d, rank, L, Q, per_prompt, seed, prompts=30_000):
    rng = np.random.default_rng(seed)
    law = GaussianLaw(np.zeros(d), _law(rng, d, rank).cov)  # centred: the products are covariances
    # V = I: every output coordinate sees the residuals, whose cross-query coupling is the point
    U, V = rng.normal(size=(d, d)) / np.sqrt(d), np.eye(d)
    base = rng.normal(size=d)
    # nearly parallel queries: their weights, hence their residuals, are strongly correlated
    shape = (prompts, Q, d) if per_prompt else (Q, d)
    queries = base + 0.1 * rng.normal(size=shape)
    samples = []
    for k, sampler in enumerate(("full", "conditional")):
        out = sampling.sampled_outputs(
            law,
            np.random.default_rng(seed + 10 + k),
            prompts,
            L,
            U,
            V,
            queries,
            participation=True,
            sampler=sampler,
        )
        flat = out.output.reshape(prompts, -1)
        iu = np.triu_indices(flat.shape[1])
        products = (flat[:, :, None] * flat[:, None, :])[:, iu[0], iu[1]]
        samples.append(np.concatenate([flat, products, out.participation], axis=1))
    return _two_sample_z(*samples)


# (d, rank, L, Q, queries per prompt): shared and per-prompt queries, singular Gamma, Q = rank - 1
SEVERAL_QUERIES = [(3, 3, 4, 2, False), (5, 3, 6, 2, True), (4, 4, 3, 3, False)]


def test_several_queries_have_the_law_of_the_full_draw():
    zs = np.concatenate(
        [_full_versus_conditional(*case, seed=i) for i, case in enumerate(SEVERAL_QUERIES)]
    )
    assert np.max(np.abs(zs)) < z_critical(FAMILY, len(zs)), zs


def test_residuals_drawn_independently_across_queries_are_refuted(monkeypatch):
    """The plausible slip: each query's residual drawn with its own sum_i p_ji^2 and no
    coupling (G taken diagonal): the cross-query products move by far more than the critical
    value."""
    monkeypatch.setattr(
        conditional_sampler,
        "gram_root",
        lambda G: np.sqrt(np.diagonal(G, axis1=-2, axis2=-1))[..., None] * np.eye(G.shape[-1]),
    )
    zs = np.concatenate(
        [_full_versus_conditional(*case, seed=i) for i, case in enumerate(SEVERAL_QUERIES)]
    )
    assert np.max(np.abs(zs)) > z_critical(FAMILY, len(zs))


def test_a_residual_not_projected_off_the_score_directions_is_refuted(monkeypatch):
    """The slip: R = xi C^T (the projector I - W W^T dropped) adds variance along the tilt
    direction."""
    monkeypatch.setattr(conditional_sampler, "project_off", lambda W, xi: xi)
    zs = np.concatenate([_exact_moment_z(case) for case in ONE_QUERY])
    assert np.max(np.abs(zs)) > z_critical(FAMILY, len(zs))


def test_auto_takes_the_conditional_sampler_only_where_it_pays():
    law = GaussianLaw([0.0, 0.0, 0.0, 0.0], np.eye(4))
    one, two, three = np.ones((1, 4)), np.eye(4)[:2], np.eye(4)[:3]
    same = lambda a, b: np.array_equal(a.output, b.output)
    run = lambda q, L, s, prompts=64: sampling.sampled_outputs(
        law, np.random.default_rng(0), prompts, L, 0.5 * np.eye(4), np.eye(4), q, sampler=s
    )
    for q in (one, two):  # 2 Q <= r = 4
        # 64 prompts of 64 tokens: CONDITIONAL_MIN_TOKENS = 4096 in all
        assert same(run(q, 64, "auto"), run(q, 64, "conditional")) and not same(
            run(q, 64, "auto"), run(q, 64, "full")
        )
        assert same(run(q, 63, "auto"), run(q, 63, "full"))  # short prompts: QR and eigh dominate
        # a few short prompts: the per-block QR and eigh are not amortised
        assert same(run(q, 64, "auto", prompts=63), run(q, 64, "full", prompts=63))
    assert same(run(three, 64, "auto"), run(three, 64, "full"))


def test_one_query_sums_its_tokens_without_a_threaded_dot():
    """token_sum's one-row branch (np.einsum) equals the matrix product it replaces."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(3, 1, 1000)), rng.normal(size=(3, 1, 1000))
    np.testing.assert_allclose(
        conditional_sampler.token_sum(x, y), x @ y.transpose(0, 2, 1), rtol=1e-12
    )
    wide = rng.normal(size=(3, 2, 1000))
    np.testing.assert_array_equal(
        conditional_sampler.token_sum(wide, wide), wide @ wide.transpose(0, 2, 1)
    )


@pytest.mark.parametrize("chunk", [10_000, 999, 3])
def test_one_prompt_with_one_query_takes_the_batched_blocks_draws_and_values(chunk):
    """The scalar route for one prompt and one query (one_prompt_one_query) draws the same
    normals as batched_block and returns its values up to rounding: at a generic tilt, at a zero
    tilt and at a strong one, whose chunks raise the running maximum."""
    for b in (np.array([0.3, -1.2, 0.5, 2.0, 0.1]), np.zeros(5), np.array([40.0, 0, 0, 0, 0])):
        one = conditional_sampler.one_prompt_one_query(
            np.random.default_rng(5), b, 10_000, chunk, True
        )
        batched = conditional_sampler.batched_block(
            np.random.default_rng(5), b[None, None], 10_000, chunk, True
        )
        for got, want in zip(one, batched):
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("work_bytes", [300, 10**6])
def test_the_conditional_sampler_streams_and_its_participation_ratios_are_those_of_its_weights(
    work_bytes,
):
    """Chunked or not, the running-maximum rescaling of the Gram matrix keeps its diagonal the
    participation ratio of the output's own weights: at L = 1 every weight is 1 (G = 1) and the
    output is a token; at uniform weights (U = 0) G_jl = 1/L for every pair."""
    law = GaussianLaw([0.5, -0.5, 0.0], np.eye(3))
    flat = sampling.sampled_outputs(
        law,
        np.random.default_rng(0),
        6,
        50,
        np.zeros((3, 3)),
        np.eye(3),
        np.ones((2, 3)),
        participation=True,
        sampler="conditional",
        work_bytes=work_bytes,
    )
    np.testing.assert_allclose(flat.participation, 1 / 50, rtol=1e-12)
    # strong scores: the chunks' maxima differ, which a missing rescale of the Gram matrix would
    # show
    strong = sampling.sampled_outputs(
        law,
        np.random.default_rng(1),
        2000,
        64,
        2 * np.eye(3),
        np.eye(3),
        np.array([[1.0, 0.0, 0.0], [0.9, 0.1, 0.0]]),
        participation=True,
        sampler="conditional",
        work_bytes=work_bytes,
    )
    assert np.all(strong.participation <= 1 + 1e-12) and np.all(
        strong.participation >= 1 / 64 - 1e-12
    )
    A = np.exp(selfnormalised.log_moments(4.0, 64)[0])  # q = |a|^2 = 4 for the first query
    z = _one_sample_z(strong.participation[:, :1], A)
    assert abs(z[0]) < z_critical(FAMILY, 2), z
