"""The groups are declared once, beside their derivations (derivations/group.py), and listed once
(catalogue.MODULES): every module of derivations/ that defines proofs belongs to a listed group,
every group gives what the report and the catalogue read from it, every emitted kernel is filed
under one group, and no other module lists the groups again. Read from the source with `ast`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from softlin.derivations import catalogue, display, proof_cache, report_contents
from softlin.derivations.proof import Proof

REPO = Path(__file__).resolve().parents[2]
DERIVATIONS = REPO / "derivations"
GENERATED = REPO / "numerics" / "kernels" / "_generated.py"
PROOF_FUNCTION = re.compile(r"^(proofs?|\w+_proofs)$")
LIST_LENGTH = 3  # a literal naming this many groups is a copy of the list


def _top_level(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(names of the module's top-level functions, names it assigns at top level)."""
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assigned = {
        target.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(target, ast.Name)
    }
    return functions, assigned


def unregistered(folder: Path, groups, modules) -> list[str]:
    """The modules of `folder` that define proofs but are part of no group of `groups`, and those
    that declare a GROUP not listed in `modules`."""
    parts = {part for group in groups for part in group.parts}
    out = []
    for path in sorted(folder.glob("*.py")):
        if path.stem == "catalogue":  # the collector: all_proofs runs every group
            continue
        functions, assigned = _top_level(ast.parse(path.read_text()))
        if "GROUP" in assigned and path.stem not in modules:
            out.append(f"{path.stem}: declares a GROUP the catalogue does not list")
        defines = sorted(f for f in functions if PROOF_FUNCTION.match(f))
        if defines and path.stem not in parts and path.stem not in modules:
            out.append(f"{path.stem}: defines {', '.join(defines)} but belongs to no group")
    return out


def group_lists(text: str, names: set[str]) -> list[int]:
    """Lines of `text` holding a dict, list, tuple or set literal that names LIST_LENGTH or more of
    `names` (as keys or items)."""
    out = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Dict):
            items = node.keys
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
        else:
            continue
        named = {
            item.value for item in items if isinstance(item, ast.Constant) and item.value in names
        }
        if len(named) >= LIST_LENGTH:
            out.append(node.lineno)
    return out


def _is_cached(function) -> bool:
    """Whether `function` is a proof group wrapped by proof_cache.cached."""
    inner = getattr(function, "__wrapped__", None)
    return getattr(getattr(inner, "__code__", None), "co_filename", "") == proof_cache.__file__


def test_every_module_defining_proofs_belongs_to_a_listed_group():
    assert unregistered(DERIVATIONS, catalogue.DECLARED, catalogue.MODULES) == []
    # every listed module declares the group it is listed for, each group once
    names = {g.name for g in catalogue.DECLARED}
    assert len(names) == len(catalogue.MODULES) == len(catalogue.GROUPS)


def test_a_module_with_proofs_but_no_group_is_reported(tmp_path):
    """Negative control: a new derivation defining proofs() with no declaration, and a declaration
    the catalogue does not list, are both seen."""
    for path in DERIVATIONS.glob("*.py"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "new_result").with_suffix(".py").write_text("def proofs():\n    return []\n")
    (tmp_path / "new_family").with_suffix(".py").write_text(
        "GROUP = None\n\n\ndef new_family_proofs():\n    return ()\n"
    )
    found = unregistered(tmp_path, catalogue.DECLARED, catalogue.MODULES)
    assert found == [
        "new_family: declares a GROUP the catalogue does not list",
        "new_family: defines new_family_proofs but belongs to no group",
        "new_result: defines proofs but belongs to no group",
    ]


def test_every_group_gives_title_hypotheses_cached_proofs_and_its_parts():
    modules = {path.stem for path in DERIVATIONS.glob("*.py")}
    for group in catalogue.DECLARED:
        assert group.name and group.title and group.hypotheses, group.name
        assert _is_cached(group.proofs) and group.proofs.__name__.endswith("_proofs"), group.name
        assert group.parts and set(group.parts) | set(group.kernel_sources) <= modules, group.name
        assert not group.results or callable(getattr(display, group.results, None)), group.name
    # the catalogue, the report and the claims read the same declarations
    assert list(catalogue.GROUPS) == [g.name for g in catalogue.DECLARED]
    titles = {g: title for g, (title, _) in report_contents.ABOUT.items()}
    assert titles == {g.name: g.title for g in catalogue.DECLARED}
    assert catalogue.fluctuation_proofs is catalogue.GROUPS["fluctuations"]


def test_the_cache_check_tells_a_cached_group_from_a_plain_function():
    def plain_proofs() -> tuple[Proof, ...]:
        return ()

    assert not _is_cached(plain_proofs) and _is_cached(proof_cache.cached(plain_proofs))


def test_every_emitted_kernel_is_filed_under_exactly_one_group():
    sources = set(re.findall(r"From derivations/(\w+)\.py", GENERATED.read_text()))
    assert len(sources) > 20
    owners = {s: [g.name for g in catalogue.DECLARED if s in g.kernel_sources] for s in sources}
    assert {s: o for s, o in owners.items() if len(o) != 1} == {}
    assert all(report_contents.kernel_group(s) == o[0] for s, o in owners.items())


def test_no_module_but_the_catalogue_lists_the_groups():
    names = {g.name for g in catalogue.DECLARED} | set(catalogue.MODULES)
    sources = [
        p
        for folder in ("derivations", "numerics", "softlin")
        for p in (REPO / folder).rglob("*.py")
        if p != DERIVATIONS / "catalogue.py" and "__pycache__" not in p.parts
    ]
    assert len(sources) > 100
    found = {
        str(p.relative_to(REPO)): lines
        for p in sources
        if (lines := group_lists(p.read_text(), names))
    }
    assert found == {}


def test_the_list_check_sees_a_copy_of_the_group_list():
    """Negative control: the catalogue's own list is seen, and a report table keyed by group."""
    names = {g.name for g in catalogue.DECLARED} | set(catalogue.MODULES)
    assert group_lists((DERIVATIONS / "catalogue.py").read_text(), names)
    table = 'ABOUT = {"tilt": ("t", "h"), "icl": ("t", "h"), "gronwall": ("t", "h")}\n'
    assert group_lists(table, names) == [1]
    assert group_lists('PAIR = ("tilt", "lemma21")\n', names) == []
