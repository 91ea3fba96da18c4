"""Gaussian-mixture limit (docs/paper.md section 6, from Gabet, Boursier & Boyer).

For mu = sum_k pi_k N(m_k, Gamma_k), the tilt of each component (see `tilt`) gives

    E_mu[e^{a^T z'} z'] / E_mu[e^{a^T z'}] = sum_k alpha_k(a) (m_k + Gamma_k a),
    alpha = softmax_k( log pi_k + log Z_k(a) ),   log Z_k(a) = a^T m_k + a^T Gamma_k a / 2,

so with a = U z:  T[mu](z) = V sum_k alpha_k (m_k + Gamma_k U z), a non-linear function of z.
The emitted code takes the softmax over components with the maximum logit subtracted.
"""

from __future__ import annotations

import sympy as sp

from . import batched, lemma21, tilt
from .proof import Proof, prove_zero


def component_symbols(d=None, k=None, n=None):
    s = lemma21.limit_symbols(d, k, n)
    s["log_pi"] = sp.Symbol("log_pi", real=True)
    return s


def component_logit_scalar(s) -> sp.MatrixExpr:
    """log pi_k + log Z_k(a) for one tilt vector a (1 x 1)."""
    return sp.Identity(1) * s["log_pi"] + tilt.log_normaliser_gamma(s)


def component_logit_batched(s=None) -> sp.MatrixExpr:
    """log pi_k + log Z_k(U z_j) for the n query columns z_j (1 x n); see `batched`."""
    s = s or component_symbols()
    Uz = s["U"] * s["z"]
    n = s["z"].shape[1]
    return (s["log_pi"] * sp.OneMatrix(1, n) + s["m"].T * Uz
            + batched.columnwise_quadratic(Uz, s["Gamma"]) / 2)


def component_mean_batched(s=None) -> sp.MatrixExpr:
    """V (m_k + Gamma_k U z): the Lemma 2.1 limit of one component (k x n)."""
    return lemma21.gaussian_limit_matrix(s or component_symbols())


def logit_proof(d: int = 2, n: int = 2) -> Proof:
    """The batched logit equals log pi + log Z(U z_j) column by column."""
    s = component_symbols(d, 1, n)
    m = sp.Matrix(d, 1, sp.symbols(f"m0:{d}", real=True))
    G = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"g{min(i, j)}{max(i, j)}", real=True))
    U = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    z = sp.Matrix(d, n, lambda i, j: sp.Symbol(f"z{i}{j}", real=True))
    subs = {s["m"]: m, s["Gamma"]: G, s["U"]: U, s["z"]: z}
    got = component_logit_batched(s).subs(subs).as_explicit()
    s1 = component_symbols(d, 1, 1)
    want = sp.Matrix(1, n, lambda _, j: component_logit_scalar(s1).subs(
        {s1["a"]: U * z[:, j], s1["m"]: m, s1["Gamma"]: G}).as_explicit()[0, 0])
    return prove_zero(f"batched component logit = log pi + log Z(U z_j) [d={d}, n={n}]", got - want)


def entry_proofs(d: int, ranks: tuple[int, ...]) -> list[Proof]:
    """The mixture ratio of integrals equals the softmax-weighted component means, with fully
    symbolic weights, means and roots B_k (rank ranks[k])."""
    K = len(ranks)
    tag = f"d={d}, K={K}, ranks={ranks}"
    a = sp.Matrix(d, 1, sp.symbols(f"a0:{d}", real=True))
    pis = sp.symbols(f"pi0:{K}", positive=True)
    num, den, logits, means = sp.zeros(d, 1), 0, [], []
    for c, rank in enumerate(ranks):
        m = sp.Matrix(d, 1, sp.symbols(f"m{c}_0:{d}", real=True))
        B = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"b{c}_{i}{j}", real=True) if j < rank else 0)
        Z, mean, _ = tilt.tilt_moments_entries(a, m, B)
        num += pis[c] * Z * mean
        den += pis[c] * Z
        logits.append(sp.log(pis[c]) + (a.T * m)[0, 0] + (a.T * B * B.T * a)[0, 0] / 2)
        means.append(m + B * B.T * a)
    weights = [sp.exp(l) for l in logits]
    claimed = sum((w * mk for w, mk in zip(weights, means)), sp.zeros(d, 1)) / sum(weights)
    # Clear the two denominators so that the identity is polynomial in the exponentials.
    difference = num * sum(weights) - claimed * sum(weights) * den
    return [prove_zero(f"mixture ratio = sum_k softmax(log pi_k + log Z_k(a)) (m_k + Gamma_k a) [{tag}]",
                       difference.applyfunc(lambda e: sp.expand(sp.powsimp(sp.expand(e), force=True))))]


def latex_limit() -> str:
    a = sp.Symbol("a")
    return (r"T[\mu](z) = V \sum_k \alpha_k(z)\,\left(m_k + \Gamma_k U z\right),\quad "
            r"\alpha = \operatorname{softmax}_k\!\left(\log \pi_k + " + sp.latex(
                sp.Symbol("m_k^T") * a) + r" + \tfrac12 a^T \Gamma_k a\right),\ a = U z")
