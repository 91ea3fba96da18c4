"""Exact 1/L term of the authors' scalar-model risk
(docs/paper.md section 6, claim `finite-prompt-risk`).

Model: x_i, x_q ~ N(0, I_d), beta ~ N(0, I_d / d), y = beta^T x + eps, eps ~ N(0, s2) (also for the
query's y_q), yhat = sum_h mu_h S_h with S_h = sum_i softmax_i(omega_h x_i^T x_q) y_i.

Derivation (all steps below are SymPy computations, proved in `proofs`):

1. Ratio expansion. With w_h = e^{omega_h x^T q} / E e^{omega_h x^T q} (q = x_q), N_h = mean w_h y,
   D_h = mean w_h, m_h = E[w_h y] (given beta, q), N_h = m_h + X_h/sqrt(L), D_h = 1 + Y_h/sqrt(L)
   with X, Y centred, a second-order expansion of N_h/D_h gives, up to O(L^-3/2) in expectation,
       E[S_h - m_h]                 = (m_h Var Y_h - Cov(X_h, Y_h)) / L = -E[w_h^2 (y - m_h)] / L,
       E[(S_h - m_h)(S_k - m_k)]    = Cov(X_h - m_h Y_h, X_k - m_k Y_k) / L
                                    = E[w_h w_k (y-m_h)(y-m_k)] / L.
2. Gaussian integrals given (beta, q): in a basis whose first vector is q/|q|, x^T q = n g1,
   beta^T x = beta1 g1 + betap g2, eps = sqrt(s2) g3 (g independent N(0, 1), n = |q|); the moments
   E[g1^p e^{t g1}] are the derived 1-D integrals of `tilt`. This gives m_h = omega_h beta^T q and
       E[w_h^2 (y - m_h)]              = e^{omega_h^2 n^2} omega_h beta^T q,
       E[w_h w_k (y - m_h)(y - m_k)]   = e^{omega_h omega_k n^2}
                                           (omega_h omega_k (beta^T q)^2 + |beta|^2 + s2).
3. Averages: beta ~ N(0, I/d) gives E (beta^T q)^2 = n^2/d, E |beta|^2 = 1; n^2 ~ chi2_d gives
   E e^{c n^2} = (1 - 2c)^(-d/2), E n^2 e^{c n^2} = d (1 - 2c)^(-d/2 - 1) for c < 1/2
   (integrated here).
4. The risk E (y_q - yhat)^2 = R_inf + C1 / L + o(1/L) with R_inf = (1 - mu.omega)^2 + s2 (the
   infinite-prompt residual r = (1 - mu.omega) beta^T q + eps_q) and

       C1 = sum_{h,k} mu_h mu_k pair(omega_h omega_k) + 2 (1 - mu.omega) sum_h mu_h bias(omega_h),
       pair(c)  = (1 + s2) (1 - 2c)^(-d/2) + c (1 - 2c)^(-d/2 - 1),
       bias(w)  = w (1 - 2 w^2)^(-d/2 - 1)          (the cross term: 1/L bias of S_h times r).

   C1 is infinite when some omega_h omega_k >= 1/2 (then the risk decays slower than 1/L).
   The authors' heuristic replaces the whole coefficient by
   sum mu_h mu_k (1 + s2) exp(d omega_h omega_k): it is the first-order Taylor term of pair(c)
   in c, and drops the c-term and the cross term.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import tilt
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero

c_sym = sp.Symbol("c", real=True)  # omega_h omega_k
om_sym = sp.Symbol("omega", real=True)
d_sym = sp.Symbol("d", positive=True)
s2_sym = sp.Symbol("s2", nonnegative=True)


def ratio_expansion():
    """(bias coefficient, cross-moment coefficient) of the second-order expansion of N/D
    (step 1)."""
    e = sp.Symbol("epsilon", positive=True)
    mh, mk = sp.symbols("m_h m_k", real=True)
    Xh, Yh, Xk, Yk = sp.symbols("X_h Y_h X_k Y_k", real=True)
    fh = sp.series((mh + e * Xh) / (1 + e * Yh), e, 0, 3).removeO()
    fk = sp.series((mk + e * Xk) / (1 + e * Yk), e, 0, 3).removeO()
    names = [Xh, Yh, Xk, Yk]
    cov = {(a, b): sp.Symbol(f"C_{a}{b}") for a in names for b in names}

    def expect(poly):
        P = sp.Poly(sp.expand(poly), *names)
        out = sp.Integer(0)
        for powers, coeff in P.terms():
            deg = sum(powers)
            if deg == 0:
                out += coeff
            elif deg == 2:
                idx = [n for n, p in zip(names, powers) for _ in range(p)]
                key = tuple(sorted(idx, key=names.index))
                out += coeff * cov[key]
            # degree 1: centred; degree >= 3: O(L^-3/2) (epsilon^3 and higher), dropped
        return out

    bias = sp.expand(expect(fh - mh)).coeff(e, 2)
    cross = sp.expand(expect(sp.expand((fh - mh) * (fk - mk)))).coeff(e, 2)
    return bias, cross, cov, (mh, mk), names


def _gauss(poly_in_g, gs, tilts):
    """E over independent N(0, 1) coordinates of poly(g) * exp(sum t_j g_j), from `tilt`'s 1-D
    integrals."""
    P = sp.Poly(sp.expand(poly_in_g), *gs)
    out = sp.Integer(0)
    for powers, coeff in P.terms():
        f = sp.Integer(1)
        for p, t in zip(powers, tilts):
            f *= tilt.gaussian_moment_1d(p).subs(tilt.t_sym, t)
        out += coeff * f
    zeroth = sp.Mul(*[tilt.gaussian_moment_1d(0).subs(tilt.t_sym, t) for t in tilts])
    return sp.simplify(out / zeroth) * zeroth


@lru_cache(maxsize=None)
def conditional_moments():
    """Step 2: (m_h, E[w_h^2 (y - m_h)], E[w_h w_k (y-m_h)(y-m_k)], E w_h^2 - 1, Cov(w_h y, w_h))
    given beta, q."""
    n = sp.Symbol("n", positive=True)
    b1, bp = sp.symbols("beta1 betap", real=True)
    wh, wk = sp.symbols("omega_h omega_k", real=True)
    s = sp.sqrt(s2_sym)
    g = sp.symbols("g1:4", real=True)
    y = b1 * g[0] + bp * g[1] + s * g[2]
    Z = lambda w: sp.exp(w**2 * n**2 / 2)  # E e^{w n g1}, the derived normaliser below
    Zh = _gauss(sp.Integer(1), g, (wh * n, 0, 0))
    m_h = sp.simplify(_gauss(y, g, (wh * n, 0, 0)) / Zh)
    m_k = m_h.subs(wh, wk)
    bias_int = sp.simplify(_gauss(y - m_h, g, (2 * wh * n, 0, 0)) / Zh**2)
    pair_int = sp.simplify(
        _gauss(sp.expand((y - m_h) * (y - m_k)), g, ((wh + wk) * n, 0, 0)) / (Zh * Zh.subs(wh, wk))
    )
    return {
        "n": n,
        "beta1": b1,
        "betap": bp,
        "omega_h": wh,
        "omega_k": wk,
        "m_h": m_h,
        "bias": bias_int,
        "pair": pair_int,
        "Z": Zh,
        "Z_closed": Z(wh),
    }


@lru_cache(maxsize=None)
def chi2_moments():
    """Step 3: E e^{c Q} and E Q e^{c Q} for Q ~ chi2_d, integrated with k = 1 - 2c > 0."""
    Q = sp.Symbol("Q", positive=True)
    k = sp.Symbol("k", positive=True)
    norm = 2 ** (d_sym / 2) * sp.gamma(d_sym / 2)  # chi2_d density Q^(d/2-1) e^(-Q/2) / norm
    # density * e^{c Q} = Q^(d/2-1) e^{-k Q / 2} / norm, with the exponents merged before
    # integrating.
    tilted = sp.powsimp(
        Q ** (d_sym / 2 - 1) * sp.exp(-Q / 2) * sp.exp((1 - k) / 2 * Q), combine="exp"
    )
    tilted = tilted.replace(sp.exp, lambda a: sp.exp(sp.expand(a)))
    m0 = sp.simplify(sp.integrate(tilted, (Q, 0, sp.oo), conds="none") / norm)
    m1 = sp.simplify(sp.integrate(Q * tilted, (Q, 0, sp.oo), conds="none") / norm)
    return m0, m1, k


@lru_cache(maxsize=None)
def derived_terms():
    """(pair(c), bias(omega)) of the module docstring, derived by steps 2-3."""
    cm = conditional_moments()
    n, b1, bp, wh, wk = cm["n"], cm["beta1"], cm["betap"], cm["omega_h"], cm["omega_k"]
    E0, E1, k = chi2_moments()  # functions of k = 1 - 2c > 0

    # Average over beta ~ N(0, I/d) in the rotated basis: beta1 ~ N(0, 1/d), |beta_perp|^2 has
    # mean (d-1)/d.
    def beta_avg(expr):
        P = sp.Poly(sp.expand(expr), b1, bp)
        table = {
            (0, 0): 1,
            (2, 0): 1 / d_sym,
            (0, 2): (d_sym - 1) / d_sym,
            (1, 1): 0,
            (1, 0): 0,
            (0, 1): 0,
        }
        return sum(coeff * table[powers] for powers, coeff in P.terms())

    # beta^T q = beta1 n. Factor the exponential in n^2 out, then average the n^2-polynomial with
    # it.
    pair = sp.expand(cm["pair"] * sp.exp(-wh * wk * n**2))
    pair_b = sp.expand(beta_avg(pair))
    pair_avg = pair_b.coeff(n, 0) * E0 + pair_b.coeff(n, 2) * E1
    # Cross term: r_inf = (1 - mu.omega) beta^T q (+ eps_q, independent); the 1/L bias is
    # -E[w^2 (y - m)].
    bias = sp.expand(cm["bias"] * b1 * n * sp.exp(-(wh**2) * n**2))  # E[w^2 (y-m)] * beta^T q
    bias_b = sp.expand(beta_avg(bias))
    bias_avg = bias_b.coeff(n, 0) * E0 + bias_b.coeff(n, 2) * E1
    # In k: pair with c = omega_h omega_k = (1 - k)/2; bias with
    # omega_h^2 = (1 - k)/2 (omega_h kept as a factor).
    pair_k = sp.simplify(pair_avg.subs(wk, (1 - k) / (2 * wh)))
    bias_k = sp.simplify(bias_avg.subs(wh, om_sym))
    return pair_k, bias_k, k


def pair_closed():
    return (1 + s2_sym) * (1 - 2 * c_sym) ** (-d_sym / 2) + c_sym * (1 - 2 * c_sym) ** (
        -d_sym / 2 - 1
    )


def bias_closed():
    return om_sym * (1 - 2 * om_sym**2) ** (-d_sym / 2 - 1)


def heuristic_pair():
    """The authors' term (1 + s2) exp(d omega_h omega_k) (comparison only)."""
    return (1 + s2_sym) * sp.exp(d_sym * c_sym)


