"""Evidence tiers (softlin.core.claim): what a check is worth decides what it does to the
verdict."""

import json
from pathlib import Path

import pytest

from softlin.judge.check import Check, check_record, KIND_TIER, TIERS, status_of, unjudged

REPO = Path(__file__).resolve().parents[2]


def _c(passed, tier, kind="montecarlo"):
    return Check("c", kind, passed, tier=tier)


def test_a_failed_evidence_check_refutes_and_a_failed_consistency_check_only_withholds_verified():
    assert status_of([_c(True, "statistical"), _c(False, "numerical", "quadrature")]) == "refuted"
    # a consistency check cannot fail on a formula slip: its failure is no counterexample...
    assert status_of([_c(True, "statistical"), _c(False, "consistency")]) == "inconclusive"
    # ...and its success is no evidence
    assert status_of([_c(True, "consistency"), _c(True, "consistency", "emit")]) == "inconclusive"
    assert status_of([]) == "inconclusive"
    assert status_of([_c(True, "proof", "symbolic"), _c(True, "consistency")]) == "verified"
    assert status_of([_c(True, "statistical"), _c(None, "statistical")]) == "inconclusive"


def test_a_check_not_judged_stays_in_the_record_and_out_of_the_verdict():
    low = unjudged(
        "control: a slip below the budget's power",
        "control",
        "planned power 0.42 below 0.999",
        tier="statistical",
        value=0.42,
        bound=0.999,
    )
    record = check_record(low, "x")
    assert (record["judged"], record["passed"], record["reason"]) == (
        False,
        None,
        "planned power 0.42 below 0.999",
    )
    assert "judged" not in check_record(
        _c(True, "statistical"), "x"
    )  # a judged check reads as it always has
    # out of the verdict: neither withholds verified (as an undecided check would) nor counts as
    # evidence
    assert (
        status_of([_c(True, "statistical"), low])
        == status_of([_c(True, "statistical"), record])
        == "verified"
    )
    assert status_of([low]) == status_of([_c(True, "consistency"), low]) == "inconclusive"
    assert status_of([_c(False, "statistical"), low]) == "refuted"
    unjudged_test = unjudged("Monte Carlo: no data", "montecarlo", "data absent")
    from softlin.judge import kinds, levels

    counted = kinds.z_test("z", id="z", z=1.0, alpha=1e-6, assumption=levels.NORMAL_MEAN)
    records = [check_record(c, "x") for c in (counted, unjudged_test, low)]
    assert levels.family_wise(records) == {"bound": 0.0, "nominal": 1e-6}
    with pytest.raises(ValueError, match="passed None and a reason"):
        Check("c", "montecarlo", True, judged=False, reason="r")
    with pytest.raises(ValueError, match="passed None and a reason"):
        Check("c", "montecarlo", None, judged=False)


def test_certificate_dicts_and_checks_give_the_same_status():
    from dataclasses import asdict

    checks = [_c(True, "statistical"), _c(False, "consistency")]
    assert status_of([asdict(c) for c in checks]) == status_of(checks) == "inconclusive"


def test_every_kind_has_its_tier_and_a_control_must_name_one():
    assert Check("c", "symbolic", True).tier == "proof"
    assert Check("c", "emit", True).tier == "consistency"
    assert set(KIND_TIER.values()) <= set(TIERS)
    with pytest.raises(ValueError, match="must name its tier"):
        Check("c", "control", True)
    with pytest.raises(ValueError, match="tier 'certain'"):
        Check("c", "montecarlo", True, tier="certain")


def test_every_committed_certificate_has_evidence_and_names_its_consistency_checks():
    """The checks the referee found implied or self-assessed are tier consistency on the pages."""
    import json
    from pathlib import Path

    certs = {
        p.stem: json.loads(p.read_text())
        for p in (Path(__file__).resolve().parents[2] / "reports" / "certificates").glob("*.json")
    }
    assert len(certs) >= 9
    for cid, cert in certs.items():
        tiers = {c["tier"] for c in cert["checks"]}
        assert tiers - {"consistency"}, cid
        assert cert["status"] == status_of(cert["checks"]), cid
    consistency = {
        c["id"] for cert in certs.values() for c in cert["checks"] if c["tier"] == "consistency"
    }
    # the numeric majorant holds for every g2, beta > 0: its proof is the evidence
    assert {"thm-4.3/gronwall/flows", "thm-4.3/gronwall/majorant"} <= consistency
    assert "thm-4.3/gronwall/majorant-proof" not in consistency
    assert "finite-prompt-risk/exact/stated-error" in consistency


def test_every_check_needs_an_id_unique_within_its_claim():
    from softlin.judge.check import check_records, CHECK_ID

    records = check_records(
        "prop-3.1",
        [
            Check("a", "montecarlo", True, id="fixed/bias", unit="|z|"),
            Check("b", "montecarlo", True, id="fixed/mse", unit="|z|"),
        ],
    )
    assert [r["id"] for r in records] == ["prop-3.1/fixed/bias", "prop-3.1/fixed/mse"]
    assert list(records[0])[0] == "id"  # first in the certificate's record
    with pytest.raises(ValueError, match="has no id"):
        check_records("prop-3.1", [Check("a", "montecarlo", True)])
    with pytest.raises(ValueError, match="share the id 'fixed/bias'"):
        check_records(
            "prop-3.1",
            [
                Check("a", "montecarlo", True, id="fixed/bias", unit="|z|"),
                Check("b", "montecarlo", True, id="fixed/bias", unit="|z|"),
            ],
        )
    with pytest.raises(ValueError, match="CHECK_ID"):
        Check("a", "montecarlo", True, id="Fixed query: bias")
    with pytest.raises(ValueError, match="names no unit"):
        check_records("prop-3.1", [Check("a", "montecarlo", True, id="fixed/bias")])
    with pytest.raises(ValueError, match="UNITS|one of"):
        Check("a", "montecarlo", True, id="fixed/bias", unit="furlongs")
    assert CHECK_ID.fullmatch("regime/above/grad-v-kappa") and not CHECK_ID.fullmatch("a//b")


def test_every_committed_check_has_its_claims_id_prefix_and_a_unique_id():
    from softlin.judge.check import CHECK_ID

    for path in sorted((REPO / "reports" / "certificates").glob("*.json")):
        cert = json.loads(path.read_text())
        ids = [c["id"] for c in cert["checks"]]
        assert len(set(ids)) == len(ids), path
        for check_id in ids:
            claim, _, local = check_id.partition("/")
            assert claim == cert["claim"] and CHECK_ID.fullmatch(local), check_id


def test_every_judged_statistical_check_states_its_resolution():
    """A referee reads what each passing test could have seen (`detectable`, a relative slip > 0);
    controls state their planned power instead; a sign test, the smallest reversal it refutes."""
    for path in sorted((REPO / "reports" / "certificates").glob("*.json")):
        for check in json.loads(path.read_text())["checks"]:
            if (
                check["tier"] != "statistical"
                or check["kind"] == "control"
                or check.get("judged") is False
                or check["passed"] is None
            ):
                continue
            assert isinstance(check.get("detectable"), (int, float)) and check["detectable"] > 0, (
                check["id"]
            )


def test_every_committed_check_names_a_unit_the_pages_explain():
    from softlin.judge.check import UNITS

    for path in sorted((REPO / "reports" / "certificates").glob("*.json")):
        for check in json.loads(path.read_text())["checks"]:
            assert check.get("unit") in UNITS, (check["id"], check.get("unit"))
