"""Which mutants CI runs: those whose file, or whose killing check's module, changed since the
catalogue's last recorded result, those never recorded, plus a rotating share.

The whole catalogue takes about half an hour on two cores, more than CI's budget leaves it. CI
therefore runs

- every mutant whose target file's code (`program`: its syntax tree, docstrings aside) differs
  between the commit of the catalogue's last recorded result (the first entry of `LAST_FULL_RUN`,
  with its date and result) and the working tree: a slip in code that changed is the one most
  likely to have lost its check;
- every mutant whose killing check is built by a module whose code changed since then: the per-
  mutant lines of `LAST_FULL_RUN` (`read_records`) name the check that killed each mutant and the
  module that builds it (tests/mutants/origins.py; for a kill by a named test, the test's file), and
  an edit there may have disarmed the check although the slip's own file is untouched; the same
  for a mutant whose named tests' file changed (a test is one of its checks);
- every mutant without a per-mutant line (added to the catalogue since): never judged, so run;
- a rotating share: the mutants whose position in the catalogue is congruent to the HEAD commit's
  hash modulo ROTATION, so each commit exercises a different, reproducible slice and ROTATION
  consecutive commits cover the catalogue.

`SOFTLIN_MUTANTS=all` runs the whole catalogue. When git or the recorded commit is unavailable (an
export without history, a shallow clone), the whole catalogue runs: a selection that cannot be
computed is never taken as empty.
"""

from __future__ import annotations

import ast
import os
import subprocess
from pathlib import Path

from .catalogue import MUTANTS

REPO = Path(__file__).resolve().parents[2]
LAST_FULL_RUN = Path(__file__).with_name("LAST_FULL_RUN")
ROTATION = 12


def recorded_commit() -> str:
    """The commit of the last recorded result: the first word of LAST_FULL_RUN's first non-comment
    line."""
    for line in LAST_FULL_RUN.read_text().splitlines():
        if line.strip() and not line.startswith(("#", "mutant ")):
            return line.split()[0]
    raise LookupError(f"{LAST_FULL_RUN} names no commit")


RECORD_FIELDS = ("verdict", "check", "module", "margin", "seeds", "commit")


def read_records(text: str | None = None) -> dict[str, dict]:
    """The per-mutant lines of LAST_FULL_RUN, name -> {verdict, check, module, margin, seeds,
    commit} ("-" for a field that does not apply: no kill, or a result carried from before the
    fields were kept). A line is `mutant NAME VERDICT CHECK MODULE MARGIN SEEDS COMMIT`."""
    text = LAST_FULL_RUN.read_text() if text is None else text
    records = {}
    for line in text.splitlines():
        if line.startswith("mutant "):
            words = line.split()
            if len(words) != 2 + len(RECORD_FIELDS):
                raise LookupError(f"LAST_FULL_RUN: malformed mutant line {line!r}")
            records[words[1]] = dict(zip(RECORD_FIELDS, words[2:]))
    return records


def git(*args: str) -> str:
    """The output of a git command in the repository (CalledProcessError when git fails: a shallow
    clone without the recorded commit, say)."""
    return subprocess.run(
        ["git", *args], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout


def program(source: str) -> str:
    """A Python file's syntax tree with its docstrings blanked: equal for two texts that differ only
    in layout, comments or docstrings (how a string literal is split into adjacent pieces included),
    which cannot change what a slip in the file does."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                first.value.value = ""
    return ast.dump(tree)


def changed_files(since: str) -> set[str]:
    """Files whose code differs between commit `since` and the working tree (committed or not): a
    Python file counts when its `program` differs, so a layout or comment edit selects nothing."""
    changed = set()
    for path in git("diff", "--name-only", since).split():
        if not path.endswith(".py") or not (REPO / path).is_file():
            changed.add(path)
            continue
        try:
            before = git("show", f"{since}:{path}")
            same = program(before) == program((REPO / path).read_text())
        except (
            subprocess.CalledProcessError,
            SyntaxError,
        ):  # a new file, or one that does not parse
            same = False
        if not same:
            changed.add(path)
    return changed


def select(environ=os.environ) -> tuple[list[str], str]:
    """(mutant names, one line saying why) for this run."""
    every = [m.name for m in MUTANTS]
    if environ.get("SOFTLIN_MUTANTS", "") == "all":
        return every, "SOFTLIN_MUTANTS=all: the whole catalogue"
    try:
        since = recorded_commit()
        changed = changed_files(since)
        head = git("rev-parse", "HEAD").strip()
    except (OSError, LookupError, subprocess.CalledProcessError) as exc:
        return (
            every,
            f"the whole catalogue (no selection without git history: {str(exc).strip()[:120]})",
        )
    records = read_records()
    turn = int(head[:12], 16) % ROTATION
    touched = [m.name for m in MUTANTS if m.path in changed]
    # the module of its recorded killing check, or the file of one of its named tests
    moved = [
        m.name
        for m in MUTANTS
        if records.get(m.name, {}).get("module", "-") in changed
        or any(t.split("::")[0] in changed for t in m.tests)
    ]
    unrecorded = [n for n in every if n not in records]
    share = [m.name for i, m in enumerate(MUTANTS) if i % ROTATION == turn]
    names = [n for n in every if n in set(touched) | set(moved) | set(unrecorded) | set(share)]
    return names, (
        f"{len(names)} of {len(every)} mutants: {len(touched)} whose file changed since "
        f"{since[:10]} (the last recorded result), {len(moved)} whose killing check's module "
        f"changed, {len(unrecorded)} not yet recorded, and share {turn} of {ROTATION} "
        f"chosen by HEAD {head[:10]}"
    )
