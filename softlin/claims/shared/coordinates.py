"""Output coordinates that carry no error: (V Gamma V^T)_kk = 0 up to rounding (props 3.1 and
3.4 judge them exactly instead of by a z-score)."""

from __future__ import annotations

import numpy as np

# A coordinate with (V Gamma V^T)_kk below this share of |V|_F^2 ||Gamma||_op is deterministic.
DETERMINISTIC_OUTPUT = 1e-13


def deterministic_coordinates(Gamma, V) -> np.ndarray:
    """Output coordinates k with (V Gamma V^T)_kk = 0 up to rounding: V_k z = V_k m for every
    token, so their error is 0 at every L (and Gamma V_k^T = 0, so every first-order term of
    row k vanishes)."""
    diag = np.einsum("ki,ij,kj->k", V, Gamma, V)
    return diag <= DETERMINISTIC_OUTPUT * float(np.sum(V**2) * np.linalg.norm(Gamma, 2))
