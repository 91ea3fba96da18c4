"""asm-3.3's Monte Carlo split: the entries of orders 0 and 4, whose estimator's second moment is
derived, judged by Catoni's test with that variance (a proven level); the order-8 entries by the
normal test. On a one-dimensional scenario (the default's first coordinates), so that the exact
closed forms cost little."""

import functools

import numpy as np
import sympy as sp

from softlin.claims.asm_3_3 import claim as asm33
from softlin.claims.asm_3_3 import montecarlo as mcm
from softlin.derivations import tilted_moments as tm
from softlin.numerics import kernels
from softlin.numerics import tilted_moments as nt
from softlin.numerics.laws import GaussianLaw

# the default scenario's first coordinates (m, Gamma, U, Sigma_q)_11
M, G, U, SQ = np.array([0.1]), np.array([[1.3]]), np.array([[0.2]]), np.array([[1.5]])
R = asm33.exact_decimals
ME, GE, UE, SE = R(M).T, R(G), R(U), R(SQ)
DERIVED = [(i, j) for i in (0, 1) for j in (0, 1)]  # orders (p, q) in {0, 4}^2


def _lognorm(A):
    return kernels.mixture_component_logit(0.0, M[:, None], G, np.eye(1), A.T)[0]


@functools.lru_cache(maxsize=None)
def _tables(closed_form=tm.tilted_moment):
    """Only the derived entries (the order-8 ones cost most and are not needed here)."""
    return _orders_0_4(lambda p, q, c: closed_form(p, q, c, ME, GE, UE, SE))


def _orders_0_4(form):
    return {
        c: [[form(p, q, c) if 8 not in (p, q) else sp.oo for q in tm.ORDERS] for p in tm.ORDERS]
        for c in tm.POWERS
    }


@functools.lru_cache(maxsize=None)
def _seconds():
    return mcm.second_moments(_tables(), ME, GE, UE, SE, 1)


def _samples(c, n, seed):
    out = np.empty((n, len(DERIVED)))
    rng = np.random.default_rng(seed)
    nt.monte_carlo(GaussianLaw(M, G), _lognorm, U, SQ, c, n, rng, keep=tuple(DERIVED), out=out)
    return out


def test_derived_estimator_variance_matches_the_sampled_one_and_slips_in_it_do_not():
    """Each of the 8 derived variances Var Y_pq = E[(Y w)^2] - M_pq^2 against the sample variance
    s^2 of 200 000 weighted draws, within 6 standard errors of s^2 (its se from the sample's
    fourth central moment, sqrt((m4 - s^4) / n): a nominal 2e-9 per entry). The same comparison
    must reject a factor 2 either way in the variance, and the weight's token dimension r dropped
    from (W^2/beta)^((d + r)/2) in the second moment (a factor (W^2/beta)^(1/2) = 1.51): the
    comparison sees the slips a proven-level test's input could carry."""
    tables = _tables()
    n = 200_000
    for c in tm.POWERS:
        y = _samples(c, n, seed=c)
        for k, (i, j) in enumerate(DERIVED):
            p, q = tm.ORDERS[i], tm.ORDERS[j]
            second = tm.importance_second_moment(p, q, c, ME, GE, UE, SE, nt.WIDEN, 1)
            v = mcm.variance_bound(second, tables[c][i][j])
            col = y[:, k]
            s2 = col.var(ddof=1)
            se = np.sqrt((np.mean((col - col.mean()) ** 4) - s2**2) / n)
            assert abs(s2 - v) <= 6 * se, (c, p, q, s2, v, se)
            for wrong in (2 * v, v / 2):
                assert abs(s2 - wrong) > 6 * se, (c, p, q, "factor 2", s2, wrong, se)
            dropped = tm.importance_second_moment(p, q, c, ME, GE, UE, SE, nt.WIDEN, 0)
            wrong = mcm.variance_bound(dropped, tables[c][i][j])
            assert abs(s2 - wrong) > 6 * se, (c, p, q, "rank dropped", s2, wrong, se)


def _decision(tables, n=100_000, seed=0):
    seconds = _seconds()
    lam = float(U[0, 0] ** 2 * G[0, 0] * SQ[0, 0])
    found, _ = mcm.montecarlo_check(
        "d = 1",
        GaussianLaw(M, G),
        _lognorm,
        tables,
        U,
        SQ,
        lam,
        n,
        np.random.default_rng(seed),
        seconds,
    )
    return {c.id: c for c in found.checks}


