"""The groups are declared once, beside their derivations (derivations/group.py), and listed once
(catalogue.MODULES): every module of derivations/ that defines proofs belongs to a listed group,
every group gives what the report and the catalogue read from it, every emitted kernel is filed
under one group, and no other module lists the groups again. Kernel specs are declared the same
way, in `kernel_specs()` of the module their `source` names, a module some group files kernels
from, one name per kernel. Read from the source with `ast` (the default run), and from the built
specs in the slow tier."""

from __future__ import annotations

import ast
import importlib
import re
from collections import Counter
from pathlib import Path

import pytest
import sympy as sp

from softlin.derivations import catalogue, display, proof_cache, report_contents
from softlin.derivations.kernel_spec import KernelSpec
from softlin.derivations.proof import Proof
from softlin.numerics import kernels

REPO = Path(__file__).resolve().parents[2]
DERIVATIONS = REPO / "derivations"
GENERATED = REPO / "numerics" / "kernels" / "_generated.py"
PROOF_FUNCTION = re.compile(r"^(proofs?|\w+_proofs)$")
LIST_LENGTH = 3  # a literal naming this many groups is a copy of the list
SPEC_FUNCTION = "kernel_specs"  # where a derivation module declares its kernels
SOURCE_INDEX = 5  # KernelSpec(name, args, shapes, expr, doc, source, returns)


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


