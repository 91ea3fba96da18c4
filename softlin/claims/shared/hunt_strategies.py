"""Hypothesis strategies of scenarios for `softlin hunt` (docs/design.md, "Hunt"). Only the hunt
imports this module, so that Hypothesis loads only when hunting; the Hypothesis-free parts of a
space (its regions, `Space`) are core/hunt_space.py.

A strategy draws a *user* scenario (plain ints, floats and lists, the keys of docs/design.md,
"Scenarios"), exactly as a TOML file would give it, so a counterexample is written as TOML and
`softlin verify CLAIM --scenario FILE --profile quick` re-runs the very same claim run.

Space (the common keys; the per-claim strategies below):

- d from 1 to 6; token covariance Gamma = B B^T with B a d x r matrix, r from 0 to d: every rank,
  the singular ones (r < d) and Gamma = 0 included; mean m, interaction U, value V (k x d, k in
  1..3); query covariance Sigma_q = C C^T (singular allowed; `asm-3.3` assumes it positive
  definite, so a singular one is drawn on purpose and classified outside the hypotheses).
- entries on a grid: B, m, V, C in {-1, -3/4, ..., 1}, U in {-1/2, -3/8, ..., 1/2} (asm-3.3: in
  {-1, -3/4, ..., 1}, so that lambda >= 1/2 is drawn often). Products of
  dyadic numbers are exact in binary and in decimal, so the TOML file holds the scenario exactly,
  and Hypothesis shrinks each entry towards 0 (a shrunk counterexample has few non-zero entries).
- prompt lengths: 1 to 3 strictly increasing lengths from {4, 8, ..., 128}; trials fixed per budget.
- extreme but valid scales (every claim whose scenario has the common keys: lemma-2.1, mixture,
  asm-3.3, prop-3.1, prop-3.4; `extreme=True`): U times 2^k with k from U_EXPONENTS (up to
  2^330 ~ 2.2e99, under the input cap 1e100; 2^20 against Gamma times 2^-40 keeps the tilt
  lambda of order one at tiny absolute scales); Gamma times 2^j with j from COV_EXPONENTS (tiny
  and huge), B's last column times 2^-20 (Gamma's condition number up to ~2^40 ~ 1e12, at the
  edge of psd_root's cut); the same scales for Sigma_q = C C^T (its last column times 2^-10,
  condition number up to ~1e6, inside positive_definite's cut). prop-3.1 and prop-3.4, whose
  fixed query's route refuses q above ~315, take U divided by the roots of Gamma's and Sigma_q's
  scales and the query times Sigma_q's root (`compensate`), so lambda and q keep their order.
  The reach of every route (numerics/quadrature.py, claims/shared/limit_battery.py, the d = 1
  quadrature of numerics/tilted_moments.py, the fixed-query q reach of numerics/selfnormalised.py)
  is exercised, and a route beyond its reach must say so, never refute.
- every factor a formula multiplies by is drawn generic: Gamma = B B^T, Sigma_q = C C^T, U and V
  with independent entries, so Sigma_q is non-identity and non-diagonal and Gamma, U, V,
  Sigma_q do not commute, except on the measure-zero draws Hypothesis shrinks towards (zero
  entries); tests/claims/test_reach.py measures how often the drawn matrices commute.
  Powers of two keep the entries exact (binary and their shortest decimal round trip), and the
  first exponent, 0, is where Hypothesis shrinks to.

The claims' own spaces (each claim names its function below in its `Space`), with the prompt budget
drawn small so that one claim run at `quick` costs seconds to a minute:

- prop-3.1, prop-3.4: the common keys with a fixed query of length d (d 1..3, Gamma = B B^T of every
  rank, a possibly singular query covariance) and 2 to 3 prompt lengths; region:
  lambda = lambda_max(U^T Gamma U Sigma_q) below or above the finiteness threshold 1/2.
- mixture: 1 to 3 Gaussian components with weights w_k / sum w (w_k in 1..4), means and covariances
  B_k B_k^T (singular allowed); region: the number of components.
- thm-4.3, thm-5.2: [icl] with Sigma = B B^T + c I (c in {0, 1/4, 1/2}: c = 0 may be singular, which
  `icl.sigma` validation rejects as outside the hypotheses), alpha = j/8 (j in 1..16), noise 0,
  L from {4, 8, 16, 32, 64}; region (thm-5.2): alpha against the paper's bound
  sqrt2 / (d^1/4 ||Sigma||) and the cited linear-attention condition; (thm-4.3): ||Sigma||_op <= 1
  (the appendix lemma's case) or not.
- finite-prompt-risk: [scalar] with d 1..6, noise in {0, 1/8, ..., 1/2}, one or two heads
  (mu, omega in {-1, -7/8, ..., 1}),
  L from {4, 8, ..., 128}; omega_h omega_k >= 1/2 is outside the hypotheses (C1 infinite) and
  rejected by validation; region: the number of heads.
- authors-experiment: [icl] sigma (d 1..3), noise, L from {4, 8, 16, 32}; region: d.

Extreme but valid scales of the claims without the common keys (issue 41: a route beyond its
reach never refutes, tests/claims/test_reach.py runs them): Sigma times 2^j with j from
SIGMA_EXPONENTS (tiny and huge input scales) and, with ridge 0, B's last column times 2^-10
(Sigma's condition number up to ~2^20, inside positive_definite's cut) or 0 (singular: outside);
thm-4.3 and thm-5.2 draw alpha at its bounds too (ALPHA_MODES: 2^-20 near its lower bound 0,
the paper's bound sqrt2 / (d^1/4 ||Sigma||) times 1 -+ 2^-10 on either side of it, 2^10 far
above); the authors' experiment and finite-prompt-risk draw the label noise at 2^-30 and 2^20
besides the grid; finite-prompt-risk draws mu times 2^+-20, omega near its bound
omega_h omega_k < 1/2 (|omega| = 2^-1/2 (1 - 2^-10), the 1/L coefficient huge but finite) and
at 2^-20, and the optional input covariance sigma of its exact section at Sigma's extremes.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

LENGTHS = (4, 8, 16, 32, 64, 128)
# Exponents of 2 (module docstring): U's scale (0 most often: the ordinary space stays covered),
# Gamma's, and the last column of B's (an ill-conditioned Gamma).
U_EXPONENTS = (0, 0, 0, 2, 5, 20, 40, 330)
# prop-3.1, prop-3.4: their fixed query's exact route refuses q = a^T Gamma a above ~315
# (numerics/selfnormalised.q_reach), so U's scale compensates Gamma's and Sigma_q's (`compensate`:
# U up to 2^40 against both at 2^-40) and its own exponent stays small
RATE_U_EXPONENTS = (0, 0, 1, 1, 2)
COV_EXPONENTS = (0, 0, 0, -40, 40)
COLUMN_EXPONENTS = (0, 0, -20)
# Sigma_q's last column: condition number up to 2^20 ~ 1e6 (asm-3.3 and prop-3.4 need it positive
# definite at its own scale, numerics/validate.positive_definite, which 2^-40 would fail)
QUERY_COLUMN_EXPONENTS = (0, 0, -10)
TRIALS = {"quick": 800, "standard": 2000}  # prompts per length in the scenario (quick keeps 1/4)
# The [icl] and [scalar] spaces' extremes (module docstring): 0 most often, where Hypothesis
# shrinks to.
SIGMA_EXPONENTS = (0, 0, 0, -20, 20)
# B's last column's factor with ridge 0: ill-conditioned (2^-10), or 0 (singular, and the ridge
# dropped: outside the hypotheses on purpose, `icl.sigma` must be positive definite)
SIGMA_COLUMN_FACTORS = (1.0, 1.0, 2.0**-10, 0.0)
ALPHA_MODES = ("grid", "grid", "grid", "tiny", "below bound", "above bound", "huge")
NOISE_MODES = ("grid", "grid", "grid", "tiny", "huge")
SCALE_EXPONENTS = (0, 0, 0, -20, 20)  # finite-prompt-risk's mu
OMEGA_MODES = ("grid", "grid", "grid", "near bound", "tiny")


def dyadic_array(shape, steps: int, denominator: int):
    """An integer array in [-steps, steps] divided by `denominator` (dyadic, so exact)."""
    # fill=nothing: every entry drawn on its own (the default fills most of an array with one value)
    return arrays(np.int64, shape, elements=st.integers(-steps, steps), fill=st.nothing()).map(
        lambda a: a / denominator
    )


@st.composite
def common_scenarios(
    draw,
    max_d: int,
    max_rank: int,
    budget: str,
    u_denominator: int = 8,
    extreme: bool = False,
    u_exponents: tuple = U_EXPONENTS,
    compensate: bool = False,
):
    """Common keys (docs/design.md, "Scenarios") as plain lists. The matrices are drawn at the
    largest size and cut to d (rows of V to k, columns of B to r), so that when Hypothesis lowers d,
    k or r the remaining entries keep their values and the shrinker can make d small. With
    `extreme`, the scales of the module docstring (U's exponent from `u_exponents`); with
    `compensate`, U is also divided by the square roots of Gamma's and Sigma_q's scales, so that
    lambda (and a query scaled like Sigma_q's root, `query_scale` in the result, popped by
    `with_query`) keep their order while the absolute scales are extreme."""
    d = draw(st.integers(1, max_d), label="d")
    r = draw(st.integers(0, min(d, max_rank)), label="rank of B")
    k = draw(st.integers(1, 3), label="rows of V")
    B = draw(dyadic_array((max_d, max_rank), 4, 4), label="B")[:d, :r]
    C = draw(dyadic_array((max_d, max_d), 4, 4), label="C")[:d, :d]
    Ls = sorted(draw(st.sets(st.sampled_from(LENGTHS), min_size=1, max_size=3), label="L"))
    U = draw(dyadic_array((max_d, max_d), 4, u_denominator), label="U")[:d, :d]
    query_scale = 1.0
    if extreme:
        u_exp = draw(st.sampled_from(u_exponents), label="U exponent")
        g_exp = draw(st.sampled_from(COV_EXPONENTS), label="Gamma exponent")
        B = B * 2.0 ** (g_exp / 2)
        if r:
            B[:, -1] *= 2.0 ** draw(st.sampled_from(COLUMN_EXPONENTS), label="last column")
        # Sigma_q = C C^T at tiny and huge scales and ill-conditioned, like Gamma
        q_exp = draw(st.sampled_from(COV_EXPONENTS), label="Sigma_q exponent")
        C = C * 2.0 ** (q_exp / 2)
        C[:, -1] *= 2.0 ** draw(st.sampled_from(QUERY_COLUMN_EXPONENTS), label="Sigma_q column")
        if compensate:  # exponents are even: the square roots are exact powers of two
            u_exp -= (g_exp + q_exp) // 2
            query_scale = 2.0 ** (q_exp // 2)
        U = U * 2.0**u_exp
    return {
        "d": d,
        "mean": draw(dyadic_array((max_d,), 4, 4), label="mean")[:d].tolist(),
        "cov": (B @ B.T).tolist(),
        "U": U.tolist(),
        "V": draw(dyadic_array((3, max_d), 4, 4), label="V")[:k, :d].tolist(),
        "query_cov": (C @ C.T).tolist(),
        "L": [int(L) for L in Ls],
        "trials": TRIALS[budget],
        "delta": 1e-3,
        **({"query_scale": query_scale} if compensate else {}),
    }


@st.composite
def with_query(draw, max_d: int, budget: str, trials: int, u_exponents: tuple = U_EXPONENTS):
    """Common keys plus a fixed query (prop-3.1, prop-3.4), `trials` prompts per length, at the
    extreme scales of the module docstring."""
    s = draw(
        common_scenarios(
            max_d, max_d, budget, 4, extreme=True, u_exponents=u_exponents, compensate=True
        )
    )
    scale = s.pop("query_scale")
    s["query"] = (draw(dyadic_array((max_d,), 4, 4), label="query")[: s["d"]] * scale).tolist()
    # a rate is a log-log slope over the lengths: prop-3.1 refuses fewer than two, so two to three
    # are drawn (a draw the claim refuses would be wasted)
    s["L"] = _lengths(draw, (4, 8, 16, 32, 64, 128))
    s["trials"] = trials
    return s


@st.composite
def mixture_scenarios(draw, budget: str, u_exponents: tuple = U_EXPONENTS):
    s = draw(common_scenarios(2, 2, budget, 8, extreme=True, u_exponents=u_exponents))
    d = s["d"]
    K = draw(st.integers(1, 3), label="components")
    w = draw(st.lists(st.integers(1, 4), min_size=K, max_size=K), label="weights")
    means = draw(dyadic_array((3, 2), 4, 4), label="means")[:K, :d]
    Bs = draw(dyadic_array((3, 2, 2), 4, 4), label="B_k")[:K, :d, :d]
    Bs = Bs * 2.0 ** (draw(st.sampled_from(COV_EXPONENTS), label="Gamma_k exponent") / 2)
    s["mixture"] = {
        "weights": [x / sum(w) for x in w],
        "means": means.tolist(),
        "covs": [(B @ B.T).tolist() for B in Bs],
    }
    return s


@st.composite
def _sigma(draw, max_d: int, extreme: bool = False, d: int | None = None):
    """Sigma = B B^T + c I; with `extreme`, times 2^j (SIGMA_EXPONENTS) and, with c = 0, B's
    last column times a factor of SIGMA_COLUMN_FACTORS: ill-conditioned, or singular. Powers of
    two keep the entries exact."""
    d = draw(st.integers(1, max_d), label="d") if d is None else d
    B = draw(dyadic_array((max_d, max_d), 4, 4), label="B")[:d, :d]
    c = draw(st.sampled_from((0.5, 0.25, 0.0)), label="ridge")
    if extreme:
        factor = draw(st.sampled_from(SIGMA_COLUMN_FACTORS), label="column")
        if factor == 0.0:  # singular on purpose: no ridge
            c = 0.0
        if c == 0.0:
            B[:, -1] *= factor
        scale = 2.0 ** draw(st.sampled_from(SIGMA_EXPONENTS), label="Sigma exponent")
        return ((B @ B.T + c * np.eye(d)) * scale).tolist()
    return (B @ B.T + c * np.eye(d)).tolist()


def _noise(draw, steps: int) -> float:
    mode = draw(st.sampled_from(NOISE_MODES), label="noise mode")
    if mode == "tiny":
        return 2.0**-30
    if mode == "huge":
        return 2.0**20
    return draw(st.integers(0, steps), label="noise") / 8


def _alpha(draw, sigma) -> float:
    """alpha on the grid j/8, or at its bounds (ALPHA_MODES): the paper's bound is computed from
    the drawn Sigma (numerics/icl_flows.paper_alpha_bound), so the draw sits just inside or just
    outside it whatever Sigma's scale."""
    from ...numerics.icl_flows import paper_alpha_bound

    mode = draw(st.sampled_from(ALPHA_MODES), label="alpha mode")
    if mode == "tiny":
        return 2.0**-20
    if mode == "huge":
        return 2.0**10
    sigma = np.asarray(sigma, float)
    if mode in ("below bound", "above bound") and np.linalg.norm(sigma, 2) > 0:
        # (Sigma = 0, drawn singular on purpose, has no bound: it is outside the hypotheses)
        side = -1.0 if mode == "below bound" else 1.0
        return float(paper_alpha_bound(sigma) * (1 + side * 2.0**-10))
    return draw(st.integers(1, 16), label="alpha") / 8


def _lengths(draw, choices, low: int = 1):
    return [
        int(L)
        for L in sorted(
            draw(st.sets(st.sampled_from(choices), min_size=max(2, low), max_size=3), label="L")
        )
    ]


@st.composite
def icl_scenarios(draw):
    sigma = draw(_sigma(3, extreme=True))
    return {
        "icl": {
            "sigma": sigma,
            "alpha": _alpha(draw, sigma),
            "noise": 0.0,
            "L": _lengths(draw, (4, 8, 16, 32, 64)),
            "eps": [0.1, 0.03],
        }
    }


def _omega(draw) -> float:
    mode = draw(st.sampled_from(OMEGA_MODES), label="omega mode")
    sign = draw(st.sampled_from((1.0, -1.0)), label="omega sign")
    if mode == "near bound":
        return sign * float(np.sqrt(0.5) * (1 - 2.0**-10))
    if mode == "tiny":
        return sign * 2.0**-20
    return draw(st.integers(-8, 8), label="omega") / 8


@st.composite
def scalar_scenarios(draw):
    heads = draw(st.integers(1, 2), label="heads")
    d = draw(st.integers(1, 6), label="d")
    mu_scale = 2.0 ** draw(st.sampled_from(SCALE_EXPONENTS), label="mu exponent")
    table = {
        "d": d,
        "noise": _noise(draw, 4),
        "mu": [draw(st.integers(-8, 8), label="mu") / 8 * mu_scale for _ in range(heads)],
        "omega": [_omega(draw) for _ in range(heads)],
        "L": _lengths(draw, (4, 8, 16, 32, 64, 128)),
    }
    if draw(st.booleans(), label="sigma given"):
        table["sigma"] = draw(_sigma(6, extreme=True, d=d))
    return {"scalar": table}


@st.composite
def authors_scenarios(draw):
    return {
        "icl": {
            "sigma": draw(_sigma(3, extreme=True)),
            "noise": _noise(draw, 2),
            "L": _lengths(draw, (4, 8, 16, 32)),
        }
    }


# Each claim's strategy as a function of the budget: what its `Space.strategy` names.


def lemma21_scenarios(budget: str, u_exponents: tuple = U_EXPONENTS):
    """Rank <= 4 drawn, so rank 4 (above the Gauss-Hermite route's 3) is drawn and classified
    outside; the extreme scales of the module docstring (`u_exponents`: U's)."""
    return common_scenarios(6, 4, budget, extreme=True, u_exponents=u_exponents)


def asm33_scenarios(budget: str, u_exponents: tuple = U_EXPONENTS):
    """Its exact rational tables grow fast with d, so d <= 3 keeps one run near 10 s, and U entries
    up to 1 (not 1/2) draw both sides of the threshold lambda = 1/2 often; extreme scales."""
    return common_scenarios(3, 3, budget, 4, extreme=True, u_exponents=u_exponents)


def rate_scenarios(budget: str, u_exponents: tuple = RATE_U_EXPONENTS):
    """prop-3.1 and prop-3.4: the common keys with a fixed query, 200 prompts per length, at the
    extreme scales."""
    return with_query(3, budget, 200, u_exponents)


def icl_space(budget: str):
    """thm-4.3 and thm-5.2: an [icl] table (its budget is the table's own)."""
    return icl_scenarios()


def scalar_space(budget: str):
    """finite-prompt-risk: a [scalar] table (its budget is the table's own)."""
    return scalar_scenarios()


def authors_space(budget: str):
    """authors-experiment: an [icl] table (its budget is the table's own)."""
    return authors_scenarios()
