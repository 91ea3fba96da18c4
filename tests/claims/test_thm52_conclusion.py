"""thm-5.2's finite-prompt conclusion (softlin/claims/thm_5_2/conclusion.py): each check turns under
the slip it is there for, and the centring slip in the training gradient refutes the claim."""

import math

import numpy as np
import pytest

from softlin.claims.shared import icl as icl_common
from softlin.claims.thm_5_2 import claim as thm52
from softlin.claims.thm_5_2 import conclusion
from softlin.core.claim import claim_rng
from softlin.numerics import icl_training
from ..checks import check

SIGMA = np.array([[1.6, 0.3], [0.3, 0.5]])
LS = [10, 30, 100, 300]


def _power_law(r_inf=0.0, p=0.7, rel_se=0.05):
    """Risks r_inf + 1.6 L^-p with 5 % standard errors (the default scenario's shape: 0.40, 0.22,
    0.11, 0.035 at standard)."""
    r = r_inf + 1.6 * np.array(LS, float) ** -p
    return r.tolist(), (rel_se * r).tolist()


def _by_id(checks):
    return {c.id: c for c in checks}


def test_a_decaying_risk_passes_decay_and_limit():
    r, se = _power_law()
    decay, limit, _ = conclusion.decay_checks(LS, r, se, 0.001, 0.01)
    assert decay.passed is True and limit.passed is True


def test_a_risk_that_does_not_fall_with_L_refutes_the_decay():
    """The centring slip's risks at quick (0.51, 0.49, 0.52): no decay, where the exact risks
    (here the default scenario's shape, 1.6 L^-0.7) decay at a rate the test resolves."""
    exact = (1.6 * np.array(LS[:3], float) ** -0.7).tolist()
    decay, _, _ = conclusion.decay_checks(
        LS[:3], [0.51, 0.488, 0.523], [0.043, 0.046, 0.045], 0, 0.01, exact
    )
    assert decay.passed is False


def test_a_decay_the_lengths_cannot_resolve_is_undecided_not_refuted():
    """Issue 41: a hunt draw (thm-5.2 at quick, Sigma = 0.5, alpha = 1/8, L = 4, 8) was refuted
    at p / se = 1.3 against 4.75, although its exact finite-L risks (0.233, 0.164) decay with
    p = 0.5: p's standard error 0.2 resolves that to 2.5 only. Undecided, naming the reach; the
    same risks without exact ones to plan from are undecided too, and a significant decay over
    the same lengths still passes."""
    risk, se, exact = [0.18974162, 0.15806771], [0.016917053, 0.016813241], [0.2332547, 0.1642897]
    decay, _, _ = conclusion.decay_checks([4, 8], risk, se, 0.002071, 0.03, exact)
    assert decay.passed is None and "beyond the decay test's reach over L = [4, 8]" in decay.reason
    assert "p = 0.506" in decay.reason  # ln(0.2333 / 0.1643) / ln 2
    decay, _, _ = conclusion.decay_checks([4, 8], risk, se, 0.002071, 0.03, [math.nan] * 2)
    assert decay.passed is None and "no exact finite-L risk" in decay.reason
    decay, _, _ = conclusion.decay_checks([4, 8], [0.4, 0.1], [0.004, 0.001], 0.002, 0.03, exact)
    assert decay.passed is True


def test_a_risk_that_levels_off_above_eps_refutes_the_limit():
    """A plateau of 0.15 under a decaying power: the exponent is still significant, the
    extrapolated limit is not within eps (r = 0.15 +- 0.025 here: a plateau of 0.05 is beyond
    this resolution, r's error carries the exponent's)."""
    r, se = _power_law(r_inf=0.15)
    decay, limit, numbers = conclusion.decay_checks(LS, r, se, 0.001, 0.01)
    assert decay.passed is True and limit.passed is False
    assert numbers["limit"] == pytest.approx(0.15, abs=1e-6)


def test_a_limit_the_decay_cannot_support_is_undecided_not_refuted():
    """A hunt draw (thm-5.2 at quick, seed 303, example 1: L = 16, 32, 64, far below L(0.03) =
    31 148): the trained risks 0.90, 0.52, 0.47 with no exact risk at L = 16, 32, so the decay test
    cannot judge the decay, and the fit r + C L^-p through three points put r at 0.466 +- 0.054
    against R_inf = 0.059 (refuted at 7.0 against 4.75). The limit's fit presumes the decay:
    undecided with the decay's reason. A significant decay with the exponent at the end of its
    range (risks 1.6 L^-0.02) is undecided too."""
    risk, se = [0.9008, 0.5198, 0.4669], [0.09, 0.06, 0.055]
    decay, limit, _ = conclusion.decay_checks(
        [16, 32, 64], risk, se, 0.05877, 0.03, [math.nan, math.nan, 0.43344]
    )
    assert decay.passed is None and limit.passed is None
    assert "presumes the decay" in limit.reason and "no exact finite-L risk" in limit.reason
    r = (1.6 * np.array(LS, float) ** -0.02).tolist()
    decay, limit, _ = conclusion.decay_checks(LS, r, [1e-5 * x for x in r], 0.001, 0.01)
    assert decay.passed is True and limit.passed is None
    assert "sits at an end of its range" in limit.reason


