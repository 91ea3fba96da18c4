"""The sharp exponent of the query-averaged output error (Proposition 3.1 made exact, part 3).

**3. The sharp exponent.** At a fixed query write q = a^T Gamma a and L = e^{gamma q}. The inverse
effective sample size E sum_i p_i^2 (p the softmax weights) behaves as e^{-q h(gamma)}, h derived
below by the Laplace principle from the two ways the weights can contribute: the bulk (all weights
below L, sum of weights ~ L: exponent of E[w^2 1{w < L}] / L) and a single dominant token (w > L,
exponent of L P(w > L)); below gamma = 1/2 the tilted mode is never sampled and nothing decays:

    h(gamma) = 0 (gamma <= 1/2),  (gamma - 1/2)^2 / 2 (1/2 <= gamma <= 3/2),
               gamma - 1 (gamma >= 3/2).

The naive estimate min(1, e^q / L) corresponds to max(0, gamma - 1) <= h: it overstates the error on
1/2 < gamma < 3/2. Averaging over queries, q has tail density e^{-q / (2 lambda)}; with q = x ln L
the error is L^{-G(x)} with G(x) = x h(1/x) + x / (2 lambda), and the sharp exponent is min_x G:

    kappa(lambda) = 1                                  for lambda <= 1/2,
    kappa(lambda) = (sqrt(1 + 4 / lambda) - 1) / 2    for lambda >= 1/2
                                                      (x* = 2 sqrt(lambda / (lambda + 4))),

continuous at the threshold, strictly above the naive 1/(2 lambda) beyond it, and lambda kappa -> 1.
With Gamma = sigma^2 Gamma0, lambda = sigma^2 lambda0: this is the paper's c2 / sigma^2 made
explicit, and sigma^2 kappa(sigma) increases with sigma, so c2 = kappa(sigma = 1) serves every
sigma >= 1. Below the threshold the same picture gives the approach to the first order: the queries
with q > (2/3) ln L (gamma < 3/2) are where e^q / L overstates the error, so
L E||err||^2 = first_order_coefficient - O(L^-rho), rho = min(1, (1 - 2 lambda) / (3 lambda)):
slower than 1/L as soon as lambda > 1/5, and arbitrarily slow near the threshold.
"""

from __future__ import annotations

import sympy as sp

from .kernel_spec import KernelSpec
from .proof import Proof, prove_zero


# ---------------------------------------------------------------------------------------------
# 3. The sharp exponent (Laplace principle).

gamma_sym = sp.Symbol("gamma", positive=True)  # ln L / q
y_sym = sp.Symbol("y", real=True)  # u / q, u = log-weight + q/2 of a token
lam_sym = sp.Symbol("lambda", positive=True)  # lambda_max(M Sigma_q)
x_sym = sp.Symbol("x", positive=True)  # q / ln L


def bulk_exponent() -> sp.Expr:
    """(1/q) log of E[w^2 1{w < L}] / L at u = q y (Gaussian u ~ N(0, q), w = e^{u - q/2})."""
    return 2 * y_sym - 1 - y_sym**2 / 2 - gamma_sym


def single_exponent() -> sp.Expr:
    """(1/q) log of L P(w > L) at u = q y: gamma - y^2 / 2 (y >= gamma + 1/2)."""
    return gamma_sym - y_sym**2 / 2


def rate_middle() -> sp.Expr:
    return (gamma_sym - sp.Rational(1, 2)) ** 2 / 2


def rate_high() -> sp.Expr:
    return gamma_sym - 1


def exponent_middle() -> sp.Expr:
    """G(x) on 2/3 <= x <= 2 (gamma = 1/x in [1/2, 3/2])."""
    return x_sym * rate_middle().subs(gamma_sym, 1 / x_sym) + x_sym / (2 * lam_sym)


def sharp_exponent_expr() -> sp.Expr:
    """kappa(lambda) for lambda >= 1/2."""
    return (sp.sqrt(1 + 4 / lam_sym) - 1) / 2


lam_arg = sp.Symbol(
    "lam", positive=True
)  # lambda as a kernel argument ("lambda" is a Python keyword)


gamma_arg = gamma_sym  # "gamma" is a valid argument name


def rate_function_piecewise() -> sp.Expr:
    """h(gamma): 0 up to 1/2, (gamma - 1/2)^2 / 2 up to 3/2, gamma - 1 beyond
    (emitted as `rate_function`), assembled from the derived branches `rate_middle` and `rate_high`
    (continuity is proved below)."""
    return sp.Piecewise(
        (sp.Integer(0), gamma_sym <= sp.Rational(1, 2)),
        (rate_middle(), gamma_sym <= sp.Rational(3, 2)),
        (rate_high(), True),
    ).subs(gamma_sym, gamma_arg)


