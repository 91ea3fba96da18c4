"""prop-3.1's in-expectation bound: a slip in any of its constants fails one of the proofs of
derivations/fluctuations_bound.py (part of prop-3.1's symbolic check, tier proof), so the claim
turns red. Each slip is injected where it would be made: the derivation's own pieces."""

from __future__ import annotations

import pytest
import sympy as sp

from softlin.derivations import fluctuations_bound as fb


def _failed(monkeypatch, name, replacement) -> list[str]:
    monkeypatch.setattr(fb, name, replacement)
    return [p.statement for p in fb.proofs() if not p.passed]


def test_every_bound_proof_holds_as_derived():
    assert all(p.passed for p in fb.proofs())
    # the tightness limit is computed, and it is the good event's constant
    assert fb.tightness_limit() == 4


def test_e_to_the_q_dropped_from_the_first_term_is_refuted(monkeypatch):
    failed = _failed(monkeypatch, "numerator_second_moment", lambda: 1 / fb.L_sym)
    assert any("tightness" in s for s in failed) and any("display" in s for s in failed)


def test_e_to_the_q_dropped_from_the_weight_second_moment_is_refuted(monkeypatch):
    # E w^2 = 1 in both terms (the first term and Maurer's variance)
    failed = _failed(monkeypatch, "weight_second_moment", lambda: sp.Integer(1))
    assert any("display" in s for s in failed)


def test_maurer_factor_two_dropped_is_refuted(monkeypatch):
    # a majorant 1 - x + x^2 / 4 gives Maurer's exponent -n t^2 / s (the 2 of 2 E w^2 dropped);
    # 1 - x + x^2 gives -n t^2 / (4 s)
    for slipped in (1 - fb.x_sym + fb.x_sym**2, 1 - fb.x_sym + fb.x_sym**2 / 4):
        failed = _failed(monkeypatch, "exponential_majorant", lambda e=slipped: e)
        assert any("Maurer's lower tail" in s for s in failed)
        assert any("display" in s for s in failed)


def test_maurer_exponent_typed_without_its_two_is_refuted(monkeypatch):
    failed = _failed(monkeypatch, "maurer_exponent", lambda: -fb.n_sym * fb.t_sym**2 / fb.s_sym)
    assert any("Maurer's lower tail" in s for s in failed)


def test_a_wrong_good_event_constant_is_refuted(monkeypatch):
    # |V X / D|^2 <= 2 |V X|^2 on D >= 1/2 (1/D not squared)
    failed = _failed(
        monkeypatch,
        "good_event_constant",
        lambda: sp.calculus.util.maximum(1 / fb.D_sym, fb.D_sym, fb.GOOD_EVENT),
    )
    assert failed


@pytest.mark.parametrize("power", [4, 8])
def test_a_wrong_power_of_sigma_in_the_paper_form_is_refuted(monkeypatch, power):
    def form():
        return (
            fb.c1_sym
            * fb.sigma_sym**power
            * sp.log(fb.L_sym)
            / fb.L_sym ** (fb.c2_sym / fb.sigma_sym**2)
        )

    failed = _failed(monkeypatch, "paper_form", form)
    assert any("paper_constant = L bound" in s for s in failed)
