"""The derivation report (reports/derivations.md and its HTML twin): hypotheses, derived results,
the chains of steps of the key derivations, kernels, proofs folded; the chains' steps are proved."""

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import sympy as sp

from softlin import cli
from softlin.derivations import catalogue, chains, emit, report, report_contents
from softlin.derivations.kernel_spec import KernelSpec
from softlin.derivations.proof import Proof
from softlin.render import derivations_page


@pytest.mark.parametrize("group", sorted(chains.BUILDERS))
def test_every_step_of_the_key_derivations_reduces_to_zero(group):
    steps = [st for _, chain in chains.chains_for(group) for st in chain]
    assert len(steps) >= 4 and all(st.proof.passed for st in steps), [
        st.text for st in steps if not st.proof.passed
    ]


def test_a_wrong_step_is_reported_not_proved():
    # the square completed without the 1/2 of Gamma a^2 / 2: a plausible slip, and it must not pass
    x, m, a = sp.symbols("x m a", real=True)
    G = sp.Symbol("Gamma", positive=True)
    wrong = chains.step(
        "completed square, 1/2 dropped",
        a * x - (x - m) ** 2 / (2 * G),
        -((x - m - G * a) ** 2) / (2 * G) + a * m + G * a**2,
    )
    assert not wrong.proof.passed


def test_every_proof_group_has_a_title_and_hypotheses_and_the_chains_are_in_the_catalogue():
    for group in catalogue.GROUPS:
        if group != "chains":
            title, hypotheses = report_contents.ABOUT[group]
            assert title and hypotheses, group
    assert "chains" in catalogue.GROUPS


def test_kernels_are_filed_under_the_group_of_their_derivation():
    assert report_contents.kernel_group("fluctuations_bound") == "fluctuations"
    assert report_contents.kernel_group("risk_scalar_heads") == "risk_scalar_heads"
    assert report_contents.kernel_group("risk_scalar_variance") == "risk_scalar"
    assert report_contents.kernel_group("authors_gradients") == "authors_experiment"
    assert report_contents.kernel_group("nowhere") is None


@pytest.fixture()
def small_report(monkeypatch):
    """Two groups with their real results and chains, one fake kernel (kernel_specs() takes a
    minute)."""
    x = sp.Symbol("x")
    spec = KernelSpec(
        "fake_kernel", (x,), ("()",), -sp.exp(x) / 2, "a fake kernel", "lemma21", "()"
    )
    for module in (report, derivations_page):
        monkeypatch.setattr(module, "kernel_specs", lambda: [spec])
    proofs = {
        "lemma21": (Proof("an identity", True, 0.0),),
        "gronwall": (Proof("another", False, 0.0),),
    }
    return report.render(proofs), derivations_page.render_html(proofs)


def test_the_markdown_report_typesets_results_chains_and_folds_the_proofs(small_report):
    md, _ = small_report
    assert "*Hypotheses:* tokens N(m, Gamma)" in md
    assert "### Lemma 2.1 by completing the square" in md and "1. complete the square" in md
    assert r"\int\limits_{-\infty}^{\infty}" in md  # the normaliser step
    assert "#### `fake_kernel(x)`" in md and "<details>" in md and "- **NOT PROVED**: another" in md
    assert "g_{2} t e^{\\beta t}" in md  # thm-4.3's transfer bound


def test_the_html_report_is_xml_with_mathml_for_every_formula_and_no_latex_fallback(small_report):
    _, page = small_report
    root = ET.fromstring(page.removeprefix("<!DOCTYPE html>\n"))
    maths = root.findall(".//{http://www.w3.org/1998/Math/MathML}math") or root.findall(".//math")
    figures = [f for f in root.iter("figure")]
    assert len(maths) == len(figures) >= 4 + 1 + 2 + 1  # chain steps, result, gronwall, kernel
    assert "no MathML" not in page and "$$" not in page
    assert root.find(".//details/summary") is not None and 'class="fail">NOT PROVED' in page
    assert root.find(".//ol[@class='chain']") is not None


def test_the_committed_derivation_page_carries_the_current_page_style():
    """reports/derivations.html is written by `softlin derive` (it re-runs every proof), not by
    `softlin report`: a change of the shared page style leaves it stale until derive runs. Caught
    here in the default run, rather than by the slow tier's `derive --check`."""
    from pathlib import Path
    from softlin.render.html import STYLE

    page = (Path(__file__).resolve().parents[2] / "reports" / "derivations.html").read_text()
    assert STYLE in page, "reports/derivations.html is stale: run softlin derive"


DERIVATIONS = Path(report.__file__).resolve().parent
# A comment-only edit of a derivation module, appended whenever its source is read from disk.
COMMENT = "\n# a comment-only edit: it changes no formula the report shows\n"


