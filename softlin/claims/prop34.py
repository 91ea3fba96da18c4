"""Claim `prop-3.4`: gradient concentration, made exact (docs/paper.md section 3).

The paper: under Assumption 3.3, E||grad_V T[mu_L] - grad_V T[mu]||^2_{L2(nu)} <= c1 sigma^6 ln L / L^(c2/sigma^2)
and the same for grad_U with sigma^12 ln^2 L. softlin derives, for Gaussian tokens and queries:
the Jacobians (derivations/jacobians.py), the exact 1/L coefficients at a fixed query and averaged
over nu (derivations/gradient_fluctuations.py; finite iff lambda < 1/2, lambda the largest
eigenvalue of Sigma_q^{1/2} U^T Gamma U Sigma_q^{1/2}), and the sharp exponent kappa(lambda) of the
output error (derivations/fluctuations.py), which the gradient errors share: their extra factors
are polynomial in the query and change only logarithms.

Norms are Frobenius norms of the Jacobians with column-major vec:
||grad_V err||^2 = k |zhat - mu_a|^2 and ||grad_U err||^2 = |z|^2 ||V (C_hat - Gamma)||_F^2.

Checks: symbolic proofs; limit Jacobians against exact differentiation of Lemma 2.1's formula;
finite-prompt Jacobians against 50-digit mpmath central differences (formula to 1e-25, float64
kernel to 1e-12); risk gradients against finite differences (infinite prompt, and the Monte Carlo
risk with common random numbers); Monte Carlo of the 1/L coefficients (fixed query and query
average: fit L E err^2 = A + B/L, z-test of A); log-log slopes in three regimes (below, at and above
the threshold) against -kappa with a stated allowance for logarithms; a negative control (above the
threshold a 1/L rate must be refuted: L E err^2 grows); the paper's form fitted with explicit
constants; erratum 1 (L = 1) for gradients.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import sympy as sp
from scipy import stats

from ..derivations import catalogue, fluctuations, gradient_fluctuations as gf
from ..numerics import gradients, kernels
from ..numerics.laws import GaussianLaw
from ..numerics.tilted_moments import largest_tilt_eigenvalue
from . import scenario as scen
from .base import Check, Claim, certificate
from .common import provenance, symbolic_check
from .progress import progress

ID = "prop-3.4"
TITLE = "Gradient concentration: exact 1/L coefficients and sharp rates for grad_V and grad_U"
STATEMENT = ("E||grad_V T[mu_L] - grad_V T[mu]||^2_{L2(nu)} <= c1 sigma^6 ln(L) / L^(c2/sigma^2) and "
             "E||grad_U T[mu_L] - grad_U T[mu]||^2_{L2(nu)} <= c1 sigma^12 ln(L)^2 / L^(c2/sigma^2) (L >= 2).")
HYPOTHESES = ("tokens N(m, Gamma) with Gamma = sigma^2 Gamma0, queries nu = N(0, Sigma_q)",
              "Assumption 3.3 (see asm-3.3); norms: Frobenius norms of the column-major Jacobians")
FALSE_ALARM = 1e-6
DIGITS = 50
# Regimes of the slope check, as the value of lambda obtained by rescaling Gamma (sigma^2 Gamma0).
REGIMES = {"below": 0.25, "at": 0.5, "above": 1.5}
# Prompts per L for the fixed query; blocks x queries x prompts for query averages. Beyond the
# threshold the query-to-query spread dominates the error's variance, so blocks favour queries.
BUDGETS = {
    "quick": {"prompts": 600, "blocks": 48, "queries": 24, "block_prompts": 4, "Ls": [16, 64, 256, 1024]},
    "standard": {"prompts": 1500, "blocks": 48, "queries": 24, "block_prompts": 4, "Ls": [16, 64, 256, 1024, 2048]},
    "full": {"prompts": 4000, "blocks": 96, "queries": 32, "block_prompts": 6, "Ls": [16, 64, 256, 1024, 4096]},
}


def default_scenario() -> dict:
    return {
        "d": 2,
        "mean": [0.0, 0.0],
        "cov": [[1.0, 0.3], [0.3, 0.5]],
        "U": [[0.3, 0.1], [-0.1, 0.25]],
        "V": [[1.0, 0.5], [0.0, 1.0]],
        "query_cov": [[1.0, 0.0], [0.0, 1.0]],
        "query": [0.8, -0.6],
        "L": [16, 64, 256, 1024, 2048],
        "trials": 1500,
        "delta": 1e-3,
        "seed": 0,
    }


def _R(x) -> sp.Matrix:
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return sp.Matrix(arr.shape[0], arr.shape[1], lambda i, j: sp.Rational(repr(float(arr[i, j]))))


def _column(x) -> np.ndarray:
    return np.asarray(x, dtype=float).reshape(-1, 1)


# ------------------------------------------------------------------------------------------------
# Jacobian checks.

def limit_jacobian_check(m, cov, U, V, z) -> Check:
    """Float kernels against SymPy's exact Jacobian of V (m + Gamma U z) at the scenario's values."""
    d, k = len(m), V.shape[0]
    Ue = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}"))
    Ve = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}"))
    T = Ve * (_R(m).T + _R(cov) * Ue * _R(z).T)
    subs = {**{Ue[i, j]: _R(U)[i, j] for i in range(d) for j in range(d)},
            **{Ve[i, j]: _R(V)[i, j] for i in range(k) for j in range(d)}}
    exact_U = np.array(T.jacobian([Ue[i, j] for j in range(d) for i in range(d)]).subs(subs), dtype=float)
    exact_V = np.array(T.jacobian([Ve[i, j] for j in range(d) for i in range(k)]).subs(subs), dtype=float)
    kern_U = kernels.limit_jacobian_U(cov, V, _column(z))
    kern_V = kernels.limit_jacobian_V(_column(m), cov, U, V, _column(z))
    err = max(np.max(np.abs(kern_U - exact_U)) / max(np.max(np.abs(exact_U)), 1e-300),
              np.max(np.abs(kern_V - exact_V)) / max(np.max(np.abs(exact_V)), 1e-300))
    return Check("limit Jacobians (emitted) vs exact differentiation of V (m + Gamma U z)", "symbolic",
                 err <= 1e-13, float(err), 1e-13, "relative max difference; exact side in rational arithmetic, "
                 "so only the kernel's float64 rounding (a few ulps) remains")


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


def finite_jacobian_checks(rng, m, cov, U, V, z, L: int = 8, jacobian_U=None) -> list[Check]:
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
        Ch = sum(((pi * (x - zh) * (x - zh).T) for pi, x in zip(p[1:], tokens[1:])), (tokens[0] - zh) * (tokens[0] - zh).T * p[0])
        kern_U = jacobian_U(Chat[0, 0], V, _column(z))
        kern_V = kernels.finite_jacobian_V(_column(zhat[0, 0]), V)
        for b in range(d):
            for a in range(d):
                E = mp.zeros(d, d)
                E[a, b] = h
                cd = (_mp_output(tokens, Um + E, Vm, zm) - _mp_output(tokens, Um - E, Vm, zm)) / (2 * h)
                formula = Vm * Ch[:, a] * zm[b, 0]
                col = a + d * b
                for r in range(k):
                    worst_formula = max(worst_formula, abs(cd[r, 0] - formula[r, 0]))
                    worst_kernel = max(worst_kernel, abs(float(cd[r, 0]) - kern_U[r, col]) / max(1.0, abs(float(cd[r, 0]))))
        for j in range(d):
            for i in range(k):
                E = mp.zeros(k, d)
                E[i, j] = h
                cd = (_mp_output(tokens, Um, Vm + E, zm) - _mp_output(tokens, Um, Vm - E, zm)) / (2 * h)
                col = i + k * j
                for r in range(k):
                    formula = zh[j, 0] if r == i else mp.mpf(0)
                    worst_formula = max(worst_formula, abs(cd[r, 0] - formula))
                    worst_kernel = max(worst_kernel, abs(float(cd[r, 0]) - kern_V[r, col]) / max(1.0, abs(float(cd[r, 0]))))
    return [
        Check(f"finite-prompt Jacobians (weighted mean / covariance) vs 50-digit central differences (L = {L})",
              "quadrature", bool(worst_formula <= mp.mpf(10) ** -25), float(worst_formula), 1e-25,
              "max |formula - central difference|; step 1e-20 at 50 digits: truncation ~1e-40, rounding ~1e-30"),
        Check(f"emitted float64 finite-prompt Jacobian kernels vs the same central differences (L = {L})",
              "quadrature", worst_kernel <= 1e-12, worst_kernel, 1e-12,
              "max relative difference (relative to max(1, |entry|)); float64 weighted moments carry ~1e-15"),
    ]


def risk_gradient_checks(rng, m, cov, U, V, Sq) -> list[Check]:
    """Risk gradients (target z -> W z with W = V, a fixed map) against central differences."""
    W = V.copy()
    args = lambda U_, V_: (_column(m), cov, U_, V_, W, Sq)
    h = 1e-6     # central differences: truncation ~h^2 |R'''|, rounding ~1e-16 / h: both ~1e-10
    worst = 0.0
    for name, X, grad in (("U", U, kernels.risk_inf_grad_U(*args(U, V))), ("V", V, kernels.risk_inf_grad_V(*args(U, V)))):
        fd = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            E = np.zeros_like(X)
            E[idx] = h
            plus = kernels.risk_inf(*(args(U + E, V) if name == "U" else args(U, V + E)))
            minus = kernels.risk_inf(*(args(U - E, V) if name == "U" else args(U, V - E)))
            fd[idx] = (plus - minus) / (2 * h)
        worst = max(worst, float(np.max(np.abs(fd - grad)) / max(np.max(np.abs(grad)), 1e-12)))
    checks = [Check("infinite-prompt risk gradients (SymPy matrix calculus) vs central differences of R_inf",
                    "quadrature", worst <= 1e-6, worst, 1e-6, "relative; step 1e-6 (error ~1e-10 expected)")]
    # Finite prompts, common random numbers: fixed prompts and queries make the Monte Carlo risk a
    # deterministic function of (U, V) whose exact gradient is the average of the per-sample kernels.
    law = GaussianLaw(m, cov)
    P, L = 64, 32
    tokens = law.sample(rng, (P, L))
    queries = rng.multivariate_normal(np.zeros(len(m)), Sq, size=P, method="eigh")

    def risk(U_, V_):
        outs = []
        for p_ in range(P):
            zh, _ = gradients.weighted_moments(tokens[p_:p_ + 1], U_, queries[p_:p_ + 1])
            outs.append(V_ @ zh[0, 0])
        out = np.array(outs)
        return 0.5 * np.mean(np.sum((out - queries @ W.T) ** 2, axis=1))

    gU, gV = np.zeros_like(U), np.zeros_like(V)
    for p_ in range(P):
        zh, Ch = gradients.weighted_moments(tokens[p_:p_ + 1], U, queries[p_:p_ + 1])
        r = _column(V @ zh[0, 0] - W @ queries[p_])
        gU += kernels.risk_sample_grad_U(Ch[0, 0], V, r, _column(queries[p_])) / P
        gV += kernels.risk_sample_grad_V(r, _column(zh[0, 0])) / P
    worst = 0.0
    for name, X, grad in (("U", U, gU), ("V", V, gV)):
        fd = np.zeros_like(X)
        for idx in np.ndindex(X.shape):
            E = np.zeros_like(X)
            E[idx] = h
            fd[idx] = ((risk(U + E, V) - risk(U - E, V)) if name == "U" else (risk(U, V + E) - risk(U, V - E))) / (2 * h)
        worst = max(worst, float(np.max(np.abs(fd - grad)) / max(np.max(np.abs(grad)), 1e-12)))
    checks.append(Check(f"finite-prompt risk gradient (per-sample kernels, {P} fixed prompts of L = {L}) vs central "
                        "differences of the same Monte Carlo risk", "quadrature", worst <= 1e-6, worst, 1e-6,
                        "common random numbers: the sample is fixed, so the identity is exact up to differencing error"))
    return checks


# ------------------------------------------------------------------------------------------------
# Monte Carlo.

def _errors(law, rng, P, L, U, V, cov, queries, mus, weighted_matrix=None):
    """Per prompt and query: (k |zhat - mu_a|^2, |z|^2 ||V (C - Gamma)||_F^2), C the matrix the
    Jacobian uses (C_hat; tests inject plausible wrong ones)."""
    zhat, Chat = gradients.sampled_weighted_moments(law, rng, P, L, U, queries, mus)
    if weighted_matrix is not None:
        Chat = weighted_matrix(zhat, Chat)
    k = V.shape[0]
    errV = k * np.sum((zhat - mus[None]) ** 2, axis=2)
    D = np.einsum("ki,pqij->pqkj", V, Chat - cov)
    errU = np.sum(queries**2, axis=1)[None, :] * np.sum(D**2, axis=(2, 3))
    return errV, errU


def _per_query_coefficients(Z, U, V, cov):
    """Exact per-query 1/L coefficients k e^q (tr Gamma + |Gamma U z|^2) and |z|^2 e^q F(Gamma U z),
    q = (U z)^T Gamma (U z), for the rows of Z, from the emitted kernels (derivations/fluctuations.py
    with V = I for the first factor, derivations/gradient_fluctuations.py for F)."""
    d, k = cov.shape[0], V.shape[0]
    e_q = np.exp(kernels.first_order_log_weight(cov, U, Z.T)[0])
    return (k * e_q * kernels.first_order_numerator(cov, np.eye(d), U, Z.T)[0],
            np.sum(Z * Z, axis=1) * e_q * kernels.gradient_U_fourth_moment(cov, V, U, Z.T)[0])


def _fit_first_order(Ls, means, ses):
    """Weighted least squares of L E err^2 = A + B / L; returns (A, se(A))."""
    Ls = np.asarray(Ls, dtype=float)
    y, s = np.asarray(means) * Ls, np.asarray(ses) * Ls
    X = np.column_stack([np.ones_like(Ls), 1.0 / Ls])
    Wt = np.diag(1.0 / s**2)
    cov = np.linalg.inv(X.T @ Wt @ X)
    beta = cov @ X.T @ Wt @ y
    return float(beta[0]), float(math.sqrt(cov[0, 0]))


def _fit_slope(Ls, means, ses):
    """Weighted least squares of log E err^2 on log L (delta-method weights); (slope, se)."""
    x, y = np.log(np.asarray(Ls, dtype=float)), np.log(np.asarray(means))
    s = np.asarray(ses) / np.asarray(means)
    X = np.column_stack([np.ones_like(x), x])
    Wt = np.diag(1.0 / s**2)
    cov = np.linalg.inv(X.T @ Wt @ X)
    beta = cov @ X.T @ Wt @ y
    return float(beta[1]), float(math.sqrt(cov[1, 1]))


def query_average_sweep(law_cov, m, U, V, Sq, Ls, budget, rng, label, weighted_matrix=None):
    """Query-averaged mean errors per L with standard errors over independent blocks (each block
    draws its own queries and prompts, so block means are iid)."""
    law = GaussianLaw(m, law_cov)
    d = len(m)
    out = {"L": list(Ls), "V": [], "V_se": [], "U": [], "U_se": []}
    for L in Ls:
        progress(f"prop-3.4 {label}: query average, L = {L}")
        bV, bU = [], []
        for _ in range(budget["blocks"]):
            queries = rng.multivariate_normal(np.zeros(d), Sq, size=budget["queries"], method="eigh")
            mus = queries @ (law_cov @ U).T + m
            eV, eU = _errors(law, rng, budget["block_prompts"], L, U, V, law_cov, queries, mus, weighted_matrix)
            bV.append(eV.mean())
            bU.append(eU.mean())
        for key, vals in (("V", bV), ("U", bU)):
            out[key].append(float(np.mean(vals)))
            out[key + "_se"].append(float(np.std(vals, ddof=1) / math.sqrt(len(vals))))
    return out


def _tri(z: float, crit: float):
    """True when z > crit, False when z < -crit (significant evidence the other way), else undecided."""
    return True if z > crit else (False if z < -crit else None)


def run(scenario: dict, profile: str, rng: np.random.Generator, *, jacobian_U=None, weighted_matrix=None) -> dict:
    """`jacobian_U` replaces the emitted finite-prompt J_U kernel; `weighted_matrix(zhat, C_hat)`
    replaces the matrix the U-Jacobian is built from in the Monte Carlo (sensitivity tests)."""
    s = scen.common(scenario)
    m, cov, U, V, Sq, d = s["mean"], s["cov"], s["U"], s["V"], s["query_cov"], s["d"]
    k = V.shape[0]
    if np.min(np.linalg.eigvalsh(Sq)) <= 1e-12:
        raise ValueError(f"prop-3.4 needs a positive definite query_cov, got {Sq.tolist()}")
    budget = dict(BUDGETS[profile])
    if profile == "standard":
        budget["Ls"], budget["prompts"] = s["L"], s["trials"]
    z0 = s["query"] if s.get("query") is not None else rng.multivariate_normal(np.zeros(d), Sq, method="eigh")
    lam = largest_tilt_eigenvalue(U, cov, Sq)
    kappa = fluctuations.sharp_exponent(lam)

    checks = [symbolic_check("Jacobians, risk gradients and their 1/L fluctuations", {
        **{p.statement: p for p in catalogue.gradient_proofs()},
        **{p.statement: p for p in catalogue.gradient_fluctuation_proofs()}})]
    checks.append(limit_jacobian_check(m, cov, U, V, z0))
    checks += finite_jacobian_checks(rng, m, cov, U, V, z0, jacobian_U=jacobian_U)
    checks += risk_gradient_checks(rng, m, cov, U, V, Sq)

    # Fixed query: L E err^2 -> exact coefficients (fit A + B/L over L >= 64).
    a = _R(U) * _R(z0).T
    coefV = float(gf.coefficient_V(a, _R(cov), k))
    coefU = float(gf.coefficient_U(_R(z0).T, _R(U), _R(cov), _R(V)))
    law = GaussianLaw(m, cov)
    mu0 = (m + cov @ U @ z0)[None, :]
    fixed = {"L": [], "V": [], "V_se": [], "U": [], "U_se": []}
    for L in budget["Ls"]:
        progress(f"prop-3.4: fixed query, L = {L}")
        eV, eU = _errors(law, rng, budget["prompts"], L, U, V, cov, z0[None, :], mu0, weighted_matrix)
        fixed["L"].append(L)
        for key, e in (("V", eV[:, 0]), ("U", eU[:, 0])):
            fixed[key].append(float(e.mean()))
            fixed[key + "_se"].append(float(e.std(ddof=1) / math.sqrt(e.size)))
    use = [i for i, L in enumerate(fixed["L"]) if L >= 64]
    z_crit = float(stats.norm.isf(FALSE_ALARM / 8))   # two-sided, four z-tests in this claim
    for key, coef in (("V", coefV), ("U", coefU)):
        A, seA = _fit_first_order([fixed["L"][i] for i in use], [fixed[key][i] for i in use],
                                  [fixed[key + "_se"][i] for i in use])
        zval = abs(A - coef) / seA
        checks.append(Check(f"fixed query: lim L E||grad_{key} err||^2 = exact coefficient (Monte Carlo)", "montecarlo",
                            zval <= z_crit, A, coef,
                            f"fit L E err^2 = A + B/L over L >= 64 (weighted least squares, {budget['prompts']} prompts "
                            f"per L); |A - coefficient| / se(A) = {zval:.3g} <= {z_crit:.3g}, false-alarm {FALSE_ALARM:g} "
                            "over the claim's four z-tests (normal approximation; O(1/L^2) remainder neglected)"))

    # Query average below the threshold: the exact first-order coefficients.
    coefs = gf.query_averaged_coefficients(_R(cov), _R(U), _R(V), _R(Sq))
    first_V = None if coefs[0] == sp.oo else float(coefs[0])
    first_U = None if coefs[1] == sp.oo else float(coefs[1])
    main = query_average_sweep(cov, m, U, V, Sq, budget["Ls"], budget, rng, "scenario", weighted_matrix)
    # The query average is checked in two steps: the per-query coefficients above (finite prompts),
    # and here their average over nu against Monte Carlo over queries of the same per-query formula.
    # (A direct fit of the finite-prompt query average is reported, not judged: large-|z| queries
    # are far from their asymptotic regime at L ~ 10^3, and the fit is biased low by ~10%.)
    if lam < 0.125:   # e^{q} has a finite fourth moment over queries: the z-test is sound
        n_q = {"quick": 400_000, "standard": 1_000_000, "full": 4_000_000}[profile]
        zq = rng.multivariate_normal(np.zeros(d), Sq, size=n_q, method="eigh")
        yV, yU = _per_query_coefficients(zq, U, V, cov)
        for key, coef, y in (("V", first_V, yV), ("U", first_U, yU)):
            zval = abs(y.mean() - coef) / (y.std(ddof=1) / math.sqrt(y.size))
            checks.append(Check(f"query average: exact lim L E||grad_{key} err||^2_(L2(nu)) vs Monte Carlo over queries",
                                "montecarlo", zval <= z_crit, float(y.mean()), coef,
                                f"{n_q} queries from nu, each with its exact per-query coefficient; |z| = {zval:.3g} <= "
                                f"{z_crit:.3g} (normal approximation)"))
    else:
        checks.append(Check("query average: first-order coefficients (Monte Carlo over queries)", "montecarlo", None,
                            lam, 0.125, "lambda >= 1/8: the per-query coefficient lacks a fourth moment over nu; "
                            "no z-test is sound here"))
    use = [i for i, L in enumerate(main["L"]) if L >= 64]
    fitted_average = {key: _fit_first_order([main["L"][i] for i in use], [main[key][i] for i in use],
                                            [main[key + "_se"][i] for i in use]) for key in ("V", "U")}

    # Regimes: rescale Gamma so that lambda takes the values of REGIMES; slopes against -kappa.
    regimes, control_growth = {}, None
    for name, target in REGIMES.items():
        scale = target / lam
        sweep = query_average_sweep(scale * cov, m, U, V, Sq, budget["Ls"], budget, rng, name)
        entry = {"lambda": target, "sigma2_scale": scale, "exponent": fluctuations.sharp_exponent(target), "sweep": sweep}
        for key in ("V", "U"):
            idx = [i for i, L in enumerate(sweep["L"]) if L >= 64]
            entry[f"slope_{key}"], entry[f"slope_{key}_stderr"] = _fit_slope(
                [sweep["L"][i] for i in idx], [sweep[key][i] for i in idx], [sweep[key + "_se"][i] for i in idx])
        regimes[name] = entry
    # Finite-L slopes carry logarithmic factors of unknown power at and beyond the threshold, so
    # they are reported against -kappa, not judged; what is judged: (i) beyond the threshold the
    # grad_V error decays strictly slower than below it, (ii) a 1/L rate is refuted there. (The
    # grad_U error's pre-asymptotic curvature below the threshold is too strong at L <= 2048 for
    # the ordering to be decided at this budget; its rate is judged by the 1/L coefficients.)
    z_order = float(stats.norm.isf(FALSE_ALARM / 2))
    for key in ("V",):
        lo, hi = regimes["below"], regimes["above"]
        zval = (hi[f"slope_{key}"] - lo[f"slope_{key}"]) / math.hypot(hi[f"slope_{key}_stderr"], lo[f"slope_{key}_stderr"])
        checks.append(Check(f"grad_{key}: beyond the threshold (lambda = {hi['lambda']}) the decay is slower than below "
                            f"(lambda = {lo['lambda']})", "montecarlo", _tri(zval, z_order), zval, z_order,
                            f"z-score of slope(above) - slope(below) = {hi[f'slope_{key}']:.3f} - {lo[f'slope_{key}']:.3f}; "
                            f"predicted -kappa: {-hi['exponent']:.3f} vs -1; passes above the bound, fails below minus the "
                            f"bound (the opposite ordering, significant), undecided between; false-alarm {FALSE_ALARM:g} per side"))
    above = regimes["above"]
    z_control = (above["slope_V"] + 1.0) / above["slope_V_stderr"]
    control_growth = z_control
    checks.append(Check("negative control: beyond the threshold a claimed 1/L rate must be refuted", "control",
                        _tri(z_control, z_order), z_control, z_order,
                        f"z-score of slope + 1 for grad_V at lambda = {above['lambda']} (slope {above['slope_V']:.3f} "
                        f"+- {above['slope_V_stderr']:.3f}); the control passes when the 1/L rate is rejected"))

    # The paper's form with explicit constants (sigma = 1 for the scenario's Gamma).
    c2 = kappa
    c1_V = max(main["V"][i] * main["L"][i] ** c2 / math.log(main["L"][i]) for i in range(len(main["L"])) if main["L"][i] >= 2)
    c1_U = max(main["U"][i] * main["L"][i] ** c2 / math.log(main["L"][i]) ** 2 for i in range(len(main["L"])) if main["L"][i] >= 2)
    # Erratum 1: at L = 1 the paper's right side is 0 (ln 1 = 0) while the gradient errors are positive.
    eV1, eU1 = _errors(law, rng, budget["prompts"], 1, U, V, cov, z0[None, :], mu0)
    witness = {"L": 1, "grad_V_error": float(eV1.mean()), "grad_U_error": float(eU1.mean()), "paper_bound": 0.0}
    checks.append(Check("erratum 1 witness: at L = 1 the gradient errors are positive while ln(1) = 0", "montecarlo",
                        bool(eV1.mean() > 0 and eU1.mean() > 0), witness["grad_V_error"], 0.0,
                        "mean over prompts of the L = 1 errors at the fixed query; the paper's display needs L >= 2"))

    quantities = {
        "threshold_lambda": lam,
        "exponent_V": kappa, "exponent_U": kappa,
        "first_order_coefficient_V": first_V, "first_order_coefficient_U": first_U,
        "fixed_query": z0.tolist() if hasattr(z0, "tolist") else list(z0),
        "fixed_query_coefficient_V": coefV, "fixed_query_coefficient_U": coefU,
        "finite_prompt_query_average_fit_V": fitted_average["V"], "finite_prompt_query_average_fit_U": fitted_average["U"],
        "c1_V": c1_V, "c1_U": c1_U, "c2": c2,
        "regimes": {n: {k_: v for k_, v in e.items() if k_ != "sweep"} for n, e in regimes.items()},
        "above_threshold_rate_z": control_growth,
    }
    for key in ("V", "U"):
        idx = [i for i, L in enumerate(main["L"]) if L >= 64]
        slope, se = _fit_slope([main["L"][i] for i in idx], [main[key][i] for i in idx], [main[key + "_se"][i] for i in idx])
        quantities[f"measured_slope_{key}"], quantities[f"measured_slope_{key}_stderr"] = slope, se
    errata = [{"id": 1, "title": "Proposition 3.4 as displayed fails at L = 1: ln(1) = 0 makes the right side 0",
               "witness": witness, "fix": "state the bound for L >= 2 (the suite checks L >= 2)"}]
    series = {"fixed_query": fixed, "query_average": main,
              "regimes": {n: e["sweep"] for n, e in regimes.items()}}
    formulas = {
        "coefficient_V": r"\lim_L L\,E\|\nabla_V T[\mu_L]-\nabla_V T[\mu]\|^2 = k\,e^{a^T\Gamma a}\left(\operatorname{tr}\Gamma + |\Gamma a|^2\right)",
        "coefficient_U": r"\lim_L L\,E\|\nabla_U T[\mu_L]-\nabla_U T[\mu]\|^2 = |z|^2 e^{a^T\Gamma a} F(\Gamma a)",
        "F": r"F(c) = " + sp.latex(sp.Symbol(r"\operatorname{tr}(M\Gamma)\operatorname{tr}\Gamma + \operatorname{tr}(M\Gamma^2) + c^TMc\,\operatorname{tr}\Gamma + |c|^2\operatorname{tr}(M\Gamma) + 2c^TM\Gamma c + (c^TMc)|c|^2")),
        "exponent": r"\kappa(\lambda) = 1\ (\lambda\le 1/2),\quad \frac{\sqrt{1+4/\lambda}-1}{2}\ (\lambda \ge 1/2)",
    }
    formulas.update(_sympy_formulas()[0])
    return certificate(CLAIM, scen.for_certificate(s), profile, s["seed"], checks, quantities, errata=errata,
                       formulas=formulas, series=series, provenance=provenance(), formulas_mathml=_sympy_formulas()[1])


def _sympy_formulas() -> tuple[dict, dict]:
    """The derived Jacobians (LaTeX and MathML, both printed by SymPy)."""
    from ..derivations import jacobians
    from ..mathml import fenced, mathml_formula, mi, mo

    def kron(expr):  # SymPy's MathML printer has no Kronecker product: join its factors with an o-times
        if isinstance(expr, sp.MatAdd):
            terms = [kron(t) for t in expr.args]
            return [p for j, t in enumerate(terms) for p in ([mo("+")] if j else []) + t]
        parts = []
        for j, arg in enumerate(expr.args):
            parts += ([mo("\u2297")] if j else []) + [fenced(arg) if isinstance(arg, (sp.MatMul, sp.MatAdd)) else arg]
        return parts

    f = jacobians.finite_symbols()
    JU, JV = jacobians.limit_jacobians(f)
    FU, FV = jacobians.finite_jacobians(f)
    latex = {"J_U_limit": r"J_U = " + sp.latex(JU), "J_V_limit": r"J_V = " + sp.latex(JV),
             "J_U_finite": r"J_U(T[\mu_L]) = " + sp.latex(FU), "J_V_finite": r"J_V(T[\mu_L]) = " + sp.latex(FV)}
    mathml = {"J_U_limit": mathml_formula(mi("J_U"), mo("="), *kron(JU)),
              "J_V_limit": mathml_formula(mi("J_V"), mo("="), *kron(JV)),
              "J_U_finite": mathml_formula(mi("J_U(T[\u03bc_L])"), mo("="), *kron(FU)),
              "J_V_finite": mathml_formula(mi("J_V(T[\u03bc_L])"), mo("="), *kron(FV))}
    return latex, mathml


CLAIM = Claim(ID, TITLE, STATEMENT, HYPOTHESES, run, default_scenario, scen.COMMON_KEYS)
