"""The setting a run is about, built once per run by the core (core/execute.py, `run`) from the
validated scenario and handed to every step of the claim: the token law mu, the query-key matrix
U, the value matrix V and the query law nu, one name each (`tokens`, `U`, `V`, `queries`; `query`
when the scenario fixes the query z, so that nu is the point mass at it).

A claim declares how its setting is built (Claim.setting: validated scenario -> Setting); its
`run` then reads `setting.tokens`, `setting.U`, ... and `setting.scenario` (the validated scenario,
for its budgets and lengths) instead of converting and validating the scenario again. The arrays
are read-only copies, so no step can change the setting another step reads.

The shapes are checked once here: either matrices (tokens in R^d: U is d x d, V is k x d, the
query law and the fixed query live in R^d), or the authors' scalar model with H heads, where head h
attends with U_h = omega_h I_d and outputs mu_h (U holds the H scalars omega_h, V the H scalars
mu_h: equal shapes), or the in-context regression of thm-4.3 and thm-5.2 at the start of its
training: inputs x ~ N(0, Sigma) in R^d (tokens (x, w^T x), task w ~ N(0, I_d)), and only the
blocks U = [[A, 0], [0, 0]] and V's last row (0, ..., 0, b) trained (U holds A(0), d x d; V the
one number b(0)).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from . import scenario as scen


def read_only(value):
    """A read-only copy of an array (anything else as it is)."""
    if isinstance(value, np.ndarray):
        value = value.copy()
        value.setflags(write=False)
    return value


@dataclass(frozen=True)
class Setting:
    """mu, U, V, nu of one run, and the validated scenario they come from (module docstring)."""

    scenario: Mapping[str, Any]
    tokens: Any  # the token law mu (numerics/laws.py), with its dimension d
    U: np.ndarray
    V: np.ndarray
    queries: Any = None  # the query law nu (numerics/laws.py), or None
    query: np.ndarray | None = None  # the fixed query z, or None

    def __post_init__(self):
        for name in ("U", "V", "query"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, read_only(np.asarray(getattr(self, name), float)))
        frozen = {k: read_only(v) for k, v in self.scenario.items()}
        object.__setattr__(self, "scenario", MappingProxyType(frozen))
        d, U, V = self.d, self.U, self.V
        if U.ndim == 1:  # the scalar model: one omega_h and one mu_h per head
            if V.shape != U.shape or U.size < 1:
                raise ValueError(f"{U.size} heads' omega but {V.size} heads' mu")
        elif V.ndim == 1:  # the in-context regression: U holds A(0), V the number b(0)
            if U.shape != (d, d) or V.shape != (1,):
                raise ValueError(f"A(0) {U.shape} and b(0) {V.shape} do not fit inputs in R^{d}")
        elif U.shape != (d, d) or V.ndim != 2 or V.shape[1] != d:
            raise ValueError(f"U {U.shape} and V {V.shape} do not act on tokens in R^{d}")
        if self.queries is not None and getattr(self.queries, "d", d) != d:
            raise ValueError(f"queries in R^{self.queries.d} but tokens in R^{d}")
        if self.query is not None and self.query.shape != (d,):
            raise ValueError(f"the query has shape {self.query.shape}, tokens are in R^{d}")

    @property
    def d(self) -> int:
        """The tokens' dimension."""
        return int(self.tokens.d)


def setting_of(claim, given) -> Setting:
    """The claim's Setting: `given` itself when the core built it (core/execute.py, `run`), else
    built from `given`, a merged scenario (a test calling the claim's `run` directly), which is
    validated first as `plan` validates it (Claim.validate, or the common keys)."""
    if isinstance(given, Setting):
        return given
    if claim.setting is None:
        raise ValueError(f"claim {claim.id} declares no setting")
    return claim.setting((claim.validate or scen.common)(given))
