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

import math

import mpmath as mp
import numpy as np
import sympy as sp

from ...numerics import gradients, kernels
from ...numerics.laws import GaussianLaw
from ...judge import kinds as judge
from ...core.findings import Findings

DIGITS = 50

# Reach of the float64 checks (docs/design.md, "Hunt": a route beyond its reach never refutes).
UNIT_ROUNDOFF = float(np.finfo(float).eps) / 2
# The derived rounding bounds below are first order in the unit roundoff u; SAFETY covers the
# second-order terms and the bounds' own float evaluation (both O(u) relative to the bound).
SAFETY = 4.0
# finite-kernels: the slips it is there to catch (a transposed index, a dropped centring, a
# missing factor) move the Jacobian by a fraction of order one of its largest entry; a rounding
# bound above 1e-6 of that entry leaves fewer than six digits to compare, and the check is left
# undecided rather than judged to a tolerance that no longer separates a slip from rounding.
KERNEL_REACH = 1e-6
# risk gradients: relative tolerance at which central differences still separate such slips
# (they move the gradient by tens of percent); beyond it the check is undecided.
RISK_REACH = 1e-3


def gamma(n: int) -> float:
    """gamma_n = n u / (1 - n u): the relative rounding bound of n floating-point operations in
    sequence (Higham, Accuracy and Stability of Numerical Algorithms, section 3.1)."""
    return n * UNIT_ROUNDOFF / (1 - n * UNIT_ROUNDOFF)


def moment_rounding(tokens, U, z, zhat, centre) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """First-order bounds (|delta zhat|, |delta C_hat|, and the sizes P below), entrywise, on
    the float64 rounding of numerics/gradients.weighted_moments for one prompt `tokens` (L, d),
    query z, about `centre`.

    Scores s_i = x_i^T (U z) carry |delta s_i| <= gamma_(2d+4) |x_i|^T |U| |z| (the tilt, the dot
    product, the shift by the maximum), so the weights w_i = e^(s_i - M) carry a relative error
    |eta_i| <= delta = 2 gamma_(2d+4) max_i |x_i|^T |U||z| + 2u (exp, and the shift's rounding).
    Weights perturbed by (1 + eta_i) move a softmax average E_p f by
    sum_i p_i (eta_i - sum_j p_j eta_j) f_i, at most 2 delta E_p |f - c'| for any c'; C_hat is
    an exact function of the weights, so it moves by <= 2 delta E_p |x - zhat| |x - zhat|^T.
    The sums S, N1 = sum w (x - c), N2 = sum w (x - c)(x - c)^T of L terms and the final
    C_hat = N2/S - (N1/S)(N1/S)^T carry gamma_(2L+8) times the same sums in absolute value. With
    y = |x - c| and mo = zhat - c, both E_p|y||y|^T + |mo||mo|^T and E_p|x - zhat||x - zhat|^T are
    below P = E_p (y + |mo|)(y + |mo|)^T, so
        |delta C_hat| <= (gamma_(2L+8) + 2 delta) P,
        |delta zhat|  <= u |zhat| + (gamma_(2L+8) + 2 delta) E_p (y + |mo|).
    The cancellation this measures is that of the sizes P against C_hat: about the centre c = m
    P ~ Gamma, about c = 0 P ~ m m^T + Gamma (|m| >> ||Gamma||^(1/2) loses digits)."""
    tokens = np.asarray(tokens, float)
    L, d = tokens.shape
    u = UNIT_ROUNDOFF
    score_abs = np.abs(tokens) @ (np.abs(U) @ np.abs(z))
    delta = 2 * gamma(2 * d + 4) * float(np.max(score_abs)) + 2 * u
    scores = tokens @ (U @ z)
    w = np.exp(scores - np.max(scores))
    p = w / w.sum()
    y = np.abs(tokens - centre) + np.abs(zhat - centre)
    relative = gamma(2 * L + 8) + 2 * delta
    P = np.einsum("i,ia,ib->ab", p, y, y)
    return u * np.abs(zhat) + relative * (p @ y), relative * P, P


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
    """Central differences at 50 digits (step 1e-20: truncation ~1e-40, rounding ~1e-30).

    The float64 kernels are fed the weighted moments of numerics/gradients.py computed about the
    token mean m (the accumulator's centre), so that C_hat is not the difference of two second
    moments of size |m|^2 (at m ~ 1, Gamma ~ 1e-12 and |z| ~ 5e5 that difference cost 9e-11
    against the former 1e-12, a refuted valid scenario). Each kernel entry e is then judged to
    tol_e = max(1e-12 max(1, |J_e|), SAFETY B_e), B_e the rounding bound of `moment_rounding`
    carried through J_U = z^T kron V C_hat (plus gamma_(d+2) |V| P |z| for the product) and
    J_V = zhat^T kron I_k (plus u |J_e| for the conversion of the 50-digit side). Beyond the
    check's reach (SAFETY B above KERNEL_REACH of the block's largest entry) it is undecided,
    naming the ratio and the largest score |x|^T |U||z| behind it."""
    jacobian_U = jacobian_U or kernels.finite_jacobian_U
    law = GaussianLaw(m, cov)
    d, k = len(m), V.shape[0]
    tokens_np = law.sample(rng, (1, L))
    mean = np.asarray(m, float)
    zhat, Chat = gradients.weighted_moments(tokens_np, U, z[None, :], centres=mean[None, :])
    zhat_bound, C_bound, P = moment_rounding(tokens_np[0], U, z, zhat[0, 0], mean)
    absV, absz = np.abs(V), np.abs(np.asarray(z, float))
    bound_U = np.kron(absz[None, :], absV @ C_bound + gamma(d + 2) * (absV @ P))
    bound_V = np.kron(zhat_bound[None, :], np.eye(k))
    worst_formula = mp.mpf(0)
    cd_U, cd_V = np.zeros((k, d * d)), np.zeros((k, k * d))
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
                    cd_U[r, col] = float(cd[r, 0])
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
                    cd_V[r, col] = float(cd[r, 0])
    digits_tol, digits_detail = difference_tolerance(h_float=1e-20, tokens=tokens_np[0], V=V, z=z)
    ratio, reach, why = kernel_reach(
        ((kern_U, cd_U, bound_U), (kern_V, cd_V, bound_V)),
        float(np.max(np.abs(tokens_np[0]) @ (np.abs(U) @ absz))),
    )
    checks = [
        judge.agreement(
            "finite-prompt Jacobians (weighted mean / covariance) vs 50-digit central differences "
            f"(L = {L})",
            "quadrature",
            id="jacobians/finite-50-digits",
            error=float(worst_formula),
            tolerance=digits_tol,
            unit="absolute error",
            detail="max |formula - central difference|; step 1e-20 at 50 digits: truncation "
            "~1e-40, rounding ~1e-30" + digits_detail,
        ),
        judge.agreement(
            "emitted float64 finite-prompt Jacobian kernels vs the same central differences "
            f"(L = {L})",
            "quadrature",
            id="jacobians/finite-kernels",
            error=ratio,
            tolerance=1.0,
            unit="ratio",
            detail="max over entries of |kernel - central difference| / tol_e, tol_e = "
            "max(1e-12 max(1, |entry|), 4 B_e), B_e the derived float64 rounding bound of the "
            "entry (weighted moments about the token mean; jacobians.moment_rounding); "
            f"largest 4 B_e / (largest entry of its block) = {reach:.2g}, reach "
            f"{KERNEL_REACH:g}",
            undecided=why,
        ),
    ]
    return Findings(checks)


