"""Kernel specs of the fluctuation results (Props 3.1 and 3.4 and their concentration claims):
the first-order coefficient, the sharp exponent, the expectation bound, product laws, one-token
errors and the exact finite-L error split. Collected by derivations/kernelspecs.py."""

from __future__ import annotations

import sympy as sp

from . import (
    controls,
    fluctuations,
    fluctuations_bound,
    fluctuations_exponent,
    fluctuations_product,
)
from . import fluctuations_one_token, fluctuations_power, selfnormalised_error
from .kernel_spec import KernelSpec


def fluctuation_specs() -> list[KernelSpec]:
    """Proposition 3.1: first-order (1/L) bias and covariance of the finite-prompt output
    (derivations/fluctuations.py)."""
    fl, fb = fluctuations.symbols(), fluctuations_bound
    pa = fluctuations_product.assembly_symbols()  # product laws: tr C1 assembled over r coordinates
    return (
        [
            KernelSpec(
                "bias_first_order",
                (fl["Gamma"], fl["V"], fl["a"]),
                ("(d, d)", "(k, d)", "(d, 1)"),
                fluctuations.bias_first_order(fl),
                "b1 = lim L (E T[mu_L](z) - T[mu](z)) = -e^{a^T Gamma a} V Gamma a, a = U z.",
                "fluctuations",
                "(k, 1)",
            ),
            KernelSpec(
                "cov_first_order",
                (fl["Gamma"], fl["V"], fl["a"]),
                ("(d, d)", "(k, d)", "(d, 1)"),
                fluctuations.cov_first_order(fl),
                "C1 = lim L Cov T[mu_L](z) = e^{a^T Gamma a} V (Gamma + Gamma a a^T Gamma) V^T.",
                "fluctuations",
                "(k, k)",
            ),
            KernelSpec(
                "first_order_log_weight",
                (fl["Gamma"], fl["U"], fl["z"]),
                ("(d, d)", "(d, d)", "(d, n)"),
                fluctuations.log_weight_second_moment_batched(fl),
                "log E w^2 = a^T Gamma a for each query column (a = U z).",
                "fluctuations",
                "(1, n)",
            ),
            KernelSpec(
                "first_order_numerator",
                (fl["Gamma"], fl["V"], fl["U"], fl["z"]),
                ("(d, d)", "(k, d)", "(d, d)", "(d, n)"),
                fluctuations.numerator_factor_batched(fl),
                "tr C1(z) / E w^2 = tr(V Gamma V^T) + |V Gamma U z|^2 for each query column.",
                "fluctuations",
                "(1, n)",
            ),
        ]
        + [
            KernelSpec(
                f"{kind}_{what}",
                (controls.a_sym,),
                ("any shape",),
                expr(kind),
                f"{doc} ({kind}, entrywise).",
                "fluctuations_product",
                "same as a",
            )
            for kind in ("rademacher", "uniform")
            for what, expr, doc in (
                (
                    "log_weight_second_moment",
                    fluctuations_product.product_law_log_w2,
                    "l(2a) - 2 l(a) = log E w^2 of one coordinate, l its log-mgf",
                ),
                (
                    "curvature",
                    fluctuations_product.product_law_curvature,
                    "l''(a): the tilted variance",
                ),
            )
        ]
        + [
            KernelSpec(
                "product_law_log_weight",
                (pa["W"],),
                ("(r, n)",),
                fluctuations_product.product_log_weight(pa),
                "log E w^2 = sum_j (l(2 b_j) - 2 l(b_j)) per column, W = l(2b) - 2 l(b) entrywise.",
                "fluctuations_product",
                "(1, n)",
            ),
            KernelSpec(
                "product_law_trace_factor",
                (pa["K"], pa["D"], pa["VB"]),
                ("(r, n)", "(r, n)", "(k, r)"),
                fluctuations_product.product_trace_factor(pa),
                "tr C1 / E w^2 = sum_j l''(2 b_j) |V B e_j|^2 + |V B (l'(2b) - l'(b))|^2 per "
                "column.",
                "fluctuations_product",
                "(1, n)",
            ),
            KernelSpec(
                "sharp_exponent",
                (fluctuations_exponent.lam_arg,),
                ("scalar > 0",),
                fluctuations_exponent.sharp_exponent_piecewise(),
                "kappa(lambda) = min(1, (sqrt(1 + 4/lambda) - 1)/2).",
                "fluctuations_exponent",
                "scalar",
            ),
            KernelSpec(
                "naive_exponent",
                (fluctuations_exponent.lam_arg,),
                ("scalar > 0",),
                fluctuations_exponent.naive_exponent_piecewise(),
                "min(1, 1/(2 lambda)): the heuristic exponent of min(1, e^q/L).",
                "fluctuations_exponent",
                "scalar",
            ),
            KernelSpec(
                "rate_function",
                (fluctuations_exponent.gamma_arg,),
                ("any shape, > 0",),
                fluctuations_exponent.rate_function_piecewise(),
                "h(gamma): E sum_i p_i^2 ~ e^{-q h(gamma)} at L = e^{gamma q} (Laplace principle).",
                "fluctuations_exponent",
                "same as gamma",
            ),
            KernelSpec(
                "remainder_exponent",
                (fluctuations_exponent.lam_arg,),
                ("scalar > 0",),
                fluctuations_exponent.remainder_exponent_piecewise(),
                "rho(lambda): L x error reaches its first order as L^-rho below the threshold.",
                "fluctuations_exponent",
                "scalar",
            ),
            KernelSpec(
                "expectation_bound_good_event",
                (fluctuations_bound.L_sym, fluctuations_bound.q_sym),
                ("scalar", "any shape"),
                fluctuations_bound.good_event_term(),
                "First term of the in-expectation bound factor: "
                "sup_{D >= 1/2} D^-2 e^q / L = 4 e^q / L.",
                "fluctuations_bound",
                "same as q",
            ),
            KernelSpec(
                "expectation_bound_bad_event",
                (fluctuations_bound.L_sym, fluctuations_bound.q_sym),
                ("scalar", "any shape"),
                fluctuations_bound.bad_event_term(),
                "Second term of the in-expectation bound factor: L exp(-(L-2)^2 / (8 (L-1) e^q)).",
                "fluctuations_bound",
                "same as q",
            ),
            KernelSpec(
                "expectation_bound_factor",
                (fluctuations_bound.L_sym, fluctuations_bound.q_sym),
                ("scalar", "any shape"),
                fluctuations_bound.expectation_bound_factor(),
                "eps_L^2(z) / (tr(V Gamma V^T) + |V Gamma a|^2) = 4 e^q / L "
                "+ L exp(-(L-2)^2 / (8 (L-1) e^q)).",
                "fluctuations_bound",
                "same as q",
            ),
            KernelSpec(
                "paper_form",
                (fb.c1_sym, fb.sigma_sym, fb.c2_sym, fb.L_sym),
                ("scalar",) * 4,
                fb.paper_form(),
                "c1 sigma^6 ln L / L^(c2 / sigma^2): Proposition 3.1's right side.",
                "fluctuations_bound",
                "scalar",
            ),
            KernelSpec(
                "paper_constant",
                (fb.bound_sym, fb.sigma_sym, fb.L_sym),
                ("scalar",) * 3,
                fb.paper_constant(),
                "c1 = L bound / (sigma^6 ln L): the paper's form equals bound at c2 = sigma^2.",
                "fluctuations_bound",
                "scalar",
            ),
        ]
    )


