"""Hypothesis strategies for admissible parameters: PSD covariances built as B B^T (rank-deficient
included), tilts kept moderate so that quadrature and Monte Carlo budgets are meaningful."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

seeds = st.integers(min_value=0, max_value=2**32 - 1)


@st.composite
def gaussian_setups(draw, max_d: int = 3, tilt: float = 1.0):
    """(m, Gamma, U, V, Z, rng-seed) with Gamma = B B^T of random rank and |B^T U z| <~ tilt."""
    d = draw(st.integers(1, max_d))
    rank = draw(st.integers(1, d))
    k = draw(st.integers(1, 3))
    seed = draw(seeds)
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(d, rank))
    B /= max(1.0, np.linalg.norm(B, 2))
    U = rng.normal(size=(d, d))
    U *= tilt / (np.linalg.norm(U, 2) * 3.0)  # |z| is rarely above 3 for N(0, I) queries
    m = rng.normal(size=d) * 0.5
    V = rng.normal(size=(k, d))
    Z = rng.normal(size=(4, d))
    return m, B @ B.T, U, V, Z, seed
