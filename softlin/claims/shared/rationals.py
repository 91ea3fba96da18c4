"""Claimed formulas evaluated exactly: the derived SymPy expressions with the scenario's float
inputs converted to exact rationals (every binary float is a rational), then evaluated to 40 digits.
This is the "derived formula at 30+ digits" side of the quadrature checks."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import sympy as sp

from ...derivations import lemma21, mixture

DIGITS = 40


def _to_mpf(e) -> list:
    """A SymPy number to an mpmath mpf carrying DIGITS digits (via its decimal string: exact).
    Above 1e10 in size, 35 + log10|e| digits instead, so that its absolute error stays below 1e-35
    (the 40-digit check's tolerance is the absolute 1e-25; quadrature.mp_digits is the
    reference route's side)."""
    digits = DIGITS + 5
    size = abs(sp.N(e, 5))
    if size > 10**10:
        digits = 35 + int(mp.ceil(mp.log10(mp.mpf(str(size)))))
    with mp.workdps(digits + 10):
        return mp.mpf(str(sp.N(e, digits)))


def rational_matrix(x) -> sp.Matrix:
    """The exact value of each float64 entry as a SymPy Rational (no rounding: a float is a dyadic
    rational), so exact evaluations see precisely the numbers the float routes see. The one home for
    float -> Rational in the claims."""
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return sp.Matrix(arr.shape[0], arr.shape[1], lambda i, j: sp.Rational(float(arr[i, j])))


def rational_column(x) -> sp.Matrix:
    """A vector as an exact (n, 1) Rational column."""
    return rational_matrix(np.reshape(np.asarray(x, dtype=float), (-1, 1)))


_rational_matrix, _column = rational_matrix, rational_column


def gaussian_limit(m, cov, U, V, z) -> list:
    """V (m + Gamma U z) from the derived matrix expression, exact, then 40 digits."""
    d, k = len(m), np.shape(V)[0]
    s = lemma21.limit_symbols(d, k, 1)
    expr = (
        lemma21.gaussian_limit_matrix(s)
        .subs(
            {
                s["m"]: _column(m),
                s["Gamma"]: _rational_matrix(cov),
                s["U"]: _rational_matrix(U),
                s["V"]: _rational_matrix(V),
                s["z"]: _column(z),
            }
        )
        .as_explicit()
    )
    return [_to_mpf(e) for e in expr]


def mixture_limit(weights, means, covs, U, V, z) -> list:
    """sum_k softmax(logit_k) V(m_k + Gamma_k U z) from the derived component expressions."""
    d, k = len(means[0]), np.shape(V)[0]
    s = mixture.component_symbols(d, k, 1)
    logits, outs = [], []
    for w, m, G in zip(weights, means, covs):
        subs = {
            s["log_pi"]: sp.log(sp.Rational(float(w))),
            s["m"]: _column(m),
            s["Gamma"]: _rational_matrix(G),
            s["U"]: _rational_matrix(U),
            s["V"]: _rational_matrix(V),
            s["z"]: _column(z),
        }
        logits.append(mixture.component_logit_batched(s).subs(subs).as_explicit()[0, 0])
        outs.append(mixture.component_mean_batched(s).subs(subs).as_explicit())
    top = max(logits, key=lambda e: sp.N(e, DIGITS))
    weights_exact = [sp.exp(l - top) for l in logits]
    total = sum(weights_exact)
    value = sum((w * o for w, o in zip(weights_exact, outs)), sp.zeros(k, 1)) / total
    return [_to_mpf(e) for e in value]