def _is_spec(node: ast.AST) -> bool:
    """Whether `node` builds a KernelSpec (`KernelSpec(...)` or `kernel_spec.KernelSpec(...)`)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "KernelSpec") or (
        isinstance(func, ast.Attribute) and func.attr == "KernelSpec"
    )


def _constants(function: ast.FunctionDef) -> dict[str, object]:
    """The names `function` binds to a constant: `src = "x"` or `a, src = (..., "x")`."""
    out = {}
    for node in ast.walk(function):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts))
            for name, value in pairs:
                if isinstance(name, ast.Name) and isinstance(value, ast.Constant):
                    out[name.id] = value.value
    return out


def _source(call: ast.Call, constants: dict[str, object]):
    """The `source` a KernelSpec call gives, when it is a literal or a name bound to one."""
    if len(call.args) > SOURCE_INDEX:
        node = call.args[SOURCE_INDEX]
    else:
        node = next((k.value for k in call.keywords if k.arg == "source"), None)
    if isinstance(node, ast.Constant):
        return node.value
    return constants.get(node.id) if isinstance(node, ast.Name) else None


def misfiled_specs(folder: Path) -> list[str]:
    """Kernel specs of `folder`'s modules whose `source` is not the module that declares them (or
    cannot be read as a literal), and KernelSpec records built anywhere but in a top-level
    kernel_specs()."""
    out = []
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text())
        declared = set()
        for function in tree.body:
            if not (isinstance(function, ast.FunctionDef) and function.name == SPEC_FUNCTION):
                continue
            constants = _constants(function)
            for call in filter(_is_spec, ast.walk(function)):
                declared.add(call)
                source = _source(call, constants)
                if source != path.stem:
                    out.append(f"{path.stem}:{call.lineno}: a spec with source {source!r}")
        for call in filter(_is_spec, ast.walk(tree)):
            if call not in declared:
                out.append(f"{path.stem}:{call.lineno}: a KernelSpec outside {SPEC_FUNCTION}()")
    return out


def ungrouped_kernel_modules(folder: Path, groups) -> list[str]:
    """The modules of `folder` that declare kernel specs but that no group of `groups` files
    kernels from: the catalogue would not collect them, and the report could not show them."""
    filed = {source for group in groups for source in group.kernel_sources}
    out = []
    for path in sorted(folder.glob("*.py")):
        if path.stem == "catalogue":  # the collector: its kernel_specs gathers the others'
            continue
        functions, _ = _top_level(ast.parse(path.read_text()))
        if SPEC_FUNCTION in functions and path.stem not in filed:
            out.append(f"{path.stem}: declares {SPEC_FUNCTION} but no group files its kernels")
    return out


def duplicate_names(names) -> list[str]:
    """The kernel names given more than once."""
    return sorted(name for name, count in Counter(names).items() if count > 1)


def sources_unlike_module(declared: dict) -> list[str]:
    """For built specs (module name -> its kernel_specs()), those whose source names another
    module."""
    return [
        f"{module}: {spec.name} has source {spec.source!r}"
        for module, specs in declared.items()
        for spec in specs
        if spec.source != module
    ]


def _declaring(folder: Path) -> set[str]:
    """The modules of `folder` with a top-level kernel_specs()."""
    return {
        path.stem
        for path in folder.glob("*.py")
        if SPEC_FUNCTION in _top_level(ast.parse(path.read_text()))[0]
    }


def test_every_kernel_spec_is_declared_in_the_module_its_source_names():
    assert misfiled_specs(DERIVATIONS) == []
    assert len(_declaring(DERIVATIONS)) > 20  # the check read the real declarations


def test_every_module_declaring_kernel_specs_is_filed_under_a_group():
    assert ungrouped_kernel_modules(DERIVATIONS, catalogue.DECLARED) == []
    assert _declaring(DERIVATIONS) - {"catalogue"} <= set(catalogue.kernel_modules())


def test_emitted_kernel_names_are_unique():
    """The committed kernels (as fresh as a new emission: `softlin derive --check`, CI) name each
    kernel once; two specs of one name would emit two functions, the second silently winning."""
    assert len(kernels.KERNELS) > 100
    assert duplicate_names(kernels.KERNELS) == []


def test_a_misfiled_or_ungrouped_spec_and_a_duplicate_name_are_reported(tmp_path):
    """Negative control: a spec whose source names another module (literally, or through a name
    bound to it), a KernelSpec built outside kernel_specs(), a module declaring specs that no
    group files, and a name given twice are all seen, beside the real, clean declarations."""
    for path in DERIVATIONS.glob("*.py"):
        (tmp_path / path.name).write_text(path.read_text())
    spec = 'KernelSpec("k", (), (), 0, "doc", {source}, "scalar")'
    (tmp_path / "new_kernels").with_suffix(".py").write_text(
        "def kernel_specs():\n"
        '    src = "lemma21"\n'
        f"    return [{spec.format(source=repr('lemma21'))}, {spec.format(source='src')}]\n"
    )
    (tmp_path / "helper").with_suffix(".py").write_text(
        f"def build():\n    return {spec.format(source=repr('helper'))}\n"
    )
    assert misfiled_specs(tmp_path) == [
        "helper:2: a KernelSpec outside kernel_specs()",
        "new_kernels:3: a spec with source 'lemma21'",
        "new_kernels:3: a spec with source 'lemma21'",
    ]
    assert ungrouped_kernel_modules(tmp_path, catalogue.DECLARED) == [
        "new_kernels: declares kernel_specs but no group files its kernels"
    ]
    assert duplicate_names(("a", "b", "a", "c", "b")) == ["a", "b"]
    x = sp.Symbol("x")
    wrong = KernelSpec("k", (x,), ("any",), x, "doc", "mixture", "same as x")
    assert sources_unlike_module({"lemma21": [wrong], "mixture": [wrong]}) == [
        "lemma21: k has source 'mixture'"
    ]


@pytest.mark.slow  # builds every spec's expression (about 25 s)
def test_every_built_spec_names_its_module_and_every_kernel_is_emitted_once():
    declared = {
        name: module.kernel_specs()
        for name in catalogue.kernel_modules()
        if hasattr(module := importlib.import_module(f"softlin.derivations.{name}"), SPEC_FUNCTION)
    }
    assert sources_unlike_module(declared) == []
    names = [spec.name for specs in declared.values() for spec in specs]
    assert duplicate_names(names) == []
    assert tuple(sorted(names)) == kernels.KERNELS  # all emitted, in the order of their names
