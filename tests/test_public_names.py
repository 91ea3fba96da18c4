"""Modules meet through public names, and every module does something (issue 22), read from the
source with `ast` like tests/test_layers.py.

Over softlin/, numerics/ and tests/, a module never reaches into another softlin module's private
names (a leading underscore, dunders excepted):

- `from .x import _y` (any softlin module, relative or absolute);
- `x._y` where `x` is bound to a softlin module (`import softlin.x as x`, `from . import x`);
- `setattr(x, "_y", ...)`, `getattr(x, "_y")` and their `monkeypatch.setattr` forms, or the dotted
  string "softlin.x._y": the same reach, spelled as a string.

A name another module needs is part of its module's meaning: make it public. A test tests through
the public functions, or the name is public. And no module only passes another's names on: a
module whose body is imports, aliases and functions that only return a call of an imported name is a
pass-through; its users import the real module.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ROOTS = {
    "softlin": REPO / "softlin",
    "softlin.derivations": REPO / "derivations",
    "softlin.numerics": REPO / "numerics",
    "tests": REPO / "tests",
}
SCANNED = ("softlin", "softlin.numerics", "tests")  # derivations/: resolved, not scanned
# Reaches allowed, module -> private names it may reach (none: every name one module takes from
# another is public); the test below keeps this list honest if one is ever needed.
KNOWN: dict[str, set[str]] = {}
# Pass-throughs that stay, with the reason.
JUSTIFIED_PASS_THROUGH = {
    "softlin.numerics.kernels": "the emitted module _generated.py (`softlin derive` writes it, "
    "never edited) under its package's public name"
}
ACCESSORS = {"getattr", "setattr", "hasattr", "delattr"}


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in ROOTS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


MODULES = _modules()


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_ours(module: str | None) -> bool:
    return module is not None and (module in MODULES or module.split(".")[0] == "softlin")


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The absolute module an ImportFrom reads (relative imports resolved)."""
    if not node.level:
        return node.module
    base = module if is_package else module.rpartition(".")[0]
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    return f"{base}.{node.module}" if node.module else base


def _dotted(node) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"], None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _module_of(parts: list[str], bound: dict[str, str]) -> str | None:
    """The softlin module a dotted name denotes (through the file's import bindings), or None."""
    if not parts or parts[0] not in bound:
        return None
    name = ".".join([bound[parts[0]], *parts[1:]])
    return name if name in MODULES or name.split(".")[0] == "softlin" else None


def reaches(source: str, module: str, is_package: bool = False) -> list[str]:
    """Every private name of another softlin module that `source` (the module `module`) reaches,
    as "softlin.x._y"."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # local name -> softlin module
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_ours(alias.name):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            target = _target(module, is_package, node)
            if not _is_ours(target):
                continue
            for alias in node.names:
                full = f"{target}.{alias.name}"
                if full in MODULES:
                    bound[alias.asname or alias.name] = full
                if _private(alias.name) and not (full in MODULES and module == target):
                    found.append(full)  # a package may import its own private submodule
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = _module_of(_dotted(node.value) or [], bound)
            if owner is not None and owner != module:
                found.append(f"{owner}.{node.attr}")
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in ACCESSORS:
                continue
            first = node.args[0]
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                owner, _, attr = first.value.rpartition(".")
                if _is_ours(owner) and _private(attr):
                    found.append(first.value)
                continue
            second = node.args[1] if len(node.args) > 1 else None
            if isinstance(second, ast.Constant) and isinstance(second.value, str):
                owner = _module_of(_dotted(first) or [], bound)
                if owner is not None and owner != module and _private(second.value):
                    found.append(f"{owner}.{second.value}")
    return sorted(set(found))


def _forwards(node: ast.FunctionDef, imported: set[str]) -> bool:
    """A function whose body (its docstring aside) only returns a call of an imported name."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return):
        return False
    call = body[0].value
    return isinstance(call, ast.Call) and (_dotted(call.func) or [""])[0] in imported


