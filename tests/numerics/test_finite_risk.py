"""numerics/finite_risk.py: the exact finite-L risk of the one-head model, against routes it does
not share."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.numerics import authors_sgd, finite_risk as fr, scalar_risk as sr


def toeplitz(d, r):
    return np.array([[r ** abs(i - j) for j in range(d)] for i in range(d)])


# default-run budget (180 s on 2 cores): a higher-precision evaluation of every point
@pytest.mark.slow
def test_stated_error_covers_a_higher_precision_evaluation():
    """Anisotropic prompt and query laws (the authors' generator): the default rule against a finer
    rule and a denser table; the difference must be within the stated error, which must be small."""
    S = toeplitz(3, 0.5)
    model = fr.Model(S @ S, np.eye(3), 1 / 3, 0.1)
    for L, mu, om in ((3, 1.2, 0.4), (50, -0.7, 0.3)):
        r = fr.exact_risk(model, L, mu, om)
        fine = fr.exact_risk(model, L, mu, om, radial=480, angular=2 * fr.ANGULAR_NODES, points=193)
        assert abs(r.value - fine.value) <= r.error, (r, fine)
        assert r.error <= 1e-4 * r.value


def test_one_token_risk_is_the_closed_form_whatever_omega():
    S = toeplitz(4, 0.3)
    model = fr.Model(S, S, 0.25, 0.2)
    for om in (0.1, 0.6, -0.4):
        r = fr.exact_risk(model, 1, 0.8, om)
        assert (
            abs(r.value - (0.25 * np.trace(S) + 0.2 + 0.64 * (0.25 * np.trace(S) + 0.2))) <= r.error
        )


def test_large_L_approaches_the_first_order_expansion():
    """Isotropic d = 5: L (R_L - R_inf) -> C1 of derivations/risk_scalar.py (a separate derivation),
    with the remainder shrinking like 1/L."""
    model = fr.Model(np.eye(5), np.eye(5), 0.2, 0.1)
    C1 = sr.first_order(np.array([-1.0]), np.array([0.25]), 5, 0.1)
    r_inf = fr.infinite_risk(model, -1.0, 0.25)
    assert r_inf == pytest.approx(
        sr.infinite_risk(np.array([-1.0]), np.array([0.25]), 0.1), rel=1e-14
    )
    gaps = [
        abs(L * (fr.exact_risk(model, L, -1.0, 0.25).value - r_inf) - C1)
        for L in (10**3, 10**4, 10**5)
    ]
    assert gaps[2] < 1e-4 * abs(C1)
    assert 5 < gaps[0] / gaps[1] < 20 and 5 < gaps[1] / gaps[2] < 20  # ~ 1/L


def test_agrees_with_literal_token_monte_carlo():
    """Tokens drawn literally (x_i = M_p g_i, not the reduced sampler), correct
    generator, d = 3, L = 4: the exact value within 5 standard errors (false alarm ~6e-7)."""
    S = toeplitz(3, 0.6)
    model = fr.Model(S, S, 1 / 3, 0.1)
    exact = fr.exact_risk(model, 4, 1.3, 0.5).value
    e = authors_sgd.evaluate(
        {"m": ("softmax", 1.3, 0.5)},
        S,
        0.1,
        1 / 3,
        4,
        "correct",
        60000,
        np.random.default_rng(7),
        tokens="literal",
    )
    m, se = e["risk"]["m"]
    assert abs(m - exact) < 5 * se


def test_query_rule_keeps_only_the_diagonal_that_matters():
    """k2's off-diagonal part (in k1's eigenbasis) averages to zero, and the polar rule integrates
    the quadratic forms exactly: E k1 = tr(Sigma_p Sigma_q), E k2 = tr(Sigma_p^2 Sigma_q), and
    E k1^2 (a polynomial of degree 2 in D and 2 in Q)
    = 2 tr((Sigma_p Sigma_q)^2) + tr(Sigma_p Sigma_q)^2."""
    S = toeplitz(3, 0.5)
    Sq = np.diag([1.0, 2.0, 0.5])
    rule = fr.query_rule(fr.Model(S, Sq, 1.0, 0.0))
    # exact up to the nodes pruned at relative weight PRUNE = 1e-12 (measured 2e-12 relative)
    EQ, EQ2 = rule.wq @ rule.Q, rule.wq @ rule.Q**2
    assert EQ * (rule.wa @ rule.a) == pytest.approx(np.trace(S @ Sq), rel=1e-10)
    assert EQ * (rule.wa @ rule.b) == pytest.approx(np.trace(S @ S @ Sq), rel=1e-10)
    M = S @ Sq
    assert EQ2 * (rule.wa @ rule.a**2) == pytest.approx(
        2 * np.trace(M @ M) + np.trace(M) ** 2, rel=1e-10
    )


def test_bad_inputs_raise():
    model = fr.Model(np.eye(2), np.eye(2), 0.5, 0.1)
    with pytest.raises(ValueError):
        fr.exact_risk(model, 0, 1.0, 0.2)
    with pytest.raises(ValueError):
        fr.exact_risk(model, 5, float("nan"), 0.2)
    with pytest.raises(ValueError):
        fr.exact_risk(fr.Model(np.eye(2), -np.eye(2), 0.5, 0.1), 5, 1.0, 0.2)  # not a covariance
