"""Claim thm-4.3: sensitivity tests (a plausible slip injected, the verdict must turn) and the exact
finite-L gradient against Monte Carlo."""

import numpy as np
import pytest

from softlin.claims import icl_common, thm43, thm43_routes as routes
from softlin.claims.base import claim_rng
from softlin.numerics import icl_exact, icl_training


def _run():
    return thm43.run(icl_common.default_scenario(), "quick", claim_rng(0, "thm-4.3"))


def _failed(cert):
    return [c["name"] for c in cert["checks"] if c["passed"] is False]


def test_exact_finite_prompt_gradient_gap_matches_monte_carlo():
    S = np.array([[1.6, 0.3], [0.3, 0.5]])
    A, b = np.array([[0.5, 0.05], [0.05, 0.4]]), 0.8
    th = np.concatenate([A.ravel(), [b]])
    exact = icl_exact.ExcessRisk(S, 20, 1.0).gap(th)
    mean, se = routes.mc_gap(S, th, 20, 40000, np.random.default_rng(7))
    assert np.all(np.abs(mean - exact) <= 5.3 * np.sqrt(se**2 + (5e-3 * exact) ** 2))


@pytest.mark.slow
def test_default_scenario_verified():
    assert _run()["status"] == "verified"


@pytest.mark.slow
def test_beta_L_for_beta_inf_turns_the_verdict(monkeypatch):
    monkeypatch.setattr(thm43, "lipschitz_constant", lambda Sigma, r: 5.0)      # beta_L-sized (witness: 2..5)
    assert _run()["status"] == "refuted"


@pytest.mark.slow
def test_dropped_t_factor_in_gronwall_turns_the_verdict(monkeypatch):
    monkeypatch.setattr(thm43, "gronwall_bound", lambda g2, beta, t: g2 * np.exp(np.minimum(beta * t, 700)))
    assert _run()["status"] == "refuted"


@pytest.mark.slow
def test_g2_on_a_fixed_sample_turns_the_verdict(monkeypatch):
    S = icl_common.validate(icl_common.default_scenario())["Sigma"]

    def fixed_sample(E, points):
        smp = icl_training.PromptSample(S, E.L, 200, np.random.default_rng([0, 5, E.L]))
        best = (0.0, points[0])
        for th in points[::4]:
            A, b = icl_exact.unpack(th, 2)
            _, gA, gb = smp.risk_and_grad(A, b)
            v = float(np.linalg.norm(np.concatenate([gA.ravel(), [gb]]) - icl_exact.grad_inf(S, th)))
            best = max(best, (v, th), key=lambda x: x[0])
        return best
    monkeypatch.setattr(thm43, "g2_measure", fixed_sample)
    assert _run()["status"] != "verified"


def test_central_difference_hessian_norm_of_a_known_quadratic():
    """thm43_routes.hessian_norm on grad f(theta) = H theta + c must return ||H||_2 (H symmetric,
    eigenvalues of both signs): the route behind the beta_inf check and the erratum-4 witness."""
    from softlin.claims import thm43_routes as routes
    rng = np.random.default_rng(2)
    B = rng.normal(size=(5, 5))
    H = (B + B.T) / 2
    c = rng.normal(size=5)
    norm = routes.hessian_norm(lambda th: H @ th + c, rng.normal(size=5))
    assert norm == pytest.approx(np.max(np.abs(np.linalg.eigvalsh(H))), rel=1e-8)
