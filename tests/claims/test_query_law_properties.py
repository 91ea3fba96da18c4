"""Property tests over whole drawn scenarios (Gamma, U, V, Sigma_q, L), not a seed: every formula
where the query law enters against an independent route.

A seed-drawn scenario cannot shrink: a failure is reported as a 32-bit seed. Here Hypothesis draws
the matrices themselves (entries on a 0.1 grid, so they are exact decimals and shrink towards 0 and
towards d = 1), so a slip found is reported as the smallest scenario showing it. The routes:

- the threshold lambda = lambda_max(U^T Gamma U Sigma_q) against the eigenvalues of the unwhitened
  product (np.linalg.eigvals);
- E_{z ~ N(0, Sigma_q)} e^{z^T K z} P(z) in exact rationals (derivations/tilted_moments.py: the
  precision Sigma_q^{-1} - 2K and the normaliser det(I - 2 Sigma_q K)^{-1/2}) against tensor
  Gauss-Hermite with the tilt folded in (exact for the polynomial);
- prop-3.1's query-averaged C1 (det/trace) and prop-3.4's averaged gradient coefficients against
  their claims' own Gauss-Hermite checks.

The slow tier runs enough examples to find each Sigma_q slip:
`test_each_sigma_q_slip_is_found_and_shrinks` injects it and asks Hypothesis for a failing
scenario, which must exist and shrink.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from softlin.claims.prop_3_1 import average as p31_average
from softlin.claims.prop_3_4 import coefficients as p34_coefficients
from softlin.derivations import fluctuations
from softlin.derivations import gradient_fluctuations as gf
from softlin.derivations import tilted_moments as tm
from softlin.numerics import query_average

from .test_scenario_factors import exp_quadratic_slipped, slipped_first_order_coefficient

MAX_LAMBDA = 0.4  # below the threshold 1/2 with room: the tilted integrals stay finite
SLOW = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def query_scenarios(draw, max_d: int = 3) -> dict:
    """d, Gamma = B B^T (rank as drawn, singular included), U, V (k x d), Sigma_q = C C^T + I/10
    (positive definite), L; U shrunk so that lambda <= MAX_LAMBDA."""
    d = draw(st.integers(1, max_d))
    k = draw(st.integers(1, 2))
    entry = st.integers(-15, 15).map(lambda i: i / 10)

    def matrix(rows, cols):
        return np.array(draw(st.lists(entry, min_size=rows * cols, max_size=rows * cols))).reshape(
            rows, cols
        )

    B, C = matrix(d, d), matrix(d, d)
    U, V = matrix(d, d), matrix(k, d)
    Gamma, Sq = B @ B.T, C @ C.T + np.eye(d) / 10
    lam = query_average.threshold_lambda(Gamma, U, Sq)
    if lam > MAX_LAMBDA:  # a round factor keeps the entries short decimals
        U = U * np.floor(100 * np.sqrt(MAX_LAMBDA / lam)) / 100
    return {"d": d, "cov": Gamma, "U": U, "V": V, "query_cov": Sq, "L": draw(st.integers(1, 64))}


def _exact(x) -> sp.Matrix:
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return sp.Matrix(arr.shape[0], arr.shape[1], lambda i, j: sp.Rational(repr(float(arr[i, j]))))


# ---- the threshold ----------------------------------------------------------------------------


def _threshold_agrees(s) -> bool:
    G, U, Sq = s["cov"], s["U"], s["query_cov"]
    direct = float(np.max(np.linalg.eigvals(U.T @ G @ U @ Sq).real))
    return abs(query_average.threshold_lambda(G, U, Sq) - direct) <= 1e-9 * max(1.0, direct)


@settings(max_examples=25, deadline=None)
@given(query_scenarios())
def test_threshold_is_the_top_eigenvalue_of_the_unwhitened_product(s):
    assert _threshold_agrees(s)


# ---- the tilted query expectation -------------------------------------------------------------


def _tilted_expectation_agrees(s) -> bool:
    """E e^{z^T K z} (1 + |z|^2)^2, K = U^T Gamma U, exactly against Gauss-Hermite (rel 1e-9)."""
    d, G, U, Sq = s["d"], s["cov"], s["U"], s["query_cov"]
    z = list(sp.symbols(f"z0:{d}", real=True))
    poly = sp.expand((1 + sum(v * v for v in z)) ** 2)
    K = _exact(U).T * _exact(G) * _exact(U)
    exact = float(tm.exp_quadratic_expectation(poly, z, _exact(Sq), K))
    M = U.T @ G @ U
    log_fn = lambda Z: 2 * np.log1p(np.sum(Z * Z, axis=1)) + np.einsum("ni,ij,nj->n", Z, M, Z)
    gh = query_average.gauss_hermite_average(None, Sq, nodes=20, tilt=M, log_fn=log_fn)
    return abs(gh / exact - 1) <= 1e-9


@pytest.mark.slow
@SLOW
@given(query_scenarios())
def test_tilted_query_expectation_equals_gauss_hermite(s):
    assert _tilted_expectation_agrees(s)


# ---- the claims' query-averaged coefficients --------------------------------------------------


def _prop31_coefficient_agrees(s) -> bool:
    G, U, V, Sq = s["cov"], s["U"], s["V"], s["query_cov"]
    lam = query_average.threshold_lambda(G, U, Sq)
    coef = p31_average.exact_coefficient(G, U, V, Sq)
    return p31_average.coefficient_check(coef, G, U, V, Sq, lam, None, None).passed is True


@pytest.mark.slow
@SLOW
@given(query_scenarios())
def test_prop31_averaged_first_order_coefficient_passes_its_quadrature_check(s):
    assert _prop31_coefficient_agrees(s)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query_scenarios(max_d=2))
def test_prop34_averaged_gradient_coefficients_pass_their_quadrature_checks(s):
    G, U, V, Sq = s["cov"], s["U"], s["V"], s["query_cov"]
    lam = query_average.threshold_lambda(G, U, Sq)
    coefs = p34_coefficients.averaged_first_order(G, U, V, Sq)
    found = p34_coefficients.query_average_checks(*coefs, G, U, V, Sq, lam, None, None, None)
    assert all(c.passed is True for c in found.checks), [c.detail for c in found.checks]


# ---- each Sigma_q slip is found, and shrinks --------------------------------------------------


def _threshold_without_sigma_q(Gamma, U, Sigma_q):
    K = U.T @ Gamma @ U
    return np.sort(np.clip(np.linalg.eigvalsh((K + K.T) / 2), 0.0, None))[::-1]


def _slip(monkeypatch, name: str):
    if name == "threshold":
        monkeypatch.setattr(query_average, "whitened_spectrum", _threshold_without_sigma_q)
        return _threshold_agrees
    if name == "coefficient determinant":

        def wrong(Gamma, U, V, Sigma_q):
            return sp.Float(slipped_first_order_coefficient(Gamma, U, V, Sigma_q, "determinant"))

        monkeypatch.setattr(fluctuations, "first_order_coefficient_matrix", wrong)
        return _prop31_coefficient_agrees
    monkeypatch.setattr(tm, "exp_quadratic_expectation", exp_quadratic_slipped(name))
    monkeypatch.setattr(gf, "exp_quadratic_expectation", exp_quadratic_slipped(name))
    return _tilted_expectation_agrees


@pytest.mark.slow
@pytest.mark.parametrize(
    "name", ["precision", "determinant", "threshold", "coefficient determinant"]
)
def test_each_sigma_q_slip_is_found_and_shrinks(name, monkeypatch):
    """With the slip injected, Hypothesis finds a scenario where the property fails within the
    slow tier's budget and shrinks it (measured: to Gamma and U with one non-zero entry each; the
    dimension may stay at 2 or 3, since shrinking d changes every list's length), with
    Sigma_q != I, where the slip shows."""
    holds = _slip(monkeypatch, name)
    found = find(
        query_scenarios(),
        lambda s: not holds(s),
        settings=settings(max_examples=SLOW.max_examples, deadline=None, database=None),
    )
    assert np.count_nonzero(found["cov"]) <= found["d"], found  # shrunk towards 0
    assert not np.allclose(found["query_cov"], np.eye(found["d"])), found  # I hides the slip