class _Exact:
    """A stand-in for icl_exact.ExcessRisk at one point: the exact gradient and risk given."""

    def __init__(self, grad, risk, excess=0.01):
        self._grad, self._risk, self._excess = np.asarray(grad, float), risk, excess

    def grad(self, theta):
        return self._grad

    def gap(self, theta):
        return 0.1 * self._grad

    def risk(self, theta):
        return self._risk

    def excess(self, theta):
        return self._excess


def _training(train_grad, risk, se=0.01, fresh_grad=None):
    r, rse = _power_law()
    r[-1] = risk
    fresh = train_grad if fresh_grad is None else fresh_grad
    return {
        "L": LS,
        "theta": [np.zeros(5)] * 4,
        "train_grad": [np.asarray(train_grad, float)] * 4,
        "sample_grad_se": [np.full(5, se)] * 4,
        "eval_grad": [np.asarray(fresh, float)] * 4,
        "eval_grad_se": [np.full(5, se / 2)] * 4,
        "per_prompt_mean": [[np.asarray(train_grad, float), np.asarray(fresh, float)]] * 4,
        "per_prompt_scale": [[np.ones(5), np.ones(5)]] * 4,
        "risk": r,
        "risk_stderr": rse,
        "inf_final_risk": 0.001,
    }


def _checks(monkeypatch, exact_grad, train_grad, mc_risk, fresh_grad=None):
    r, _ = _power_law()
    monkeypatch.setattr(
        conclusion, "exact_route", lambda S, L, th: (_Exact(exact_grad, r[LS.index(L)]), 0.4)
    )
    return _by_id(
        conclusion.conclusion_checks(
            SIGMA,
            _training(train_grad, mc_risk, fresh_grad=fresh_grad),
            0.01,
            np.array([0.5, 0, 0, 0.5, 0.5]),
        ).checks
    )


def test_the_fresh_samples_gradient_within_its_noise_of_the_exact_one_passes(monkeypatch):
    """The training stopped short of stationarity (its residual 0.05 and less), as it does: the
    fresh sample's gradient within 2 standard errors (0.005) of the exact gradient passes, and the
    stationarity statistic is reported, not judged."""
    g = np.array([0.05, -0.02, 0.0, 0.03, 0.01])
    r, _ = _power_law()
    checks = _checks(monkeypatch, g + 0.02, g, r[-1], fresh_grad=g + 0.02 + 0.01)
    assert checks["training/endpoint-gradient-exact"].passed is True
    assert checks["training/endpoint-risk-exact"].passed is True
    assert "training/endpoint-stationary" not in checks  # reported in the detail, not judged
    assert (
        "reported, not judged: the stationarity z"
        in checks["training/endpoint-gradient-exact"].detail
    )


def test_an_endpoint_where_the_wrong_gradient_vanishes_is_refuted(monkeypatch):
    """A slip in the training gradient: the training's code gives 0 at its endpoint, on the
    training sample and (its mean being off) on the fresh one, while the exact gradient there is
    20 of the fresh sample's standard errors away."""
    r, _ = _power_law()
    checks = _checks(monkeypatch, np.array([0.1, 0, 0, 0, 0]), np.zeros(5), r[-1])
    assert checks["training/endpoint-gradient-exact"].passed is False


def test_the_gradient_check_is_two_sided_and_counts_every_component(monkeypatch):
    """Just beyond the critical value on one component of one L (of 20 tests), in either
    direction, refutes; just inside passes."""
    from softlin.judge.check import check_false_alarm
    from softlin.numerics.significance import z_critical

    z_c = z_critical(check_false_alarm(), 20)
    se = 0.005  # the fresh sample's standard error in _training
    r, _ = _power_law()
    g = np.array([0.02, 0.0, 0.0, 0.0, 0.0])
    allow = conclusion.QUAD_REL * 0.1 * np.abs(g)  # _Exact's gap is 0.1 grad
    for sign, factor, passed in ((1, 1.01, False), (-1, 1.01, False), (1, 0.99, True)):
        fresh = g.copy()
        fresh[0] += sign * (factor * z_c * se + allow[0])
        checks = _checks(monkeypatch, g, g, r[-1], fresh_grad=fresh)
        assert checks["training/endpoint-gradient-exact"].passed is passed, (sign, factor)


def _per_prompt_result(vectors):
    """A training result at one L holding what per_prompt_check reads: the training's gradient on
    a PromptSample and the per-prompt vectors `vectors(sample, A, b)` the standard errors would
    be taken from (the same sample stands for the training and the evaluation sample)."""
    sample = icl_training.PromptSample(SIGMA, 12, 400, np.random.default_rng(3))
    A, b = np.array([[0.6, 0.1], [-0.2, 0.9]]), 1.1
    _, gA, gb = sample.risk_and_grad(A, b)
    grad = np.concatenate([gA.ravel(), [gb]])
    G = vectors(sample, A, b)
    return {
        "L": [12],
        "train_grad": [grad],
        "eval_grad": [grad],
        "per_prompt_mean": [[G.mean(axis=0)] * 2],
        "per_prompt_scale": [[np.abs(G).mean(axis=0)] * 2],
    }