def difference_tolerance(h_float: float, tokens, V, z) -> tuple[float, str]:
    """The 50-digit central differences' tolerance: 1e-25, or their derived error where that is
    larger. T is linear in V (exact differences); in U_ab it is a softmax average along the tilt
    t = x_a z_b, whose third derivative is the joint cumulant k(Vx, t, t, t), at most
    4 range(Vx) range(t)^3 (centred moments of bounded variables), so the central difference
    errs by at most h^2 / 6 times that: (2/3) h^2 range(V x) (range(x_a) |z_b|)^3, plus the
    rounding 1e-50 |T| / h ~ 1e-30 |T|; twice that is the tolerance (at |z| ~ 1e6 it is ~1e-22,
    where a hunt draw refuted the fixed 1e-25 with 7.5e-24). The detail says so when it binds."""
    tokens = np.asarray(tokens, float)
    out = tokens @ np.asarray(V, float).T
    range_out = float(np.max(np.ptp(out, axis=0)))
    range_t = float(np.max(np.ptp(tokens, axis=0))) * float(np.max(np.abs(z)))
    size = float(np.max(np.abs(out)))
    derived = 2 * ((2 / 3) * h_float**2 * range_out * range_t**3 + 1e-30 * size)
    if derived <= 1e-25:
        return 1e-25, ""
    return derived, (
        f"; tolerance the derived truncation (2/3) h^2 range(Vx) (range(x_a) |z_b|)^3 plus "
        f"rounding, doubled: {derived:.3g} (range(x_a) |z_b| up to {range_t:.3g})"
    )


