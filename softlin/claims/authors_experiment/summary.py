"""authors-experiment, what its certificate reports beside the checks: the reported L(eps) of each
model (upper confidence bounds), the omega below which softmax's 1/L term is finite, erratum 5's
witness (the covariances the authors' generator really produces, the infinite-prompt predictions
and the final risks under both generators) and the series its figure is drawn from."""

from __future__ import annotations

import math

import numpy as np

from ...core.findings import Findings
from ...derivations import authors_experiment as ae_derivation
from ...judge.check import check_false_alarm
from ...numerics.significance import z_critical
from . import flow as authors_flow

L_EPS_RELATIVE = (0.1, 0.05, 0.02)  # reported L(eps) (upper confidence bounds, one-sided z at 1e-6)


def L_eps(risks: dict, R_star: float, eps: float, z: float):
    """Smallest grid L from which on the upper confidence bound of R_L - R*_inf stays <= eps
    (None if none)."""
    Ls = sorted(risks)
    for j, L in enumerate(Ls):
        if all(risks[M][0] + z * risks[M][1] - R_star <= eps for M in Ls[j:]):
            return L
    return None


def l_eps_findings(params: dict, risk: dict, lin_min: dict, R_star: float, Ls, Sp, Sq) -> Findings:
    """The trained parameters, L(eps) at eps = r R*_inf for r in L_EPS_RELATIVE per model (and for
    linear attention's exact optimum `lin_min`), and the softmax 1/L threshold on omega."""
    z1 = z_critical(check_false_alarm(), 1, 1)  # one-sided, as the softmax checks
    lin_exact_min = {L: [lin_min[L][1], 0.0] for L in Ls}
    l_eps = {
        f"{r:g} R*_inf": {
            name: L_eps(rs, R_star, r * R_star, z1)
            for name, rs in (
                ("softmax", risk["softmax"]),
                ("softmax_best", risk["softmax_best"]),
                ("linear", risk["linear"]),
                ("linear_exact_optimum", lin_exact_min),
            )
        }
        for r in L_EPS_RELATIVE
    }
    # The softmax 1/L term is finite iff omega^2 max eig(Sigma_p Sigma_q) < c0 (derived, c0 = 1/2).
    omega_threshold = math.sqrt(
        float(ae_derivation.weight_moment()[0]) / float(np.linalg.eigvals(Sp @ Sq).real.max())
    )
    return Findings(
        quantities={
            "trained_params": params,
            "L_eps": l_eps,
            "softmax_omega_threshold_1_over_L": omega_threshold,
        }
    )


def erratum_five(Sigma, a: dict, risk: dict, R_star: float, p_star: float, Lmax: int) -> Findings:
    """Erratum 5 with its witness; `a` is the generator checks' "authors_generator" quantities."""
    Sp_a, Sq_a, R_star_a = a["prompt_covariance"], a["query_covariance"], a["infinite_prompt_risk"]
    risk_a = {"softmax": a["softmax_risk"], "linear": a["linear_risk"]}
    on_correct = a["trained_params_on_correct_data"]
    return Findings(
        errata=[
            {
                "id": 5,
                "text": "The authors' data generator transforms the prompt twice and the query "
                "never",
                "witness": {
                    "prompt_covariance_seen": Sp_a,
                    "query_covariance_seen": Sq_a,
                    "intended_covariance": Sigma,
                    "prompt_covariance_error_frobenius": float(np.linalg.norm(Sp_a - Sigma)),
                    "query_covariance_error_frobenius": float(np.linalg.norm(Sq_a - Sigma)),
                    "infinite_prompt_risk": {"correct": R_star, "authors": R_star_a},
                    "infinite_prompt_optimum_product": {
                        "correct": p_star,
                        "authors": a["infinite_prompt_optimum_product"],
                    },
                    f"final_risk_at_L_{Lmax}": {
                        m: {
                            "correct": risk[m][Lmax],
                            "authors": risk_a[m][Lmax],
                            "authors_params_on_correct_data": on_correct[m][Lmax],
                        }
                        for m in ("softmax", "linear")
                    },
                },
            }
        ]
    )


def experiment_series(
    Ls, R_star: float, risk: dict, lin_min: dict, a: dict, curves: dict, long_sgd: dict
) -> Findings:
    """The figure's series: the final risks per L of both models under both generators, the exact
    optima and flows at the authors' prompt lengths, and SGD at the authors' scale."""
    risk_a = {"softmax": a["softmax_risk"], "linear": a["linear_risk"]}
    series = {
        "authors_experiment": {
            "L": Ls,
            "infinite": R_star,
            "authors_infinite": a["infinite_prompt_risk"],
            "softmax": [risk["softmax"][L][0] for L in Ls],
            "softmax_se": [risk["softmax"][L][1] for L in Ls],
            "linear": [risk["linear"][L][0] for L in Ls],
            "linear_se": [risk["linear"][L][1] for L in Ls],
            "softmax_best": [risk["softmax_best"][L][0] for L in Ls],
            "linear_exact_min": [lin_min[L][1] for L in Ls],
            "authors_softmax": [risk_a["softmax"][L][0] for L in Ls],
            "authors_linear": [risk_a["linear"][L][0] for L in Ls],
            "exact_L": curves["L"],
            "exact_softmax_optimum": [c["risk"] for c in curves["softmax"]],
            "exact_linear_optimum": [c["risk"] for c in curves["linear"]],
            "flow_softmax": [
                c["at"].get(f"{authors_flow.T_END:g}", {}).get("risk", math.nan)
                for c in curves["softmax"]
            ],
            "flow_linear": [
                c["at"].get(f"{authors_flow.T_END:g}", {}).get("risk", math.nan)
                for c in curves["linear"]
            ],
            "long_sgd_L": [
                int(k.split("=")[1].split()[0]) for k in long_sgd if k.startswith("softmax")
            ],
            "long_sgd_softmax": [
                v.get("sgd_exact_risk", math.nan)
                for k, v in long_sgd.items()
                if k.startswith("softmax")
            ],
            "long_sgd_softmax_floor": [
                v["tolerance"] for k, v in long_sgd.items() if k.startswith("softmax")
            ],
            "long_sgd_linear": [
                v.get("sgd_exact_risk", math.nan)
                for k, v in long_sgd.items()
                if k.startswith("linear")
            ],
            "long_sgd_linear_floor": [
                v["tolerance"] for k, v in long_sgd.items() if k.startswith("linear")
            ],
        }
    }
    return Findings(series=series)
