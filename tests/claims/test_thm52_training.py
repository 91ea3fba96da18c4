"""thm-5.2's consistency check on the finite-prompt training's risks (claims/thm_5_2/training.py):
a rise within the noise passes, a significant rise between consecutive L or overall fails."""

from softlin.claims.thm_5_2.training import risk_decrease_check
from softlin.numerics.significance import z_critical


def check(risk, se, inf_final_risk=0.0):
    return risk_decrease_check(
        {"risk": risk, "risk_stderr": se, "inf_final_risk": inf_final_risk}, eps=0.1
    )


def test_an_insignificant_rise_passes_and_states_its_z():
    # the hunt draw's risks (softlin hunt thm-5.2 --seed 11): a rise of ~2.5 standard errors
    c = check([1.28122e-06, 1.75621e-06], [1.4e-7, 1.4e-7])
    assert c.passed is True and c.tier == "consistency"
    assert c.bound == [z_critical(1e-6, 2, sided=1)] * 2 and 2 < c.value[1] < 3


def test_a_significant_consecutive_rise_fails():
    assert check([1.0, 0.5, 0.9, 0.1], [0.01] * 4).passed is False


def test_a_significant_overall_rise_fails_where_each_step_is_within_the_noise():
    risk = [1.0 + 0.04 * k for k in range(6)]  # each step 2.8 se, the whole 14 se
    c = check(risk, [0.01] * 6)
    assert c.value[0] < c.bound[0] < c.value[1] and c.passed is False


def test_a_decrease_passes():
    assert check([0.5, 0.3, 0.2], [0.01] * 3).passed is True


def test_training_that_has_not_reached_the_optimum_is_not_judged():
    """Far from the optimum R_L need not fall in L (softlin hunt thm-5.2 --seed 23: alpha 1024,
    risks 6.5e6 then 1.3e7, the infinite-prompt training at 6.1e9 at the horizon)."""
    c = check([6.5018e6, 1.28981e7], [1e5, 1e5], inf_final_risk=6.129e9)
    assert c.passed is None and c.judged is False and "not near the optimum" in c.reason
