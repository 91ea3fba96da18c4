"""What `softlin derive` emits: one KernelSpec per numeric kernel, built from derived expressions.

A spec names the kernel, its arguments (SymPy symbols in call order, with the array shapes the
emitted code expects), the derived expression, and the derivation module it comes from. Adding a
kernel means adding a spec here; the emitter does the rest.
"""

from __future__ import annotations

import sympy as sp

from . import concentration, controls, lemma21, mixture
from .kernel_spec import KernelSpec
from . import icl, risk_scalar, risk_scalar_variance
from . import gradient_fluctuations, jacobians, risk
from . import fluctuations, fluctuations_bound, fluctuations_exponent, fluctuations_product


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
    ] + icl_specs() + risk_scalar_specs() + gradient_specs() + fluctuation_specs() + authors_experiment_specs() \
        + limit_claim_specs()


def icl_specs() -> list[KernelSpec]:
    """In-context linear regression (derivations/icl.py): R_inf(A, b), R_full(U11, u, v, b), gradients."""
    k = icl.kernel_symbols()
    R, gU, gu, gv, gb = icl.kernel_full(k)
    ab, full = (k["Sigma"], k["A"], k["b"]), (k["Sigma"], k["A"], k["u"], k["v"], k["b"])
    sab, sfull = ("(d, d)", "(d, d)", "scalar"), ("(d, d)", "(d, d)", "(d, 1)", "(d, 1)", "scalar")
    return [
        KernelSpec("icl_risk", ab, sab, icl.kernel_risk(k),
                   "R_inf(A, b) = tr((b Sigma A - I) Sigma (b Sigma A - I)^T) / 2.", "icl", "scalar"),
        KernelSpec("icl_grad_A", ab, sab, icl.kernel_grad_A(k), "grad_A R_inf = b Sigma (b Sigma A - I) Sigma.",
                   "icl", "(d, d)"),
        KernelSpec("icl_grad_b", ab, sab, icl.kernel_grad_b(k), "grad_b R_inf = tr(Sigma A Sigma (b Sigma A - I)^T).",
                   "icl", "scalar"),
        KernelSpec("icl_loss_variance", ab, sab, icl.kernel_loss_variance(k),
                   "Var of the loss (1/2) x^T K x over queries x ~ N(0, Sigma): tr((K Sigma)^2) / 2, "
                   "K = (b Sigma A - I)^T (b Sigma A - I).", "icl", "scalar"),
        KernelSpec("icl_full_risk", full, sfull, R,
                   "R_inf for full (U, V): U11 = A, u = U[d, :d], (v, b) = last row of V.", "icl", "scalar"),
        KernelSpec("icl_full_grad_U11", full, sfull, gU, "grad of R_full in U11.", "icl", "(d, d)"),
        KernelSpec("icl_full_grad_u", full, sfull, gu, "grad of R_full in u = U[d, :d]^T.", "icl", "(d, 1)"),
        KernelSpec("icl_full_grad_v", full, sfull, gv, "grad of R_full in v = V[d, :d]^T.", "icl", "(d, 1)"),
        KernelSpec("icl_full_grad_b", full, sfull, gb, "grad of R_full in b = V[d, d].", "icl", "scalar"),
    ]