def test_the_standard_errors_vectors_must_average_to_the_training_gradient():
    """The per-prompt gradients at each prompt's own w average to the training's gradient to
    rounding (passes, far inside the tolerance); the plausible wrong vectors are refuted: the
    w-averaged gradients (an se about half too small), grad_b with its sign flipped, grad_A
    without the factor b."""

    def own_w(sample, A, b):
        return icl_training.prompt_gradient_batch(sample.X, sample.xq, A, b, w=sample.w)

    def w_averaged(sample, A, b):
        return icl_training.prompt_gradient_batch(sample.X, sample.xq, A, b)

    def b_sign(sample, A, b):
        G = own_w(sample, A, b)
        G[:, -1] *= -1
        return G

    def factor_b_dropped(sample, A, b):
        G = own_w(sample, A, b)
        G[:, :-1] /= b
        return G

    good = conclusion.per_prompt_check(_per_prompt_result(own_w))
    assert good.passed is True and good.value < 1e-3 * conclusion.PER_PROMPT_TOLERANCE
    for wrong in (w_averaged, b_sign, factor_b_dropped):
        bad = conclusion.per_prompt_check(_per_prompt_result(wrong))
        assert bad.passed is False and bad.value > 1e3 * conclusion.PER_PROMPT_TOLERANCE, wrong


def test_a_monte_carlo_risk_off_the_exact_risk_is_refuted(monkeypatch):
    r, se = _power_law()
    checks = _checks(monkeypatch, np.zeros(5), np.zeros(5), r[-1] + 8 * se[-1])
    assert checks["training/endpoint-risk-exact"].passed is False


def _uncentred_risk_and_grad(self, A, b):
    """PromptSample.risk_and_grad with the centring of the softmax-weighted covariance dropped:
    sum_i p_i y_i x_i for sum_i p_i (y_i - S) x_i (issue 40's measured slip)."""
    total, gA, gb = 0.0, np.zeros_like(A), 0.0
    for sl in self._chunks():
        p, S = self._forward(A, sl)
        err = b * S - self.target[sl]
        total += 0.5 * float(np.sum(err**2))
        gb += float(np.sum(err * S))
        mx = np.einsum("nl,nld->nd", p * self.y[sl], self.X[sl])
        gA += b * np.einsum("n,nd,ne->de", err, mx, self.xq[sl])
    return total / self.n, gA / self.n, gb / self.n


@pytest.mark.slow  # ~90 s at quick (training and the exact tables)
def test_the_uncentred_training_gradient_refutes_thm52_at_quick(monkeypatch):
    monkeypatch.setattr(icl_training.PromptSample, "risk_and_grad", _uncentred_risk_and_grad)
    icl_common.forget_training()
    try:
        cert = thm52.run(icl_common.default_scenario(), "quick", claim_rng(0, "thm-5.2"))
    finally:
        icl_common.forget_training()
    assert cert["status"] == "refuted"
    # The slip's endpoints leave the exact tables (lambda 59 to 727), so the decay test has no
    # exact risks to plan its reach from and is undecided (issue 41), and so is the limit, whose
    # fit presumes that decay; the flat risks are refuted by the decrease checks.
    assert check(cert, "training/risk-decay")["passed"] is None
    assert check(cert, "training/risk-limit")["passed"] is None
    assert "presumes the decay" in check(cert, "training/risk-limit")["reason"]


SHORT_LENGTHS = """[icl]
sigma = [[0.5]]
alpha = 0.125
noise = 0.0
L = [4, 8]
eps = [0.1, 0.03]
"""


@pytest.mark.slow  # a quick thm-5.2 run: 238 s on the loaded 2 cores
def test_the_hunts_short_lengths_draw_is_not_refuted_through_the_cli(tmp_path, capsys):
    """Issue 41: `softlin verify thm-5.2 --scenario FILE --profile quick` on the hunt's first draw
    was refuted (exit 1, 14/16/16: training/risk-decay 1.32 against 4.75); now the decay is
    undecided with its reach, and nothing is refuted."""
    import json

    from softlin.cli import main

    path = tmp_path / "short.toml"
    path.write_text(SHORT_LENGTHS)
    out = tmp_path / "out"
    code = main(
        ["verify", "thm-5.2", "--profile", "quick", "--scenario", str(path), "--out", str(out)]
    )
    capsys.readouterr()
    cert = json.loads((out / "certificates" / "thm-5.2.json").read_text())
    assert cert["status"] != "refuted" and code in (0, 1)
    decay = check(cert, "training/risk-decay")
    assert decay["passed"] is None and "beyond the decay test's reach" in decay["reason"]
