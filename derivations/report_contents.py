"""What the derivation report says about each proof group: a title, the hypotheses the derivation
works under, its derived results (Displays of the derivations' own SymPy objects), the chain of steps
for the key derivations (chains.py), and the emitted kernels that come from it.

report.py prints this as Markdown (LaTeX), softlin/render/derivations_page.py as HTML (MathML).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import chains, display

# group -> (title, hypotheses)
ABOUT = {
    "tilt": ("Exponential tilt of a Gaussian law (route of Lemma 2.1)",
             "tokens z' = m + B g, g ~ N(0, I), Gamma = B B^T (possibly singular); any tilt vector a"),
    "lemma21": ("Lemma 2.1: Gaussian prompts make softmax attention affine",
                "tokens N(m, Gamma), Gamma positive semidefinite (possibly singular); a = U z"),
    "mixture": ("Gaussian-mixture tokens: the non-linear limit", "tokens sum_k pi_k N(m_k, Gamma_k), pi_k > 0"),
    "concentration": ("Second moments behind the finite-prompt deviation bound",
                      "tokens N(m, Gamma); w = e^{a^T z'} / Z(a) the normalised weight (E w = 1)"),
    "controls": ("Exact limits of the negative-control token laws",
                 "independent coordinates, mean 0, variance 1 (Rademacher, uniform, ...)"),
    "icl": ("In-context linear regression (Theorem 5.2): risk, gradients, endpoint, Hessian bound",
            "x ~ N(0, Sigma), Sigma invertible, w ~ N(0, I_d), y = w^T x; U = [[A, 0], [0, 0]], V's last row (0, b)"),
    "risk_scalar": ("Exact 1/L term of the authors' scalar-model risk",
                    "x_i, x_q ~ N(0, I_d), beta ~ N(0, I_d / d), label noise N(0, s2); omega_h omega_k < 1/2"),
    "risk_scalar_heads": ("The scalar model's risk terms summed over heads", "as risk_scalar, H heads (mu_h, omega_h)"),
    "authors_sgd": ("Per-prompt SGD gradients of the authors' one-head models",
                    "one prompt of L tokens, scores s_i = x_i^T x_q, squared loss without the factor 1/2"),
    "gradients": ("Jacobians and risk gradients in (U, V)", "Gaussian tokens; vec column-major"),
    "gradient_fluctuations": ("Proposition 3.4: first-order coefficients of the gradient error",
                              "tokens N(m, Gamma), fixed query z, a = U z"),
    "tilted_moments": ("Assumption 3.3: tilted moments in closed form",
                       "tokens N(m, Gamma), queries N(0, Sigma_q), I - 2 Sigma_q K positive definite"),
    "deviation": ("The high-probability deviation bound eps_L(delta)",
                  "iid tokens, w >= 0 with E w = 1; Chebyshev on the numerator, Maurer's lower tail on the denominator"),
    "fluctuations": ("Proposition 3.1 made exact: 1/L fluctuations, threshold, sharp rate, explicit bound",
                     "fixed query: any token law with a finite log-mgf near 2a; query average: N(m, Gamma) tokens, "
                     "nu = N(0, Sigma_q), finite iff lambda_max(U^T Gamma U Sigma_q) < 1/2"),
    "authors_experiment": ("The authors' one-head experiment: risks and gradients",
                           "Sigma_p and Sigma_q commute; beta ~ N(0, tau I_d); label noise N(0, s2)"),
    "risk_finite": ("The exact finite-L risk of the authors' one-head softmax model",
                    "as authors_experiment; the prompt enters through A_L(q), B_L(q)"),
    "selfnormalised_error": ("Exact finite-L error of softmax attention, reduced to two scalars",
                             "tokens N(m, Gamma), fixed query with q = a^T Gamma a > 0"),
    "catoni": ("Catoni's mean estimator: influence, scale, radius and power of the numerator test",
               "n iid samples with variance at most v (derived, not estimated); n > 2 log(2/delta)"),
    "risk_finite_gradient": ("Gradient of the exact finite-L risk and the SGD noise floor",
                             "as risk_finite; A_L, B_L differentiable in q; SGD linearised at a minimum (2 parameters)"),
    "risk_finite_heads": ("The exact finite-L risk of the authors' two-head softmax model",
                          "as risk_finite, two heads on the same prompt; the cross moments A_12(q), B_12(q)"),
    "gronwall": ("Theorem 4.3: the Gronwall transfer bound (Lemma D.1)",
                 "grad R_inf beta-Lipschitz and |grad R_L - grad R_inf| <= g_2 on B_2rho; same initialisation"),
    "conditional_sampler": ("The exact conditional sampler: weighted token sums drawn from the scores",
                            "tokens N(m, Gamma), k queries sharing a prompt, A^T Gamma A invertible; the weights "
                            "fixed given the scores"),
}

# emitted kernels' source modules that belong to a group of another name
KERNEL_GROUP = {"authors_gradients": "authors_experiment", "jacobians": "gradients", "risk": "gradients",
                "icl_kernels": "icl", "icl_endpoint": "icl", "icl_risk": "icl", "icl_hessian": "icl",
                "risk_scalar_variance": "risk_scalar"}


RESULTS = {
    "tilt": display.tilt_, "lemma21": display.lemma21_, "deviation": display.deviation_,
    "fluctuations": display.prop31, "gradient_fluctuations": lambda: {
        k: v for k, v in display.prop34().items() if k != "exponent"},
    "tilted_moments": display.asm33, "icl": display.thm52, "gronwall": display.thm43,
    "risk_scalar": display.finite_prompt_risk, "authors_experiment": display.authors_experiment_,
}


@dataclass
class Section:
    group: str
    title: str
    hypotheses: str
    results: dict = field(default_factory=dict)      # name -> Display
    chains: list = field(default_factory=list)       # [(title, [chains.Step])]
    kernels: list = field(default_factory=list)      # [KernelSpec]
    proofs: tuple = ()


def kernel_group(source: str, groups) -> str | None:
    """The proof group an emitted kernel's derivation module belongs to (longest matching name)."""
    if source in KERNEL_GROUP:
        return KERNEL_GROUP[source]
    matches = [g for g in groups if source == g or source.startswith(g + "_")]
    return max(matches, key=len) if matches else None


def sections(proofs: dict, specs) -> tuple[list[Section], list]:
    """(one Section per proof group in `proofs`' order, the kernels no group claims)."""
    out = {g: Section(g, *ABOUT.get(g, (g, "")), results=RESULTS.get(g, dict)(),
                      chains=list(chains.chains_for(g)), proofs=tuple(items))
           for g, items in proofs.items() if g != "chains"}          # the chains' steps show in their groups
    orphans = []
    for spec in specs:
        group = kernel_group(spec.source, out)
        (out[group].kernels.append(spec) if group in out else orphans.append(spec))
    return list(out.values()), orphans
