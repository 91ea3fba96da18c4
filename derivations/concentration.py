"""Second moments behind the finite-prompt deviation bound (used by every concentration check).

Let w = e^{a^T z'} / Z(a) be the normalised softmax weight of a token (E w = 1) and mu_a the tilted
mean. The finite-prompt output minus the limit is a self-normalised ratio

    T[mu_L](z) - T[mu](z) = V X_L / D_L,   X_L = (1/L) sum_i w_i (z_i - mu_a),
                                           D_L = (1/L) sum_i w_i,

with E X_L = 0. Its two second moments follow from the tilt at 2a (the tilted law at 2a is
N(m + 2 Gamma a, Gamma), proved in `tilt`):

    E w^2                        = Z(2a) / Z(a)^2                = exp(a^T Gamma a),
    E w^2 (z' - mu_a)(z' - mu_a)^T = exp(a^T Gamma a) (Gamma + Gamma a a^T Gamma),

so L E||V X_L||^2 = exp(a^T Gamma a) (tr(V Gamma V^T) + |V Gamma a|^2).

For a mixture component (m_k, Gamma_k) and an arbitrary centre c, the same computation gives
E_k[e^{b^T z'} (z' - c)(z' - c)^T]
= Z_k(b) (Gamma_k + (m_k + Gamma_k b - c)(m_k + Gamma_k b - c)^T).
"""

from __future__ import annotations

import sympy as sp

from . import tilt
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached


def symbols(d=None, k=None):
    d = d if d is not None else sp.Symbol("d", integer=True, positive=True)
    k = k if k is not None else sp.Symbol("k", integer=True, positive=True)
    s = tilt.matrix_symbols(d)
    s["V"] = sp.MatrixSymbol("V", k, d)
    s["c"] = sp.MatrixSymbol("c", d, 1)
    return s


def log_weight_second_moment(s=None) -> sp.MatrixExpr:
    """log E w^2 = log Z(2a) - 2 log Z(a), simplified (1 x 1): a^T Gamma a."""
    s = s or symbols()
    logZ = tilt.log_normaliser_gamma(s)
    return sp.simplify(logZ.subs(s["a"], 2 * s["a"]) - 2 * logZ)


def tilted_shift(s=None) -> sp.MatrixExpr:
    """mean(2a) - mean(a): where the doubly tilted law sits relative to mu_a (Gamma a)."""
    s = s or symbols()
    mean = tilt.tilted_mean_matrix(s)
    return sp.simplify(mean.subs(s["a"], 2 * s["a"]) - mean)


def numerator_second_moment_factor(s=None) -> sp.MatrixExpr:
    """E w^2 ||V (z' - mu_a)||^2 / E w^2 = tr(V Gamma V^T) + |V Gamma a|^2 (1 x 1)."""
    s = s or symbols()
    shift = s["V"] * tilted_shift(s)
    return (
        sp.Trace(s["V"] * tilt.tilted_cov_matrix(s) * s["V"].T) * sp.Identity(1) + shift.T * shift
    )


def component_log_normaliser(s=None) -> sp.MatrixExpr:
    """log Z_k(b) for a component (tilt vector named a)."""
    return tilt.log_normaliser_gamma(s or symbols())


def component_centred_second_moment(s=None) -> sp.MatrixExpr:
    """tr(V (Gamma + (m + Gamma a - c)(m + Gamma a - c)^T) V^T): the k-th component's
    E[e^{a^T z'} ||V(z' - c)||^2] / Z_k(a)."""
    s = s or symbols()
    offset = s["V"] * (tilt.tilted_mean_matrix(s) - s["c"])
    return (
        sp.Trace(s["V"] * tilt.tilted_cov_matrix(s) * s["V"].T) * sp.Identity(1) + offset.T * offset
    )


def proofs() -> list[Proof]:
    s = symbols()
    a, G = s["a"], s["Gamma"]
    out = [
        prove_zero("log E w^2 = a^T Gamma a", log_weight_second_moment(s) - a.T * G * a),
        prove_zero("mean(2a) - mean(a) = Gamma a", tilted_shift(s) - G * a),
    ]
    # Entries check of the second moment itself, from the 1-D integrals (d = 2, rank 1 and 2).
    for rank in (1, 2):
        av, m, B = tilt.entry_symbols(2, rank)
        Z1, mu, _ = tilt.tilt_moments_entries(av, m, B)
        Z2, mean2, second2 = tilt.tilt_moments_entries(2 * av, m, B)
        centred = (second2 - mean2 * mu.T - mu * mean2.T + mu * mu.T) * Z2 / Z1**2
        Gm = B * B.T
        claimed = sp.exp((av.T * Gm * av)[0, 0]) * (Gm + Gm * av * av.T * Gm)
        out.append(
            prove_zero(
                "E w^2 (z'-mu_a)(z'-mu_a)^T = e^(a^T Gamma a)(Gamma + Gamma a a^T Gamma) "
                f"[d=2, rank={rank}]",
                (centred - claimed).applyfunc(
                    lambda e: sp.expand(sp.powsimp(sp.expand(e), force=True))
                ),
            )
        )
    return out


@cached
def concentration_proofs() -> tuple[Proof, ...]:
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the Gaussian log-normaliser, the log second moment of the normalised weight, and
    the numerator and centred second moments under the tilted law."""
    c = symbols()
    return [
        KernelSpec(
            "gaussian_log_normaliser",
            (c["m"], c["Gamma"], c["a"]),
            ("(d, 1)", "(d, d)", "(d, 1)"),
            component_log_normaliser(c),
            "log E exp(a^T z') = a^T m + a^T Gamma a / 2 for z' ~ N(m, Gamma).",
            "concentration",
            "(1, 1)",
        ),
        KernelSpec(
            "log_weight_second_moment",
            (c["Gamma"], c["a"]),
            ("(d, d)", "(d, 1)"),
            log_weight_second_moment(c),
            "log E w^2 = a^T Gamma a for the normalised softmax weight w of a Gaussian token.",
            "concentration",
            "(1, 1)",
        ),
        KernelSpec(
            "numerator_second_moment_factor",
            (c["Gamma"], c["V"], c["a"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            numerator_second_moment_factor(c),
            "E w^2 ||V (z' - mu_a)||^2 / E w^2 = tr(V Gamma V^T) + |V Gamma a|^2.",
            "concentration",
            "(1, 1)",
        ),
        KernelSpec(
            "component_centred_second_moment",
            (c["m"], c["Gamma"], c["V"], c["a"], c["c"]),
            ("(d, 1)", "(d, d)", "(k, d)", "(d, 1)", "(d, 1)"),
            component_centred_second_moment(c),
            "E_k[e^{a^T z'} ||V (z' - c)||^2] / Z_k(a) = tr(V Gamma V^T) "
            "+ |V (m + Gamma a - c)|^2.",
            "concentration",
            "(1, 1)",
        ),
    ]


GROUP = Group(
    "concentration",
    title="Second moments behind the finite-prompt deviation bound",
    hypotheses="tokens N(m, Gamma); w = e^{a^T z'} / Z(a) the normalised weight (E w = 1)",
    proofs=concentration_proofs,
    parts=("concentration",),
)
