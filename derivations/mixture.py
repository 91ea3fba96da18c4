"""Gaussian-mixture limit (docs/paper.md section 6, from Gabet, Boursier & Boyer).

For mu = sum_k pi_k N(m_k, Gamma_k), the tilt of each component (see `tilt`) gives

    E_mu[e^{a^T z'} z'] / E_mu[e^{a^T z'}] = sum_k alpha_k(a) (m_k + Gamma_k a),
    alpha = softmax_k( log pi_k + log Z_k(a) ),   log Z_k(a) = a^T m_k + a^T Gamma_k a / 2,

so with a = U z:  T[mu](z) = V sum_k alpha_k (m_k + Gamma_k U z), a non-linear function of z.

The second moments of the normalised weight w = e^{a^T z'} / Z(a), Z(a) = sum_k pi_k Z_k(a), behind
the deviation bound (`concentration` for one Gaussian) follow the same way, with the doubly tilted
components:

    E_mu w^2                  = sum_k pi_k Z_k(2a) / Z(a)^2,
    E_mu w^2 ||V (z' - c)||^2 = sum_k pi_k Z_k(2a) (tr(V Gamma_k V^T)
                                  + |V (m_k + 2 Gamma_k a - c)|^2) / Z(a)^2

for any centre c (c = mu_a, the tilted mixture mean, in the bound; `bound_moment_proofs`). The
emitted kernels are the per-component logits log pi_k + log Z_k(a) and log pi_k + log Z_k(2a) and
the component factor; the sums over a variable number of components are an algorithm in
numerics/limits.py (a softmax and a log-sum-exp, which subtract the largest logit: no overflow).
"""

from __future__ import annotations

import sympy as sp

from . import batched, concentration, lemma21, tilt
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached


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
    return (
        s["log_pi"] * sp.OneMatrix(1, n)
        + s["m"].T * Uz
        + batched.columnwise_quadratic(Uz, s["Gamma"]) / 2
    )


def component_mean_batched(s=None) -> sp.MatrixExpr:
    """V (m_k + Gamma_k U z): the Lemma 2.1 limit of one component (k x n)."""
    return lemma21.gaussian_limit_matrix(s or component_symbols())


def component_second_logit_batched(s=None) -> sp.MatrixExpr:
    """log pi_k + log Z_k(2 U z_j): the component's share of E w^2 before the 1 / Z(a)^2 (1 x n)."""
    s = s or component_symbols()
    return component_logit_batched(s).subs(s["z"], 2 * s["z"])


def component_second_centred(s=None) -> sp.MatrixExpr:
    """tr(V Gamma_k V^T) + |V (m_k + 2 Gamma_k U z - c)|^2 for one query column z (1 x 1): the
    component factor of E w^2 ||V (z' - c)||^2 (`concentration.component_centred_second_moment` at
    tilt 2 U z)."""
    s = s or component_symbols(n=1)
    cs = concentration.symbols(s["Gamma"].shape[0], s["V"].shape[0])
    return concentration.component_centred_second_moment(cs).subs(
        {cs["a"]: 2 * s["U"] * s["z"], cs["m"]: s["m"], cs["Gamma"]: s["Gamma"], cs["V"]: s["V"]}
    )


