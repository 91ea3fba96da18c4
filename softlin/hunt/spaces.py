"""Hunt spaces of the claims beyond lemma-2.1 and asm-3.3 (docs/design.md, "Hunt"); the CLI layer.

Same conventions as claims/hunt_strategies.py: a strategy draws a *user* scenario of plain numbers on a
dyadic grid (exact in TOML, shrinks towards 0), and the prompt budget is drawn small so that one
claim run at `quick` costs seconds to a minute. Per claim:

- prop-3.1, prop-3.4: the common keys with a fixed query of length d (d 1..3, Gamma = B B^T of every
  rank, a possibly singular query covariance) and 2 to 3 prompt lengths; region: lambda = lambda_max(U^T Gamma U Sigma_q)
  below or above the finiteness threshold 1/2.
- mixture: 1 to 3 Gaussian components with weights w_k / sum w (w_k in 1..4), means and covariances
  B_k B_k^T (singular allowed); region: the number of components.
- thm-4.3, thm-5.2: [icl] with Sigma = B B^T + c I (c in {0, 1/4, 1/2}: c = 0 may be singular, which
  `icl.sigma` validation rejects as outside the hypotheses), alpha = j/8 (j in 1..16), noise 0,
  L from {4, 8, 16, 32, 64}; region (thm-5.2): alpha against the paper's bound sqrt2 / (d^1/4 ||Sigma||)
  and the cited linear-attention condition; (thm-4.3): ||Sigma||_op <= 1 (the appendix lemma's
  case) or not.
- finite-prompt-risk: [scalar] with d 1..6, noise in {0, 1/8, ..., 1/2}, one or two heads (mu, omega in
  {-1, -7/8, ..., 1}),
  L from {4, 8, ..., 128}; omega_h omega_k >= 1/2 is outside the hypotheses (C1 infinite) and
  rejected by validation; region: the number of heads.
- authors-experiment: [icl] sigma (d 1..3), noise, L from {4, 8, 16, 32}; region: d.
"""

from __future__ import annotations

from ..claims.hunt_space import (Space, alpha_region, asm_region, dimension_region, heads_region, lambda_region,
                                 lemma_region, mixture_region, norm_region)
from ..claims.hunt_strategies import (authors_scenarios, common_scenarios, icl_scenarios, mixture_scenarios,
                                      scalar_scenarios, with_query)


# Every claim's space. lemma-2.1: rank <= 4 drawn, so rank 4 (above the Gauss-Hermite route's 3) is
# drawn and classified outside. asm-3.3: its exact rational tables grow fast with d, so d <= 3 keeps one
# run near 10 s, and U entries up to 1 (not 1/2) draw both sides of the threshold lambda = 1/2 often.
# `statistical_checks` bounds a run's count with room to spare (measured on the built-in scenarios:
# prop-3.1 24, prop-3.4 16, authors-experiment 9, thm-5.2 5, lemma-2.1, mixture, finite-prompt-risk 3,
# thm-4.3 2, asm-3.3 1); a larger bound only lowers the per-check level, and a run above it stops the
# hunt (exit 3).
SPACES = {
    "lemma-2.1": Space(lambda budget: common_scenarios(6, 4, budget), lemma_region, 3),
    "asm-3.3": Space(lambda budget: common_scenarios(3, 3, budget, 4), asm_region, 1),
    "prop-3.1": Space(lambda budget: with_query(3, budget, 200), lambda_region, 32),
    "prop-3.4": Space(lambda budget: with_query(3, budget, 200), lambda_region, 24),
    "mixture": Space(mixture_scenarios, mixture_region, 3),
    "thm-4.3": Space(lambda budget: icl_scenarios(), norm_region, 4),
    "thm-5.2": Space(lambda budget: icl_scenarios(), alpha_region, 8),
    "finite-prompt-risk": Space(lambda budget: scalar_scenarios(), heads_region, 6),
    "authors-experiment": Space(lambda budget: authors_scenarios(), dimension_region, 12),
}