def fluctuation_claim_specs() -> list[KernelSpec]:
    """Concentration claims: bias direction, one-token errors, fourth-moment model, product-law
    limits."""
    fl, ot = fluctuations.symbols(), fluctuations_one_token.symbols()
    G, U, V, z = ot["Gamma"], ot["U"], ot["V"], ot["z"]
    B = sp.MatrixSymbol("B", *G.shape)
    batch = ("(d, d)", "(k, d)", "(d, d)", "(d, n)")
    return [
        KernelSpec(
            "first_order_shift",
            (fl["Gamma"], fl["V"], fl["U"], fl["z"]),
            batch,
            fluctuations.shift_batched(fl),
            "V (mean(2a) - mean(a)) = V Gamma U z per query column: the direction of the bias "
            "(Stein).",
            "fluctuations",
            "(k, n)",
        ),
        KernelSpec(
            "output_error_one_token",
            (G, U, V, ot["Sigma_q"]),
            ("(d, d)", "(d, d)", "(k, d)", "(d, d)"),
            fluctuations_one_token.output_error(ot),
            "E||T[mu_1] - T[mu]||^2_{L2(nu)} = tr(V Gamma V^T) "
            "+ tr(V Gamma U Sigma_q U^T Gamma V^T).",
            "fluctuations_one_token",
            "scalar",
        ),
        KernelSpec(
            "gradient_V_error_one_token",
            (G, V, U, z),
            batch,
            fluctuations_one_token.gradient_V_error(ot),
            "E||grad_V err||^2 at L = 1: k (tr Gamma + |Gamma U z|^2) per query column.",
            "fluctuations_one_token",
            "(1, n)",
        ),
        KernelSpec(
            "gradient_U_error_one_token",
            (G, V, z),
            ("(d, d)", "(k, d)", "(d, n)"),
            fluctuations_one_token.gradient_U_error(ot),
            "||grad_U err||^2 at L = 1: |z|^2 ||V Gamma||_F^2 per query column (C_hat = 0).",
            "fluctuations_one_token",
            "(1, n)",
        ),
        KernelSpec(
            "error_fourth_moment_model",
            fluctuations_power.ARGS,
            ("any shape",) * 7,
            fluctuations_power.error_fourth_moment_model(),
            "(tr S)^2 + 2 tr S^2, S = A P + (B - A) u u^T / q: Gaussian model of E|err|^4 "
            "(entrywise).",
            "fluctuations_power",
            "same as mse",
        ),
    ] + [
        KernelSpec(
            f"{kind}_affine_limit",
            (ot["m"], B, U, V, z),
            ("(d, 1)", "(d, r)", "(d, d)", "(k, d)", "(d, n)"),
            fluctuations_product.product_law_limit(kind, ot),
            f"T[mu](z) = V (m + B l'(B^T U z)) for tokens m + B x, x iid {kind} (l' entrywise).",
            "fluctuations_product",
            "(k, n)",
        )
        for kind in ("rademacher", "uniform")
    ]


