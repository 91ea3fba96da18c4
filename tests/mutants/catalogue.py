"""The curated math mutants: slips a careful person could really make, one text replacement each.

Each `Mutant` names the file (repository path), the exact text it replaces (it must occur exactly
once: a mutant whose text has gone is reported stale, never silently skipped), the replacement, the
claims whose verdicts it must turn, and the slip in words. Slips in derivations/ propagate to the
emitted kernels (the runner re-emits them in memory), so they are caught only by routes that do not
share the derivation.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    claims: tuple[str, ...]
    slip: str


MUTANTS: tuple[Mutant, ...] = (
    Mutant("tilt-log-normaliser-half-dropped", "derivations/tilt.py",
           "return s[\"a\"].T * s[\"m\"] + coefficient * (t_vec.T * t_vec)",
           "return s[\"a\"].T * s[\"m\"] + 2 * coefficient * (t_vec.T * t_vec)",
           ("lemma-2.1",), "log E e^{a^T z'} = a^T m + a^T Gamma a (the 1/2 dropped): tilted mean m + 2 Gamma a"),
    Mutant("limits-gaussian-U-transposed", "numerics/limits.py",
           "return kernels.gaussian_limit(m[:, None], cov, U, V, Z.T).T",
           "return kernels.gaussian_limit(m[:, None], cov, U.T, V, Z.T).T",
           ("lemma-2.1",), "U transposed where the float limit is assembled (score z^T U z' read the other way)"),
)


def by_name(name: str) -> Mutant:
    for mutant in MUTANTS:
        if mutant.name == name:
            return mutant
    raise ValueError(f"no mutant named {name!r}; known: {', '.join(m.name for m in MUTANTS)}")
