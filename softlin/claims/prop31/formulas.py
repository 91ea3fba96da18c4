"""prop-3.1: the formulas shown on the claim's page, every one printed from the SymPy object its
derivation returns (derivations/display.py via formulas.py): b_1, C_1, the first-order coefficient,
kappa, the rate function h and the explicit in-expectation bound."""

from __future__ import annotations

from .. import formulas as shown


def _formulas() -> dict:
    return shown.for_claim("prop-3.1")[0]


def _formulas_mathml() -> dict:
    return shown.for_claim("prop-3.1")[1]
