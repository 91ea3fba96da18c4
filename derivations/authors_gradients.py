"""Per-prompt loss gradients of the authors' one-head models (docs/paper.md section 6, claim
`authors-experiment`; step 5 of derivations/authors_experiment.py).

Models on one prompt of L tokens with scores s_i = x_i^T x_q and labels y_i, parameters (mu, omega):
    softmax  yhat = mu S,            S = sum_i p_i y_i,  p_i = softmax_i(omega s)
    linear   yhat = mu omega abar,   abar = (1/L) sum_i s_i y_i
Loss (y_q - yhat)^2 (the authors' loss, no factor 1/2), residual r = y_q - yhat.

The token sums S, abar and the softmax-weighted covariance of scores and labels
    C = sum_i p_i s_i y_i - (sum_i p_i s_i) S          (= dS/domega)
are reductions over a variable number of tokens: numerics/authors_sgd.py computes them. Given them,
the outputs, the loss and its gradients are closed forms, derived here by differentiating the loss
in the reduced statistics (the softmax omega-derivative by the chain rule through S, dS/domega = C):
    softmax: d/dmu = -2 r S,             d/domega = -2 r mu C
    linear:  d/dmu = -2 r omega abar,    d/domega = -2 r mu abar
and proved against SymPy's derivative of the explicit model (softmax over L explicit tokens) for
L = 1, ..., 4. `softlin derive` emits them as the kernels `authors_sgd_*`.

Evaluation (`evaluation_proofs`, their own proof group):
  - the loss averaged over the query noise, E_eps (f + eps - yhat)^2 = (f - yhat)^2 + s2 with
    f = beta^T x_q, eps ~ N(0, s2) (Gaussian expectation);
  - the infinite-prompt output of both models, mu omega g with g = beta^T Sigma_p x_q (step 2 of
    derivations/authors_experiment.py, proved again here in eigen-coordinates);
  - the profile over mu at fixed omega: E (y_q - mu S)^2 = E y_q^2 - 2 mu a + mu^2 b with
    a = E[y_q S], b = E[S^2] is minimal at mu* = a / b with value E y_q^2 - a^2 / b (solved).
"""

from __future__ import annotations

import sympy as sp

from . import authors_experiment as ae
from .authors_experiment import mu_sym, omega_sym
from .gaussian_expectations import standard_expectation
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero
from .proof_cache import cached

S_sym = sp.Symbol("S", real=True)  # softmax-weighted label mean
C_sym = sp.Symbol("C", real=True)  # softmax-weighted covariance of scores and labels, dS/domega
abar_sym = sp.Symbol("abar", real=True)  # (1/L) sum_i s_i y_i
yq_sym = sp.Symbol("y_q", real=True)  # query label
yhat_sym = sp.Symbol("yhat", real=True)  # model output
f_sym = sp.Symbol("f", real=True)  # query signal beta^T x_q (y_q = f + eps_q)
g_sym = sp.Symbol("g", real=True)  # beta^T Sigma_p x_q
Eyq2_sym, a_sym, b_sym = sp.symbols(
    "Eyq2 a b", positive=True
)  # E y_q^2, E[y_q S], E[S^2] over a sample


def output(model: str) -> sp.Expr:
    """yhat in the reduced statistics."""
    if model == "softmax":
        return mu_sym * S_sym
    if model == "linear":
        return mu_sym * omega_sym * abar_sym
    raise ValueError(f"model = {model!r}")


def loss() -> sp.Expr:
    """(y_q - yhat)^2."""
    return (yq_sym - yhat_sym) ** 2


def gradients(model: str) -> tuple[sp.Expr, sp.Expr]:
    """(d/dmu, d/domega) of the per-prompt loss in the reduced statistics. For softmax only S
    depends on omega, with dS/domega = C (proved by the explicit-token derivatives in `proofs`)."""
    ell = loss().subs(yhat_sym, output(model))
    if model == "softmax":
        return sp.diff(ell, mu_sym), sp.diff(ell, S_sym) * C_sym
    return sp.diff(ell, mu_sym), sp.diff(ell, omega_sym)


def explicit_models(L: int):
    """The explicit models over L tokens: (s, y, y_q, weights e^{omega s_i}, Z, S, abar)."""
    s = sp.symbols(f"s1:{L + 1}", real=True)
    y = sp.symbols(f"y1:{L + 1}", real=True)
    weights = [sp.exp(omega_sym * si) for si in s]
    Z = sum(weights)
    S = sum(w * yi for w, yi in zip(weights, y)) / Z
    abar = sum(si * yi for si, yi in zip(s, y)) / L
    return s, y, yq_sym, weights, Z, S, abar


def gradient_formulas(L: int):
    """[(statement, derivative of the explicit loss, emitted gradient at the explicit
    statistics)]."""
    s, y, yq, weights, Z, S, abar = explicit_models(L)
    p = [w / Z for w in weights]
    C = sum(pi * si * yi for pi, si, yi in zip(p, s, y)) - sum(pi * si for pi, si in zip(p, s)) * S
    at = {S_sym: S, C_sym: C, abar_sym: abar}
    explicit = {"softmax": (yq - mu_sym * S) ** 2, "linear": (yq - mu_sym * omega_sym * abar) ** 2}
    out = []
    for model in ("softmax", "linear"):
        g_mu, g_om = gradients(model)
        out.append((f"{model} d/dmu", sp.diff(explicit[model], mu_sym), g_mu.subs(at)))
        out.append((f"{model} d/domega", sp.diff(explicit[model], omega_sym), g_om.subs(at)))
    return out


