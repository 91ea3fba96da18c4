"""Nested quantities and errata witnesses become small tables (render/tables.py), and the index
lists claims in the paper's order."""

import re
import json
import xml.etree.ElementTree as ET

from softlin.render import html, html_tables, markdown_tables, render, tables, text

REGIMES = {
    "below": {"lambda": 0.2, "exponent": 1.0, "mc_mse": [0.3, 0.09, 0.02]},
    "above": {"lambda": 2.0, "exponent": 0.61, "fit": {"kappa3": 0.6, "kappa4": 0.62}},
}


def test_a_dict_of_regimes_is_one_table_with_a_column_per_regime():
    t = tables.table_of("regimes", REGIMES)
    assert t.columns == ("", "below", "above")
    assert [r[0] for r in t.rows] == ["lambda", "exponent", "mc_mse", "fit"]
    assert t.rows[0][1:] == (0.2, 2.0) and t.rows[3][1] is None


def test_a_list_of_records_is_a_table_with_a_row_per_record_and_wide_ones_are_transposed():
    records = [{"q": 0.3, "L": 1, "A": 1.0}, {"q": 1.0, "L": 2, "A": 0.5}]
    t = tables.table_of("anchors", records)
    assert t.columns == ("#", "q", "L", "A") and len(t.rows) == 2
    wide = [{f"k{i}": i for i in range(12)}]
    tw = tables.table_of("wide", wide)
    assert tw.columns == ("", "#1") and len(tw.rows) == 12


def test_long_arrays_are_summarised_by_length_and_ends_and_small_matrices_kept():
    assert tables.summary(list(range(20))) == "(20 values, 0 … 19)"
    assert tables.summary([[1.0, 0.5], [0.5, 2.0]]) == "[1, 0.5; 0.5, 2]"
    assert tables.summary({"a": 1, "b": [2, 3]}) == "a = 1; b = [2, 3]"


def test_dicts_over_the_same_keys_share_one_table():
    flat, nested = tables.layout(
        {
            "rate": 0.5,
            "risk": {"10": 1.0, "20": 0.5},
            "gap": {"10": 0.1, "20": 0.05},
            "regimes": REGIMES,
        }
    )
    assert flat == [("rate", 0.5)]
    assert [t.name for t in nested] == ["risk, gap", "regimes"]
    assert nested[0].rows == (("10", 1.0, 0.1), ("20", 0.5, 0.05))


def _page_with(quantities, errata=()):
    cert = json.loads(
        (render.Path(__file__).parent / "gold" / "certificates" / "synthetic-a.json").read_text()
    )
    cert["quantities"], cert["errata"] = quantities, list(errata)
    return cert


def test_the_html_page_gives_nested_quantities_their_own_tables_and_no_json():
    cert = _page_with({"rate": 0.5, "regimes": REGIMES})
    page = html.claim_page(cert, None)
    root = ET.fromstring(page.split("\n", 1)[1])  # XML after the doctype
    assert root.find(".//h3[@id='quantity-synthetic-a-regimes']") is not None
    section = page[page.index("<h2>Quantities</h2>") :]
    assert (
        '{"' not in section
        and re.sub(r"</?span[^>]*>", "", section).count("[0.3, 0.09, 0.02]") >= 1
    )
    md = render.claim_page(cert, False)
    assert "### regimes" in md and "| lambda | 0.2 | 2 |" in md and '{"' not in md


def test_an_erratum_witness_is_a_table_of_named_numbers():
    witness = {"L": 1, "error_exact": 2.0984812, "covariance": [[1.0, 0.5], [0.5, 1.0]]}
    items = [("c", "the display fails at L = 1", [("witness", witness), ("fix", "state L >= 2")])]
    out = "\n".join(html_tables.errata_list(items, link_claims=False))
    assert '<table class="witness">' in out and "<th>error_exact</th>" in out and "2.098" in out
    assert '<table class="grid">' in out and '{"' not in out
    md = "\n".join(markdown_tables.errata_items(items))
    assert "  | error_exact | 2.098 |" in md and "  - fix: state L >= 2" in md


def test_raw_errata_fields_keep_their_json_values_for_the_tables():
    cert = {"claim": "c", "errata": [{"title": "t", "witness": {"a": 1}}]}
    assert text.all_errata([cert], raw=True) == [("c", "t", [("witness", {"a": 1})])]
    assert text.all_errata([cert]) == [("c", "t", [("witness", '{"a": 1}')])]


def test_the_index_lists_claims_in_the_papers_order_then_unknown_ones():
    ids = [
        "thm-5.2",
        "mixture",
        "zzz-extra",
        "asm-3.3",
        "prop-3.4",
        "lemma-2.1",
        "thm-4.3",
        "prop-3.1",
        "authors-experiment",
        "finite-prompt-risk",
    ]
    ordered = [c["claim"] for c in render.paper_order([{"claim": i} for i in ids])]
    assert ordered == [
        "lemma-2.1",
        "prop-3.1",
        "asm-3.3",
        "prop-3.4",
        "thm-4.3",
        "thm-5.2",
        "mixture",
        "finite-prompt-risk",
        "authors-experiment",
        "zzz-extra",
    ]


def test_proofs_for_every_L_are_their_own_tier_count_and_their_controls_are_not():
    def check(cid, tier, passed=True):
        return {"id": cid, "tier": tier, "passed": passed, "judged": True}

    cert = {
        "checks": [
            check("fixed/bound-every-l", "proof"),
            check("fixed/bound-every-l-control-lowered", "control"),
            check("exact/first-order", "proof"),
            check("mc/rate", "statistical"),
        ]
    }
    summary = text.tiers_summary(cert)
    assert summary.startswith("1 proof, 1 proved for every L >= 2 at this scenario, 1 statistical")
    cert["checks"][2]["tier"] = "numerical"  # no other proof: the every-L count comes first
    assert text.tiers_summary(cert).startswith("1 proved for every L >= 2 at this scenario, 1 num")
    # an every-L id that is not a proof is not counted as one
    cert["checks"][0]["tier"] = "enclosure"
    assert "every L" not in text.tiers_summary(cert)
