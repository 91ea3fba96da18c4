"""Kernel specs of the exact-risk gradient flow and the SGD noise floor
(derivations/risk_finite_gradient.py, claim `authors-experiment`). Part of `kernelspecs.specs()`.
"""

from __future__ import annotations

from . import authors_experiment as ae, risk_finite as rf, risk_finite_gradient as g
from .kernel_spec import KernelSpec


def specs() -> list[KernelSpec]:
    args = (rf.mu, rf.omega, rf.tau, rf.s2, rf.tr_p, rf.k1, rf.k2, rf.A, rf.B, g.dA, g.dB)
    shapes = ("scalar",) * 5 + ("array",) * 6
    g_mu, g_om = g.integrand_gradient()
    Sp, Sq, mu, om, s2, tau, L = (
        ae.SIGMA_P,
        ae.SIGMA_Q,
        ae.mu_sym,
        ae.omega_sym,
        ae.s2_sym,
        ae.tau_sym,
        ae.L_sym,
    )
    lyap = (g.h11, g.h12, g.h22, g.c11, g.c12, g.c22, g.lr, g.n_batch)
    return [
        KernelSpec(
            "finite_risk_integrand_grad_mu",
            args,
            shapes,
            g_mu,
            "d/dmu of the finite-L risk integrand (A_L, B_L free of mu).",
            "risk_finite_gradient",
            "same as k1",
        ),
        KernelSpec(
            "finite_risk_integrand_grad_omega",
            args,
            shapes,
            g_om,
            "d/domega of the finite-L risk integrand: "
            "d_omega I + 2 omega k1 (d_A I A' + d_B I B'), q = omega^2 k1.",
            "risk_finite_gradient",
            "same as k1",
        ),
        KernelSpec(
            "authors_linear_risk_gradient",
            (Sp, Sq, mu, om, s2, tau, L),
            ("(d, d)", "(d, d)") + ("scalar",) * 5,
            ae.to_matrix_form(g.linear_risk_gradient()),
            "(dR/dmu, dR/domega) of the exact finite-L linear-attention risk.",
            "risk_finite_gradient",
            "(1, 2)",
        ),
        KernelSpec(
            "sgd_stationary_covariance",
            lyap,
            ("scalar",) * 8,
            g.stationary_covariance(),
            "P solving P = (I - lr H) P (I - lr H) + lr^2 C / n (H, C symmetric 2 x 2 by entries).",
            "risk_finite_gradient",
            "(2, 2)",
        ),
        KernelSpec(
            "sgd_mean_excess",
            lyap,
            ("scalar",) * 8,
            g.mean_excess(),
            "tr(H P) / 2: the mean excess risk of stationary constant-step SGD.",
            "risk_finite_gradient",
            "scalar",
        ),
    ]
