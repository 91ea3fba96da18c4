"""Kernel specs of in-context regression and the authors' scalar model (Thms 4.3 and 5.2, the
1/L coefficient, the authors' experiment, the exact finite-L risk). Collected by
derivations/kernelspecs.py."""

from __future__ import annotations

from . import icl_endpoint, icl_hessian, icl_kernels, icl_risk, risk_scalar, risk_scalar_variance
from .kernel_spec import KernelSpec


def icl_specs() -> list[KernelSpec]:
    """In-context linear regression (derivations/icl_*.py): R_inf(A, b), R_full(U11, u, v, b),
    gradients, the loss variance, the flow's endpoint, conserved quantity and transverse rate, the
    alpha ranges and the Lipschitz constant of grad R_inf."""
    k = icl_kernels.kernel_symbols()
    R, gU, gu, gv, gb = icl_kernels.kernel_full(k)
    A_star, b_star = icl_endpoint.kernel_endpoint(k)
    ab, full = (k["Sigma"], k["A"], k["b"]), (k["Sigma"], k["A"], k["u"], k["v"], k["b"])
    sab, sfull = ("(d, d)", "(d, d)", "scalar"), ("(d, d)", "(d, d)", "(d, 1)", "(d, 1)", "scalar")
    s, d, lam = icl_endpoint.s_sym, icl_endpoint.d_sym, icl_endpoint.lam_sym
    return [
        KernelSpec(
            "icl_risk",
            ab,
            sab,
            icl_kernels.kernel_risk(k),
            "R_inf(A, b) = tr((b Sigma A - I) Sigma (b Sigma A - I)^T) / 2.",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_grad_A",
            ab,
            sab,
            icl_kernels.kernel_grad_A(k),
            "grad_A R_inf = b Sigma (b Sigma A - I) Sigma.",
            "icl_kernels",
            "(d, d)",
        ),
        KernelSpec(
            "icl_grad_b",
            ab,
            sab,
            icl_kernels.kernel_grad_b(k),
            "grad_b R_inf = tr(Sigma A Sigma (b Sigma A - I)^T).",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_loss_variance",
            ab,
            sab,
            icl_risk.kernel_loss_variance(k),
            "Var of the loss (1/2) x^T K x over queries x ~ N(0, Sigma): tr((K Sigma)^2) / 2, "
            "K = (b Sigma A - I)^T (b Sigma A - I).",
            "icl_risk",
            "scalar",
        ),
        KernelSpec(
            "icl_full_risk",
            full,
            sfull,
            R,
            "R_inf for full (U, V): U11 = A, u = U[d, :d], (v, b) = last row of V.",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_full_grad_U11", full, sfull, gU, "grad of R_full in U11.", "icl_kernels", "(d, d)"
        ),
        KernelSpec(
            "icl_full_grad_u",
            full,
            sfull,
            gu,
            "grad of R_full in u = U[d, :d]^T.",
            "icl_kernels",
            "(d, 1)",
        ),
        KernelSpec(
            "icl_full_grad_v",
            full,
            sfull,
            gv,
            "grad of R_full in v = V[d, :d]^T.",
            "icl_kernels",
            "(d, 1)",
        ),
        KernelSpec(
            "icl_full_grad_b",
            full,
            sfull,
            gb,
            "grad of R_full in b = V[d, d].",
            "icl_kernels",
            "scalar",
        ),
        KernelSpec(
            "icl_endpoint_A",
            (k["Sigma"],),
            ("(d, d) SPD",),
            A_star,
            "A* = tr(Sigma^-2)^(-1/4) Sigma^-1: the balanced minimiser the flow ends at.",
            "icl_endpoint",
            "(d, d)",
        ),
        KernelSpec(
            "icl_endpoint_b",
            (k["Sigma"],),
            ("(d, d) SPD",),
            b_star,
            "b* = tr(Sigma^-2)^(1/4).",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_balance",
            (k["A"], k["b"]),
            ("(d, d)", "scalar"),
            icl_endpoint.kernel_balance(k),
            "||A||_F^2 - b^2: conserved along the (A, b) gradient flow.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_transverse_rate",
            (k["Sigma"], lam),
            ("(d, d) SPD", "scalar lambda_min(Sigma)"),
            icl_endpoint.kernel_transverse_rate(k),
            "b*^2 lambda_min^3: the slowest transverse decay rate at the endpoint.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_paper_alpha_bound",
            (s, d),
            ("scalar ||Sigma||_op", "scalar"),
            icl_endpoint.paper_alpha_bound(),
            "sqrt(2) / (d^(1/4) ||Sigma||_op): the alpha range stated with Theorem 5.2.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_zfb_alpha_bound",
            (s, d),
            ("scalar ||Sigma||_op", "scalar"),
            icl_endpoint.zfb_alpha_bound(),
            "sqrt(2 / (||Sigma||_op sqrt(d))): where alpha^2 ||Sigma|| sqrt(d) < 2 stops holding.",
            "icl_endpoint",
            "scalar",
        ),
        KernelSpec(
            "icl_hessian_bound",
            (k["Sigma"], icl_hessian.s_sym, icl_hessian.r_sym),
            ("(d, d) SPD", "scalar ||Sigma||_op", "scalar"),
            icl_hessian.kernel_lipschitz_bound(k),
            "beta_inf = 3 s^3 r^2 + s^(3/2) sqrt(tr Sigma): Lipschitz constant of grad R_inf on "
            "||theta|| <= r.",
            "icl_hessian",
            "scalar",
        ),
    ]


