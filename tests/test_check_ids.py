"""Check ids are stable: the same claim run on another scenario names the same checks the same way,
whatever its numbers (and a check that cannot be judged there keeps its id)."""

import json
from pathlib import Path

from softlin.core import scenario as scen
from softlin.core.claim import claim_rng
from softlin.claims.lemma_2_1 import claim as lemma21

REPO = Path(__file__).resolve().parents[1]


def test_lemma21_on_a_one_dimensional_scenario_names_the_committed_checks():
    committed = json.loads((REPO / "reports" / "certificates" / "lemma-2.1.json").read_text())
    # d = 1: other numbers everywhere, and the transposed-U control is not judged (U^T = U)
    s = scen.merge(
        lemma21.default_scenario(),
        {"d": 1, "L": [16, 64], "trials": 200},
        lemma21.CLAIM.scenario_keys,
    )
    cert = lemma21.run(
        lemma21.CLAIM.validate(s) if lemma21.CLAIM.validate else scen.common(s),
        "quick",
        claim_rng(0, "lemma-2.1"),
    )
    assert [c["id"] for c in cert["checks"]] == [c["id"] for c in committed["checks"]]
    unjudged = [c["id"] for c in cert["checks"] if c.get("judged") is False]
    assert unjudged == ["lemma-2.1/control/transposed-u"]
