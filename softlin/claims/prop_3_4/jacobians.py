"""prop-3.4, the Jacobian checks: the limit and finite-prompt Jacobians of T in U and V, and the
risk gradients built from them, against independent finite differences.

- limit Jacobians (emitted from derivations/jacobians.py) against exact differentiation of
  V (m + Gamma U z) (an emission check);
- finite-prompt Jacobians (softmax-weighted mean and covariance C_hat) against 50-digit central
  differences of the finite-prompt output on fixed tokens, and the emitted float64 kernels against
  the same differences;
- risk gradients of R_inf (SymPy matrix calculus) and of the sampled risk (per-sample kernels)
  against central differences.
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import sympy as sp

from ...numerics import gradients, kernels
from ...numerics.laws import GaussianLaw
from ...judge import kinds as judge
from ...core.findings import Findings

DIGITS = 50


def rational_matrix(x) -> sp.Matrix:
    """The float array as a SymPy matrix of the rationals its entries' repr writes
    (exact arithmetic)."""
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return sp.Matrix(arr.shape[0], arr.shape[1], lambda i, j: sp.Rational(repr(float(arr[i, j]))))


def _column(x) -> np.ndarray:
    return np.asarray(x, dtype=float).reshape(-1, 1)


# ------------------------------------------------------------------------------------------------
# Jacobian checks.


def limit_jacobian_check(m, cov, U, V, z) -> judge.Check:
    """Float kernels against SymPy's exact Jacobian of V (m + Gamma U z) at the scenario's
    values."""
    d, k = len(m), V.shape[0]
    Ue = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}"))
    Ve = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}"))
    T = Ve * (rational_matrix(m).T + rational_matrix(cov) * Ue * rational_matrix(z).T)
    subs = {
        **{Ue[i, j]: rational_matrix(U)[i, j] for i in range(d) for j in range(d)},
        **{Ve[i, j]: rational_matrix(V)[i, j] for i in range(k) for j in range(d)},
    }
    exact_U = np.array(
        T.jacobian([Ue[i, j] for j in range(d) for i in range(d)]).subs(subs), dtype=float
    )
    exact_V = np.array(
        T.jacobian([Ve[i, j] for j in range(d) for i in range(k)]).subs(subs), dtype=float
    )
    kern_U = kernels.limit_jacobian_U(cov, V, _column(z))
    kern_V = kernels.limit_jacobian_V(_column(m), cov, U, V, _column(z))
    err = max(
        np.max(np.abs(kern_U - exact_U)) / max(np.max(np.abs(exact_U)), 1e-300),
        np.max(np.abs(kern_V - exact_V)) / max(np.max(np.abs(exact_V)), 1e-300),
    )
    return judge.agreement(
        "limit Jacobians (emitted) vs exact differentiation of V (m + Gamma U z)",
        "emit",
        id="jacobians/limit-emitted",
        error=float(err),
        tolerance=1e-13,
        detail="relative max difference; exact side in rational arithmetic, "
        "so only the kernel's float64 rounding (a few ulps) remains",
    )


def _mp_output(tokens, U, V, z):
    """T[mu_L](z) at the working precision (tokens, U, V, z are mpmath matrices / lists)."""
    scores = [(x.T * U * z)[0, 0] for x in tokens]
    top = max(scores)
    w = [mp.exp(s - top) for s in scores]
    total = mp.fsum(w)
    out = V * sum((wi * x for wi, x in zip(w[1:], tokens[1:])), tokens[0] * w[0])
    return out / total


def _mp(x):
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return mp.matrix([[mp.mpf(float(v)) for v in row] for row in arr])


def finite_jacobian_checks(rng, m, cov, U, V, z, L: int = 8, jacobian_U=None) -> Findings:
    """Central differences at 50 digits (step 1e-20: truncation ~1e-40, rounding ~1e-30)."""
    jacobian_U = jacobian_U or kernels.finite_jacobian_U
    law = GaussianLaw(m, cov)
    d, k = len(m), V.shape[0]
    tokens_np = law.sample(rng, (1, L))
    zhat, Chat = gradients.weighted_moments(tokens_np, U, z[None, :])
    worst_formula, worst_kernel = mp.mpf(0), 0.0
    with mp.workdps(DIGITS):
        tokens = [_mp(t).T for t in tokens_np[0]]
        Um, Vm, zm = _mp(U), _mp(V), _mp(z).T
        h = mp.mpf(10) ** -20
        # 50-digit weighted mean / covariance, for the formula side.
        scores = [(x.T * Um * zm)[0, 0] for x in tokens]
        top = max(scores)
        w = [mp.exp(s - top) for s in scores]
        p = [wi / mp.fsum(w) for wi in w]
        zh = sum((pi * x for pi, x in zip(p[1:], tokens[1:])), tokens[0] * p[0])
        Ch = sum(
            ((pi * (x - zh) * (x - zh).T) for pi, x in zip(p[1:], tokens[1:])),
            (tokens[0] - zh) * (tokens[0] - zh).T * p[0],
        )
        kern_U = jacobian_U(Chat[0, 0], V, _column(z))
        kern_V = kernels.finite_jacobian_V(_column(zhat[0, 0]), V)
        for b in range(d):
            for a in range(d):
                E = mp.zeros(d, d)
                E[a, b] = h
                cd = (_mp_output(tokens, Um + E, Vm, zm) - _mp_output(tokens, Um - E, Vm, zm)) / (
                    2 * h
                )
                formula = Vm * Ch[:, a] * zm[b, 0]
                col = a + d * b
                for r in range(k):
                    worst_formula = max(worst_formula, abs(cd[r, 0] - formula[r, 0]))
                    worst_kernel = max(
                        worst_kernel,
                        abs(float(cd[r, 0]) - kern_U[r, col]) / max(1.0, abs(float(cd[r, 0]))),
                    )
        for j in range(d):
            for i in range(k):
                E = mp.zeros(k, d)
                E[i, j] = h
                cd = (_mp_output(tokens, Um, Vm + E, zm) - _mp_output(tokens, Um, Vm - E, zm)) / (
                    2 * h
                )
                col = i + k * j
                for r in range(k):
                    formula = zh[j, 0] if r == i else mp.mpf(0)
                    worst_formula = max(worst_formula, abs(cd[r, 0] - formula))
                    worst_kernel = max(
                        worst_kernel,
                        abs(float(cd[r, 0]) - kern_V[r, col]) / max(1.0, abs(float(cd[r, 0]))),
                    )
    checks = [
        judge.agreement(
            "finite-prompt Jacobians (weighted mean / covariance) vs 50-digit central differences "
            f"(L = {L})",
            "quadrature",
            id="jacobians/finite-50-digits",
            error=float(worst_formula),
            tolerance=1e-25,
            unit="absolute error",
            detail="max |formula - central difference|; step 1e-20 at 50 digits: truncation "
            "~1e-40, rounding ~1e-30",
        ),
        judge.agreement(
            "emitted float64 finite-prompt Jacobian kernels vs the same central differences "
            f"(L = {L})",
            "quadrature",
            id="jacobians/finite-kernels",
            error=worst_kernel,
            tolerance=1e-12,
            detail="max relative difference (relative to max(1, |entry|)); float64 weighted "
            "moments carry ~1e-15",
        ),
    ]
    return Findings(checks)


def risk_gradient_checks(rng, m, cov, U, V, Sq) -> Findings:
    """Risk gradients (target z -> W z with W = V, a fixed map) against central differences."""
    W = V.copy()
    args = lambda U_, V_: (_column(m), cov, U_, V_, W, Sq)
    h = 1e-6  # central differences: truncation ~h^2 |R'''|, rounding ~1e-16 / h: both ~1e-10
    worst = 0.0
    for name, X, grad in (
        ("U", U, kernels.risk_inf_grad_U(*args(U, V))),
        ("V", V, kernels.risk_inf_grad_V(*args(U, V))),
    ):
        fd = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            E = np.zeros_like(X)
            E[idx] = h
            plus = kernels.risk_inf(*(args(U + E, V) if name == "U" else args(U, V + E)))
            minus = kernels.risk_inf(*(args(U - E, V) if name == "U" else args(U, V - E)))
            fd[idx] = (plus - minus) / (2 * h)
        worst = max(worst, float(np.max(np.abs(fd - grad)) / max(np.max(np.abs(grad)), 1e-12)))
    checks = [
        judge.agreement(
            "infinite-prompt risk gradients (SymPy matrix calculus) vs central differences "
            "of R_inf",
            "quadrature",
            id="risk-gradient/infinite",
            error=worst,
            tolerance=1e-6,
            detail="relative; step 1e-6 (error ~1e-10 expected)",
        )
    ]
    # Finite prompts, common random numbers: fixed prompts and queries make the Monte Carlo risk a
    # deterministic function of (U, V) whose exact gradient is the average of the per-sample
    # kernels.
    law = GaussianLaw(m, cov)
    P, L = 64, 32
    tokens = law.sample(rng, (P, L))
    queries = GaussianLaw(np.zeros(len(m)), Sq).sample(rng, (P,))

    def risk(U_, V_):
        outs = []
        for p_ in range(P):
            zh, _ = gradients.weighted_moments(tokens[p_ : p_ + 1], U_, queries[p_ : p_ + 1])
            outs.append(V_ @ zh[0, 0])
        out = np.array(outs)
        return 0.5 * np.mean(np.sum((out - queries @ W.T) ** 2, axis=1))

    gU, gV = np.zeros_like(U), np.zeros_like(V)
    for p_ in range(P):
        zh, Ch = gradients.weighted_moments(tokens[p_ : p_ + 1], U, queries[p_ : p_ + 1])
        r = _column(V @ zh[0, 0] - W @ queries[p_])
        gU += kernels.risk_sample_grad_U(Ch[0, 0], V, r, _column(queries[p_])) / P
        gV += kernels.risk_sample_grad_V(r, _column(zh[0, 0])) / P
    worst = 0.0
    for name, X, grad in (("U", U, gU), ("V", V, gV)):
        fd = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            E = np.zeros_like(X)
            E[idx] = h
            fd[idx] = (
                (risk(U + E, V) - risk(U - E, V))
                if name == "U"
                else (risk(U, V + E) - risk(U, V - E))
            ) / (2 * h)
        worst = max(worst, float(np.max(np.abs(fd - grad)) / max(np.max(np.abs(grad)), 1e-12)))
    checks.append(
        judge.agreement(
            f"finite-prompt risk gradient (per-sample kernels, {P} fixed prompts of L = {L}) vs "
            "central differences of the same Monte Carlo risk",
            "quadrature",
            id="risk-gradient/finite",
            error=worst,
            tolerance=1e-6,
            detail="common random numbers: the sample is fixed, so the identity is exact up to "
            "differencing error",
        )
    )
    return Findings(checks)
