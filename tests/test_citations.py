"""Every file the repository cites exists (docs/design.md, "Tests").

Sources, docs and tests cite repository files by path: `docs/paper.md section 3`,
`derivations/fluctuations.py`, `numerics/kernels/_generated.py`, `tests/render/make_gold.py`. A
citation of a file that is not in the repository (a page that lives elsewhere, a module that was
moved or split) misleads the reader, so this test scans every hand-written text file (Python,
Markdown, TOML and the CI script) for path-like tokens ending in .md, .py or .toml and fails,
naming the file and line, when the cited path does not resolve.

What counts as a citation, and how it resolves:

- a token with a directory part resolves when it names a repository file relative to the root or
  to the citing file's folder, or when some repository file's path ends with it (modules are often
  cited package-relative, as `core/claim.py` or `kernels/_generated.py`); the installed names
  `softlin/derivations/...` and `softlin/numerics/...` map to the top-level folders (the setuptools
  package-dir mapping);
- a bare file name (`catalogue.py`, `README.md`) resolves when some repository file has that name;
  a bare `.toml` name is a user's scenario file in examples, not a citation, and is skipped;
- skipped: URLs, absolute paths (/tmp/...), scratch paths under `tmp/` (pytest's tmp_path),
  templates with <, {, * or $ (`reports/<claim>.md`), and attribute calls such as `text.md(value)`.

Not scanned: generated output (reports/, the gold pages under tests/render/gold/expected/), caches,
virtual environments, and this file, whose fixtures are made-up citations on purpose (the power
test below feeds them to the same functions).
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCANNED_SUFFIXES = {".py", ".md", ".toml"}
SCANNED_EXTRA = {Path(".ci/run")}
SKIPPED_DIRS = {
    ".git",
    ".hypothesis",
    ".benchmarks",
    ".pytest_cache",
    "__pycache__",
    "build",
    "dist",
    "venv",
    ".venv",
    "node_modules",
}
SKIPPED_PREFIXES = (Path("reports"), Path("tests/render/gold/expected"))
SELF = Path(__file__).resolve().relative_to(REPO)
# Installed package paths -> checkout folders (pyproject.toml, [tool.setuptools.package-dir]).
ALIASES = {"softlin/derivations/": "derivations/", "softlin/numerics/": "numerics/"}

URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")
TOKEN = re.compile(
    r"(?<![\w/.:~<>{}*$\\-])((?:\.{1,2}/)?(?:[\w.-]+/)*[\w-][\w.-]*\.(?:md|py|toml))(?![\w/*<>{}(])"
)


def _walk(root: Path):
    """Files under `root` (relative paths), caches, environments and VCS folders pruned."""
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
        for name in names:
            yield (Path(folder) / name).relative_to(root)


def source_files() -> list[Path]:
    """Hand-written text files of the repository, relative to its root, sorted."""
    out = []
    for rel in _walk(REPO):
        if any(rel.parts[: len(p.parts)] == p.parts for p in SKIPPED_PREFIXES) or rel == SELF:
            continue
        if rel.suffix in SCANNED_SUFFIXES or rel in SCANNED_EXTRA:
            out.append(rel)
    return sorted(out)


def repository_files(root: Path = REPO) -> frozenset:
    """Every file of the repository (generated ones included: they may be cited), as posix paths."""
    return frozenset(rel.as_posix() for rel in _walk(root))


def cited_paths(line: str) -> list[str]:
    """Path-like tokens of `line` that are citations of repository files (see the module
    docstring)."""
    line = URL.sub(" ", line)
    out = []
    for match in TOKEN.finditer(line):
        token = match.group(1)
        if (
            token.startswith("/")
            or token.startswith("tmp/")
            or ("/" not in token and token.endswith(".toml"))
        ):
            continue
        out.append(token)
    return out


def resolves(token: str, citing: Path, files: frozenset) -> bool:
    """True when `token`, cited from the repository file `citing` (relative), names a file in
    `files`."""
    for alias, target in ALIASES.items():
        if token.startswith(alias):
            token = target + token[len(alias) :]
    direct = {
        posixpath.normpath(token),
        posixpath.normpath(posixpath.join(citing.parent.as_posix(), token)),
    }
    if direct & files:
        return True
    # Otherwise the path as seen from elsewhere (`../README.md` of the reports folder,
    # `core/claim.py` inside softlin/): some repository file's path must end with it.
    tail = "/" + re.sub(r"^(\.\.?/)+", "", posixpath.normpath(token))
    return any(("/" + f).endswith(tail) for f in files)


def broken_citations(path: Path, root: Path = REPO, files: frozenset | None = None) -> list[str]:
    """'file:line: token' for every citation in the repository file `path` that does not resolve."""
    files = repository_files(root) if files is None else files
    text = (root / path).read_text(encoding="utf-8", errors="replace")
    return [
        f"{path}:{n}: {token}"
        for n, line in enumerate(text.splitlines(), start=1)
        for token in cited_paths(line)
        if not resolves(token, path, files)
    ]


def test_the_scan_covers_sources_docs_tests_and_ci():
    files = {p.as_posix() for p in source_files()}
    assert {
        "README.md",
        "pyproject.toml",
        ".ci/run",
        "softlin/cli/__init__.py",
        "tests/test_layers.py",
        "docs/paper.md",
        "docs/design.md",
    } <= files
    assert any(f.startswith("derivations/") for f in files) and any(
        f.startswith("numerics/") for f in files
    )
    assert not any(f.startswith("reports/") for f in files)


def test_every_cited_repository_file_exists():
    files = repository_files()
    broken = [b for path in source_files() for b in broken_citations(path, REPO, files)]
    assert not broken, "citations of files that are not in the repository:\n" + "\n".join(broken)


def test_a_made_up_citation_is_caught_with_its_file_and_line(tmp_path):
    """The checker has power: the same functions flag a page that is not in the repository, a
    module that is gone, and a template-free citation next to ones that resolve, naming the line."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "paper.md").write_text("notes\n")
    (tmp_path / "numerics" / "kernels").mkdir(parents=True)
    (tmp_path / "numerics" / "kernels" / "_generated.py").write_text("")
    page = "PAPER" + ".md"
    (tmp_path / "mod.py").write_text(
        '"""Statement (docs/paper.md section 2; kernels/_generated.py)."""\n'
        f"# see {page}, section 3\n"
        "# the kernel in numerics/kernels/_gone.py\n"
        "# https://example.org/a/b.md and /tmp/x/y.md are not citations\n"
    )
    found = broken_citations(Path("mod.py"), tmp_path)
    assert found == [f"mod.py:2: {page}", "mod.py:3: numerics/kernels/_gone.py"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("see `docs/design.md`, \"Scenarios\"", ["docs/design.md"]),
        ("(derivations/fluctuations.py section 4)", ["derivations/fluctuations.py"]),
        ("reports/<claim>.md and softlin/claims/<claim>.py", []),
        ("tests/.../*.py and test_*.py", []),
        ("softlin verify --scenario my.toml", []),
        ("open https://arxiv.org/abs/2512.11784 or file:///tmp/r/index.md", []),
        ("/tmp/me/certificates/x.md and tmp/README.md", []),
        ("return text.md(value)", []),
    ],
)
def test_tokens_are_read_as_citations_only_when_path_like(line, expected):
    assert cited_paths(line) == expected


def test_installed_and_package_relative_paths_resolve_and_missing_ones_do_not():
    files = repository_files()
    assert resolves("softlin/numerics/kernels/_generated.py", Path("README.md"), files)
    assert resolves("core/claim.py", Path("README.md"), files)
    assert resolves("../README.md", Path("docs/design.md"), files)
    assert not resolves("softlin/claims/no_such_module.py", Path("README.md"), files)
    assert not resolves("claims/mathml.py", Path("README.md"), files)  # moved to softlin/mathml.py