def proofs() -> list[Proof]:
    out = []
    for L in range(1, 5):
        for name, derived, closed in gradient_formulas(L):
            out.append(
                prove_zero(
                    f"gradient of (y_q - yhat)^2, {name}, L = {L}: batched formula",
                    derived - closed,
                )
            )
    return out


def noise_averaged_loss() -> sp.Expr:
    """E over eps ~ N(0, s2) of (f + eps - yhat)^2, by the Gaussian expectation."""
    z = sp.Symbol("z", real=True)
    return standard_expectation((f_sym + sp.sqrt(ae.s2_sym) * z - yhat_sym) ** 2, (z,))


def noise_averaged_loss_emitted() -> sp.Expr:
    return (f_sym - yhat_sym) ** 2 + ae.s2_sym


def limit_output() -> sp.Expr:
    """Both models' infinite-prompt output mu omega g, g = beta^T Sigma_p x_q."""
    return mu_sym * omega_sym * g_sym


def profile_optimum() -> tuple[sp.Expr, sp.Expr]:
    """(min over mu, argmin mu*) of E (y_q - mu S)^2 written with the sample moments
    (Eyq2, a, b)."""
    yq, S = sp.symbols("yq_ S_", real=True)
    R = sp.expand((yq - mu_sym * S) ** 2).subs({yq**2: Eyq2_sym, S**2: b_sym}).subs(yq * S, a_sym)
    (mu_star,) = sp.solve(sp.diff(R, mu_sym), mu_sym)
    return R.subs(mu_sym, mu_star), mu_star


def profile_emitted() -> tuple[sp.Expr, sp.Expr]:
    return Eyq2_sym - a_sym**2 / b_sym, a_sym / b_sym


def evaluation_proofs() -> list[Proof]:
    n = ae.DIMENSIONS[0]
    c = ae.coordinates(n)
    soft, lin = ae.infinite_prompt_outputs(n)
    g = sum(l * bj * qj for l, bj, qj in zip(c["lam"], c["beta"], c["q"]))  # beta^T Sigma_p q
    R_min, mu_star = profile_optimum()
    R_emit, mu_emit = profile_emitted()
    return [
        prove_zero(
            "query-noise average: E (f + eps - yhat)^2 = (f - yhat)^2 + s2",
            noise_averaged_loss() - noise_averaged_loss_emitted(),
        ),
        prove_zero(
            "infinite-prompt output of softmax and of linear attention = mu omega beta^T Sigma_p q",
            sp.Matrix([soft - limit_output().subs(g_sym, g), lin - limit_output().subs(g_sym, g)]),
        ),
        prove_zero(
            "profile over mu: argmin of E (y_q - mu S)^2 is E[y_q S] / E[S^2]", mu_star - mu_emit
        ),
        prove_zero(
            "profile over mu: min of E (y_q - mu S)^2 is E y_q^2 - E[y_q S]^2 / E[S^2]",
            R_min - R_emit,
        ),
    ]


@cached
def authors_experiment_proofs() -> tuple[Proof, ...]:
    """The authors' one-head experiment
    (derivations/authors_experiment.py, authors_gradients.py)."""
    return tuple(ae.proofs()) + tuple(proofs())


# declared here, at the top of its family: this module imports authors_experiment
GROUP = Group(
    "authors_experiment",
    title="The authors' one-head experiment: risks and gradients",
    hypotheses="Sigma_p and Sigma_q commute; beta ~ N(0, tau I_d); label noise N(0, s2)",
    proofs=authors_experiment_proofs,
    parts=("authors_experiment", "authors_gradients"),
    results="authors_experiment_",
)


def kernel_specs() -> list[KernelSpec]:
    """Emitted, elementwise over a batch of prompts: the per-prompt outputs, loss and SGD
    gradients in the reduced statistics S, C, abar, the noise-averaged loss, the infinite-prompt
    output and the profile over mu."""
    mu, om, S, C, abar, yq = ae.mu_sym, ae.omega_sym, S_sym, C_sym, abar_sym, yq_sym
    soft_mu, soft_om = gradients("softmax")
    lin_mu, lin_om = gradients("linear")
    src, same = "authors_gradients", "same as the arrays"
    return [
        KernelSpec(
            "authors_sgd_softmax_output",
            (mu, S),
            ("scalar", "(n,)"),
            output("softmax"),
            "yhat = mu S, S = sum_i softmax_i(omega s) y_i.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_linear_output",
            (mu, om, abar),
            ("scalar", "scalar", "(n,)"),
            output("linear"),
            "yhat = mu omega abar, abar = (1/L) sum_i s_i y_i.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_loss",
            (yq, yhat_sym),
            ("(n,)", "(n,)"),
            loss(),
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
            (f_sym, yhat_sym, ae.s2_sym),
            ("(n,)", "(n,)", "scalar"),
            noise_averaged_loss_emitted(),
            "E_eps (f + eps - yhat)^2 = (f - yhat)^2 + s2: the loss with the query noise averaged.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_limit_output",
            (mu, om, g_sym),
            ("scalar", "scalar", "(n,)"),
            limit_output(),
            "Both models' infinite-prompt output mu omega g, g = beta^T Sigma_p x_q.",
            src,
            same,
        ),
        KernelSpec(
            "authors_sgd_profile",
            (Eyq2_sym, a_sym, b_sym),
            ("scalar",) * 3,
            sp.Matrix([list(profile_emitted())]),
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
