"""thm-5.2's validated flow (softlin/claims/thm_5_2/validated.py): the enclosure proves convergence
to the Bayes endpoint and contains the float route at the built-in scenario and at user scenarios
(d = 1, 3; ||Sigma||_op > 1, erratum 2's regime), and its negative controls are never passed: an
endpoint moved by 1e-4, a time T(eps) lowered by 1 %, the float route's endpoint shifted, a slipped
gradient in the enclosed field."""

import functools

import numpy as np
import pytest

from softlin.claims.shared import icl as icl_common
from softlin.claims.thm_5_2 import validated
from softlin.claims.thm_5_2.claim import ODE_RELATIVE_TOLERANCE
from softlin.numerics import icl_flows, kernels

SCENARIO = icl_common.validate(icl_common.default_scenario())
SIGMA, ALPHA, EPS = SCENARIO["Sigma"], SCENARIO["icl"]["alpha"], SCENARIO["eps"]
IDS = (
    "flow/contraction-proves-convergence",
    "flow/limit-is-bayes-endpoint",
    "flow/float-route-inside",
)


def _checks(Sigma=SIGMA, alpha=ALPHA, theta=None, eps=EPS, **kw):
    found = validated.flow_checks(Sigma, alpha, theta, eps, tolerance=ODE_RELATIVE_TOLERANCE, **kw)
    return {c.id: c for c in found.checks}, found.quantities


def _verdicts(checks):
    return {i: checks[i].passed for i in IDS}


def test_the_built_in_scenario_is_proved_and_outside_the_appendix_lemma():
    assert np.linalg.norm(SIGMA, 2) > 1  # erratum 2's regime
    checks, q = _checks()
    assert _verdicts(checks) == dict.fromkeys(IDS, True)
    assert all(checks[i].tier == "enclosure" for i in IDS)
    # the levels asked for and the scenario's all enclosed, each interval narrow and ordered
    enclosed = q["time_to_risk_enclosure"]
    assert set(enclosed) == {0.1, 0.03, 0.01, 1e-4}
    for lo, hi in enclosed.values():
        assert 0 < lo < hi < lo * (1 + 1e-6)
    ends = [enclosed[e] for e in sorted(enclosed, reverse=True)]
    assert all(a[1] < b[0] for a, b in zip(ends, ends[1:]))  # the risk falls: T(eps) grows
    # the proved limit's box holds the endpoint computed independently here (numpy, not kernels)
    Sinv = np.linalg.inv(SIGMA)
    b_star = np.trace(Sinv @ Sinv) ** 0.25
    lo, hi = q["endpoint_enclosure"]["b"]
    assert lo <= b_star <= hi and hi - lo < 1e-6


def test_a_one_dimensional_scenario_is_proved():
    checks, _ = _checks(np.array([[0.7]]), 0.5, None, [0.1, 0.01])
    assert _verdicts(checks) == dict.fromkeys(IDS, True)


@pytest.mark.slow
@pytest.mark.parametrize(
    "Sigma, alpha, theta",
    [
        (np.array([[3.0, 0.5], [0.5, 1.0]]), 0.3, None),  # ||Sigma||_op = 3.1
        (np.array([[1.6, 0.3], [0.3, 0.5]]), 0.5, [[1.0, 0.2], [0.0, 1.0]]),  # Theta != I
        (np.array([[0.25]]), 4.0, None),  # erratum 3's witness: alpha above the cited range
    ],
    ids=["norm-3", "theta", "erratum-3-witness"],
)
def test_user_scenarios_are_proved(Sigma, alpha, theta):
    checks, _ = _checks(Sigma, alpha, theta, [0.1, 0.01])
    assert _verdicts(checks) == dict.fromkeys(IDS, True)


@pytest.mark.slow
def test_a_three_dimensional_scenario_is_proved():
    Sigma = np.array([[1.2, 0.2, 0.1], [0.2, 0.8, 0.0], [0.1, 0.0, 0.5]])
    checks, q = _checks(Sigma, 0.4, None, [0.1, 0.01])
    assert _verdicts(checks) == dict.fromkeys(IDS, True)
    assert float(q["flow_enclosure"]["error_radius_T"]) < 1e-20


def test_an_endpoint_moved_by_1e_4_is_refuted():
    As, bs = icl_flows.endpoint(SIGMA)
    checks, _ = _checks(endpoint=(As, bs + 1e-4), float_route=_float_route())
    assert checks["flow/limit-is-bayes-endpoint"].passed is False
    checks, _ = _checks(endpoint=(As + 1e-4 * np.eye(2), bs), float_route=_float_route())
    assert checks["flow/limit-is-bayes-endpoint"].passed is False


@functools.lru_cache(maxsize=1)
def _route():
    return validated.float_flow(SIGMA, ALPHA, None, validated.levels_of(EPS))


def _float_route():
    """A copy of the built-in scenario's float route, to be slipped."""
    return dict(_route())


def test_a_time_to_risk_lowered_by_one_percent_is_refuted():
    for eps in validated.levels_of(EPS):
        route = _float_route()
        route["time_to_risk"] = {**route["time_to_risk"], eps: 0.99 * route["time_to_risk"][eps]}
        checks, _ = _checks(float_route=route)
        assert checks["flow/float-route-inside"].passed is False, eps


def test_the_float_route_endpoint_shifted_is_refuted():
    route = _float_route()
    checks, _ = _checks(float_route=dict(route, b=route["b"] * (1 + 1e-4)))
    assert checks["flow/float-route-inside"].passed is False
    A = route["A"].copy()
    A[0, 1] += 1e-4
    checks, _ = _checks(float_route=dict(route, A=A))
    assert checks["flow/float-route-inside"].passed is False


def test_a_doubled_grad_b_in_the_enclosed_field_is_refuted():
    """The slipped field still has the Bayes endpoint among its zeros, but its flow reaches the
    risk levels at other times: the float route (correct kernels) falls outside (d = 1: cheap)."""

    def grad_b(Sigma, A, b):
        return 2 * kernels.icl_grad_b(Sigma, A, b)

    checks, _ = _checks(
        np.array([[0.7]]), 0.5, None, [0.1, 0.01], gradients=(kernels.icl_grad_A, grad_b)
    )
    assert checks["flow/float-route-inside"].passed is False


def test_a_failed_enclosure_is_undecided_never_passed(monkeypatch):
    from softlin.numerics import icl_flow_enclosure

    monkeypatch.setattr(icl_flow_enclosure, "ORDER", 2)  # steps of ~1e-12: the budget runs out
    real = icl_flow_enclosure.ode.enclose

    def short(*a, **kw):
        return real(*a, **dict(kw, max_segments=20))

    monkeypatch.setattr(icl_flow_enclosure.ode, "enclose", short)
    checks, _ = _checks(np.array([[0.71]]), 0.5, None, [0.1])  # a scenario not cached
    for i in IDS:
        assert checks[i].passed is None and checks[i].reason, i
