"""What claim `finite-prompt-risk` spends at each profile: one Budget, read by its run and its work
estimate."""

from __future__ import annotations

from dataclasses import dataclass

# The authors' 19 prompt lengths.
AUTHORS_LS = tuple(range(10, 101, 10)) + tuple(range(200, 1001, 100))


@dataclass(frozen=True)
class Budget:
    Ls: tuple[int, ...]
    """prompt lengths of the Monte Carlo of the 1/L coefficient (the scenario's, quick its first
    three)"""
    min_draws: int
    """draws per L at least: raised to the number designed for power (claim.design)"""
    max_draws: int
    """draws per L at most (time: about 1 s per 10^4 draws at L = 100 on one core)"""
    point_draws: int
    """Monte Carlo draws at each evaluation point of the exact finite-L risk"""
    curve_Ls: tuple[int, ...]
    """prompt lengths of the exact one-head optimum curve (the authors'; quick their first four)"""
    heads_Ls: tuple[int, ...]
    """prompt lengths of the two-head optimum (~1 s per L on one idle core; none at quick)"""
    rate: bool
    """whether the rate of the one-head optimum is judged (rate.RATE_LS, up to L = 1e6)"""


def budget(s: dict, profile: str) -> Budget:
    """The budget on the validated scenario `s` (its prompt lengths `Ls`)."""
    if profile == "quick":
        return Budget(tuple(s["Ls"][:3]), 8000, 60000, 20000, AUTHORS_LS[:4], (), False)
    if profile == "standard":
        return Budget(tuple(s["Ls"]), 40000, 200000, 100000, AUTHORS_LS, AUTHORS_LS, True)
    return Budget(tuple(s["Ls"]), 100000, 400000, 400000, AUTHORS_LS, AUTHORS_LS, True)
