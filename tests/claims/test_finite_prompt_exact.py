"""The exact finite-L risk section of `finite-prompt-risk`: verdicts that plausible slips turn red."""

from __future__ import annotations

import numpy as np
import pytest

from softlin.claims import finite_prompt_risk as fpr
from softlin.claims.base import claim_rng
from softlin.numerics import kernels


def _run(scenario=None, monkeypatch=None, integrand=None):
    if integrand is not None:
        monkeypatch.setattr(kernels, "finite_risk_integrand", integrand)
    return fpr.run(scenario or fpr.default_scenario(), "quick", claim_rng(0, "finite-prompt-risk"))


def _check(cert, start):
    return [c for c in cert["checks"] if c["name"].startswith(start)]


def test_default_points_are_verified_and_carry_the_issue_quantities():
    cert = _run()
    assert cert["status"] == "verified"
    q = cert["quantities"]
    n = len(q["points"])
    for key in ("exact_risk", "exact_risk_error", "mc_risk", "mc_risk_stderr"):
        assert len(q[key]) == n
    assert q["exact_risk"][0] == pytest.approx(2.2, rel=1e-8)    # L = 1: 1/d tr I + s2 + mu^2 (1 + s2), mu = -1


@pytest.mark.parametrize("slip", ["stein-mean-without-A", "second-moment-1-minus-A", "participation-dropped"])
def test_a_slipped_integrand_is_refuted(monkeypatch, slip):
    """Three plausible slips of derivations/risk_finite.py's integrand: E G = sqrt(q) (forgetting the Stein
    correction), E G^2 = B + q (1 - A), and the b^2 A term dropped. The Monte Carlo route must refute each."""
    original = kernels.finite_risk_integrand

    def slipped(mu, omega, tau, s2, tr_p, k1, k2, A, B):
        f = original(mu, omega, tau, s2, tr_p, k1, k2, A, B)
        if slip == "stein-mean-without-A":
            return f - 2 * mu * omega * tau * k1 * A
        if slip == "second-moment-1-minus-A":
            return f + mu**2 * tau * omega**2 * k2 * A
        return f - mu**2 * (tau * tr_p + s2) * A
    cert = _run(monkeypatch=monkeypatch, integrand=slipped)
    assert cert["status"] == "refuted"
    assert any(c["passed"] is False for c in cert["checks"] if c["kind"] == "montecarlo")


def test_authors_generator_is_refuted_for_a_correlated_sigma():
    """Erratum 5 as a control: with sigma != I the authors' generator has another risk, and the
    Monte Carlo of the correct generator must tell them apart."""
    s = fpr.default_scenario()
    s["scalar"] = {**s["scalar"], "sigma": [[1.0, 0.6, 0.36], [0.6, 1.0, 0.6], [0.36, 0.6, 1.0]], "d": 3,
                   "points": [{"mu": [1.5], "omega": [0.45], "L": 5}, {"mu": [1.0], "omega": [0.3], "L": 50}]}
    cert = _run(s)
    assert cert["status"] == "verified", [c for c in cert["checks"] if c["passed"] is not True]
    control = _check(cert, "control: the authors' generator")
    assert control and control[0]["passed"] is True


@pytest.mark.parametrize("bad", [
    {"points": [{"mu": [1.0, 2.0], "omega": [0.1, 0.2], "L": 5}]},       # two heads: not covered
    {"points": [{"mu": [1.0], "omega": [0.1]}]},                          # L missing
    {"points": [{"mu": [1.0], "omega": [0.1], "L": 0}]},
    {"sigma": [[1.0, 2.0], [2.0, 1.0]], "d": 2},                          # not positive definite
    {"sigma": [[1.0]]},                                                    # wrong size (d = 5)
])
def test_bad_points_and_sigma_raise(bad):
    s = fpr.default_scenario()
    s["scalar"] = {**s["scalar"], **bad}
    with pytest.raises(ValueError):
        fpr.validate(s)
