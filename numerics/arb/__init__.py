"""The Arb toolkit every enclosure module builds on (python-flint ball arithmetic); import each name
from its module:

- context.py: `precision`, Arb's working precision for one block, restored after it; the only
  place that sets `flint.ctx.prec`;
- balls.py: `exact_array` (floats to exact balls), `ball`, `ipow`, `real_upper`, `float_down` and
  `float_up` (a ball's ends rounded outward to floats, exactly), `outward` (a ball to a decimal
  float interval that contains it), and `memoised_by_ball` (a cache keyed by the
  exact ball, `ball_key`, that hands the ball itself on);
- tails.py: `tail_moments` and `K`, Gaussian tail bounds, and `tail_start`, where the outer
  integrals' upper tails start, computed in balls and rounded down;
- inner.py: `Inner`, the one engine of the inner Gaussian integrals J_{k,h}(t) = E[w^k h(f) e^{-tw}]
  (tails bounded, widened over a ball t, majorants).
"""
