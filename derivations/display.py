"""The formulas the pages display, each built by calling the derivation that produced it.

A `Display` is `lhs relation rhs` with the definitions its right side uses (`where`), all SymPy
objects: the right sides are the derivations' own expressions (evaluated on matrix symbols where the
derivation is matrix-valued, see matrix_ops.py), never retyped here. Only the left sides, which
name the quantity (b_1(z), kappa(lambda), ...), are written in this module. softlin/mathml.py prints
a Display as LaTeX (Markdown pages, derivation report) and presentation MathML (HTML pages).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from . import authors_experiment, authors_gradients, fluctuations, fluctuations_bound
from . import fluctuations_exponent as fexp
from . import deviation, gradient_fluctuations, gronwall, icl_endpoint, icl_risk, lemma21
from . import risk_scalar, tilt


@dataclass(frozen=True)
class Display:
    lhs: sp.Basic
    rhs: sp.Basic
    relation: str = "="  # "=" or "<="
    where: tuple = ()  # (lhs, relation, rhs) triples: definitions used on the right
    note: str = ""  # plain words for what no SymPy object names (e.g. MSE)

    def symmetric(self, *matrices) -> "Display":
        """The same display with X^T replaced by X for the symmetric `matrices` (Gamma, Sigma)."""
        rep = {m.T: m for m in matrices}
        return Display(
            self.lhs,
            self.rhs.xreplace(rep),
            self.relation,
            tuple((a, rel, b.xreplace(rep)) for a, rel, b in self.where),
            self.note,
        )


dim_d = sp.Symbol("d", integer=True, positive=True)
dim_k = sp.Symbol("k", integer=True, positive=True)
_Gamma, _U, _Sq = (sp.MatrixSymbol(n, dim_d, dim_d) for n in ("Gamma", "U", "Sigma_q"))
_V = sp.MatrixSymbol("V", dim_k, dim_d)
_a, _z = sp.MatrixSymbol("a", dim_d, 1), sp.MatrixSymbol("z", dim_d, 1)
_q, _L = sp.Symbol("q", positive=True), sp.Symbol("L", positive=True)
_lam = sp.Symbol("lambda", positive=True)
_lam_max = sp.Function("lambda_max")
_f = sp.Function
_MSE = "MSE(L) = E||T[mu_L] - T[mu]||^2 in L^2(nu); MSE(L, z) the same at the query z"


def _kappa() -> Display:
    return Display(
        _f("kappa")(_lam),
        fexp.sharp_exponent_piecewise().subs(fexp.lam_arg, _lam),
        where=((_lam, "=", sp.Symbol("sigma") ** 2 * _lam_max(_U.T * _Gamma * _U * _Sq)),),
    )


def _q_def() -> tuple:
    return ((_q, "=", _a.T * _Gamma * _a), (_a, "=", _U * _z))


def prop31() -> dict[str, Display]:
    """Proposition 3.1 made exact (fluctuations*.py)."""
    s = fluctuations.symbols(n=1)
    to_q = {sp.Trace(s["a"].T * s["Gamma"] * s["a"]): _q}
    M = _U.T * _Gamma * _U
    mse = _f("MSE")(_L)
    bound_lhs = _f("MSE")(_L, _z)
    factor = sp.Trace(_V * _Gamma * _V.T) + sp.Trace(_a.T * _Gamma * _V.T * _V * _Gamma * _a)
    return {
        "bias_first_order": Display(
            _f("b_1")(_z), fluctuations.bias_first_order(s).subs(to_q), where=_q_def()
        ),
        "cov_first_order": Display(
            _f("C_1")(_z), fluctuations.cov_first_order(s).subs(to_q), where=_q_def()
        ),
        "first_order_coefficient": Display(
            sp.Limit(_L * mse, _L, sp.oo, "+"),
            fluctuations.first_order_coefficient_matrix(_Gamma, _U, _V, _Sq),
            where=((_lam_max(M * _Sq), "<", sp.Rational(1, 2)),),
            note=_MSE,
        ).symmetric(_Gamma, _Sq),
        "exponent": _kappa(),
        "rate_function": Display(
            _f("h")(fexp.gamma_arg),
            fexp.rate_function_piecewise(),
            where=((_L, "=", sp.exp(fexp.gamma_arg * _q)),),
        ),
        "expectation_bound": Display(
            bound_lhs,
            factor * fluctuations_bound.expectation_bound_factor(),
            "<=",
            where=_q_def(),
            note=_MSE,
        ).symmetric(_Gamma),
    }


_GRAD = "c_{0}(z) = lim L E||grad_{0} T[mu_L](z) - grad_{0} T[mu](z)||^2"


def prop34() -> dict[str, Display]:
    """Proposition 3.4's first-order coefficients (gradient_fluctuations.py) and exponent."""
    return {
        "coefficient_V": Display(
            _f("c_V")(_z),
            gradient_fluctuations.coefficient_V(_a, _Gamma, dim_k),
            where=_q_def()[1:],
            note=_GRAD.format("V"),
        ).symmetric(_Gamma),
        "coefficient_U": Display(
            _f("c_U")(_z),
            gradient_fluctuations.coefficient_U(_z, _U, _Gamma, _V),
            note=_GRAD.format("U"),
        ).symmetric(_Gamma),
        "exponent": _kappa(),
    }