def risk_scalar_specs() -> list[KernelSpec]:
    """Exact 1/L coefficient of the authors' scalar model (derivations/risk_scalar.py)."""
    c, w, d, s2 = risk_scalar.c_sym, risk_scalar.om_sym, risk_scalar.d_sym, risk_scalar.s2_sym
    return [
        KernelSpec("scalar_pair_term", (c, d, s2), ("array", "scalar", "scalar"), risk_scalar.pair_closed(),
                   "(1 + s2)(1 - 2c)^(-d/2) + c (1 - 2c)^(-d/2-1), c = omega_h omega_k < 1/2.",
                   "risk_scalar", "same as c"),
        KernelSpec("scalar_bias_term", (w, d), ("array", "scalar"), risk_scalar.bias_closed(),
                   "omega (1 - 2 omega^2)^(-d/2-1): the cross term of the softmax bias with the residual.",
                   "risk_scalar", "same as omega"),
        KernelSpec("scalar_heuristic_pair", (c, d, s2), ("array", "scalar", "scalar"), risk_scalar.heuristic_pair(),
                   "The authors' heuristic (1 + s2) exp(d c).", "risk_scalar", "same as c"),
        KernelSpec("scalar_estimator_variance", (risk_scalar_variance.mu_sym, w, d, s2), ("scalar",) * 4,
                   risk_scalar_variance.estimator_variance(),
                   "Var of the L -> oo limit of the one-head Monte Carlo estimator of C1 (budget sizing).",
                   "risk_scalar_variance", "scalar"),
    ] + risk_scalar_head_specs()


