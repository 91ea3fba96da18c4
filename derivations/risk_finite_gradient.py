"""Gradient of the exact finite-L risk, and the SGD noise floor (claim `authors-experiment`).

1. Softmax. R_L(mu, omega) = tau tr Sigma_q + s2 + E_{x_q} I(mu, omega, k1, k2, A_L(q), B_L(q)),
   q = omega^2 k1 (derivations/risk_finite.py). The query average does not depend on (mu, omega), so
   the gradient is the average of the integrand's total derivatives (differentiation under the
   quadrature): with A' = dA_L/dq, B' = dB_L/dq at q = omega^2 k1, by the chain rule
       dI/dmu    = d_mu I,
       dI/domega = d_omega I + 2 omega k1 (d_A I A' + d_B I B').
   Proved against SymPy's derivative of I with A and B undetermined functions of omega^2 k1.
   A' and B' are the slopes of the tabulated A_L, B_L (numerics/finite_risk_gradient.py, an
   algorithm with a stated error).
2. Linear attention. Its exact risk is the closed trace form of derivations/authors_experiment.py,
   a function of p = mu omega; its gradient is differentiated here, and proved to be
   (omega, mu) dR/dp (so the flow keeps mu^2 - omega^2 constant).
3. SGD noise floor. Near a minimum with Hessian H, constant-step SGD with per-prompt gradient
   covariance C and batch n is delta' = (I - lr H) delta - lr xi, Cov xi = C / n. Its stationary
   covariance P solves the discrete Lyapunov equation P = (I - lr H) P (I - lr H) + lr^2 C / n,
   solved here exactly for two parameters (three unknowns, a linear system), and the mean excess
   risk is E (1/2) delta^T H delta = tr(H P) / 2. Proved: as lr -> 0, P / lr solves
   H P + P H = C / n, and tr(H P) / 2 = lr tr(C) / (4 n) + O(lr^2)
   (the formula the claim's linear check already uses).
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp

from . import authors_experiment as ae, risk_finite as rf
from .group import Group
from .kernel_spec import KernelSpec
from .proof import Proof, back_substitute, prove_zero
from .proof_cache import cached

dA, dB = sp.symbols("dA dB", real=True)  # A_L'(q), B_L'(q) at q = omega^2 k1
lr, n_batch = sp.symbols("lr n_batch", positive=True)
h11, h12, h22, c11, c12, c22 = sp.symbols("h11 h12 h22 c11 c12 c22", real=True)


def integrand_gradient() -> tuple[sp.Expr, sp.Expr]:
    """(dI/dmu, dI/domega) with A, B, A', B' as symbols (step 1)."""
    I = rf.integrand()
    chain = 2 * rf.omega * rf.k1 * (sp.diff(I, rf.A) * dA + sp.diff(I, rf.B) * dB)
    return sp.diff(I, rf.mu), sp.diff(I, rf.omega) + chain


def linear_risk_gradient() -> sp.Matrix:
    """(dR/dmu, dR/domega) of the exact finite-L linear-attention risk in trace form (step 2)."""
    R = ae.linear_risk_traces()
    return sp.Matrix([[sp.diff(R, ae.mu_sym), sp.diff(R, ae.omega_sym)]])


@lru_cache(maxsize=None)
def stationary_covariance() -> sp.Matrix:
    """P (2 x 2, symmetric) solving P = (I - lr H) P (I - lr H) + lr^2 C / n (step 3)."""
    p11, p12, p22 = sp.symbols("p11 p12 p22", real=True)
    P = sp.Matrix([[p11, p12], [p12, p22]])
    H = sp.Matrix([[h11, h12], [h12, h22]])
    C = sp.Matrix([[c11, c12], [c12, c22]])
    M = sp.eye(2) - lr * H
    eq = M * P * M.T + lr**2 * C / n_batch - P
    sol = sp.solve([eq[0, 0], eq[0, 1], eq[1, 1]], [p11, p12, p22], dict=True)[0]
    return P.subs(sol).applyfunc(sp.factor)


def mean_excess() -> sp.Expr:
    """E (1/2) delta^T H delta = tr(H P) / 2 at stationarity (step 3)."""
    H = sp.Matrix([[h11, h12], [h12, h22]])
    return sp.factor((H * stationary_covariance()).trace() / 2)


def proofs() -> list[Proof]:
    out = []
    # Step 1: chain rule against SymPy's derivative with A, B functions of q = omega^2 k1.
    Af, Bf = sp.Function("A_L"), sp.Function("B_L")
    qq = rf.omega**2 * rf.k1
    full = rf.integrand().subs({rf.A: Af(qq), rf.B: Bf(qq)})
    g_mu, g_om = integrand_gradient()
    x = sp.Symbol("x", positive=True)
    back = {Af(qq): rf.A, Bf(qq): rf.B}
    deriv = {
        sp.Subs(sp.Derivative(Af(x), x), x, qq): dA,
        sp.Subs(sp.Derivative(Bf(x), x), x, qq): dB,
    }
    d_om = sp.diff(full, rf.omega).subs(deriv).subs(back)
    d_om = d_om.replace(
        lambda e: isinstance(e, sp.Derivative), lambda e: dA if e.expr.func == Af else dB
    )
    out.append(
        prove_zero(
            "dI/domega = d_omega I + 2 omega k1 (d_A I A'(q) + d_B I B'(q)), q = omega^2 k1 "
            "(chain rule)",
            sp.expand(d_om - g_om),
        )
    )
    out.append(
        prove_zero(
            "dI/dmu = d_mu I (A_L, B_L do not depend on mu)", sp.diff(full, rf.mu).subs(back) - g_mu
        )
    )
    # Step 2: the linear gradient is (omega, mu) dR/dp, R a function of p = mu omega.
    p = sp.Symbol("p", real=True)
    R_p = ae.linear_risk_traces().subs(ae.mu_sym, p / ae.omega_sym)
    dRdp = sp.diff(sp.expand(R_p), p).subs(p, ae.mu_sym * ae.omega_sym)
    G = linear_risk_gradient()
    out.append(
        prove_zero(
            "linear attention: grad R_L = (omega, mu) dR_L/dp, p = mu omega",
            sp.Matrix(
                [[sp.expand(G[0] - ae.omega_sym * dRdp), sp.expand(G[1] - ae.mu_sym * dRdp)]]
            ),
        )
    )
    # Step 3: the discrete Lyapunov solution and its lr -> 0 limit.
    P = stationary_covariance()
    H = sp.Matrix([[h11, h12], [h12, h22]])
    C = sp.Matrix([[c11, c12], [c12, c22]])
    M = sp.eye(2) - lr * H
    out.append(
        back_substitute(
            "P = (I - lr H) P (I - lr H) + lr^2 C / n (discrete Lyapunov, 2 parameters)",
            (M * P * M.T + lr**2 * C / n_batch - P).applyfunc(sp.simplify),
        )
    )
    P0 = (P / lr).applyfunc(lambda e: sp.limit(e, lr, 0))
    out.append(
        prove_zero(
            "lr -> 0: P / lr solves H P + P H = C / n (continuous Lyapunov)",
            (H * P0 + P0 * H - C / n_batch).applyfunc(sp.simplify),
        )
    )
    out.append(
        prove_zero(
            "lr -> 0: mean excess tr(H P) / 2 = lr tr(C) / (4 n) + O(lr^2)",
            sp.simplify(sp.limit(mean_excess() / lr, lr, 0) - (c11 + c22) / (4 * n_batch)),
        )
    )
    return out


@cached
def risk_finite_gradient_proofs() -> tuple[Proof, ...]:
    """Gradient of the exact finite-L risk and the SGD noise floor
    (derivations/risk_finite_gradient.py)."""
    return tuple(proofs())


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the finite-L risk integrand's gradient in (mu, omega), the gradient of the exact
    linear-attention risk, and the stationary covariance and mean excess risk of constant-step
    SGD."""
    args = (rf.mu, rf.omega, rf.tau, rf.s2, rf.tr_p, rf.k1, rf.k2, rf.A, rf.B, dA, dB)
    shapes = ("scalar",) * 5 + ("array",) * 6
    g_mu, g_om = integrand_gradient()
    Sp, Sq, mu, om, s2, tau, L = (
        ae.SIGMA_P,
        ae.SIGMA_Q,
        ae.mu_sym,
        ae.omega_sym,
        ae.s2_sym,
        ae.tau_sym,
        ae.L_sym,
    )
    lyap = (h11, h12, h22, c11, c12, c22, lr, n_batch)
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
            ae.to_matrix_form(linear_risk_gradient()),
            "(dR/dmu, dR/domega) of the exact finite-L linear-attention risk.",
            "risk_finite_gradient",
            "(1, 2)",
        ),
        KernelSpec(
            "sgd_stationary_covariance",
            lyap,
            ("scalar",) * 8,
            stationary_covariance(),
            "P solving P = (I - lr H) P (I - lr H) + lr^2 C / n (H, C symmetric 2 x 2 by entries).",
            "risk_finite_gradient",
            "(2, 2)",
        ),
        KernelSpec(
            "sgd_mean_excess",
            lyap,
            ("scalar",) * 8,
            mean_excess(),
            "tr(H P) / 2: the mean excess risk of stationary constant-step SGD.",
            "risk_finite_gradient",
            "scalar",
        ),
    ]


GROUP = Group(
    "risk_finite_gradient",
    title="Gradient of the exact finite-L risk and the SGD noise floor",
    hypotheses="as risk_finite; A_L, B_L differentiable in q; SGD linearised at a minimum (2 "
    "parameters)",
    proofs=risk_finite_gradient_proofs,
    parts=("risk_finite_gradient",),
)
