"""The finite-L grad_U error display (derivations/gradient_error_display.py): its Wick proof rejects
plausible slips of the display, and the emitted kernel evaluates the proved expression, in floats
and in Arb balls alike."""

from __future__ import annotations

import numpy as np
import sympy as sp
from flint import arb

from softlin.derivations import gradient_error_display as ged
from softlin.numerics import kernels


def _slipped(old, new):
    """The display with the scalar `old` replaced by `new` in one of its terms."""

    def stated(invariants, scalars):
        zz, eMe, ee, eMPe, trP, trMP, trPMP = invariants
        S_aa, S_aA, S_AA, S_A, S_A3, S_H = scalars
        terms = {
            "aa": S_aa * eMe * ee,
            "aA": -2 * S_aA * eMPe,
            "PMP": (2 * S_AA + S_A - 2 * S_A3) * trPMP,
            "PxMP": (S_A - 2 * S_A3 + S_AA) * trP * trMP,
            "H": S_H * (2 * eMPe + ee * trMP + eMe * trP),
        }
        terms[old] = new(invariants, scalars)
        return zz * sum(terms.values())

    return stated


def _holds(L, stated) -> bool:
    """The conditional identity at L tokens with `stated` as its right side: both sides are
    polynomials of one ring, so it holds exactly when their difference is the zero polynomial
    (prove_zero would try simplify on a false one's expression for seconds before giving up)."""
    lhs, invariants, scalars = ged.conditional_second_moment(L)
    return lhs - stated(invariants, scalars) == 0


def test_slips_of_the_display_fail_the_proof():
    slips = {
        # S_H's cross term taken once instead of twice
        "H": lambda i, s: s[5] * (i[3] + i[2] * i[5] + i[1] * i[4]),
        # the two traces' weights swapped
        "PMP": lambda i, s: (s[2] - 2 * s[4] + s[3]) * i[6],
        # E A^2 forgotten in tr P tr(M P)
        "PxMP": lambda i, s: (s[3] - 2 * s[4]) * i[4] * i[5],
        # the alpha-R cross term with the wrong sign
        "aA": lambda i, s: 2 * s[1] * i[3],
    }
    for name, slip in slips.items():
        assert not _holds(3, _slipped(name, slip)), name


def test_at_two_tokens_the_weights_are_tied_so_three_are_needed():
    """A3 = (3 A - 1) / 2 at L = 2: a display weighing tr(P M P) by 2 S_AA - 2 S_A + 1 instead of
    2 S_AA + S_A - 2 S_A3 passes at L = 2 and fails at L = 3."""
    tied = _slipped("PMP", lambda i, s: (2 * s[2] - 2 * s[3] + 1) * i[6])
    assert _holds(2, tied) and not _holds(3, tied)
    assert _holds(3, ged.display)


def test_the_emitted_kernel_is_the_proved_display_in_floats_and_balls():
    rng = np.random.default_rng(7)
    values = rng.normal(size=len(ged.INVARIANTS) + len(ged.SCALARS))
    symbols = (*ged.INVARIANTS, *ged.SCALARS)
    exact = ged.display().subs({s: sp.Float(v, 30) for s, v in zip(symbols, values)})
    assert np.isclose(kernels.gradient_U_error_display(*values), float(exact), rtol=1e-13)
    ball = kernels.gradient_U_error_display(*(arb(float(v)) for v in values))
    assert ball.contains(arb(str(sp.N(exact, 25))))