def kernel_reach(blocks, score: float) -> tuple[float, float, str]:
    """(max_e |kernel_e - cd_e| / tol_e, the largest SAFETY B / max |J| over the blocks, the
    undecided reason or ""): blocks of (kernel, central difference, rounding bound B)."""
    ratio, reach = 0.0, 0.0
    for kern, cd, bound in blocks:
        tol = np.maximum(
            1e-12 * np.maximum(1.0, np.abs(cd)), SAFETY * (bound + gamma(1) * np.abs(cd))
        )
        ratio = max(ratio, float(np.max(np.abs(kern - cd) / tol)))
        size, worst = float(np.max(np.abs(cd))), SAFETY * float(np.max(bound))
        reach = max(reach, worst / size if size > 0 else (0.0 if worst == 0 else math.inf))
    why = ""
    if not reach <= KERNEL_REACH:
        why = (
            f"beyond the float64 kernels' reach: their derived rounding bound is {reach:.2g} of "
            f"the Jacobian's largest entry (above {KERNEL_REACH:g}; scores up to "
            f"|x|^T |U| |z| = {score:.3g})"
        )
    return ratio, reach, why


def risk_inf_terms(m, cov, U, V, W, Sq) -> float:
    """R_abs: the traces of kernels.risk_inf (1/2 tr(W^T W Sigma_q) + 1/2 |V m|^2 - tr(W^T V Gamma
    U Sigma_q) + 1/2 tr(U^T Gamma V^T V Gamma U Sigma_q)) with every factor in absolute value, so
    that a float64 evaluation of R_inf errs by at most gamma_n R_abs, n the longest chain of
    products (7 factors of size max(d, k))."""
    A = np.abs(V) @ np.abs(cov) @ np.abs(U)
    Wa, Sa, Vm = np.abs(W), np.abs(Sq), np.abs(V) @ np.abs(m)
    return float(
        0.5 * np.sum((Wa @ Sa) * Wa)
        + 0.5 * Vm @ Vm
        + np.sum((A @ Sa) * Wa)
        + 0.5 * np.sum((A @ Sa) * A)
    )


def difference_reach(terms: float, n: int, h: float, grad: float) -> tuple[float, str]:
    """(tolerance, undecided reason) of a central-difference gradient check: two float
    evaluations of a function whose terms sum to `terms` in absolute value differ from exact by at
    most 2 gamma_n terms, which the division by 2h turns into gamma_n terms / h; relative to the
    gradient's largest entry, SAFETY gamma_n terms / (h |grad|). The tolerance is the larger of
    that and 1e-6 (the truncation allowance, h^2 times the third derivative, ~1e-10 at the
    built-in scale); beyond RISK_REACH the check is undecided."""
    rounding = SAFETY * gamma(n) * terms / (h * grad) if grad > 0 else math.inf
    tolerance = max(1e-6, rounding)
    why = ""
    if not tolerance <= RISK_REACH:
        why = (
            f"beyond the reach of central differences: the terms of the risk sum to {terms:.3g} "
            f"against h |grad| = {h * grad:.3g}, a rounding allowance of {rounding:.2g} relative "
            f"(above {RISK_REACH:g})"
        )
    return tolerance, why


# The scores' sensitivity s to an entry of U up to which the step h = 1e-6 serves the finite risk:
# its central-difference truncation, relative ~ (h s)^2, stays below 1e-8, a hundredth of the
# check's tolerance (s = 15.9 at the built-in scenario).
SCORE_SENSITIVITY_REACH = 100.0


def finite_step_U(tokens: np.ndarray, queries: np.ndarray, h: float) -> float:
    """The central-difference step in U for the sampled (softmax) risk. Unlike R_inf it is not
    quadratic in U: a step E moves each score z'^T U z by up to s |E|, s = max |z'| max |z| over
    the sample, and the truncation of (R(U + E) - R(U - E)) / 2h relative to the gradient grows
    like (h s)^2. So h is kept at most SCORE_SENSITIVITY_REACH / s times the built-in step
    (found by a hunt draw, `softlin hunt prop-3.4 --seed 101`: tokens of scale 5e5 gave s ~ 1e6
    and the check read 0.02 against 1e-6, refuting a correct gradient); the rounding allowance of
    difference_reach grows as 1 / h and says when the check is beyond its reach."""
    s = float(np.max(np.abs(tokens))) * float(np.max(np.abs(queries)))
    return h if not s > SCORE_SENSITIVITY_REACH else h * SCORE_SENSITIVITY_REACH / s