@pytest.fixture()
def derive_check(tmp_path, monkeypatch):
    """`softlin derive --check --out DIR` on one proof group and one fake kernel (the whole
    catalogue takes minutes; the committed tree's own check is in the slow tier), DIR holding the
    two pages as `softlin derive` writes them. Returns (the kernel list the report reads, a function
    running the check and returning its exit code). The emitted kernels are not under test here:
    their diff is taken as empty."""
    x = sp.Symbol("x")
    spec = KernelSpec("fake_kernel", (x,), ("()",), -sp.exp(x) / 2, "a kernel", "lemma21", "()")
    specs = [spec]
    for module in (report, derivations_page):
        monkeypatch.setattr(module, "kernel_specs", lambda: list(specs))
    proofs = (Proof("an identity", True, 0.0),)
    monkeypatch.setattr(catalogue, "GROUPS", {"lemma21": lambda: proofs})
    monkeypatch.setattr(emit, "staleness_diff", lambda *args: "")
    out = tmp_path / "reports"
    out.mkdir()
    (out / "derivations.md").write_text(report.render({"lemma21": proofs}))
    (out / "derivations.html").write_text(derivations_page.render_html({"lemma21": proofs}))
    return specs, lambda: cli.main(["derive", "--check", "--out", str(out)])


def _edit_comments_on_read(monkeypatch):
    """Every read of a derivations/*.py file from disk sees COMMENT appended."""
    real_bytes, real_text = Path.read_bytes, Path.read_text

    def edited(path: Path) -> bool:
        return path.suffix == ".py" and path.resolve().parent == DERIVATIONS

    monkeypatch.setattr(
        Path, "read_bytes", lambda p: real_bytes(p) + (COMMENT.encode() if edited(p) else b"")
    )
    monkeypatch.setattr(
        Path,
        "read_text",
        lambda p, *a, **k: real_text(p, *a, **k) + (COMMENT if edited(p) else ""),
    )
    assert (DERIVATIONS / "lemma21.py").read_bytes().endswith(COMMENT.encode())


def test_a_comment_only_edit_of_a_derivation_leaves_the_report_fresh(derive_check, monkeypatch):
    """The report's hash covers what it shows, not the source text: with every derivation module
    read with an added comment, `derive --check` still finds both pages up to date."""
    _, check = derive_check
    assert check() == 0
    _edit_comments_on_read(monkeypatch)
    assert check() == 0


def test_a_changed_expression_makes_derive_check_name_both_pages_and_changes_the_hash(
    derive_check, capsys
):
    """The slip of a dropped 1/2 in a shown kernel: both pages are stale, each named with the fix,
    and the content hash in their header moves with it."""
    specs, check = derive_check
    before = report.render({"lemma21": (Proof("an identity", True, 0.0),)})
    x = specs[0].args[0]
    specs[0] = KernelSpec("fake_kernel", (x,), ("()",), -sp.exp(x), "a kernel", "lemma21", "()")
    capsys.readouterr()
    assert check() == 1
    err = capsys.readouterr().err
    assert "derivations.md is stale; fix: softlin derive" in err
    assert "derivations.html is stale; fix: softlin derive" in err
    after = report.render({"lemma21": (Proof("an identity", True, 0.0),)})
    hash_line = [line for line in before.splitlines() if "Content hash" in line]
    assert hash_line and hash_line[0] not in after.splitlines()


def test_the_content_hash_sees_what_the_report_shows_and_not_the_proofs_timings():
    """A proof's seconds and residual are not shown: they leave the hash. Its verdict, a step's
    side and a kernel's doc are shown: each changes it."""
    x = sp.Symbol("x")
    spec = KernelSpec("k", (x,), ("()",), x / 2, "a kernel", "lemma21", "()")
    proofs = {"lemma21": (Proof("an identity", True, 0.0),)}
    body, orphans = report_contents.sections(proofs, [spec])
    base = report_contents.content_hash(body, orphans)

    def hashed(proofs=proofs, spec=spec):
        return report_contents.content_hash(*report_contents.sections(proofs, [spec]))

    assert hashed({"lemma21": (Proof("an identity", True, 12.5, "residual"),)}) == base
    assert hashed({"lemma21": (Proof("an identity", False, 0.0),)}) != base
    assert hashed(spec=KernelSpec("k", (x,), ("()",), x / 2, "other doc", "lemma21", "()")) != base
    assert hashed(spec=KernelSpec("k", (x,), ("()",), x / 3, "a kernel", "lemma21", "()")) != base
    step = body[0].chains[0][1][0]
    body[0].chains[0][1][0] = chains.Step(step.text, step.lhs, step.rhs + 1, step.proof)
    assert report_contents.content_hash(body, orphans) != base
