"""No claim package imports another (issue 39: math two claims share lives in
softlin/claims/shared/, not inside one claim), and shared/ imports no claim package (it sits under
them). Read from the source with `ast`, relative imports resolved against the importing module."""

from __future__ import annotations

import ast
from pathlib import Path

CLAIMS = Path(__file__).resolve().parents[2] / "softlin" / "claims"
SHARED = "shared"


def imported_modules(source: str, module: str, is_package: bool) -> set[str]:
    """Absolute names of the modules `source` (the module `module`) imports, and of the names
    imported from them (an `from x import y` may import the submodule x.y)."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            name = node.module or ""
            target = (f"{base}.{name}" if name else base) if node.level else name
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
    return out


def claim_package_of(module: str) -> str | None:
    """The package under softlin.claims that `module` belongs to, or None."""
    parts = module.split(".")
    if parts[:2] != ["softlin", "claims"] or len(parts) < 3:
        return None
    return parts[2]


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """The imports of `module` that reach a claim package other than its own (shared/ being no
    claim package, but importing none)."""
    own = claim_package_of(module)
    bad = set()
    for target in imported_modules(source, module, is_package):
        other = claim_package_of(target)
        if other is None or other in (own, SHARED) or other.startswith("__"):
            continue
        if (CLAIMS / other).is_dir():
            bad.add(f"{module} imports {target}")
    return sorted(bad)


def claim_modules():
    for path in sorted(CLAIMS.glob("*/**/*.py")):
        rel = path.relative_to(CLAIMS.parents[1]).with_suffix("")
        is_package = rel.name == "__init__"
        parts = rel.parts[:-1] if is_package else rel.parts
        yield path, ".".join(parts), is_package


def test_no_claim_package_imports_another():
    found = [
        v
        for path, module, is_package in claim_modules()
        for v in violations(path.read_text(encoding="utf-8"), module, is_package)
    ]
    assert not found, "\n".join(found)


def test_the_reader_sees_relative_absolute_and_from_package_imports():
    # Negative controls: each of these is a cross-claim import the test must refuse.
    here = "softlin.claims.mixture.claim"
    assert violations("from ..lemma_2_1.claim import gaussian_subject\n", here)
    assert violations("from ..lemma_2_1 import claim\n", here)
    assert violations("import softlin.claims.prop_3_1.fixed\n", here)
    assert violations("from softlin.claims.thm_4_3 import claim\n", here)
    assert violations("from ...claims import prop_3_4\n", here)
    assert violations("from .. import lemma_2_1\n", "softlin.claims.shared.common")
    # and these are allowed: its own package, shared/, the layers below.
    assert not violations("from .control_limits import x\nfrom ..shared import common\n", here)
    assert not violations("from ...numerics import kernels\nfrom ...core import claim\n", here)
    assert not violations("from . import claim\n", "softlin.claims.mixture", is_package=True)
