"""What `softlin derive` emits: one KernelSpec per numeric kernel, built from derived expressions.

A spec names the kernel, its arguments (SymPy symbols in call order, with the array shapes the
emitted code expects), the derived expression, and the derivation module it comes from. Adding a
kernel means adding a spec here or in kernelspecs_fluctuations.py / kernelspecs_regression.py (by
theme); the emitter does the rest.
"""

from __future__ import annotations

import sympy as sp

from . import concentration, controls, kernelspecs_gradient_flow, lemma21, mixture
from . import gradient_fluctuations, jacobians, risk
from .kernel_spec import KernelSpec
from .kernelspecs_fluctuations import (
    fluctuation_claim_specs,
    fluctuation_specs,
    selfnormalised_specs,
)
from .kernelspecs_regression import (
    authors_experiment_specs,
    finite_risk_specs,
    icl_specs,
    risk_scalar_specs,
)

__all__ = ["KernelSpec", "specs"]


def specs() -> list[KernelSpec]:
    s = lemma21.limit_symbols()
    c = concentration.symbols()
    mx = mixture.component_symbols()
    mx1 = mixture.component_symbols(n=1)
    a = controls.a_sym
    return (
        [
            KernelSpec(
                "gaussian_limit",
                (s["m"], s["Gamma"], s["U"], s["V"], s["z"]),
                ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(d, n)"),
                lemma21.gaussian_limit_matrix(s),
                "Lemma 2.1: T[N(m, Gamma)](z) = V (m + Gamma U z), one column per query.",
                "lemma21",
                "(k, n)",
            ),
            KernelSpec(
                "mixture_component_logit",
                (mx["log_pi"], mx["m"], mx["Gamma"], mx["U"], mx["z"]),
                ("scalar", "(d, 1)", "(d, d)", "(d, d)", "(d, n)"),
                mixture.component_logit_batched(mx),
                "log pi_k + (U z)^T m_k + (U z)^T Gamma_k (U z) / 2 for each query column.",
                "mixture",
                "(1, n)",
            ),
            KernelSpec(
                "mixture_component_second_logit",
                (mx["log_pi"], mx["m"], mx["Gamma"], mx["U"], mx["z"]),
                ("scalar", "(d, 1)", "(d, d)", "(d, d)", "(d, n)"),
                mixture.component_second_logit_batched(mx),
                "log pi_k + log Z_k(2 U z): 2 (U z)^T m_k + 2 (U z)^T Gamma_k (U z) + log pi_k "
                "per query column.",
                "mixture",
                "(1, n)",
            ),
            KernelSpec(
                "mixture_component_second_centred",
                (mx1["m"], mx1["Gamma"], mx1["V"], mx1["U"], mx1["z"], c["c"]),
                ("(d, 1)", "(d, d)", "(k, d)", "(d, d)", "(d, 1)", "(d, 1)"),
                mixture.component_second_centred(mx1),
                "tr(V Gamma_k V^T) + |V (m_k + 2 Gamma_k U z - c)|^2 for one query z and centre c.",
                "mixture",
                "(1, 1)",
            ),
            KernelSpec(
                "gaussian_log_normaliser",
                (c["m"], c["Gamma"], c["a"]),
                ("(d, 1)", "(d, d)", "(d, 1)"),
                concentration.component_log_normaliser(c),
                "log E exp(a^T z') = a^T m + a^T Gamma a / 2 for z' ~ N(m, Gamma).",
                "concentration",
                "(1, 1)",
            ),
            KernelSpec(
                "log_weight_second_moment",
                (c["Gamma"], c["a"]),
                ("(d, d)", "(d, 1)"),
                concentration.log_weight_second_moment(c),
                "log E w^2 = a^T Gamma a for the normalised softmax weight w of a Gaussian token.",
                "concentration",
                "(1, 1)",
            ),
            KernelSpec(
                "numerator_second_moment_factor",
                (c["Gamma"], c["V"], c["a"]),
                ("(d, d)", "(k, d)", "(d, 1)"),
                concentration.numerator_second_moment_factor(c),
                "E w^2 ||V (z' - mu_a)||^2 / E w^2 = tr(V Gamma V^T) + |V Gamma a|^2.",
                "concentration",
                "(1, 1)",
            ),
            KernelSpec(
                "component_centred_second_moment",
                (c["m"], c["Gamma"], c["V"], c["a"], c["c"]),
                ("(d, 1)", "(d, d)", "(k, d)", "(d, 1)", "(d, 1)"),
                concentration.component_centred_second_moment(c),
                "E_k[e^{a^T z'} ||V (z' - c)||^2] / Z_k(a) = tr(V Gamma V^T) "
                "+ |V (m + Gamma a - c)|^2.",
                "concentration",
                "(1, 1)",
            ),
            KernelSpec(
                "rademacher_tilted_mean",
                (a,),
                ("any shape",),
                controls.rademacher_tilted_mean(),
                "d/da log E e^{a x} for x = +-1: tanh a (entrywise).",
                "controls",
                "same as a",
            ),
            KernelSpec(
                "uniform_tilted_mean",
                (a,),
                ("any shape",),
                controls.uniform_tilted_mean(),
                "d/da log E e^{a x} for x ~ U[-sqrt3, sqrt3]: sqrt3 coth(sqrt3 a) - 1/a "
                "(entrywise).",
                "controls",
                "same as a",
            ),
        ]
        + icl_specs()
        + risk_scalar_specs()
        + gradient_specs()
        + fluctuation_specs()
        + authors_experiment_specs()
        + limit_claim_specs()
        + fluctuation_claim_specs()
        + selfnormalised_specs()
        + finite_risk_specs()
        + kernelspecs_gradient_flow.specs()
    )


