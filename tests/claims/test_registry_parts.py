"""The claim is the only registry: every registered claim declares every part the pipeline reads
from it, and no module repeats a list of claim ids.

A claim's parts (softlin/core/claim.py, Claim): its documented scenario keys, its work estimate,
its displayed formulas (or Absent with the reason), its page figure (or Absent), its hunt space, and
the sweep fields and phase-diagram series where it declares them. Each declared part is checked
against what it claims to describe: the committed certificate (reports/certificates/<id>.json) shows
the displayed formulas and the figure's series, the renderer draws a figure exactly when one is
declared, the sweep fields name quantities the certificate has, the hunt strategy resolves.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
from pathlib import Path

import pytest

from softlin.core import registry
from softlin.core.claim import NEGATE, Absent
from softlin.core.hunt_space import Space
from softlin.render import figures

REPO = Path(__file__).resolve().parents[2]
CERTIFICATES = REPO / "reports" / "certificates"
SOURCE_ROOTS = (REPO / "softlin", REPO / "derivations", REPO / "numerics")


def _has_path(quantities: dict, source) -> bool:
    """Whether the certificate's quantities hold the key (or nested keys) a sweep field names."""
    path = source if isinstance(source, tuple) else (source,)
    path = path[:-1] if path[-1] == NEGATE else path
    q = quantities
    for part in path:
        if not isinstance(q, dict) or part not in q:
            return False
        q = q[part]
    return True


def missing_parts(claim, cert: dict | None) -> list[str]:
    """What the claim fails to declare, or declares wrongly against its certificate `cert` (None:
    no certificate, so only the declarations themselves are checked)."""
    out = []
    if not claim.keys:
        out.append("keys: no documented scenario keys")
    if not callable(claim.estimate):
        out.append("estimate: none")
    if callable(claim.display):
        shown = claim.display()
        if not shown:
            out.append("display: shows no formula")
        elif cert is not None and not set(shown) <= set(cert.get("formulas", {})):
            extra = sorted(set(shown) - set(cert.get("formulas", {})))
            out.append(f"display: {extra} not in its certificate")
    elif not isinstance(claim.display, Absent):
        out.append("display: neither a display function nor Absent(reason)")
    if isinstance(claim.figure, str):
        if cert is not None and not isinstance(cert.get("series", {}).get(claim.figure), dict):
            out.append(f"figure: its certificate has no series {claim.figure!r}")
        elif cert is not None and figures.figure_png(cert) is None:
            out.append("figure: the renderer draws none from its certificate")
    elif isinstance(claim.figure, Absent):
        if cert is not None and figures.figure_png(cert) is not None:
            out.append(
                f"figure: declared absent ({claim.figure.reason}) but the renderer draws one"
            )
    else:
        out.append("figure: neither a certificate series nor Absent(reason)")
    if not isinstance(claim.hunt, Space):
        out.append("hunt: no space")
    else:
        module, _, name = claim.hunt.strategy.partition(":")
        if not callable(
            getattr(importlib.import_module(module, "softlin.claims.shared"), name, None)
        ):
            out.append(f"hunt: strategy {claim.hunt.strategy!r} is not a function")
        if (
            claim.hunt.statistical_checks < 1
            or not claim.hunt.regions
            or not callable(claim.hunt.region)
        ):
            out.append("hunt: no check bound, region classifier or regions")
    if claim.sweep_fields is not None:
        if cert is not None:
            absent = [
                name
                for name, source in claim.sweep_fields.items()
                if not _has_path(cert.get("quantities", {}), source)
            ]
            if absent:
                out.append(f"sweep_fields: {absent} not in its certificate's quantities")
        for series in claim.sweep_series:
            unknown = [f for f in series[1:5] if f not in claim.sweep_fields]
            if unknown:
                out.append(f"sweep_series: {series[0]} draws {unknown}, not sweep fields")
    elif claim.sweep_series:
        out.append("sweep_series: declared without sweep_fields")
    return out


def _certificate(claim_id: str) -> dict:
    return json.loads((CERTIFICATES / f"{claim_id}.json").read_text())


@pytest.mark.parametrize("claim_id", list(registry.CLAIMS))
def test_every_registered_claim_declares_every_part(claim_id):
    assert not missing_parts(registry.get(claim_id), _certificate(claim_id))


