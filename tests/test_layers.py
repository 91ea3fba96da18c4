"""The pipeline's import direction, read from the source with `ast` (docs/design.md, "Layers").

    derivations -> kernels -> numerics -> judge -> core -> claims -> render -> sweep -> hunt -> cli
    -> api

A module may import its own layer and the layers before it, never one after it, and the module
graph has no cycle. `softlin.certio` and `softlin.mathml` are leaves: they import nothing from
softlin, so any layer may use them. The package itself (`softlin/__init__.py`) is a leaf with one
door: `softlin.verify` imports the Python API (softlin.api) inside the function, which runs after
`import softlin` is done, so that import stays cheap and the edge is no import cycle.
derivations/ never imports NumPy; numerics/ never imports SymPy.

Pages and figures are drawn from certificates and sweep summaries only (docs/design.md, "Pipeline",
step 5): a module under softlin/render/ imports from the layers below it only the modules listed in
RENDER_MAY_IMPORT, which compute nothing, so what a page shows is in its input files. The one
exception is the derivation report's HTML twin, listed with its own imports.
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
}
ORDER = (
    "derivations",
    "kernels",
    "numerics",
    "judge",
    "core",
    "claims",
    "render",
    "sweep",
    "hunt",
    "cli",
    "api",
)
LEAVES = {"softlin", "softlin.certio", "softlin.mathml", "softlin.commands"}
# What a renderer module may import from derivations/, numerics/ (kernels included) and claims/,
# with the reason. Nothing else there: those modules compute.
RENDER_MAY_IMPORT = {
    "softlin.core.claim": "the certificate's vocabulary: UNITS, TIERS and judged()",
    "softlin.core.registry": "the claims' declarations (their order, rests_on, scenario keys), "
    "read, never run",
}
# softlin/render/derivations_page.py writes reports/derivations.html, which `softlin derive` writes
# from the derivations' SymPy objects (Pipeline, step 2) beside derivations/report.py's Markdown: it
# is no page drawn from certificates, and may read the report's contents from these.
DERIVATION_REPORT = "softlin.render.derivations_page"
DERIVATION_REPORT_MAY_IMPORT = {
    "softlin.derivations.catalogue",
    "softlin.derivations.report",
    "softlin.derivations.report_contents",
}
# The imports a leaf may make, each inside a function (checked below): the package's front door.
DOORS = {"softlin": {"softlin", "softlin.api"}}


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in ROOTS.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            name = ".".join([package, *parts])
            # softlin's own rglob also sees nothing of the other roots: they are not below softlin/.
            found[name] = path
    return found


MODULES = _modules()


def layer(module: str) -> str | None:
    """The layer of a softlin module: its folder (`softlin.claims.x` -> claims, `softlin.hunt.x` ->
    hunt) and `kernels` for `softlin.numerics.kernels`."""
    if module in LEAVES:
        return None
    parts = module.split(".")
    if parts[1] == "numerics" and len(parts) > 2 and parts[2] == "kernels":
        return "kernels"
    return parts[1]


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def imports_of(module: str) -> set[str]:
    """The softlin modules that `module` imports (relative imports resolved), with external roots
    kept as their top-level name (numpy, sympy, ...)."""
    tree = ast.parse(MODULES[module].read_text())
    base = module if _is_package(module) else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                target = base
                for _ in range(node.level - 1):
                    target = target.rpartition(".")[0]
                target = f"{target}.{node.module}" if node.module else target
            else:
                target = node.module
            # `from pkg import sub` imports the submodule when there is one.
            subs = {f"{target}.{a.name}" for a in node.names if f"{target}.{a.name}" in MODULES}
            out |= subs or {target}
    return {name if name.split(".")[0] == "softlin" else name.split(".")[0] for name in out}


def test_the_three_source_roots_exist_and_hold_modules():
    assert {m.split(".")[1] for m in MODULES if m != "softlin"} >= {
        "derivations",
        "numerics",
        "claims",
        "render",
        "cli",
        "certio",
        "mathml",
    }


def upward_imports(module: str, targets) -> list[str]:
    """The imports among `targets` that break the rule for `module`: a leaf importing softlin, or a
    target in a layer after the module's own."""
    bad = []
    for target in targets:
        if not target.startswith("softlin"):
            continue
        if module in LEAVES:
            if target not in DOORS.get(module, ()):
                bad.append(f"leaf {module} imports {target}")
            continue
        theirs = layer(target)
        if theirs is not None and ORDER.index(theirs) > ORDER.index(layer(module)):
            bad.append(f"{module} ({layer(module)}) imports {target} ({theirs})")
    return bad


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_point_down_the_pipeline(module):
    assert not upward_imports(module, imports_of(module))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) == "derivations"))
def test_derivations_never_import_numpy(module):
    assert "numpy" not in imports_of(module)


@pytest.mark.parametrize(
    "module", sorted(m for m in MODULES if layer(m) in ("numerics", "kernels"))
)
def test_numerics_never_import_sympy(module):
    assert "sympy" not in imports_of(module)


