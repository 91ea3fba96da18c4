"""Kernel specs of the authors' one-head experiment
(docs/paper.md section 6, claim `authors-experiment`): the infinite-prompt and exact finite-L
linear-attention risks in trace form and their optima (derivations/authors_experiment.py), then the
per-prompt outputs, loss and SGD gradients in the reduced statistics S, C, abar of a prompt
(derivations/authors_gradients.py). Part of `kernelspecs.specs()`.
"""

from __future__ import annotations

import sympy as sp

from . import authors_experiment as ae, authors_gradients as ag
from .kernel_spec import KernelSpec


def specs() -> list[KernelSpec]:
    return risk_specs() + sgd_specs()


def risk_specs() -> list[KernelSpec]:
    """The authors' one-head experiment (derivations/authors_experiment.py): infinite-prompt and
    exact finite-L linear-attention risks in trace form, and their optima in p = mu omega."""
    Sp, Sq, mu, om, s2, tau, L = (
        ae.SIGMA_P,
        ae.SIGMA_Q,
        ae.mu_sym,
        ae.omega_sym,
        ae.s2_sym,
        ae.tau_sym,
        ae.L_sym,
    )
    cov, sc = ("(d, d)", "(d, d)"), "scalar"
    p_inf, r_inf = ae.optimal_product()
    p_lin, r_lin = ae.optimal_product(ae.linear_risk_traces())
    m = ae.to_matrix_form
    return [
        KernelSpec(
            "authors_infinite_risk",
            (Sp, Sq, mu, om, s2, tau),
            cov + (sc,) * 4,
            m(ae.infinite_risk_traces()),
            "R_inf(mu, omega) of softmax and linear attention (Gaussian inputs), Sigma_p, Sigma_q "
            "commuting.",
            "authors_experiment",
            "scalar",
        ),
        KernelSpec(
            "authors_linear_risk",
            (Sp, Sq, mu, om, s2, tau, L),
            cov + (sc,) * 5,
            m(ae.linear_risk_traces()),
            "Exact finite-L risk of linear attention mu (1/L) sum_i omega x_i^T x_q y_i.",
            "authors_experiment",
            "scalar",
        ),
        KernelSpec(
            "authors_infinite_optimum",
            (Sp, Sq, s2, tau),
            cov + (sc,) * 2,
            sp.Matrix([[m(p_inf), m(r_inf)]]),
            "(p*, R*_inf): argmin and min of R_inf over p = mu omega.",
            "authors_experiment",
            "(1, 2)",
        ),
        KernelSpec(
            "authors_linear_optimum",
            (Sp, Sq, s2, tau, L),
            cov + (sc,) * 3,
            sp.Matrix([[m(p_lin), m(r_lin)]]),
            "(p*_L, min risk): optimum of the exact finite-L linear-attention risk "
            "over p = mu omega.",
            "authors_experiment",
            "(1, 2)",
        ),
    ]


def sgd_specs() -> list[KernelSpec]:
    """Per-prompt pieces of SGD on the loss (y_q - yhat)^2, elementwise over a batch of prompts."""
    mu, om, S, C, abar, yq = ae.mu_sym, ae.omega_sym, ag.S_sym, ag.C_sym, ag.abar_sym, ag.yq_sym
    soft_mu, soft_om = ag.gradients("softmax")
    lin_mu, lin_om = ag.gradients("linear")
    src, same = "authors_gradients", "same as the arrays"
    return [
        KernelSpec(
            "authors_sgd_softmax_output",
            (mu, S),
            ("scalar", "(n,)"),
            ag.output("softmax"),
            "yhat = mu S, S = sum_i softmax_i(omega s) y_i.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_linear_output",
            (mu, om, abar),
            ("scalar", "scalar", "(n,)"),
            ag.output("linear"),
            "yhat = mu omega abar, abar = (1/L) sum_i s_i y_i.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_loss",
            (yq, ag.yhat_sym),
            ("(n,)", "(n,)"),
            ag.loss(),
            "(y_q - yhat)^2: the authors' per-prompt loss.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_softmax_grad_mu",
            (mu, S, yq),
            ("scalar", "(n,)", "(n,)"),
            soft_mu,
            "d/dmu (y_q - mu S)^2 = -2 r S.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_softmax_grad_omega",
            (mu, S, C, yq),
            ("scalar", "(n,)", "(n,)", "(n,)"),
            soft_om,
            "d/domega (y_q - mu S)^2 = -2 r mu C, C = dS/domega the softmax-weighted covariance "
            "of s and y.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_linear_grad_mu",
            (mu, om, abar, yq),
            ("scalar", "scalar", "(n,)", "(n,)"),
            lin_mu,
            "d/dmu (y_q - mu omega abar)^2 = -2 r omega abar.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_mean_loss",
            (ag.f_sym, ag.yhat_sym, ae.s2_sym),
            ("(n,)", "(n,)", "scalar"),
            ag.noise_averaged_loss_emitted(),
            "E_eps (f + eps - yhat)^2 = (f - yhat)^2 + s2: the loss with the query noise averaged.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_limit_output",
            (mu, om, ag.g_sym),
            ("scalar", "scalar", "(n,)"),
            ag.limit_output(),
            "Both models' infinite-prompt output mu omega g, g = beta^T Sigma_p x_q.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_profile",
            (ag.Eyq2_sym, ag.a_sym, ag.b_sym),
            ("scalar",) * 3,
            sp.Matrix([list(ag.profile_emitted())]),
            "(min, argmin) over mu of E (y_q - mu S)^2 = Eyq2 - 2 mu a + mu^2 b: "
            "(Eyq2 - a^2/b, a/b).",
            src,
            "(1, 2)",
        ),
        KernelSpec(
            "authors_sgd_linear_grad_omega",
            (mu, om, abar, yq),
            ("scalar", "scalar", "(n,)", "(n,)"),
            lin_om,
            "d/domega (y_q - mu omega abar)^2 = -2 r mu abar.",
            src,
            same,
        ),
    ]