def test_a_claim_missing_or_misdeclaring_parts_is_reported():
    """Negative control: the checker names each part a claim leaves out or gets wrong."""
    real = registry.get("prop-3.4")
    cert = _certificate("prop-3.4")
    bare = dataclasses.replace(
        real,
        keys=(),
        scenario_keys=frozenset(),
        estimate=None,
        display=None,
        figure=None,
        hunt=None,
        sweep_fields=None,
        sweep_series=(),
    )
    found = missing_parts(bare, cert)
    assert [m.split(":")[0] for m in found] == ["keys", "estimate", "display", "figure", "hunt"]
    wrong = dataclasses.replace(
        real,
        figure="main",
        display=lambda: {"no_such_formula": None},
        sweep_fields={**real.sweep_fields, "exponent": "no_such_quantity"},
        hunt=dataclasses.replace(real.hunt, strategy=".hunt_strategies:nothing"),
    )
    found = missing_parts(wrong, cert)
    assert [m.split(":")[0] for m in found] == ["display", "figure", "hunt", "sweep_fields"], found
    no_figure = dataclasses.replace(real, figure=Absent("a wrong reason"))
    assert missing_parts(no_figure, cert) == [
        "figure: declared absent (a wrong reason) but the renderer draws one"
    ]
    with pytest.raises(ValueError, match="names its reason"):
        Absent(" ")


def _claim_id_lists(tree: ast.AST, ids: set[str]) -> list[tuple[int, list[str]]]:
    """(line, ids) of each literal collection holding two or more claim ids (dict keys, or the
    elements of a tuple, list or set), except the `rests_on` of a Claim declaration."""
    allowed = {
        id(kw.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        for kw in node.keywords
        if kw.arg == "rests_on"
    }
    found = []
    for node in ast.walk(tree):
        if id(node) in allowed:
            continue
        items = (
            node.keys
            if isinstance(node, ast.Dict)
            else node.elts
            if isinstance(node, (ast.Tuple, ast.List, ast.Set))
            else []
        )
        named = [n.value for n in items if isinstance(n, ast.Constant) and n.value in ids]
        if len(set(named)) >= 2:
            found.append((node.lineno, named))
    return found


def test_no_module_repeats_a_list_of_claim_ids():
    """The registry's ORDER (softlin/core/registry.py) is the one list of claim ids, the order a
    new claim enters; a claim's `rests_on` is its own declaration. Anything else keyed by claim id
    is a second registry that a new claim would have to edit."""
    ids = set(registry.CLAIMS)
    the_registry = REPO / "softlin" / "core" / "registry.py"
    found = [
        f"{path.relative_to(REPO)}:{line}: {named}"
        for root in SOURCE_ROOTS
        for path in sorted(root.rglob("*.py"))
        if path != the_registry
        for line, named in _claim_id_lists(ast.parse(path.read_text()), ids)
    ]
    assert not found, "lists of claim ids outside the claims' declarations:\n" + "\n".join(found)


def test_the_id_list_scanner_sees_a_dict_and_a_tuple_of_ids_and_allows_rests_on():
    """Negative control: the scanner reports the lists this repository used to keep."""
    ids = set(registry.CLAIMS)
    code = (
        'DISPLAYS = {"prop-3.1": 1, "asm-3.3": 2}\n'
        'SUPPORTED = ("lemma-2.1", "mixture")\n'
        'ONE = {"mixture": 1}\n'
        'CLAIM = Claim(rests_on=("lemma-2.1", "thm-4.3"))\n'
    )
    assert [line for line, _ in _claim_id_lists(ast.parse(code), ids)] == [1, 2]


def test_declaring_the_hunt_spaces_does_not_load_hypothesis():
    """Every claim declares its hunt space, yet loading the claims and `softlin list` import no
    Hypothesis (its strategies load when a hunt draws); the control draws and sees it loaded."""
    import subprocess
    import sys

    code = (
        "import sys, contextlib, io\nfrom softlin import cli\nfrom softlin.core import registry\n"
        "registry.CLAIMS\nwith contextlib.redirect_stdout(io.StringIO()):\n    cli.main(['list'])\n"
        "print('hypothesis' in sys.modules)\nregistry.get('lemma-2.1').hunt.scenarios('quick')\n"
        "print('hypothesis' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO
    )
    assert out.stdout.split() == ["False", "True"], out.stderr