def is_pass_through(source: str, module: str, is_package: bool = False) -> bool:
    """Whether the module only passes on names of other softlin modules: its body is imports,
    `__all__`, aliases of imported names and functions that forward to them, and it imports some
    softlin module (a module of only a docstring, such as a package's __init__, passes nothing)."""
    tree = ast.parse(source)
    imported: set[str] = set()
    ours = False
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            imported |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
            ours |= any(_is_ours(a.name) for a in stmt.names)
        elif isinstance(stmt, ast.ImportFrom):
            imported |= {a.asname or a.name for a in stmt.names}
            ours |= _is_ours(_target(module, is_package, stmt))
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # the docstring
        if isinstance(stmt, ast.Assign) and all(
            isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
        ):
            continue
        if isinstance(stmt, ast.Assign) and (_dotted(stmt.value) or [""])[0] in imported:
            continue  # an alias of an imported name
        if isinstance(stmt, ast.FunctionDef) and _forwards(stmt, imported):
            continue
        return False
    return ours


def _scanned() -> list[str]:
    return sorted(
        m
        for m in MODULES
        if any(m == root or m.startswith(root + ".") for root in SCANNED)
        and not m.startswith("softlin.derivations")
    )


def _read_as(module: str) -> tuple[str, str, bool]:
    """The arguments of `reaches` and `is_pass_through` for a module of the tree."""
    return MODULES[module].read_text(), module, MODULES[module].name == "__init__.py"


@pytest.mark.parametrize("module", _scanned())
def test_no_module_reaches_into_another_modules_private_names(module):
    new = set(reaches(*_read_as(module))) - KNOWN.get(module, set())
    assert not new, f"{module} uses private names of other modules: {sorted(new)}"


def test_the_known_reaches_are_still_there():
    """A known reach that is gone leaves the list (and a module that no longer exists too)."""
    for module, names in KNOWN.items():
        assert module in MODULES, module
        assert names <= set(reaches(*_read_as(module))), (module, names)


@pytest.mark.parametrize("module", _scanned())
def test_no_module_only_passes_another_modules_names_on(module):
    if module in JUSTIFIED_PASS_THROUGH:
        assert is_pass_through(*_read_as(module)), f"{module} is no longer a pass-through"
        return
    assert not is_pass_through(*_read_as(module)), (
        f"{module} only passes on other modules' names: import the real module where it is used"
    )


def test_the_checks_see_each_kind_of_violation_and_pass_public_use():
    """Negative control: synthetic sources with one violation each are reported; the same uses of
    public names are not."""
    m = "softlin.claims.shared.fake"
    assert reaches("from .limit_battery import _x\n", m) == [
        "softlin.claims.shared.limit_battery._x"
    ]
    assert reaches("from ..asm_3_3 import closed_form_tables as t, _z\n", m) == [
        "softlin.claims.asm_3_3._z"
    ]
    assert reaches("from softlin.claims import asm_3_3 as asm33\nasm33._z(1)\n", m) == [
        "softlin.claims.asm_3_3._z"
    ]
    assert reaches("import softlin.claims.asm_3_3 as a\ny = a._z\n", m) == [
        "softlin.claims.asm_3_3._z"
    ]
    assert reaches("import softlin.claims.asm_3_3\nsoftlin.claims.asm_3_3._z\n", m) == [
        "softlin.claims.asm_3_3._z"
    ]
    assert reaches("from ...core import progress\nmonkeypatch.setattr(progress, '_w', 1)\n", m) == [
        "softlin.core.progress._w"
    ]
    assert reaches("monkeypatch.setattr('softlin.core.progress._w', 1)\n", m) == [
        "softlin.core.progress._w"
    ]
    public = (
        "from .limit_battery import binomial_detectable\nfrom .. import asm_3_3 as asm33\n"
        "import numpy as np\nasm33.closed_form_tables\nnp._NoValue\nself._cache\n"
        "monkeypatch.setattr(asm33, 'run', 1)\nfrom __future__ import annotations\n"
    )
    assert reaches(public, m) == []
    assert reaches("def _own():\n    pass\n_own()\n", m) == []
    forwarding = (
        '"""Doc."""\nfrom ..render import sweep_figure\n\n\n'
        "def rates_png(summary):\n    return sweep_figure.phase_diagram_png([summary])\n"
    )
    assert is_pass_through(forwarding, "softlin.sweep.fake")
    assert is_pass_through("from .x import y  # noqa\nz = y.w\n__all__ = ['z']\n", m)
    assert not is_pass_through(forwarding + "LIMIT = 3\n", "softlin.sweep.fake")
    assert not is_pass_through('"""A package."""\n', m)
    assert not is_pass_through("import numpy as np\n\n\ndef f(x):\n    return np.sum(x)\n", m)