def risk_scalar_head_specs() -> list[KernelSpec]:
    """The scalar model's terms summed over H heads, mu and omega as (H, 1) columns (risk_scalar_heads.py)."""
    from . import risk_scalar_heads as rh

    heads, src = (rh.MU, rh.OMEGA, rh.d, rh.s2), "risk_scalar_heads"
    shapes = ("(H, 1)", "(H, 1)", "scalar", "scalar")
    return [
        KernelSpec("scalar_first_order", heads, shapes, rh.first_order(),
                   "C1 = mu^T pair(omega omega^T) mu + 2 (1 - mu^T omega) mu^T bias(omega) (every omega_h omega_k < 1/2).",
                   src, "(1, 1)"),
        KernelSpec("scalar_heuristic", heads, shapes, rh.heuristic(),
                   "The authors' coefficient mu^T [(1 + s2) exp(d omega omega^T)] mu (exp entrywise).", src, "(1, 1)"),
        KernelSpec("scalar_infinite_risk", (rh.MU, rh.OMEGA, rh.s2), shapes[:2] + ("scalar",), rh.infinite_risk(),
                   "R_inf = (1 - mu^T omega)^2 + s2.", src, "(1, 1)"),
    ]


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
        KernelSpec("limit_jacobian_U", (f["Gamma"], f["V"], f["z"]), ("(d, d)", "(k, d)", "(d, 1)"), JU_lim,
                   "d vec T / d vec U = z^T kron (V Gamma) (column-major vec).", "jacobians", "(k, d*d)"),
        KernelSpec("limit_jacobian_V", (f["m"], f["Gamma"], f["U"], f["V"], f["z"]),
                   ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(d, 1)"), JV_lim,
                   "d vec T / d vec V = (m + Gamma U z)^T kron I_k.", "jacobians", "(k, k*d)"),
        KernelSpec("finite_jacobian_U", (f["Chat"], f["V"], f["z"]), ("(d, d)", "(k, d)", "(d, 1)"), JU_fin,
                   "d vec T_L / d vec U = z^T kron (V C_hat), C_hat the softmax-weighted covariance.",
                   "jacobians", "(k, d*d)"),
        KernelSpec("finite_jacobian_V", (f["zhat"], f["V"]), ("(d, 1)", "(k, d)"), JV_fin,
                   "d vec T_L / d vec V = zhat^T kron I_k, zhat the softmax-weighted mean.", "jacobians", "(k, k*d)"),
        KernelSpec("risk_inf", (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
                   ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"), risk.infinite_risk(r),
                   "R_inf = E_nu 1/2 ||V (m + Gamma U z) - W z||^2, z ~ N(0, Sigma_q).", "risk", "scalar"),
        KernelSpec("risk_inf_grad_U", (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
                   ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"), gU,
                   "grad_U R_inf (SymPy matrix calculus).", "risk", "(d, d)"),
        KernelSpec("risk_inf_grad_V", (r["m"], r["Gamma"], r["U"], r["V"], r["W"], r["Sigma_q"]),
                   ("(d, 1)", "(d, d)", "(d, d)", "(k, d)", "(k, d)", "(d, d)"), gV,
                   "grad_V R_inf (SymPy matrix calculus).", "risk", "(k, d)"),
        KernelSpec("risk_sample_grad_U", (f["Chat"], f["V"], res, f["z"]), ("(d, d)", "(k, d)", "(k, 1)", "(d, 1)"),
                   sU, "grad_U 1/2 ||T_L(z) - W z||^2 = C_hat^T V^T r z^T, r the residual.", "risk", "(d, d)"),
        KernelSpec("risk_sample_grad_V", (res, f["zhat"]), ("(k, 1)", "(d, 1)"), sV,
                   "grad_V 1/2 ||T_L(z) - W z||^2 = r zhat^T.", "risk", "(k, d)"),
        KernelSpec("gradient_U_fourth_moment", (lim["Gamma"], lim["V"], lim["U"], lim["z"]),
                   ("(d, d)", "(k, d)", "(d, d)", "(d, n)"), gradient_fluctuations.fourth_moment_batched(lim),
                   "F(Gamma U z_j) = E||V(x x^T - Gamma)||_F^2, x ~ N(Gamma U z_j, Gamma), for n query columns.",
                   "gradient_fluctuations", "(1, n)"),
        KernelSpec("rademacher_log_mgf", (a,), ("any shape",), controls.rademacher_log_mgf_stable(),
                   "log E e^{a x} for x = +-1: log cosh a, as |a| + log1p(e^{-2|a|}) - log 2.", "controls", "same as a"),
    ]


def fluctuation_specs() -> list[KernelSpec]:
    """Proposition 3.1: first-order (1/L) bias and covariance of the finite-prompt output
    (derivations/fluctuations.py)."""
    fl = fluctuations.symbols()
    return [
        KernelSpec("bias_first_order", (fl["Gamma"], fl["V"], fl["a"]), ("(d, d)", "(k, d)", "(d, 1)"),
                   fluctuations.bias_first_order(fl),
                   "b1 = lim L (E T[mu_L](z) - T[mu](z)) = -e^{a^T Gamma a} V Gamma a, a = U z.",
                   "fluctuations", "(k, 1)"),
        KernelSpec("cov_first_order", (fl["Gamma"], fl["V"], fl["a"]), ("(d, d)", "(k, d)", "(d, 1)"),
                   fluctuations.cov_first_order(fl),
                   "C1 = lim L Cov T[mu_L](z) = e^{a^T Gamma a} V (Gamma + Gamma a a^T Gamma) V^T.",
                   "fluctuations", "(k, k)"),
        KernelSpec("first_order_log_weight", (fl["Gamma"], fl["U"], fl["z"]), ("(d, d)", "(d, d)", "(d, n)"),
                   fluctuations.log_weight_second_moment_batched(fl),
                   "log E w^2 = a^T Gamma a for each query column (a = U z).", "fluctuations", "(1, n)"),
        KernelSpec("first_order_numerator", (fl["Gamma"], fl["V"], fl["U"], fl["z"]),
                   ("(d, d)", "(k, d)", "(d, d)", "(d, n)"), fluctuations.numerator_factor_batched(fl),
                   "tr C1(z) / E w^2 = tr(V Gamma V^T) + |V Gamma U z|^2 for each query column.",
                   "fluctuations", "(1, n)"),
    ] + [
        KernelSpec(f"{kind}_{what}", (controls.a_sym,), ("any shape",), expr(kind), f"{doc} ({kind}, entrywise).",
                   "fluctuations_product", "same as a")
        for kind in ("rademacher", "uniform")
        for what, expr, doc in (("log_weight_second_moment", fluctuations_product.product_law_log_w2,
                                 "l(2a) - 2 l(a) = log E w^2 of one coordinate, l its log-mgf"),
                                ("curvature", fluctuations_product.product_law_curvature, "l''(a): the tilted variance"))
    ] + [
        KernelSpec("sharp_exponent", (fluctuations_exponent.lam_arg,), ("scalar > 0",), fluctuations_exponent.sharp_exponent_piecewise(),
                   "kappa(lambda) = min(1, (sqrt(1 + 4/lambda) - 1)/2).", "fluctuations_exponent", "scalar"),
        KernelSpec("naive_exponent", (fluctuations_exponent.lam_arg,), ("scalar > 0",), fluctuations_exponent.naive_exponent_piecewise(),
                   "min(1, 1/(2 lambda)): the heuristic exponent of min(1, e^q/L).", "fluctuations_exponent", "scalar"),
        KernelSpec("remainder_exponent", (fluctuations_exponent.lam_arg,), ("scalar > 0",),
                   fluctuations_exponent.remainder_exponent_piecewise(),
                   "rho(lambda): L x error reaches its first order as L^-rho below the threshold.", "fluctuations_exponent", "scalar"),
        KernelSpec("expectation_bound_good_event", (fluctuations_bound.L_sym, fluctuations_bound.q_sym),
                   ("scalar", "any shape"), fluctuations_bound.good_event_term(),
                   "First term of the in-expectation bound factor: sup_{D >= 1/2} D^-2 e^q / L = 4 e^q / L.",
                   "fluctuations_bound", "same as q"),
        KernelSpec("expectation_bound_bad_event", (fluctuations_bound.L_sym, fluctuations_bound.q_sym),
                   ("scalar", "any shape"), fluctuations_bound.bad_event_term(),
                   "Second term of the in-expectation bound factor: L exp(-(L-2)^2 / (8 (L-1) e^q)).",
                   "fluctuations_bound", "same as q"),
        KernelSpec("expectation_bound_factor", (fluctuations_bound.L_sym, fluctuations_bound.q_sym), ("scalar", "any shape"),
                   fluctuations_bound.expectation_bound_factor(),
                   "eps_L^2(z) / (tr(V Gamma V^T) + |V Gamma a|^2) = 4 e^q / L + L exp(-(L-2)^2 / (8 (L-1) e^q)).",
                   "fluctuations_bound", "same as q"),
    ]


def authors_experiment_specs() -> list[KernelSpec]:
    """The authors' one-head experiment: risks, optima and the per-prompt SGD pieces
    (derivations/kernelspecs_authors.py)."""
    from . import kernelspecs_authors
    return kernelspecs_authors.specs()


def limit_claim_specs() -> list[KernelSpec]:
    """The limit claims' statistical machinery: the deviation bound (derivations/deviation.py), the
    tilted output second moment behind the Monte Carlo power (lemma21.py) and the uniform control's
    log-mgf (controls.py)."""
    from . import deviation

    o = lemma21.output_symbols()
    return [
        KernelSpec("deviation_bound", (deviation.L_sym, deviation.delta_sym, deviation.w2_sym, deviation.num_sym),
                   ("scalar",) * 4, deviation.deviation_bound(),
                   "eps_L(delta) = sqrt(2 N / (L delta)) / (1 - t), t = sqrt(2 W log(2/delta) / L); inf when t >= 1.",
                   "deviation", "scalar"),
        KernelSpec("output_second_moment", (o["m"], o["Gamma"], o["V"], o["a"], o["r"]),
                   ("(d, 1)", "(d, d)", "(k, d)", "(d, 1)", "(k, 1)"), lemma21.output_second_moment(o),
                   "E_a[(V z' - r)^2] = diag(V Gamma V^T) + (V (m + Gamma a) - r)^2 under the tilted law at a.",
                   "lemma21", "(k, 1)"),
        KernelSpec("uniform_log_mgf", (controls.a_sym,), ("any shape",), controls.uniform_log_mgf_piecewise(),
                   "log E e^{a x} for x ~ U[-sqrt3, sqrt3]: log(sinh(sqrt3 a) / (sqrt3 a)), series near 0.",
                   "controls", "same as a"),
    ]