def gradient_specs() -> list[KernelSpec]:
    """Jacobians in (U, V) and squared-loss risk gradients (derivations/jacobians.py, risk.py)."""
    f = jacobians.finite_symbols()
    lim = lemma21.limit_symbols()
    JU_lim, JV_lim = jacobians.limit_jacobians(f)
    JU_fin, JV_fin = jacobians.finite_jacobians(f)
    r = risk.symbols()
    gU, gV = risk.infinite_risk_gradients(r)
    sU, sV = risk.sample_gradients(f)
    res = sp.MatrixSymbol("r", f["V"].shape[0], 1)
    a = controls.a_sym
    return [
        KernelSpec(
            "limit_jacobian_U",
            (f["Gamma"], f["V"], f["z"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            JU_lim,
            "d vec T / d vec U = z^T kron (V Gamma) (column-major vec).",
            "jacobians",
            "(k, d*d)",
        ),
        KernelSpec(
            "limit_jacobian_V",
            (f["m"], f["Gamma"], f["U"], f["V"], f["z"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(d, 1)"),
            JV_lim,
            "d vec T / d vec V = (m + Gamma U z)^T kron I_k.",
            "jacobians",
            "(k, k*d)",
        ),
        KernelSpec(
            "finite_jacobian_U",
            (f["Chat"], f["V"], f["z"]),
            ("(d, d)", "(k, d)", "(d, 1)"),
            JU_fin,
            "d vec T_L / d vec U = z^T kron (V C_hat), C_hat the softmax-weighted covariance.",
            "jacobians",
            "(k, d*d)",
        ),
        KernelSpec(
            "finite_jacobian_V",
            (f["zhat"], f["V"]),
            ("(d, 1)", "(k, d)"),
            JV_fin,
            "d vec T_L / d vec V = zhat^T kron I_k, zhat the softmax-weighted mean.",
            "jacobians",
            "(k, k*d)",
        ),
        KernelSpec(
            "risk_inf",
            (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"),
            risk.infinite_risk(r),
            "R_inf = E_nu 1/2 ||V (m + Gamma U z) - W z||^2, z ~ N(0, Sigma_q).",
            "risk",
            "scalar",
        ),
        KernelSpec(
            "risk_inf_grad_U",
            (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"),
            gU,
            "grad_U R_inf (SymPy matrix calculus).",
            "risk",
            "(d, d)",
        ),
        KernelSpec(
            "risk_inf_grad_V",
            (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
            ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"),
            gV,
            "grad_V R_inf (SymPy matrix calculus).",
            "risk",
            "(k, d)",
        ),
        KernelSpec(
            "risk_sample_grad_U",
            (f["Chat"], f["V"], res, f["z"]),
            ("(d, d)", "(k, d)", "(k, 1)", "(d, 1)"),
            sU,
            "grad_U 1/2 ||T_L(z) - W z||^2 = C_hat^T V^T r z^T, r the residual.",
            "risk",
            "(d, d)",
        ),
        KernelSpec(
            "risk_sample_grad_V",
            (res, f["zhat"]),
            ("(k, 1)", "(d, 1)"),
            sV,
            "grad_V 1/2 ||T_L(z) - W z||^2 = r zhat^T.",
            "risk",
            "(k, d)",
        ),
        KernelSpec(
            "gradient_U_fourth_moment",
            (lim["Gamma"], lim["V"], lim["U"], lim["z"]),
            ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
            gradient_fluctuations.fourth_moment_batched(lim),
            "F(Gamma U z_j) = E||V(x x^T - Gamma)||_F^2, x ~ N(Gamma U z_j, Gamma), for n query "
            "columns.",
            "gradient_fluctuations",
            "(1, n)",
        ),
        KernelSpec(
            "rademacher_log_mgf",
            (a,),
            ("any shape",),
            controls.rademacher_log_mgf_stable(),
            "log E e^{a x} for x = +-1: log cosh a, as |a| + log1p(e^{-2|a|}) - log 2.",
            "controls",
            "same as a",
        ),
    ]


def limit_claim_specs() -> list[KernelSpec]:
    """The limit claims' statistical machinery: the deviation bound (derivations/deviation.py), the
    tilted output second moment behind the Monte Carlo power (lemma21.py) and the uniform control's
    log-mgf (controls.py)."""
    from . import catoni, deviation

    o = lemma21.output_symbols()
    return [
        KernelSpec(
            "catoni_influence",
            (catoni.x_sym,),
            ("any shape",),
            catoni.influence(),
            "Catoni's psi(x) = sign(x) log(1 + |x| + x^2/2).",
            "catoni",
            "same as x",
        ),
        KernelSpec(
            "catoni_scale",
            (catoni.n_sym, catoni.v_sym, catoni.ell_sym),
            ("any shape",) * 3,
            catoni.scale(),
            "alpha* = sqrt(2 l (n - 2 l) / (n^2 v)), l = log(2 / delta).",
            "catoni",
            "same as v",
        ),
        KernelSpec(
            "catoni_radius",
            (catoni.n_sym, catoni.v_sym, catoni.ell_sym),
            ("any shape",) * 3,
            catoni.radius(),
            "r = sqrt(2 v l / (n - 2 l)): P(|theta_hat - mu| > r) <= delta for Var <= v.",
            "catoni",
            "same as v",
        ),
        KernelSpec(
            "catoni_power_exponent",
            (catoni.n_sym, catoni.v_sym, catoni.alpha_sym, catoni.gap_sym),
            ("any shape",) * 4,
            catoni.power_exponent(),
            "l'(g) = (n/2)(1 - alpha^2 v - (1 - alpha g)^2): power >= 1 - e^{-l'} at mean r + g.",
            "catoni",
            "same as g",
        ),
        KernelSpec(
            "deviation_bound",
            (deviation.L_sym, deviation.delta_sym, deviation.w2_sym, deviation.num_sym),
            ("scalar",) * 4,
            deviation.deviation_bound(),
            "eps_L(delta) = sqrt(2 N / (L delta)) / (1 - t), t = sqrt(2 W log(2/delta) / L); "
            "inf when t >= 1.",
            "deviation",
            "scalar",
        ),
        KernelSpec(
            "output_second_moment",
            (o["m"], o["Gamma"], o["V"], o["a"], o["r"]),
            ("(d, 1)", "(d, d)", "(k, d)", "(d, 1)", "(k, 1)"),
            lemma21.output_second_moment(o),
            "E_a[(V z' - r)^2] = diag(V Gamma V^T) + (V (m + Gamma a) - r)^2 under the tilted law "
            "at a.",
            "lemma21",
            "(k, 1)",
        ),
        KernelSpec(
            "uniform_log_mgf",
            (controls.a_sym,),
            ("any shape",),
            controls.uniform_log_mgf_piecewise(),
            "log E e^{a x} for x ~ U[-sqrt3, sqrt3]: log(sinh(sqrt3 a) / (sqrt3 a)), "
            "series near 0.",
            "controls",
            "same as a",
        ),
    ]
