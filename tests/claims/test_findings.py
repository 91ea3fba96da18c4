"""Findings: the one shape of a claim step's results, and how a claim collects them."""

from softlin.judge.check import Check
from softlin.core.findings import Findings


def check(name: str) -> Check:
    return Check(name, "quadrature", True, 0.0, 1.0, "", id=name)


def test_add_appends_checks_and_errata_in_order_and_merges_the_dicts():
    run = Findings([check("a")], {"x": 1, "y": 2}, {"main": [1]}, [{"erratum": 1}])
    step = Findings([check("b"), check("c")], {"y": 3}, {"other": [2]}, [{"erratum": 2}])
    assert run.add(step) is run
    assert [c.id for c in run.checks] == ["a", "b", "c"]
    assert run.quantities == {"x": 1, "y": 3}  # a later key replaces an earlier one
    assert run.series == {"main": [1], "other": [2]}
    assert run.errata == [{"erratum": 1}, {"erratum": 2}]


def test_add_under_a_key_nests_quantities_and_series_without_touching_the_top_level():
    run = Findings(quantities={"x": 1}, series={"controls": {"old": 0}})
    run.add(Findings([], {"x": 2}, {"new": 1}), quantities_under="step", series_under="controls")
    assert run.quantities == {"x": 1, "step": {"x": 2}}
    assert run.series == {"controls": {"old": 0, "new": 1}}
    assert Findings().quantities is not Findings().quantities  # no shared default