def test_the_module_graph_has_no_cycle():
    """A door (DOORS) is left out: it is imported inside a function, after its module loaded."""
    graph = {
        m: {t for t in imports_of(m) if t in MODULES and t != m and t not in DOORS.get(m, ())}
        for m in MODULES
    }
    state: dict[str, int] = {}

    def visit(node, trail):
        state[node] = 1
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycle = trail[trail.index(nxt) :] + [nxt] if nxt in trail else [node, nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_checker_sees_an_upward_import():
    """The rule has power: a claims module importing the CLI, or numerics importing claims, is
    seen."""
    assert layer("softlin.claims.prop_3_1.claim") == "claims"
    assert ORDER.index(layer("softlin.cli")) > ORDER.index(layer("softlin.claims.prop_3_1.claim"))
    assert "softlin.numerics.kernels" in imports_of("softlin.claims.shared.common") or any(
        t.startswith("softlin.numerics") for t in imports_of("softlin.claims.shared.common")
    )


def test_the_command_packages_are_layers_above_the_renderer_and_an_upward_import_of_them_is_seen():
    """softlin/sweep/, softlin/hunt/ (which runs its points on the sweep's Dask runner) and
    softlin/cli/ (which parses and dispatches to both) sit above the renderer, in that order: the
    hunt and the sweep engines never import the parser, and an import of any of them from below is
    reported."""
    found = {m: layer(m) for m in MODULES if m.split(".")[1:2] in (["cli"], ["hunt"], ["sweep"])}
    assert {
        "softlin.cli.verify",
        "softlin.cli.hunt",
        "softlin.cli.sweep",
        "softlin.hunt.search",
        "softlin.sweep.engine",
    } <= set(found)
    assert set(found.values()) == {"cli", "hunt", "sweep"}
    assert upward_imports("softlin.sweep.engine", ["softlin.cli.verify"])
    assert upward_imports("softlin.sweep.engine", ["softlin.hunt.search"])
    assert not upward_imports("softlin.hunt.cluster", ["softlin.sweep.execute"])
    assert not upward_imports(
        "softlin.cli", ["softlin.hunt.search", "softlin.sweep.engine", "softlin.commands"]
    )
    for target in ("softlin.cli", "softlin.cli.verify"):
        assert upward_imports("softlin.render.render", [target])
        assert upward_imports("softlin.claims.prop_3_1.claim", [target])
        assert upward_imports("softlin.numerics.fits", [target])
    assert not upward_imports("softlin.cli", ["softlin.cli.verify", "softlin.render.render"])
    assert not upward_imports("softlin.cli.verify", ["softlin.cli", "softlin.core.registry"])
    assert upward_imports(
        "softlin.certio", ["softlin.cli.verify"]
    )  # a leaf imports nothing from softlin


def computing_imports(module: str, targets) -> list[str]:
    """The imports among `targets` that a renderer module may not make: a module of derivations/,
    numerics/ or claims/ outside RENDER_MAY_IMPORT (and, for the derivation report,
    DERIVATION_REPORT_MAY_IMPORT). Empty for a module outside softlin/render/."""
    if layer(module) != "render":
        return []
    allowed = set(RENDER_MAY_IMPORT)
    if module == DERIVATION_REPORT:
        allowed |= DERIVATION_REPORT_MAY_IMPORT
    below = ("derivations", "kernels", "numerics", "claims")
    return sorted(
        t for t in targets if t.startswith("softlin.") and layer(t) in below and t not in allowed
    )


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) == "render"))
def test_the_renderer_imports_nothing_that_computes(module):
    assert not computing_imports(module, imports_of(module))


def test_the_renderer_check_sees_a_computing_import_and_names_what_is_allowed():
    """The rule has power: the kernels (what the phase diagram once computed its curves with), a
    numerics algorithm, a claim module and a derivation are seen from a page or figure module; the
    allowed list names modules that exist, and only the derivation report reads derivations."""
    for target in (
        "softlin.numerics.kernels",
        "softlin.numerics.query_average",
        "softlin.claims.prop_3_1.claim",
        "softlin.derivations.report_contents",
    ):
        assert computing_imports("softlin.render.sweep_figure", [target]) == [target]
    assert computing_imports(DERIVATION_REPORT, ["softlin.numerics.kernels"])
    assert not computing_imports(DERIVATION_REPORT, DERIVATION_REPORT_MAY_IMPORT)
    assert not computing_imports("softlin.render.render", ["softlin.core.registry", "numpy"])
    assert not computing_imports("softlin.sweep.summary", ["softlin.numerics.kernels"])
    assert set(RENDER_MAY_IMPORT) | DERIVATION_REPORT_MAY_IMPORT | {DERIVATION_REPORT} <= set(
        MODULES
    )


@pytest.mark.parametrize("folder", ["numerics", "derivations"])
def test_a_folder_imported_by_its_own_name_is_refused_naming_the_package(folder):
    """From the repository root `import numerics` would give a second copy of softlin.numerics."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", f"import {folder}"], cwd=REPO, capture_output=True, text=True
    )
    assert proc.returncode == 1 and f"import softlin.{folder}" in proc.stderr.splitlines()[-1]


def test_a_leaf_opens_its_doors_only_inside_functions_and_nothing_else():
    """`import softlin` must not load the API (NumPy, SymPy): the package's import of softlin.api
    sits inside a function; a module-level one, or another softlin import, is seen."""
    for module, doors in DOORS.items():
        tree = ast.parse(MODULES[module].read_text())
        top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        assert not top, f"{module} imports at module level: {[ast.unparse(n) for n in top]}"
        assert doors - {module} <= imports_of(module)  # the door is still used
    assert upward_imports("softlin", ["softlin.core.registry"])
    assert not upward_imports("softlin", ["softlin.api"])
    assert upward_imports("softlin.certio", ["softlin.api"])