def test_proven_decision_states_its_bound_and_refutes_each_slipped_closed_form():
    """The derived entries' decision: Catoni's test, false alarm kind 'bound' with the derived
    variance named as its source, 8 entries; verified on the derived closed forms and refuted on
    each of the claim's slips (mean shift forgotten, Z(a)^c not divided out, U transposed is
    U in d = 1 so left out), at 30 000 draws per power: each slip moves some entry by far more
    than the decision resolves (measured: up to -84 % and +110 % of a closed form, against a
    `detectable` of 6.5 % at the best-resolved entry). The order-8 decision (no entry here) is
    undecided, never passed."""
    right = _decision(_tables(), n=30_000)
    proven = right["montecarlo/closed-forms"]
    assert proven.passed is True and proven.false_alarm.kind == "bound"
    assert "importance_second_moment" in proven.false_alarm.assumption
    assert "over 8 entries" in proven.detail
    assert right["montecarlo/order-8-closed-forms"].passed is None
    wrong_forms = asm33.slips(ME, GE, UE, SE)
    for name, (key, form) in wrong_forms.items():
        if key == "u-transposed":
            continue
        slipped = _orders_0_4(form)
        got = _decision(slipped, n=30_000)["montecarlo/closed-forms"]
        assert got.passed is False and got.value > 1, (name, got.value)


def test_a_closed_form_off_by_its_detectable_slip_is_refuted():
    """Power as stated: every derived entry's closed form raised by the decision's own
    `detectable` (its planned power 0.999, a lower bound) makes the decision fail at this seed."""
    tables = _tables()
    d = _decision(tables)["montecarlo/closed-forms"].detectable
    assert 0 < d < 0.1
    raised = {
        c: [[v * (1 + d) if v != sp.oo else v for v in row] for row in tables[c]] for c in tm.POWERS
    }
    assert _decision(raised)["montecarlo/closed-forms"].passed is False


def test_importance_weight_proofs_pass_and_reject_their_nearest_slips():
    """The three proved steps behind the derived variance; the same statements with beta = 2 (the
    proposal's 1/W^2 forgotten) or the exponent c^2/beta - c (E e^{2c a^T x} read as e^{c ...})
    must not reduce to zero."""
    from softlin.derivations import tilt
    from softlin.derivations.proof import prove_zero

    assert all(p.passed for p in tm.importance_weight_proofs())
    W, h = sp.Symbol("W", positive=True), sp.Symbol("h", real=True)
    w = W * sp.exp(-(1 - 1 / W**2) * h**2 / 2)
    phi = lambda x, v: sp.exp(-(x**2) / (2 * v)) / sp.sqrt(2 * sp.pi * v)
    assert not prove_zero(
        "beta = 2", w * phi(h, 1) - sp.sqrt(W**2 / 2) * phi(h, sp.Rational(1, 2))
    ).passed
    c, b = sp.symbols("c beta", positive=True)
    s = tilt.matrix_symbols()
    logZ = tilt.log_normaliser_gamma(s)
    aGa = s["a"].T * s["Gamma"] * s["a"]
    exponent = logZ.subs(s["a"], 2 * c * s["a"]).subs(s["Gamma"], s["Gamma"] / b) - 2 * c * logZ
    assert not prove_zero("c^2", (exponent - (c**2 / b - c) * aGa).expand()).passed


def test_block_means_are_the_kept_samples_averaged_on_the_same_stream():
    """montecarlo_check judges block means of BLOCK draws (iid, variance Var / BLOCK): the kept
    block means equal the per-draw samples averaged in consecutive blocks of the same stream, and
    the (3, 3) means are untouched by keeping."""
    n, b = 20_000, mcm.BLOCK
    flat, blocks = _samples(1, n, seed=5), np.empty((n // b, len(DERIVED)))
    rng = np.random.default_rng(5)
    law = GaussianLaw(M, G)
    mean, _ = nt.monte_carlo(
        law, _lognorm, U, SQ, 1, n, rng, keep=tuple(DERIVED), out=blocks, block=b
    )
    plain, _ = nt.monte_carlo(law, _lognorm, U, SQ, 1, n, np.random.default_rng(5))
    np.testing.assert_allclose(blocks, flat.reshape(n // b, b, -1).mean(axis=1), rtol=1e-12)
    np.testing.assert_array_equal(mean, plain)


def test_nothing_testable_leaves_both_decisions_undecided_with_their_levels():
    """Beyond the sampler's variance threshold (lambda >= 1/2 for c = 1) no entry is tested: both
    decisions are undecided (never passed), each still stating its level's kind."""
    found, results = mcm.montecarlo_check(
        "d = 1",
        GaussianLaw(M, G),
        _lognorm,
        _tables(),
        U,
        SQ,
        0.9,
        1000,
        np.random.default_rng(0),
        _seconds(),
    )
    checks = {c.id: c for c in found.checks}
    assert results == {}
    assert checks["montecarlo/closed-forms"].passed is None
    assert checks["montecarlo/closed-forms"].false_alarm.kind == "bound"
    assert checks["montecarlo/order-8-closed-forms"].passed is None
    assert checks["montecarlo/order-8-closed-forms"].false_alarm.kind == "nominal"
