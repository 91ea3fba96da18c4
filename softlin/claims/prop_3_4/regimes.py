"""prop-3.4, the query-averaged rates of both gradients in one regime: lambda set by rescaling the
token covariance (Gamma -> scale Gamma, so lambda -> scale lambda), or the scenario's own lambda
(what a lambda sweep moves by scaling U).

In a regime the Monte Carlo errors must equal the exact finite-L errors at every L, the measured
log-log slopes the exact finite-L slopes over the same L (exact.averaged_checks), and, in the
rescaled regimes, the exact asymptotic exponents kappa(lambda) (exact.asymptotic_exponents); above
the threshold 1/2 a claimed 1/L rate must be refuted (exact.one_over_L_control).
"""

from __future__ import annotations

import numpy as np

from ...core.findings import Findings
from ...core.setting import Setting
from ...numerics.laws import GaussianLaw
from ..shared.exponents import naive_exponent
from . import exact as ex
from .coefficients import averaged_first_order


def regime_step(
    setting: Setting,
    name: str,
    target: float,
    lam: float,
    b,
    rng: np.random.Generator,
    alphas: tuple[float, float],
    exponent,
    weighted_matrix=None,
) -> Findings:
    """The regime `name`: Gamma rescaled so that lambda (the scenario's `lam`) becomes `target`;
    `alphas` are the false alarms of each per-L and each slope test. Its quantities and series are
    keyed by `name` (the run files them under "regimes")."""
    m, cov, U, V = setting.tokens.mean, setting.tokens.cov, setting.U, setting.V
    Sq = setting.queries.cov
    scale = target / lam
    G = scale * cov
    av = ex.averaged(
        GaussianLaw(m, G),
        rng,
        G,
        U,
        V,
        Sq,
        b.Ls,
        b,
        ex.gradient_errors_fn(U, V, G, weighted_matrix),
        target,
        name,
    )
    label = f"{name} threshold (lambda = {target:g})"
    k_target = exponent(target)
    first = averaged_first_order(G, U, V, Sq) if target < 0.5 else (None, None)
    regime = Findings(
        quantities={
            name: {
                **_regime_entry(target, scale, k_target, av),
                "first_order_coefficient_V": first[0],
                "first_order_coefficient_U": first[1],
            }
        },
        series={name: _regime_series(av)},
    )
    regime.add(ex.averaged_checks(label, av, *alphas, f"regime/{name}"))
    regime.add(
        ex.asymptotic_exponents(target, b.ells, k_target, label, f"regime/{name}"),
        quantities_under=name,
    )
    if target > 0.5:
        # the pilot draws from its own child stream: the seed's later draws stay as they were
        pilot = ex.averaged(
            GaussianLaw(m, G),
            rng.spawn(1)[0],
            G,
            U,
            V,
            Sq,
            b.Ls,
            ex.pilot_budget(b),
            ex.gradient_errors_fn(U, V, G, weighted_matrix),
            target,
            f"{name} (pilot)",
        )
        regime.checks.append(ex.one_over_L_control(av, pilot, target, f"regime/{name}"))
    return regime


def scenario_regime_step(
    setting: Setting,
    lam: float,
    kappa: float,
    first: tuple[float, float],
    b,
    rng: np.random.Generator,
    alphas: tuple[float, float],
    errors_fn,
) -> Findings:
    """The scenario's own lambda `lam`: both gradients' query-averaged rates against their exact
    finite-L slopes over the same L (no asymptotic-exponent fit: its tolerance was fixed for the
    rescaled regimes' laws, and kappa(lambda) = `kappa` is reported, not refitted). `first` holds
    the averaged first-order coefficients of grad_V and grad_U."""
    law, U, V, Sq = setting.tokens, setting.U, setting.V, setting.queries.cov
    own = ex.averaged(law, rng, law.cov, U, V, Sq, b.Ls, b, errors_fn, lam, "scenario")
    scenario_regime = Findings(
        quantities={
            "scenario": {
                **_regime_entry(lam, 1.0, kappa, own),
                "first_order_coefficient_V": first[0],
                "first_order_coefficient_U": first[1],
            }
        },
        series={"scenario": _regime_series(own)},
    )
    scenario_regime.add(
        ex.averaged_checks(f"scenario (lambda = {lam:.4g})", own, *alphas, "scenario")
    )
    return scenario_regime


def _regime_entry(lam: float, scale: float, kappa: float, av: dict) -> dict:
    """A regime's quantities: lambda, the Gamma scale that realises it, kappa(lambda),
    the naive exponent, and the measured and exact finite-L log-log slopes of both gradients
    (negative: minus the decay rates)."""
    return {
        "lambda": lam,
        "sigma2_scale": scale,
        "exponent": kappa,
        "naive_exponent": naive_exponent(lam),
        "proposal_scale": av["scale"],
        **{f"slope_{key}": -av[key + "_fit"].slope for key in ("V", "U")},
        **{f"slope_{key}_stderr": av[key + "_fit"].stderr for key in ("V", "U")},
        **{f"exact_slope_{key}": -av[key + "_pred"] for key in ("V", "U")},
        **{f"exact_slope_{key}_stderr": av[key + "_pred_se"] for key in ("V", "U")},
    }


def _regime_series(av: dict) -> dict:
    return {
        "L": av["L"],
        **{f"mc_{k_}": v for k_, v in av["mc"].items()},
        **{f"exact_{k_}": v for k_, v in av["exact"].items()},
    }