def prop34_coefficients() -> dict[str, Display]:
    """Proposition 3.4's coefficients without the exponent, which Proposition 3.1's results show."""
    return {k: v for k, v in prop34().items() if k != "exponent"}


def thm43() -> dict[str, Display]:
    """Theorem 4.3's transfer bound (gronwall.py)."""
    e, ec = _f("e")(gronwall.t), _f("e_c")(gronwall.t)
    gap = (
        "e(t) = ||theta_L(t) - theta_inf(t)||; g_2 = sup ||grad R_L - grad R_inf||, "
        "beta = Lipschitz constant of grad R_inf, on B_2rho"
    )
    return {
        "transfer_bound": Display(e, gronwall.majorant(), "<=", note=gap),
        "comparison_solution": Display(
            ec,
            gronwall.comparison_solution(),
            where=(
                (sp.Derivative(ec, gronwall.t), "=", gronwall.g2 + gronwall.beta * ec),
                (e, "<=", ec),
            ),
            note=gap,
        ),
    }


def thm52() -> dict[str, Display]:
    """Theorem 5.2's infinite-prompt risk (icl_risk.py) and its endpoint (icl_endpoint.py)."""
    Sigma, A = sp.MatrixSymbol("Sigma", dim_d, dim_d), sp.MatrixSymbol("A", dim_d, dim_d)
    b = sp.Symbol("b")
    A_star, b_star = icl_endpoint.endpoint(Sigma)
    return {
        "risk": Display(_f("R_inf")(A, b), icl_risk.paper_risk(Sigma, A, b)).symmetric(Sigma),
        "endpoint_b": Display(sp.Symbol("b^*"), b_star),
        "endpoint_A": Display(sp.MatrixSymbol("A^*", dim_d, dim_d), A_star),
    }


def finite_prompt_risk() -> dict[str, Display]:
    """The 1/L coefficient of the authors' scalar-model risk (risk_scalar.py)."""
    c, w = sp.symbols("c omega", real=True)
    pair, bias = risk_scalar.pair_closed(), risk_scalar.bias_closed()
    return {
        "pair": Display(_f("pair")(c), pair),
        "bias": Display(_f("bias")(w), bias),
        "heuristic_pair": Display(_f("pair_heuristic")(c), risk_scalar.heuristic_pair()),
    }


def authors_experiment_() -> dict[str, Display]:
    """The authors' one-head models: infinite-prompt risk and SGD gradients (authors_*.py)."""
    out = {
        "infinite_risk": Display(
            sp.Symbol("R_inf"),
            authors_experiment.infinite_risk_traces(),
            note="T_ab = tr(Sigma_p^a Sigma_q^b)",
        )
    }
    mu, omega = sp.symbols("mu omega")
    loss = _f("ell")(mu, omega)
    words = {
        "softmax": "softmax: S = sum_i p_i y_i, C = dS/domega",
        "linear": "linear: abar = (1/L) sum_i s_i y_i",
    }
    for model in ("softmax", "linear"):
        d_mu, d_omega = authors_gradients.gradients(model)
        out[f"{model}_gradient_mu"] = Display(sp.Derivative(loss, mu), d_mu, note=words[model])
        out[f"{model}_gradient_omega"] = Display(
            sp.Derivative(loss, omega), d_omega, note=words[model]
        )
    return out


def asm33() -> dict[str, Display]:
    """Assumption 3.3's moments M^(c)_pq (tilted_moments.py evaluates them): a definition, shown
    with the tilt weight e^{(c^2 - c)/2 z^T U^T Gamma U z} that tilted_moments.tilt_ratio_exponent
    derives."""
    c, p, q = sp.symbols("c p q")
    x = sp.MatrixSymbol("x", dim_d, 1)
    quad = _z.T * _U.T * _Gamma * _U * _z
    inner = _f("E_x")(_f("norm")(x) ** p)
    rhs = _f("E_z")(sp.exp((c**2 - c) / 2 * sp.Trace(quad)) * inner * _f("norm")(_z) ** q)
    return {
        "moments": Display(sp.Symbol("M^(c)_pq"), rhs, note="x ~ N(m + c Gamma U z, Gamma), z ~ nu")
    }


def tilt_() -> dict[str, Display]:
    s = tilt.matrix_symbols()
    a = s["a"]
    return {
        "log_normaliser": Display(sp.log(sp.Function("Z")(a)), tilt.log_normaliser_gamma(s)),
        "tilted_mean": Display(sp.Function("mu")(a), tilt.tilted_mean_matrix(s)),
        "tilted_cov": Display(sp.Function("Cov")(a), tilt.tilted_cov_matrix(s)),
    }


def lemma21_() -> dict[str, Display]:
    s = lemma21.limit_symbols()
    return {"limit": Display(sp.Function("T_mu")(s["z"]), lemma21.gaussian_limit_matrix(s))}


def deviation_() -> dict[str, Display]:
    return {
        "eps_L": Display(
            sp.Symbol("epsilon_L"),
            deviation.deviation_bound(),
            note="P(|T[mu_L](z) - T[mu](z)| > eps_L) <= delta",
        )
    }