def bound_moment_proofs(d: int, ranks: tuple[int, ...], k: int = 2) -> list[Proof]:
    """The mixture's E_mu w^2 and E_mu w^2 ||V (z' - c)||^2 from the 1-D integrals of each component
    (`tilt.tilt_moments_entries` at a and 2a) equal the kernels' composition (U = I, so z = a): term
    by term, pi_k Z_k(a), pi_k Z_k(2a) and pi_k E_k[e^{2 a^T z'} ||V(z' - c)||^2] are the
    exponentiated logits times the component factor, so the sums over k
    (the algorithm of numerics/limits.py) agree; with one dimension the two ratios are also proved
    whole."""
    K = len(ranks)
    tag = f"d={d}, K={K}, ranks={ranks}, k={k}"
    a = sp.Matrix(d, 1, sp.symbols(f"a0:{d}", real=True))
    c = sp.Matrix(d, 1, sp.symbols(f"c0:{d}", real=True))
    V = sp.Matrix(k, d, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    pis = sp.symbols(f"pi0:{K}", positive=True)
    s = component_symbols(d, k, 1)
    c_sym = sp.MatrixSymbol("c", d, 1)  # the centre of `concentration.symbols`
    norm = lambda e: sp.expand(sp.powsimp(sp.expand(e), force=True))
    out, sums = [], {"den": [0, 0], "w2": [0, 0], "num": [0, 0]}
    for j, rank in enumerate(ranks):
        m = sp.Matrix(d, 1, sp.symbols(f"m{j}_0:{d}", real=True))
        B = sp.Matrix(d, d, lambda i, l: sp.Symbol(f"b{j}_{i}{l}", real=True) if l < rank else 0)
        Z1, _, _ = tilt.tilt_moments_entries(a, m, B)
        Z2, mean2, second2 = tilt.tilt_moments_entries(2 * a, m, B)
        centred = second2 - mean2 * c.T - c * mean2.T + c * c.T
        subs = {
            s["log_pi"]: sp.log(pis[j]),
            s["m"]: m,
            s["Gamma"]: B * B.T,
            s["U"]: sp.eye(d),
            s["z"]: a,
            s["V"]: V,
            c_sym: c,
        }
        ev = lambda e: e.subs(subs).as_explicit()[0, 0]
        direct = {
            "den": pis[j] * Z1,
            "w2": pis[j] * Z2,
            "num": pis[j] * Z2 * (V * centred * V.T).trace(),
        }
        kernel = {
            "den": sp.exp(ev(component_logit_batched(s))),
            "w2": sp.exp(ev(component_second_logit_batched(s))),
        }
        kernel["num"] = kernel["w2"] * ev(component_second_centred(s))
        for key in sums:
            sums[key][0] += direct[key]
            sums[key][1] += kernel[key]
        out.append(
            prove_zero(
                f"component {j}: pi Z(a), pi Z(2a) and pi E[e^(2a^T z') ||V(z' - c)||^2] are the "
                f"kernels' exp(logit), exp(second logit) and exp(second logit) x factor [{tag}]",
                sp.Matrix([norm(direct[key] - kernel[key]) for key in sums]),
            )
        )
    if d == 1:
        (den, den_k), (w2, w2_k), (num, num_k) = sums["den"], sums["w2"], sums["num"]
        # Denominators Z(a)^2 cleared so that the identities are polynomial in the exponentials.
        out += [
            prove_zero(
                f"mixture E w^2 = sum_k pi_k Z_k(2a) / Z(a)^2 from the kernels [{tag}]",
                norm(w2 * den_k**2 - w2_k * den**2),
            ),
            prove_zero(
                "mixture E w^2 ||V(z' - c)||^2 = sum_k pi_k Z_k(2a) "
                "(tr V Gamma_k V^T + |V(m_k + 2 Gamma_k a - c)|^2) / Z(a)^2 from the kernels "
                f"[{tag}]",
                norm(num * den_k**2 - num_k * den**2),
            ),
        ]
    return out


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
    want = sp.Matrix(
        1,
        n,
        lambda _, j: (
            component_logit_scalar(s1)
            .subs({s1["a"]: U * z[:, j], s1["m"]: m, s1["Gamma"]: G})
            .as_explicit()[0, 0]
        ),
    )
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
    return [
        prove_zero(
            f"mixture ratio = sum_k softmax(log pi_k + log Z_k(a)) (m_k + Gamma_k a) [{tag}]",
            difference.applyfunc(lambda e: sp.expand(sp.powsimp(sp.expand(e), force=True))),
        )
    ]


def latex_limit() -> str:
    a = sp.Symbol("a")
    return (
        r"T[\mu](z) = V \sum_k \alpha_k(z)\,\left(m_k + \Gamma_k U z\right),\quad "
        r"\alpha = \operatorname{softmax}_k\!\left(\log \pi_k + "
        + sp.latex(sp.Symbol("m_k^T") * a)
        + r" + \tfrac12 a^T \Gamma_k a\right),\ a = U z"
    )


@cached
def mixture_proofs() -> tuple[Proof, ...]:
    out = [batched.proof(), logit_proof()]
    out += entry_proofs(1, (1, 1))
    out += entry_proofs(2, (2, 1))
    out += entry_proofs(1, (1, 1, 1))
    out += bound_moment_proofs(1, (1, 1), 1)
    out += bound_moment_proofs(2, (2, 1), 2)
    return tuple(out)


def kernel_specs() -> list[KernelSpec]:
    """Emitted: a component's logit log pi_k + log Z_k(U z), its logit at 2 U z, and its centred
    second moment, per query column."""
    c = concentration.symbols()
    mx = component_symbols()
    mx1 = component_symbols(n=1)
    return [
        KernelSpec(
            "mixture_component_logit",
            (mx["log_pi"], mx["m"], mx["Gamma"], mx["U"], mx["z"]),
            ("scalar", "(d, 1)", "(d, d)", "(d, d)", "(d, n)"),
            component_logit_batched(mx),
            "log pi_k + (U z)^T m_k + (U z)^T Gamma_k (U z) / 2 for each query column.",
            "mixture",
            "(1, n)",
        ),
        KernelSpec(
            "mixture_component_second_logit",
            (mx["log_pi"], mx["m"], mx["Gamma"], mx["U"], mx["z"]),
            ("scalar", "(d, 1)", "(d, d)", "(d, d)", "(d, n)"),
            component_second_logit_batched(mx),
            "log pi_k + log Z_k(2 U z): 2 (U z)^T m_k + 2 (U z)^T Gamma_k (U z) + log pi_k "
            "per query column.",
            "mixture",
            "(1, n)",
        ),
        KernelSpec(
            "mixture_component_second_centred",
            (mx1["m"], mx1["Gamma"], mx1["V"], mx1["U"], mx1["z"], c["c"]),
            ("(d, 1)", "(d, d)", "(k, d)", "(d, d)", "(d, 1)", "(d, 1)"),
            component_second_centred(mx1),
            "tr(V Gamma_k V^T) + |V (m_k + 2 Gamma_k U z - c)|^2 for one query z and centre c.",
            "mixture",
            "(1, 1)",
        ),
    ]


GROUP = Group(
    "mixture",
    title="Gaussian-mixture tokens: the non-linear limit",
    hypotheses="tokens sum_k pi_k N(m_k, Gamma_k), pi_k > 0",
    proofs=mixture_proofs,
    parts=("mixture", "batched"),
)
