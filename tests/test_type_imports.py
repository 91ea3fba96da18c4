"""A type checker follows softlin's imports (docs/contributing.md, "Editors and type checkers").

softlin.derivations and softlin.numerics are the top-level folders derivations/ and numerics/
(setuptools package-dir). An editable install maps them with an import hook that static tools do
not run, so the test lays the package out as a tool sees it, a folder `softlin` whose entries link
to softlin/*, derivations/ and numerics/, and runs mypy on it (no network). It asserts that every
module of the three folders was checked and that no import of a softlin module or name fails to
resolve; other mypy findings (inference on numpy arrays, optional values) are not judged here.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# what a broken import inside softlin looks like in mypy's output
UNRESOLVED = re.compile(
    r'Cannot find implementation or library stub for module named "softlin|'
    r'Module "softlin[\w.]*" has no attribute|Name "[\w.]+" is not defined'
)


@pytest.fixture(scope="module")
def farm(tmp_path_factory) -> Path:
    """The package as a static tool sees it (one per module: the second run reuses mypy's cache)."""
    pytest.importorskip("mypy")
    root = tmp_path_factory.mktemp("farm")
    pkg = root / "softlin"
    pkg.mkdir()
    for entry in (REPO / "softlin").iterdir():
        if entry.name != "__pycache__":
            (pkg / entry.name).symlink_to(entry)
    (pkg / "derivations").symlink_to(REPO / "derivations")
    (pkg / "numerics").symlink_to(REPO / "numerics")
    return root


def _mypy(root: Path) -> tuple[str, int]:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "-p",
            "softlin",
            "--ignore-missing-imports",
            "--cache-dir",
            str(root / ".mypy_cache"),
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    checked = re.search(r"\(checked (\d+) source files?\)", out.stdout)
    assert checked, out.stdout[-2000:] + out.stderr[-2000:]
    return out.stdout, int(checked.group(1))


# default-run budget (180 s on 2 cores): mypy over the package
@pytest.mark.slow
@pytest.mark.xdist_group("mypy")
def test_mypy_follows_every_softlin_import_through_the_package_mapping(farm):
    output, checked = _mypy(farm)
    modules = sum(
        1
        for folder in ("softlin", "derivations", "numerics")
        for path in (REPO / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    )
    assert checked == modules, (checked, modules)
    assert not UNRESOLVED.findall(output), [
        line for line in output.splitlines() if UNRESOLVED.search(line)
    ]


# default-run budget (180 s on 2 cores; 195 s in CI's fresh clone after this round's merges)
@pytest.mark.slow
@pytest.mark.xdist_group("mypy")
def test_the_check_sees_an_import_that_does_not_resolve(farm):
    """Negative control: a module importing a name softlin.numerics does not have is reported."""
    bad = (farm / "softlin" / "broken_import").with_suffix(".py")
    bad.write_text(
        "from softlin.numerics import significance\n"
        "from softlin.numerics.significance import no_such_name\n"
    )
    try:
        output, _ = _mypy(farm)
    finally:
        bad.unlink()
    assert any("no_such_name" in line for line in output.splitlines() if UNRESOLVED.search(line)), (
        output[-2000:]
    )
