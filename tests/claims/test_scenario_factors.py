"""Which factors each claim's built-in scenario can tell apart (issue 40, "scenarios that can see
every factor").

A slip in where a matrix enters a formula is visible to a claim only if the built-in scenario makes
the slipped value differ from the derived one by more than the check guarding that formula
resolves. At Sigma_q = I, Sigma_q^{-1} = Sigma_q and det(I - 2 Sigma_q K) = det(I - 2 K), so the
query law's three placements (the precision Sigma_q^{-1} - 2 K of the tilted query law, the
Gaussian normaliser det(I - 2 Sigma_q K)^{-1/2}, the threshold lambda = lambda_max(U^T Gamma U
Sigma_q)) cannot be seen; a diagonal Sigma_q commuting with a diagonal K, a symmetric U, or a unit
entry in a one-dimensional check hides others. This module states, per claim, what the built-in
scenario distinguishes:

- structurally: no built-in matrix a formula multiplies is a multiple of I, U is not symmetric, the
  matrices that meet do not commute, Sigma_q is far from its own inverse, and the one-dimensional
  coordinates of asm-3.3 are not 1 (a unit scale hides a power);
- by computation: for each placement, the derived quantity with and without the slip, judged by
  the claim's own guarding check (or its tolerance, read from the claim), which must fail under the
  slip and pass without it.

Each case runs in well under a second (exact rationals in d <= 2, 40-node Gauss-Hermite).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from softlin.claims.asm_3_3 import claim as asm33
from softlin.claims.prop_3_1 import average as p31_average
from softlin.claims.prop_3_4 import coefficients as p34_coefficients
from softlin.claims.shared.rationals import rational_matrix
from softlin.core import registry
from softlin.core import scenario as scen
from softlin.derivations import tilted_moments as tm
from softlin.numerics import query_average
from softlin.numerics import tilted_moments as nt

QUERY_LAW_CLAIMS = ("lemma-2.1", "mixture", "asm-3.3", "prop-3.1", "prop-3.4")
# A commutator or a difference below this fraction of the product's size counts as "commutes"
# (or "equal") by accident: 10 % is far above every guarding check's resolution at quick (1e-9 to
# a few per cent) and far below what a generic matrix gives.
APART = 0.1


def _scenario(cid: str) -> dict:
    return scen.common(registry.get(cid).default_scenario())


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    """||a - b|| / max(||a||, ||b||) (Frobenius)."""
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(a), np.linalg.norm(b)))


# ---------------------------------------------------------------------------------------------
# Structure: nothing commutes, or equals its inverse, by accident.


@pytest.mark.parametrize("cid", QUERY_LAW_CLAIMS)
def test_the_query_law_is_non_diagonal_and_far_from_its_inverse(cid):
    Sq = _scenario(cid)["query_cov"]
    d = Sq.shape[0]
    off = Sq - np.diag(np.diag(Sq))
    assert np.linalg.norm(off) > APART * np.linalg.norm(Sq), "Sigma_q diagonal"
    assert _rel(Sq, np.eye(d)) > APART, "Sigma_q near I"
    assert _rel(Sq, np.linalg.inv(Sq)) > APART, "Sigma_q near its inverse: Sigma_q^-1 <-> Sigma_q"
    assert _rel(Sq, Sq @ Sq) > APART, "Sigma_q near Sigma_q^2: a power of Sigma_q hidden"


@pytest.mark.parametrize("cid", QUERY_LAW_CLAIMS)
def test_the_matrices_that_meet_do_not_commute(cid):
    """U^T Gamma U meets Sigma_q (threshold, tilt), Gamma meets U (tilted mean Gamma U z), U meets
    its transpose (score z^T U x), V meets Gamma (V Gamma V^T): each pair must not commute, and U
    must not be symmetric. mixture's Gamma is its components' covariances (its `cov` is not
    read)."""
    s = _scenario(cid)
    U, V, Sq = s["U"], s["V"], s["query_cov"]
    if cid == "mixture":
        gammas = [
            np.asarray(G, float) for G in registry.get(cid).default_scenario()["mixture"]["covs"]
        ]
    else:
        gammas = [s["cov"]]
    assert _rel(U, U.T) > APART, "U symmetric: U and U^T cannot be told apart"
    for G in gammas:
        K = U.T @ G @ U
        assert _rel(K @ Sq, Sq @ K) > APART, "U^T Gamma U commutes with Sigma_q"
        assert _rel(G @ U, U @ G) > APART, "Gamma commutes with U"
        assert _rel(K, U @ G @ U.T) > APART, "U^T Gamma U equals U Gamma U^T"
        if V.shape[0] == V.shape[1] and cid != "asm-3.3":  # asm-3.3's moments do not read V
            assert _rel(V @ G @ V.T, V.T @ G @ V) > APART, "V Gamma V^T equals V^T Gamma V"


def test_asm33_one_dimensional_checks_see_a_coordinate_without_unit_scales():
    """The d = 1 quadrature and Arb enclosure run on the first coordinates (m_1, Gamma_11, U_11,
    Sigma_q,11): none is 0 or 1 (where x^2 = x hides a power), and no two are equal."""
    s = _scenario("asm-3.3")
    coords = [s["mean"][0], s["cov"][0, 0], s["U"][0, 0], s["query_cov"][0, 0]]
    for x in coords:
        assert abs(x) > APART / 2 and abs(abs(x) - 1) > APART, coords
    assert len({round(abs(x), 6) for x in coords}) == len(coords), coords


# ---------------------------------------------------------------------------------------------
# The query law's placements, computed: the slipped value against the guarding check.


def exp_quadratic_slipped(slip: str):
    """tm.exp_quadratic_expectation with one plausible slip where Sigma_q enters:

    E_{z ~ N(0, S)} e^{z^T K z} P(z) = det(I - 2 S K)^{-1/2} E_{z ~ N(0, (S^{-1} - 2K)^{-1})} P(z)
    """

    def wrong(poly, z, Sigma_q, K):
        Sigma_q, K = sp.Matrix(Sigma_q), sp.Matrix(K)
        if K.is_zero_matrix:
            return tm.gaussian_polynomial_expectation(poly, z, Sigma_q)
        inv = Sigma_q if slip == "precision" else Sigma_q.inv()  # Sigma_q for its inverse
        precision = inv - 2 * K
        if not tm.is_positive_definite(precision):
            return sp.oo
        S = sp.eye(K.rows) if slip == "determinant" else Sigma_q  # Sigma_q dropped from det
        factor = 1 / sp.sqrt((sp.eye(K.rows) - 2 * S * K).det())
        return factor * tm.gaussian_polynomial_expectation(poly, z, precision.inv())

    return wrong


def _first_coordinates(s):
    m1, g1, u1, s1 = (
        float(x) for x in (s["mean"][0], s["cov"][0, 0], s["U"][0, 0], s["query_cov"][0, 0])
    )
    R = lambda x: sp.Matrix([[sp.Rational(repr(x))]])
    return (m1, g1, u1, s1), (R(m1), R(g1), R(u1), R(s1))


@pytest.mark.parametrize("slip", ["precision", "determinant"])
def test_asm33_sees_each_tilted_moment_placement_of_sigma_q_in_its_d1_quadrature(slip, monkeypatch):
    """M_44^(2) on the first coordinates (what quadrature/d1-closed-forms and the enclosure judge):
    the derived closed form meets the nested quadrature within the claim's tolerance; with the
    slip it misses by far more. The issue measured the default's M_44^(2) unchanged under such a
    slip at Sigma_q = I."""
    floats, exact = _first_coordinates(_scenario("asm-3.3"))
    quad = nt.quadrature_1d(4, 4, 2, *floats)
    right = float(tm.tilted_moment(4, 4, 2, *exact))
    monkeypatch.setattr(tm, "exp_quadratic_expectation", exp_quadratic_slipped(slip))
    wrong = float(tm.tilted_moment(4, 4, 2, *exact))
    assert abs(quad / right - 1) < asm33.QUADRATURE_TOLERANCE
    assert abs(quad / wrong - 1) > 1e3 * asm33.QUADRATURE_TOLERANCE, (slip, right, wrong)


@pytest.mark.parametrize("slip", ["precision", "determinant"])
def test_asm33_sees_each_placement_in_dimension_two(slip, monkeypatch):
    """The full d = 2 closed form moves too (the Monte Carlo check's territory): by 8x for the
    precision slip, by about 1 % for the determinant slip (lambda = 0.056: det(I - 2 Sigma_q K) is
    near 1 either way), which the d = 1 quadrature above resolves and the Monte Carlo at quick does
    not (relative standard error of M_44^(2) about 0.9 % with 2e5 samples)."""
    s = _scenario("asm-3.3")
    R = asm33.exact_decimals
    args = (R(s["mean"]).T, R(s["cov"]), R(s["U"]), R(s["query_cov"]))
    right = float(tm.tilted_moment(4, 4, 2, *args))
    monkeypatch.setattr(tm, "exp_quadratic_expectation", exp_quadratic_slipped(slip))
    wrong = float(tm.tilted_moment(4, 4, 2, *args))
    assert abs(wrong / right - 1) > (1.0 if slip == "precision" else 0.005), (right, wrong)


def test_asm33_sees_the_threshold_without_sigma_q_at_its_finiteness_boundary():
    """finiteness-domain rescales U to lambda = 0.49 and 0.51 from the computed lambda. With lambda
    computed without Sigma_q, the true lambda there is target * r, r = lambda / lambda_wrong: the
    check fails once 0.49 r >= 1/2 or 0.51 r < 1/2, i.e. |r - 1| beyond about 2 %."""
    s = _scenario("asm-3.3")
    lam = query_average.threshold_lambda(s["cov"], s["U"], s["query_cov"])
    wrong = query_average.threshold_lambda(s["cov"], s["U"], np.eye(s["d"]))
    r = lam / wrong
    lo, hi = asm33.BOUNDARY
    assert lo * r >= 0.5 or hi * r < 0.5, (lam, wrong)


def slipped_first_order_coefficient(Gamma, U, V, Sigma_q, where: str) -> float:
    """det(I - 2 M S)^{-1/2} [tr(V Gamma V^T) + tr(N S (I - 2 M S)^{-1})] with Sigma_q dropped
    from the determinant (where = "determinant") or from the trace term (where = "trace");
    M = U^T Gamma U, N = U^T Gamma V^T V Gamma U."""
    G, Uq, Vq, S = (rational_matrix(x) for x in (Gamma, U, V, Sigma_q))
    M, N = Uq.T * G * Uq, Uq.T * G * Vq.T * Vq * G * Uq
    eye = sp.eye(M.rows)
    R = eye - 2 * M * S
    det_part = (eye - 2 * M) if where == "determinant" else R
    trace_part = N * (eye if where == "trace" else S) * R.inv()
    return float(
        det_part.det() ** sp.Rational(-1, 2) * ((Vq * G * Vq.T).trace() + trace_part.trace())
    )


@pytest.mark.parametrize("where", ["determinant", "trace", "query law"])
def test_prop31_coefficient_quadrature_fails_under_each_placement_of_sigma_q(where):
    """average/coefficient-quadrature (closed form vs Gauss-Hermite over nu of the per-query
    kernel tr C1(z)) passes with the derived coefficient and fails with Sigma_q dropped from the
    determinant, from the trace term, or from the query law (the coefficient of N(0, I))."""
    s = _scenario("prop-3.1")
    G, U, V, Sq = s["cov"], s["U"], s["V"], s["query_cov"]
    lam = query_average.threshold_lambda(G, U, Sq)
    right = p31_average.exact_coefficient(G, U, V, Sq)
    if where == "query law":
        wrong = p31_average.exact_coefficient(G, U, V, np.eye(s["d"]))
    else:
        wrong = slipped_first_order_coefficient(G, U, V, Sq, where)
    ok = p31_average.coefficient_check(right, G, U, V, Sq, lam, None, None)
    bad = p31_average.coefficient_check(wrong, G, U, V, Sq, lam, None, None)
    assert ok.passed is True and bad.passed is False, (where, right, wrong, bad.value)


@pytest.mark.parametrize("slip", ["precision", "determinant"])
def test_prop34_coefficient_quadratures_fail_under_each_tilted_placement(slip, monkeypatch):
    """prop-3.4's exact query-averaged gradient coefficients go through the same
    E_{z ~ N(0, Sigma_q)} e^{z^T K z} P(z): average/grad-{v,u}-quadrature pass with the derived
    ones and both fail under either slip."""
    s = _scenario("prop-3.4")
    G, U, V, Sq = s["cov"], s["U"], s["V"], s["query_cov"]
    lam = query_average.threshold_lambda(G, U, Sq)
    right = p34_coefficients.averaged_first_order(G, U, V, Sq)
    monkeypatch.setattr(tm, "exp_quadratic_expectation", exp_quadratic_slipped(slip))
    from softlin.derivations import gradient_fluctuations as gf

    monkeypatch.setattr(gf, "exp_quadratic_expectation", exp_quadratic_slipped(slip))
    wrong = p34_coefficients.averaged_first_order(G, U, V, Sq)
    ok = p34_coefficients.query_average_checks(*right, G, U, V, Sq, lam, None, None, None)
    bad = p34_coefficients.query_average_checks(*wrong, G, U, V, Sq, lam, None, None, None)
    assert [c.passed for c in ok.checks] == [True, True]
    assert [c.passed for c in bad.checks] == [False, False], (right, wrong)


# ---------------------------------------------------------------------------------------------
# Through the claims' runs at quick (slow tier: one claim run each, ~12 s idle for asm-3.3).


def _asm33_run(**kwargs):
    from softlin.core.claim import claim_rng

    s = scen.merge(asm33.default_scenario(), {}, asm33.CLAIM.scenario_keys)
    return asm33.run(s, "quick", claim_rng(s["seed"], "asm-3.3"), **kwargs)


def _failed(cert) -> set:
    return {c["id"].split("/", 1)[1] for c in cert["checks"] if c["passed"] is False}


@pytest.mark.slow
@pytest.mark.parametrize("slip", ["precision", "determinant"])
def test_asm33_is_refuted_under_each_tilted_placement_slip(slip):
    """The slipped closed form replaces the derived one in the run: refuted by the d = 1 quadrature
    and the Arb enclosure (the precision slip by the Monte Carlo too)."""
    wrong_eqe = exp_quadratic_slipped(slip)

    def closed_form(p, q, c, m, Gamma, U, Sigma_q):
        right_eqe = tm.exp_quadratic_expectation
        tm.exp_quadratic_expectation = wrong_eqe
        try:
            return tm.tilted_moment(p, q, c, m, Gamma, U, Sigma_q)
        finally:
            tm.exp_quadratic_expectation = right_eqe

    cert = _asm33_run(closed_form=closed_form)
    assert cert["status"] == "refuted"
    failed = _failed(cert)
    assert "quadrature/d1-closed-forms" in failed, failed
    if slip == "precision":
        assert "montecarlo/closed-forms" in failed, failed


@pytest.mark.slow
def test_asm33_is_refuted_with_the_threshold_computed_without_sigma_q(monkeypatch):
    from softlin.claims.asm_3_3 import claim as module

    monkeypatch.setattr(
        module.query_average,
        "threshold_lambda",
        lambda Gamma, U, Sigma_q: query_average.whitened_spectrum(Gamma, U, np.eye(len(U)))[0],
    )
    cert = _asm33_run()
    assert cert["status"] == "refuted"
    # the certified finiteness check reads no float lambda; the float-in-ball check does
    assert "threshold/float-in-ball" in _failed(cert)
