"""What `softlin derive` emits: one KernelSpec per numeric kernel, built from derived expressions.

A spec names the kernel, its arguments (SymPy symbols in call order, with the array shapes the
emitted code expects), the derived expression, and the derivation module it comes from. Adding a
kernel means adding a spec here; the emitter does the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from . import concentration, controls, lemma21, mixture


@dataclass(frozen=True)
class KernelSpec:
    name: str
    args: tuple            # SymPy symbols / MatrixSymbols, in call order
    shapes: tuple          # documentation of each argument's array shape
    expr: object           # derived SymPy expression
    doc: str               # one-line mathematics
    source: str            # derivation module, e.g. "lemma21"
    returns: str           # shape of the result


def specs() -> list[KernelSpec]:
    s = lemma21.limit_symbols()
    c = concentration.symbols()
    mx = mixture.component_symbols()
    a = controls.a_sym
    return [
        KernelSpec("gaussian_limit", (s["m"], s["Gamma"], s["U"], s["V"], s["z"]),
                   ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(d, n)"),
                   lemma21.gaussian_limit_matrix(s),
                   "Lemma 2.1: T[N(m, Gamma)](z) = V (m + Gamma U z), one column per query.",
                   "lemma21", "(k, n)"),
        KernelSpec("mixture_component_logit", (mx["log_pi"], mx["m"], mx["Gamma"], mx["U"], mx["z"]),
                   ("scalar", "(d, 1)", "(d, d)", "(d, d)", "(d, n)"),
                   mixture.component_logit_batched(mx),
                   "log pi_k + (U z)^T m_k + (U z)^T Gamma_k (U z) / 2 for each query column.",
                   "mixture", "(1, n)"),
        KernelSpec("gaussian_log_normaliser", (c["m"], c["Gamma"], c["a"]),
                   ("(d, 1)", "(d, d)", "(d, 1)"),
                   concentration.component_log_normaliser(c),
                   "log E exp(a^T z') = a^T m + a^T Gamma a / 2 for z' ~ N(m, Gamma).",
                   "concentration", "(1, 1)"),
        KernelSpec("log_weight_second_moment", (c["Gamma"], c["a"]),
                   ("(d, d)", "(d, 1)"),
                   concentration.log_weight_second_moment(c),
                   "log E w^2 = a^T Gamma a for the normalised softmax weight w of a Gaussian token.",
                   "concentration", "(1, 1)"),
        KernelSpec("numerator_second_moment_factor", (c["Gamma"], c["V"], c["a"]),
                   ("(d, d)", "(k, d)", "(d, 1)"),
                   concentration.numerator_second_moment_factor(c),
                   "E w^2 ||V (z' - mu_a)||^2 / E w^2 = tr(V Gamma V^T) + |V Gamma a|^2.",
                   "concentration", "(1, 1)"),
        KernelSpec("component_centred_second_moment", (c["m"], c["Gamma"], c["V"], c["a"], c["c"]),
                   ("(d, 1)", "(d, d)", "(k, d)", "(d, 1)", "(d, 1)"),
                   concentration.component_centred_second_moment(c),
                   "E_k[e^{a^T z'} ||V (z' - c)||^2] / Z_k(a) = tr(V Gamma V^T) + |V (m + Gamma a - c)|^2.",
                   "concentration", "(1, 1)"),
        KernelSpec("rademacher_tilted_mean", (a,), ("any shape",), controls.rademacher_tilted_mean(),
                   "d/da log E e^{a x} for x = +-1: tanh a (entrywise).", "controls", "same as a"),
        KernelSpec("uniform_tilted_mean", (a,), ("any shape",), controls.uniform_tilted_mean(),
                   "d/da log E e^{a x} for x ~ U[-sqrt3, sqrt3]: sqrt3 coth(sqrt3 a) - 1/a (entrywise).",
                   "controls", "same as a"),
    ]