def risk_gradient_checks(rng, m, cov, U, V, Sq) -> Findings:
    """Risk gradients (target z -> W z with W = V, a fixed map) against central differences.
    Each is judged to the larger of 1e-6 and the derived rounding allowance of
    `difference_reach`, and is undecided beyond RISK_REACH (at Sigma_q ~ 3e11 and Gamma ~ 1e-12
    the risk, ~1e11, is almost all the U-free term tr(W Sigma_q W^T), and a step of 1e-6 in U
    moves it by ~1e-7: rounding ~1e-5 / 1e-6 swamps a gradient of ~0.05)."""
    W = V.copy()
    d, k = len(m), V.shape[0]
    args = lambda U_, V_: (_column(m), cov, U_, V_, W, Sq)
    h = 1e-6  # central differences: truncation ~h^2 |R'''|, rounding ~1e-16 / h: both ~1e-10
    worst, tolerance, why = 0.0, 1e-6, ""
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
        size = max(float(np.max(np.abs(grad))), 1e-12)
        worst = max(worst, float(np.max(np.abs(fd - grad)) / size))
        # R_inf is quadratic in U and in V, so only rounding remains; its terms at |X| + h
        terms = risk_inf_terms(m, cov, np.abs(U) + h, np.abs(V) + h, W, Sq)
        t, w = difference_reach(terms, 7 * max(d, k) + 8, h, size)
        tolerance, why = max(tolerance, t), why or w
    checks = [
        judge.agreement(
            "infinite-prompt risk gradients (SymPy matrix calculus) vs central differences "
            "of R_inf",
            "quadrature",
            id="risk-gradient/infinite",
            error=worst,
            tolerance=tolerance,
            detail="relative; step 1e-6 (error ~1e-10 expected); tolerance the larger of 1e-6 "
            "and the derived rounding allowance 4 gamma_n R_abs / (h |grad|) "
            "(jacobians.difference_reach)",
            undecided=why,
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

    h_U = finite_step_U(tokens, queries, h)
    gU, gV = np.zeros_like(U), np.zeros_like(V)
    # The sampled risk's terms in absolute value, |V zhat| + |W z| per prompt, and the rounding
    # of each zhat (moment_rounding about 0, as `risk` computes it) carried through the residual:
    # |residual| |V| |delta zhat|, divided by gamma_n as `difference_reach` multiplies by it.
    n = 4 * max(d, k) + 8
    terms = 0.0
    for p_ in range(P):
        zh, Ch = gradients.weighted_moments(tokens[p_ : p_ + 1], U, queries[p_ : p_ + 1])
        r = _column(V @ zh[0, 0] - W @ queries[p_])
        gU += kernels.risk_sample_grad_U(Ch[0, 0], V, r, _column(queries[p_])) / P
        gV += kernels.risk_sample_grad_V(r, _column(zh[0, 0])) / P
        zb, _, _ = moment_rounding(tokens[p_], np.abs(U) + h, queries[p_], zh[0, 0], np.zeros(d))
        size = (np.abs(V) + h) @ np.abs(zh[0, 0]) + np.abs(W) @ np.abs(queries[p_])
        terms += (0.5 * size @ size + size @ ((np.abs(V) + h) @ zb) / gamma(n)) / P
    worst, tolerance, why = 0.0, 1e-6, ""
    for name, X, grad, step in (("U", U, gU, h_U), ("V", V, gV, h)):
        fd = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            E = np.zeros_like(X)
            E[idx] = step
            fd[idx] = (
                (risk(U + E, V) - risk(U - E, V))
                if name == "U"
                else (risk(U, V + E) - risk(U, V - E))
            ) / (2 * step)
        size = max(float(np.max(np.abs(grad))), 1e-12)
        worst = max(worst, float(np.max(np.abs(fd - grad)) / size))
        t, w = difference_reach(terms, n, step, size)
        tolerance, why = max(tolerance, t), why or w
    checks.append(
        judge.agreement(
            f"finite-prompt risk gradient (per-sample kernels, {P} fixed prompts of L = {L}) vs "
            "central differences of the same Monte Carlo risk",
            "quadrature",
            id="risk-gradient/finite",
            error=worst,
            tolerance=tolerance,
            detail="common random numbers: the sample is fixed, so the identity is exact up to "
            f"differencing error; steps {h_U:.3g} in U (finite_step_U) and {h:g} in V; "
            "tolerance the larger of 1e-6 and the derived rounding allowance "
            "4 gamma_n R_abs / (h |grad|), R_abs with each zhat's rounding bound "
            "(jacobians.difference_reach)",
            undecided=why,
        )
    )
    return Findings(checks)
