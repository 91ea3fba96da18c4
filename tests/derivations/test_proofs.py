"""Every symbolic identity of the derivations holds, and the prover rejects false ones."""

import mpmath as mp
import pytest
import sympy as sp

from softlin.derivations import catalogue, concentration, controls, lemma21, tilt
from softlin.derivations.proof import is_zero, prove_zero


# icl's and gradients' proofs take ~19 s and ~8 s: in the slow tier, where `softlin derive --check`
# also re-runs every proof
SLOW_GROUPS = {"icl", "gradients"}
# groups another default-run test also proves: one worker runs the group once (~14 s each)
SHARED_GROUPS = {"fluctuations": "fluctuation-proofs"}


def _group_param(group):
    if group in SLOW_GROUPS:
        return pytest.param(group, marks=pytest.mark.slow)
    if group in SHARED_GROUPS:
        return pytest.param(group, marks=pytest.mark.xdist_group(SHARED_GROUPS[group]))
    return group


@pytest.mark.parametrize("group", [_group_param(g) for g in sorted(catalogue.GROUPS)])
def test_every_identity_of_the_group_reduces_to_zero(group):
    proofs = catalogue.GROUPS[group]()
    assert proofs, group
    failed = [p.statement for p in proofs if not p.passed]
    assert not failed


def test_prover_rejects_a_tilted_mean_with_a_doubled_gamma():
    a, m, B = tilt.entry_symbols(2, 1)
    _, mean, _ = tilt.tilt_moments_entries(a, m, B)
    assert not prove_zero("wrong", mean - (m + 2 * B * B.T * a)).passed


def test_prover_rejects_a_tilted_covariance_that_grows_with_the_tilt():
    a, m, B = tilt.entry_symbols(2, 2)
    _, mean, second = tilt.tilt_moments_entries(a, m, B)
    cov = second - mean * mean.T
    assert not is_zero(cov - (B * B.T + a * a.T))


def test_prover_rejects_lemma_with_transposed_interaction_matrix():
    s = lemma21.limit_symbols()
    wrong = s["V"] * (s["m"] + s["Gamma"] * s["U"].T * s["z"])
    assert not is_zero(lemma21.gaussian_limit_matrix(s) - wrong)


def test_one_dimensional_gaussian_moments_match_mpmath_quadrature():
    t = sp.Rational(3, 7)
    for p in range(3):
        symbolic = sp.N(tilt.gaussian_moment_1d(p).subs(tilt.t_sym, t), 30)
        with mp.workdps(30):
            numeric = mp.quad(
                lambda g: g**p * mp.exp(mp.mpf(3) / 7 * g - g * g / 2), [-mp.inf, mp.inf]
            ) / mp.sqrt(2 * mp.pi)
            assert abs(mp.mpf(str(symbolic)) - numeric) < mp.mpf(10) ** -25


def test_weight_second_moment_is_a_gamma_a_and_shift_is_gamma_a():
    s = concentration.symbols()
    assert is_zero(concentration.log_weight_second_moment(s) - s["a"].T * s["Gamma"] * s["a"])
    assert is_zero(concentration.tilted_shift(s) - s["Gamma"] * s["a"])


def test_uniform_control_series_and_closed_form_agree_at_the_switch():
    exact = controls.uniform_tilted_mean_exact()
    series = sp.series(exact, controls.a_sym, 0, controls.SERIES_ORDER).removeO()
    x = controls.SERIES_RADIUS
    assert abs(sp.N(exact.subs(controls.a_sym, x) - series.subs(controls.a_sym, x), 30)) < 1e-16
