"""Finite-prompt softmax attention: equals a naive loop, lies in the convex hull of the values,
does not depend on the chunking, and survives huge scores."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from softlin.numerics import attention, sampling
from softlin.numerics.laws import GaussianLaw

from ..naive import naive_attention
from ..strategies import seeds


@given(seeds, st.integers(1, 3), st.integers(1, 3), st.integers(1, 40), st.integers(1, 3))
def test_streamed_attention_equals_the_naive_loop_and_is_a_convex_combination(seed, d, k, L, Q):
    rng = np.random.default_rng(seed)
    tokens = rng.normal(size=(3, L, d)) * 2
    U, V, queries = rng.normal(size=(d, d)), rng.normal(size=(k, d)), rng.normal(size=(Q, d))
    # A tiny memory cap forces many chunks, so the online rescaling is exercised.
    fast = attention.softmax_attention(tokens, U, V, queries, max_bytes=512)
    np.testing.assert_allclose(fast, naive_attention(tokens, U, V, queries), rtol=1e-11, atol=1e-12)
    values = tokens @ V.T  # (P, L, k)
    for u in np.vstack([np.eye(k), rng.normal(size=(4, k))]):
        proj = fast @ u  # (P, Q)
        lo, hi = (values @ u).min(axis=1), (values @ u).max(axis=1)  # (P,)
        assert np.all(proj >= lo[:, None] - 1e-10) and np.all(proj <= hi[:, None] + 1e-10)


def test_huge_scores_do_not_overflow():
    rng = np.random.default_rng(0)
    tokens = rng.normal(size=(2, 50, 2)) * 300.0
    out = attention.softmax_attention(
        tokens, np.eye(2), np.eye(2), np.array([[5.0, -3.0]]), max_bytes=256
    )
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(
        out, naive_attention(tokens, np.eye(2), np.eye(2), np.array([[5.0, -3.0]])), rtol=1e-12
    )


def test_sampled_attention_is_reproducible_and_memory_bounded():
    law = GaussianLaw([0.0, 0.0], np.eye(2))
    args = (law, None, 4, 5000, np.eye(2) * 0.3, np.eye(2), np.ones((2, 2)))
    a = sampling.sampled_attention(args[0], np.random.default_rng(5), *args[2:], max_bytes=2**16)
    b = sampling.sampled_attention(args[0], np.random.default_rng(5), *args[2:], max_bytes=2**16)
    np.testing.assert_array_equal(a, b)
    assert attention.chunk_tokens(4, 2, 2, 2, 2**16) < 5000  # it really streamed


def test_fixed_shift_sums_match_their_definition():
    rng = np.random.default_rng(1)
    tokens = rng.normal(size=(2, 30, 2))
    U, V, q = np.array([[0.5, 0.1], [0.0, 0.4]]), np.eye(2), np.array([[1.0, 2.0]])
    acc = attention.SoftmaxAccumulator(U, V, q, 2, fixed_shift=np.array([0.3]))
    acc.add(tokens[:, :7])
    acc.add(tokens[:, 7:])
    weights = np.exp(tokens @ (U @ q[0]) - 0.3)
    np.testing.assert_allclose(acc.fixed_den[:, 0], weights.sum(axis=1), rtol=1e-13)
    np.testing.assert_allclose(
        acc.fixed_num[:, 0], np.einsum("pl,pld->pd", weights, tokens), rtol=1e-13
    )


def test_empty_and_malformed_prompts_are_rejected():
    with pytest.raises(ValueError, match="L"):
        attention.softmax_attention(np.zeros((1, 0, 2)), np.eye(2), np.eye(2), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="shape mismatch"):
        attention.softmax_attention(np.zeros((1, 3, 2)), np.eye(3), np.eye(2), np.zeros((1, 2)))
    law = GaussianLaw([0.0], [[1.0]])
    with pytest.raises(ValueError, match="L = 0"):
        sampling.sampled_attention(
            law, np.random.default_rng(0), 1, 0, np.eye(1), np.eye(1), np.zeros((1, 1))
        )