def proofs() -> list[Proof]:
    bias, cross, cov, (mh, mk), (Xh, Yh, Xk, Yk) = ratio_expansion()
    cm = conditional_moments()
    pair, bias_term, k = derived_terms()
    # Compare in k = 1 - 2c > 0 (the domain where the coefficient is finite); c <-> k is a bijection
    # there.
    pair_target = pair_closed().subs(c_sym, (1 - k) / 2)
    bias_target = bias_closed().subs(om_sym**2, (1 - k) / 2)
    out = [
        prove_zero(
            "ratio expansion: E[N/D - m] L = m Var Y - Cov(X, Y)",
            bias - (mh * cov[(Yh, Yh)] - cov[(Xh, Yh)]),
        ),
        prove_zero(
            "ratio expansion: E[(S_h - m_h)(S_k - m_k)] L = Cov(X_h - m_h Y_h, X_k - m_k Y_k)",
            cross
            - (cov[(Xh, Xk)] - mk * cov[(Xh, Yk)] - mh * cov[(Yh, Xk)] + mh * mk * cov[(Yh, Yk)]),
        ),
        prove_zero(
            "softmax normaliser E e^{omega x^T q} = exp(omega^2 |q|^2 / 2)",
            cm["Z"] - cm["Z_closed"],
        ),
        prove_zero(
            "tilted mean m_h = omega_h beta^T q", cm["m_h"] - cm["omega_h"] * cm["beta1"] * cm["n"]
        ),
        prove_zero(
            "E[w_h^2 (y - m_h)] = e^{omega_h^2 |q|^2} omega_h beta^T q",
            cm["bias"]
            - sp.exp(cm["omega_h"] ** 2 * cm["n"] ** 2) * cm["omega_h"] * cm["beta1"] * cm["n"],
        ),
        prove_zero(
            "E[w_h w_k (y-m_h)(y-m_k)] = "
            "e^{omega_h omega_k |q|^2}(omega_h omega_k (beta^T q)^2 + |beta|^2 + s2)",
            cm["pair"]
            - sp.exp(cm["omega_h"] * cm["omega_k"] * cm["n"] ** 2)
            * (
                cm["omega_h"] * cm["omega_k"] * cm["beta1"] ** 2 * cm["n"] ** 2
                + cm["beta1"] ** 2
                + cm["betap"] ** 2
                + s2_sym
            ),
        ),
        prove_zero(
            "pair term: (1 + s2)(1 - 2c)^(-d/2) + c (1 - 2c)^(-d/2-1) (derived)", pair - pair_target
        ),
        prove_zero(
            "cross term: omega (1 - 2 omega^2)^(-d/2-1) (derived)",
            sp.simplify(
                bias_term.subs(om_sym, sp.sqrt((1 - k) / 2))
                - bias_target.subs(om_sym, sp.sqrt((1 - k) / 2))
            ),
        ),
        prove_zero(
            "d/dc log pair(c) at c = 0 is d + 1/(1 + s2), while the heuristic exp(d c) has d: "
            "they differ at first order in c",
            sp.diff(sp.log(pair_closed()), c_sym).subs(c_sym, 0) - (d_sym + 1 / (1 + s2_sym)),
        ),
    ]
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted, entrywise in c = omega_h omega_k or omega: the exact pair and bias terms of the 1/L
    coefficient and the authors' heuristic pair term."""
    c, w, d, s2 = c_sym, om_sym, d_sym, s2_sym
    return [
        KernelSpec(
            "scalar_pair_term",
            (c, d, s2),
            ("array", "scalar", "scalar"),
            pair_closed(),
            "(1 + s2)(1 - 2c)^(-d/2) + c (1 - 2c)^(-d/2-1), c = omega_h omega_k < 1/2.",
            "risk_scalar",
            "same as c",
        ),
        KernelSpec(
            "scalar_bias_term",
            (w, d),
            ("array", "scalar"),
            bias_closed(),
            "omega (1 - 2 omega^2)^(-d/2-1): the cross term of the softmax bias with the residual.",
            "risk_scalar",
            "same as omega",
        ),
        KernelSpec(
            "scalar_heuristic_pair",
            (c, d, s2),
            ("array", "scalar", "scalar"),
            heuristic_pair(),
            "The authors' heuristic (1 + s2) exp(d c).",
            "risk_scalar",
            "same as c",
        ),
    ]