def selfnormalised_specs() -> list[KernelSpec]:
    """The exact finite-L error from the scalars
    A_L(q), B_L(q) (derivations/selfnormalised_error.py)."""
    se, s, A, B = (
        selfnormalised_error,
        selfnormalised_error.symbols(),
        selfnormalised_error.A_sym,
        selfnormalised_error.B_sym,
    )
    return [
        KernelSpec(
            "selfnormalised_error_second_moment",
            (s["Gamma"], s["V"], s["e"], A, B),
            ("(d, d)", "(k, d)", "(d, 1)", "scalar", "scalar"),
            se.error_second_moment(s),
            "E[err err^T] = A V (Gamma - e e^T) V^T + B V e e^T V^T, "
            "e = Gamma a / sqrt q (0 at q = 0).",
            "selfnormalised_error",
            "(k, k)",
        ),
        KernelSpec(
            "selfnormalised_bias",
            (s["Gamma"], s["V"], s["a"], A),
            ("(d, d)", "(k, d)", "(d, 1)", "scalar"),
            se.bias(s),
            "E err = -A V Gamma a (Stein's identity), exact at every L.",
            "selfnormalised_error",
            "(k, 1)",
        ),
        KernelSpec(
            "selfnormalised_mse",
            (se.trace_sym, se.rho_sym, A, B),
            ("any shape",) * 4,
            se.mean_squared_error(),
            "E|err|^2 = tr(V Gamma V^T) A + rho (B - A), rho = |V Gamma a|^2 / q.",
            "selfnormalised_error",
            "broadcast shape",
        ),
    ]
