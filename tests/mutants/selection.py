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
- a rotating share: the mutants whose position in the catalogue is congruent to HEAD's first-parent
  commit count modulo ROTATION (`turn`), so consecutive commits on a branch exercise consecutive
  slices and any ROTATION consecutive commits cover the catalogue. (A hash of HEAD, as before,
  gave no such bound: twelve commits miss a given slice with probability (11/12)^12 = 0.35.)

CI's time budget (`--ci-budget-seconds`, `fit`). The selection can be larger than CI's slot (after a
merge that touches many files: 51 mutants once). The share always runs in full; the other selected
mutants run while their estimated seconds fit the budget left after it, longest-waiting first (the
mutant whose slice's turn is furthest away), and the rest are reported *deferred*: not run, never
counted as killed, and kept selected (their file or module still differs from the record) until
their slice's turn comes, at most ROTATION - 1 commits later, when the share runs them regardless
of the budget. So every mutant runs within ROTATION consecutive commits. A mutant's seconds are its
recorded ones (the last field of its LAST_FULL_RUN line, when kept) or else an estimate
(`estimated_seconds`: its claims' own `quick` estimates, softlin.core.budgets, plus the process's
start and its named tests). A run with deferred mutants is not a complete result at HEAD: its lines
may update the mutants it ran, but its commit must not become a new entry of LAST_FULL_RUN (the
deferred mutants would lose the change that selected them).

`SOFTLIN_MUTANTS=all` runs the whole catalogue. When git or the recorded commit is unavailable (an
export without history, a shallow clone), the whole catalogue runs: a selection that cannot be
computed is never taken as empty.
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
from pathlib import Path

from .catalogue import MUTANTS

REPO = Path(__file__).resolve().parents[2]
LAST_FULL_RUN = Path(__file__).with_name("LAST_FULL_RUN")
ROTATION = 24  # 121 mutants: 5 or 6 a commit (12 took 10 or 11, 274 to 622 s, past CI's 30 min)


def recorded_commit() -> str:
    """The commit of the last recorded result: the first word of LAST_FULL_RUN's first non-comment
    line."""
    for line in LAST_FULL_RUN.read_text().splitlines():
        if line.strip() and not line.startswith(("#", "mutant ")):
            return line.split()[0]
    raise LookupError(f"{LAST_FULL_RUN} names no commit")


RECORD_FIELDS = ("verdict", "check", "module", "margin", "seeds", "commit")
# kept since the time budget (a line without it is older: "-")
OPTIONAL_FIELDS = ("seconds",)


def read_records(text: str | None = None) -> dict[str, dict]:
    """The per-mutant lines of LAST_FULL_RUN, name -> {verdict, check, module, margin, seeds,
    commit, seconds} ("-" for a field that does not apply: no kill, or a result carried from before
    the fields were kept). A line is `mutant NAME VERDICT CHECK MODULE MARGIN SEEDS COMMIT
    [SECONDS]`, SECONDS the mutant's wall time over the seeds it needed."""
    text = LAST_FULL_RUN.read_text() if text is None else text
    records = {}
    for line in text.splitlines():
        if line.startswith("mutant "):
            words = line.split()
            if not 0 <= len(words) - 2 - len(RECORD_FIELDS) <= len(OPTIONAL_FIELDS):
                raise LookupError(f"LAST_FULL_RUN: malformed mutant line {line!r}")
            values = words[2:] + ["-"] * (
                2 + len(RECORD_FIELDS) + len(OPTIONAL_FIELDS) - len(words)
            )
            records[words[1]] = dict(zip(RECORD_FIELDS + OPTIONAL_FIELDS, values))
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


def turn() -> tuple[int, str]:
    """(the rotating share this commit runs, HEAD's abbreviated hash): HEAD's first-parent commit
    count modulo ROTATION (module docstring). CalledProcessError without git history."""
    head = git("rev-parse", "HEAD").strip()
    count = int(git("rev-list", "--first-parent", "--count", "HEAD").strip())
    return count % ROTATION, head[:10]


def select(environ=os.environ) -> tuple[list[str], str]:
    """(mutant names, one line saying why) for this run."""
    names, why, _ = select_with_share(environ)
    return names, why


def select_with_share(environ=os.environ) -> tuple[list[str], str, int | None]:
    """`select`, and the share's turn (None when the whole catalogue runs), which `fit` needs."""
    every = [m.name for m in MUTANTS]
    if environ.get("SOFTLIN_MUTANTS", "") == "all":
        return every, "SOFTLIN_MUTANTS=all: the whole catalogue", None
    try:
        since = recorded_commit()
        changed = changed_files(since)
        share_turn, head = turn()
    except (OSError, LookupError, ValueError, subprocess.CalledProcessError) as exc:
        return (
            every,
            f"the whole catalogue (no selection without git history: {str(exc).strip()[:120]})",
            None,
        )
    records = read_records()
    touched = [m.name for m in MUTANTS if m.path in changed]
    # the module of its recorded killing check, or the file of one of its named tests
    moved = [
        m.name
        for m in MUTANTS
        if records.get(m.name, {}).get("module", "-") in changed
        or any(t.split("::")[0] in changed for t in m.tests)
    ]
    unrecorded = [n for n in every if n not in records]
    share = [m.name for i, m in enumerate(MUTANTS) if i % ROTATION == share_turn]
    names = [n for n in every if n in set(touched) | set(moved) | set(unrecorded) | set(share)]
    return (
        names,
        (
            f"{len(names)} of {len(every)} mutants: {len(touched)} whose file changed since "
            f"{since[:10]} (the last recorded result), {len(moved)} whose killing check's module "
            f"changed, {len(unrecorded)} not yet recorded, and share {share_turn} of {ROTATION} "
            f"chosen by HEAD {head} (its first-parent commit count)"
        ),
        share_turn,
    )


# CI's budget for the share and the changed mutants, in recorded or estimated seconds (docs/ci.md:
# the rest of .ci/run takes about 1200 s of its 1800; a selection's wall time beside the slow
# tier's other worker was 0.94 of its estimated seconds at e082b5e: 1018 s for 1079)
CI_BUDGET_SECONDS = 540.0
# A mutant's cost beyond its claims' runs: the process's start (importing softlin, numpy, scipy,
# sympy: 3 to 5 s measured) and each named test's collection and run (a few seconds each; the
# slowest named tests run a claim step, about 20 s).
START_SECONDS = 5.0
NAMED_TEST_SECONDS = 20.0


@functools.lru_cache(maxsize=None)
def claim_quick_seconds(cid: str) -> float:
    """The claim's own estimate of a `quick` run on its built-in scenario (softlin.core.budgets)."""
    from softlin.core import execute, registry

    return execute.plan(registry.get(cid), {}, "quick").estimate.seconds


def estimated_seconds(name: str, records: dict | None = None) -> tuple[float, str]:
    """(seconds, "recorded" or "estimated") one run of mutant `name` is expected to take: its
    recorded seconds (LAST_FULL_RUN), else START_SECONDS + NAMED_TEST_SECONDS per named test + its
    claims' `quick` estimates on their built-in scenarios (softlin.core.budgets), three times over
    when its recorded kill was a near miss confirmed at three seeds."""
    from .catalogue import by_name

    records = read_records() if records is None else records
    record = records.get(name, {})
    if record.get("seconds", "-") != "-":
        return float(record["seconds"]), "recorded"
    mutant = by_name(name)
    claims = sum(claim_quick_seconds(cid) for cid in mutant.claims)
    seeds = len(record.get("seeds", "0").split(",")) if record.get("seeds", "-") != "-" else 1
    return START_SECONDS + NAMED_TEST_SECONDS * len(mutant.tests) + seeds * claims, "estimated"


def fit(
    names: list[str], share_turn: int | None, budget: float, seconds: dict[str, float]
) -> tuple[list[str], list[str]]:
    """(run, deferred): the share (catalogue position congruent to `share_turn`) always runs; the
    other mutants of `names`, longest-waiting first ((position - share_turn) mod ROTATION largest,
    then catalogue order), run while their `seconds` fit what the share leaves of `budget` (a
    mutant that does not fit is passed over for a later, cheaper one); the rest are deferred.
    `share_turn` None (the whole catalogue requested, or no history): everything runs."""
    if share_turn is None:
        return list(names), []
    position = {m.name: i for i, m in enumerate(MUTANTS)}
    share = [n for n in names if position[n] % ROTATION == share_turn]
    others = sorted(
        (n for n in names if n not in share),
        key=lambda n: (-((position[n] - share_turn) % ROTATION), position[n]),
    )
    left = budget - sum(seconds[n] for n in share)
    chosen = set(share)
    for n in others:
        if seconds[n] <= left:
            chosen.add(n)
            left -= seconds[n]
    return [n for n in names if n in chosen], [n for n in names if n not in chosen]