def risk_scalar_specs() -> list[KernelSpec]:
    """Exact 1/L coefficient of the authors' scalar model (derivations/risk_scalar.py)."""
    c, w, d, s2 = risk_scalar.c_sym, risk_scalar.om_sym, risk_scalar.d_sym, risk_scalar.s2_sym
    return [
        KernelSpec(
            "scalar_pair_term",
            (c, d, s2),
            ("array", "scalar", "scalar"),
            risk_scalar.pair_closed(),
            "(1 + s2)(1 - 2c)^(-d/2) + c (1 - 2c)^(-d/2-1), c = omega_h omega_k < 1/2.",
            "risk_scalar",
            "same as c",
        ),
        KernelSpec(
            "scalar_bias_term",
            (w, d),
            ("array", "scalar"),
            risk_scalar.bias_closed(),
            "omega (1 - 2 omega^2)^(-d/2-1): the cross term of the softmax bias with the residual.",
            "risk_scalar",
            "same as omega",
        ),
        KernelSpec(
            "scalar_heuristic_pair",
            (c, d, s2),
            ("array", "scalar", "scalar"),
            risk_scalar.heuristic_pair(),
            "The authors' heuristic (1 + s2) exp(d c).",
            "risk_scalar",
            "same as c",
        ),
        KernelSpec(
            "scalar_estimator_variance",
            (risk_scalar_variance.mu_sym, w, d, s2),
            ("scalar",) * 4,
            risk_scalar_variance.estimator_variance(),
            "Var of the L -> oo limit of the one-head Monte Carlo estimator of C1 (budget sizing).",
            "risk_scalar_variance",
            "scalar",
        ),
    ] + risk_scalar_head_specs()


def authors_experiment_specs() -> list[KernelSpec]:
    """The authors' one-head experiment: risks, optima and the per-prompt SGD pieces
    (derivations/kernelspecs_authors.py)."""
    from . import kernelspecs_authors

    return kernelspecs_authors.specs()


def risk_scalar_head_specs() -> list[KernelSpec]:
    """The scalar model's terms summed over H heads, mu and omega as (H, 1) columns
    (risk_scalar_heads.py)."""
    from . import risk_scalar_heads as rh

    heads, src = (rh.MU, rh.OMEGA, rh.d, rh.s2), "risk_scalar_heads"
    shapes = ("(H, 1)", "(H, 1)", "scalar", "scalar")
    return [
        KernelSpec(
            "scalar_first_order",
            heads,
            shapes,
            rh.first_order(),
            "C1 = mu^T pair(omega omega^T) mu + 2 (1 - mu^T omega) mu^T bias(omega) "
            "(every omega_h omega_k < 1/2).",
            src,
            "(1, 1)",
        ),
        KernelSpec(
            "scalar_heuristic",
            heads,
            shapes,
            rh.heuristic(),
            "The authors' coefficient mu^T [(1 + s2) exp(d omega omega^T)] mu (exp entrywise).",
            src,
            "(1, 1)",
        ),
        KernelSpec(
            "scalar_infinite_risk",
            (rh.MU, rh.OMEGA, rh.s2),
            shapes[:2] + ("scalar",),
            rh.infinite_risk(),
            "R_inf = (1 - mu^T omega)^2 + s2.",
            src,
            "(1, 1)",
        ),
    ]


def finite_risk_specs() -> list[KernelSpec]:
    """The exact finite-L risk of the authors' one-head model (derivations/risk_finite.py)."""
    from . import risk_finite as r

    args = (r.mu, r.omega, r.tau, r.s2, r.tr_p, r.k1, r.k2, r.A, r.B)
    return [
        KernelSpec(
            "finite_risk_integrand",
            args,
            ("scalar",) * 5 + ("array",) * 4,
            r.integrand(),
            "R_L - tau tr Sigma_q - s2 given the query: -2 mu omega tau k1 (1 - A) "
            "+ mu^2 tau (k2/k1)(B - A) + mu^2 tau omega^2 k2 (1 - 2A) "
            "+ mu^2 (tau tr Sigma_p + s2) A.",
            "risk_finite",
            "same as k1",
        ),
    ] + finite_risk_heads_specs()


def finite_risk_heads_specs() -> list[KernelSpec]:
    """The exact finite-L risk of the authors' two-head model (derivations/risk_finite_heads.py)."""
    from . import risk_finite_heads as h

    args = (
        h.mu1,
        h.mu2,
        h.om1,
        h.om2,
        h.tau,
        h.s2,
        h.tr_p,
        h.k1,
        h.k2,
        h.A11,
        h.A22,
        h.A12,
        h.B11,
        h.B22,
        h.B12,
    )
    return [
        KernelSpec(
            "finite_risk_heads_integrand",
            args,
            ("scalar",) * 7 + ("array",) * 8,
            h.integrand(),
            "Two heads: R_L - tau tr Sigma_q - s2 given the query: "
            "-2 tau k1 sum_h mu_h omega_h (1 - A_hh) + sum_hk mu_h mu_k [tau (k2/k1)(B_hk - A_hk) "
            "+ tau omega_h omega_k k2 (1 - A_hh - A_kk) + (tau tr Sigma_p + s2) A_hk].",
            "risk_finite_heads",
            "same as k1",
        ),
    ]
