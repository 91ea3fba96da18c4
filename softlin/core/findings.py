"""What one step of a claim found, in the one shape every step returns.

A claim's run is a sequence of steps (a fixed-query Monte Carlo, a bound, a control, a witness of an
erratum, ...). Each returns a `Findings`: the checks it judged, the quantities it measured, the
series it drew (for figures) and the errata it witnessed. The claim collects them with `add` into
one `Findings` and builds its certificate from that, so a step can move between claims, or be
tested on its own, without a new return convention. A step whose results a later step computes with
(a fixed-query run's estimates, a Monte Carlo's raw values) returns `(Findings, data)`, the data
being what the next step reads and nothing the certificate shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..judge.check import Check


@dataclass
class Findings:
    checks: list[Check] = field(default_factory=list)
    quantities: dict = field(default_factory=dict)
    series: dict = field(default_factory=dict)
    errata: list[dict] = field(default_factory=list)

    def add(
        self,
        other: Findings,
        *,
        quantities_under: str | None = None,
        series_under: str | None = None,
    ) -> Findings:
        """Take in a step's findings: its checks and errata appended in order; its quantities and
        series merged into this one's (a later key replaces an earlier one, as `dict.update`), or,
        with `quantities_under` / `series_under`, merged into the dict held under that key."""
        self.checks += other.checks
        self.errata += other.errata
        for mine, theirs, under in (
            (self.quantities, other.quantities, quantities_under),
            (self.series, other.series, series_under),
        ):
            (mine if under is None else mine.setdefault(under, {})).update(theirs)
        return self