def sharp_exponent_piecewise() -> sp.Expr:
    """kappa(lambda) on lambda > 0 as one expression (emitted as the kernel `sharp_exponent`)."""
    return sp.Piecewise(
        (sp.Integer(1), lam_sym <= sp.Rational(1, 2)), (sharp_exponent_expr(), True)
    ).subs(lam_sym, lam_arg)


def naive_exponent_piecewise() -> sp.Expr:
    """min(1, 1/(2 lambda)) (emitted as `naive_exponent`: the heuristic a control must refute)."""
    return sp.Piecewise(
        (sp.Integer(1), lam_sym <= sp.Rational(1, 2)), (1 / (2 * lam_sym), True)
    ).subs(lam_sym, lam_arg)


def remainder_exponent_piecewise() -> sp.Expr:
    """rho(lambda): 1 up to 1/5, (1 - 2 lambda)/(3 lambda) up to 1/2, 0 beyond
    (emitted as `remainder_exponent`)."""
    return sp.Piecewise(
        (sp.Integer(1), lam_sym <= sp.Rational(1, 5)),
        (remainder_exponent_expr(), lam_sym < sp.Rational(1, 2)),
        (sp.Integer(0), True),
    ).subs(lam_sym, lam_arg)


def minimiser() -> sp.Expr:
    return 2 * sp.sqrt(lam_sym / (lam_sym + 4))


def remainder_exponent_expr() -> sp.Expr:
    """Below the threshold, L E||err||^2 = first_order_coefficient - D(L). The first-order term
    e^q / L overstates the error exactly where h(gamma) > gamma - 1, i.e.
    gamma < 3/2 (q > 2 ln L / 3), so D(L) ~ E[e^q 1{q > 2 ln L / 3}] ~ L^{-(2/3)(1/(2 lambda) - 1)},
    next to the regular O(1/L) term: D(L) ~ L^{-rho}, rho = min(1, (1 - 2 lambda) / (3 lambda))
    (rho = 1 for lambda <= 1/5)."""
    return (1 - 2 * lam_sym) / (3 * lam_sym)


def proofs() -> list[Proof]:
    out = []
    # Sharp exponent: the rate function from the two Laplace exponents.
    bulk, single = bulk_exponent(), single_exponent()
    y_bulk = sp.solve(sp.diff(bulk, y_sym), y_sym)
    out.append(
        prove_zero("bulk exponent is maximal at y = 2 (the doubly tilted mode)", y_bulk[0] - 2)
    )
    boundary = gamma_sym + sp.Rational(1, 2)  # w = L  <=>  u - q/2 = gamma q
    out.append(
        prove_zero(
            "bulk (y = 2 feasible, gamma >= 3/2) gives h = gamma - 1",
            -bulk.subs(y_sym, 2) - rate_high(),
        )
    )
    out.append(
        prove_zero(
            "bulk at the boundary y = gamma + 1/2 gives h = (gamma - 1/2)^2 / 2",
            -bulk.subs(y_sym, boundary) - rate_middle(),
        )
    )
    out.append(
        prove_zero(
            "single dominant token (y >= gamma + 1/2, maximal at the boundary) gives the same rate",
            -single.subs(y_sym, boundary) - rate_middle(),
        )
    )
    out.append(
        prove_zero(
            "on gamma >= 3/2 the bulk dominates: "
            "(gamma-1/2)^2/2 - (gamma-1) = (gamma-3/2)^2/2 >= 0",
            rate_middle() - rate_high() - (gamma_sym - sp.Rational(3, 2)) ** 2 / 2,
        )
    )
    out.append(
        prove_zero(
            "h is continuous at gamma = 1/2 and 3/2",
            sp.Abs(rate_middle().subs(gamma_sym, sp.Rational(1, 2)))
            + sp.Abs((rate_middle() - rate_high()).subs(gamma_sym, sp.Rational(3, 2))),
        )
    )
    out.append(
        prove_zero(
            "h exceeds the naive rate on 1/2 < gamma < 3/2: "
            "(gamma-1/2)^2/2 - (gamma-1) = (gamma-3/2)^2/2",
            rate_middle() - (gamma_sym - 1) - (gamma_sym - sp.Rational(3, 2)) ** 2 / 2,
        )
    )
    # Query average of the rate: minimise G(x).
    G = exponent_middle()
    xs = [r for r in sp.solve(sp.diff(G, x_sym), x_sym) if r.is_positive is not False]
    out.append(
        prove_zero(
            "G'(x) = 0 at x* = 2 sqrt(lambda / (lambda + 4))", sp.simplify(xs[0] - minimiser())
        )
    )
    out.append(
        prove_zero(
            "G(x*) = (sqrt(1 + 4/lambda) - 1)/2",
            sp.simplify(sp.radsimp(G.subs(x_sym, minimiser()) - sharp_exponent_expr())),
        )
    )
    out.append(
        prove_zero(
            "G''(x) = 1/x^3 > 0 on the middle branch (x* is its minimum)",
            sp.simplify(sp.diff(G, x_sym, 2) - 1 / x_sym**3),
        )
    )
    out.append(
        prove_zero(
            "x* = 2/3 exactly at lambda = 1/2 (x* in the middle branch iff lambda >= 1/2)",
            minimiser().subs(lam_sym, sp.Rational(1, 2)) - sp.Rational(2, 3),
        )
    )
    out.append(
        prove_zero(
            "kappa(1/2) = 1: continuous at the threshold",
            sharp_exponent_expr().subs(lam_sym, sp.Rational(1, 2)) - 1,
        )
    )
    out.append(
        prove_zero(
            "branch x <= 2/3: G = 1 - x (1 - 1/(2 lambda)), G(0) = 1 and G(2/3) = G_middle(2/3)",
            sp.simplify(
                (1 - x_sym * (1 - 1 / (2 * lam_sym))).subs(x_sym, sp.Rational(2, 3))
                - G.subs(x_sym, sp.Rational(2, 3))
            ),
        )
    )
    out.append(
        prove_zero(
            "branch x >= 2: G = x/(2 lambda), G(2) = G_middle(2)",
            sp.simplify(G.subs(x_sym, 2) - 1 / lam_sym),
        )
    )
    out.append(
        prove_zero(
            "below the threshold the first-order deficit E[e^q 1{q > 2 ln L / 3}] decays as "
            "L^-rho, rho = (2/3)(1/(2 lambda) - 1) = (1 - 2 lambda)/(3 lambda)",
            sp.simplify(sp.Rational(2, 3) * (1 / (2 * lam_sym) - 1) - remainder_exponent_expr()),
        )
    )
    out.append(
        prove_zero(
            "rho = 1 exactly at lambda = 1/5 (below: the regular O(1/L) term dominates)",
            remainder_exponent_expr().subs(lam_sym, sp.Rational(1, 5)) - 1,
        )
    )
    out.append(
        prove_zero(
            "lambda kappa(lambda) -> 1 as lambda -> infinity (the paper's c2/sigma^2 scaling)",
            sp.limit(lam_sym * sharp_exponent_expr(), lam_sym, sp.oo) - 1,
        )
    )
    yv = sp.Symbol("y", positive=True)
    out.append(
        prove_zero(
            "kappa > 1/(2 lambda) beyond the threshold: "
            "(1 + 1/lambda)^2 - (1 + 4/lambda) = (1/lambda)(1/lambda - 2)",
            sp.expand(
                (1 + 1 / lam_sym) ** 2 - (1 + 4 / lam_sym) - (1 / lam_sym) * (1 / lam_sym - 2)
            ),
        )
    )
    out.append(
        prove_zero(
            "sigma^2 kappa increases in sigma: "
            "d/dy (sqrt(y^2 + 4y) - y) = (y + 2)/sqrt(y^2 + 4y) - 1, and "
            "(y + 2)^2 - (y^2 + 4y) = 4 > 0",
            sp.simplify(
                sp.diff(sp.sqrt(yv**2 + 4 * yv) - yv, yv) - ((yv + 2) / sp.sqrt(yv**2 + 4 * yv) - 1)
            )
            + sp.expand((yv + 2) ** 2 - (yv**2 + 4 * yv) - 4),
        )
    )
    return out


def kernel_specs() -> list[KernelSpec]:
    """Emitted: the sharp exponent kappa(lambda), the naive exponent, the rate function h(gamma)
    and the remainder exponent rho(lambda), as piecewise expressions."""
    return [
        KernelSpec(
            "sharp_exponent",
            (lam_arg,),
            ("scalar > 0",),
            sharp_exponent_piecewise(),
            "kappa(lambda) = min(1, (sqrt(1 + 4/lambda) - 1)/2).",
            "fluctuations_exponent",
            "scalar",
        ),
        KernelSpec(
            "naive_exponent",
            (lam_arg,),
            ("scalar > 0",),
            naive_exponent_piecewise(),
            "min(1, 1/(2 lambda)): the heuristic exponent of min(1, e^q/L).",
            "fluctuations_exponent",
            "scalar",
        ),
        KernelSpec(
            "rate_function",
            (gamma_arg,),
            ("any shape, > 0",),
            rate_function_piecewise(),
            "h(gamma): E sum_i p_i^2 ~ e^{-q h(gamma)} at L = e^{gamma q} (Laplace principle).",
            "fluctuations_exponent",
            "same as gamma",
        ),
        KernelSpec(
            "remainder_exponent",
            (lam_arg,),
            ("scalar > 0",),
            remainder_exponent_piecewise(),
            "rho(lambda): L x error reaches its first order as L^-rho below the threshold.",
            "fluctuations_exponent",
            "scalar",
        ),
    ]
