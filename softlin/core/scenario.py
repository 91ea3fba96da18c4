"""Scenarios: user-supplied parameters in TOML (docs/design.md, "Scenarios").

A scenario is a flat table of top-level keys plus optional sub-tables ([mixture], [icl], ...).
Each claim declares the keys it reads on its `Claim` (`keys`, a tuple of `Key` with type and
meaning: docs/scenarios.md is generated from them); a key no claim knows, or a key the chosen claim
does not use, is an error that names the key. Missing keys come from the claim's built-in default,
and when `d` is given without matrices the defaults are rebuilt for that d (see
`defaults_for_dimension`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..numerics import validate


@dataclass(frozen=True)
class Key:
    """One scenario key a claim reads: `table` is "" for a top-level key, else the sub-table's name.
    `example(default scenario)` gives a valid value for a key the built-in scenario leaves out (the
    key reference and its test use it)."""

    table: str
    name: str
    type: str
    meaning: str
    example: Callable[[dict], Any] | None = None

    @property
    def path(self) -> str:
        return f"{self.table}.{self.name}" if self.table else self.name


COMMON_KEY_DOCS = (
    Key(
        "",
        "d",
        "integer, 1 to 64",
        "dimension; given without matrices, the defaults are rebuilt for it: m = 0, "
        "Gamma = I, U = I/2 + 0.2 on the superdiagonal, V = I, query_cov = I",
    ),
    Key("", "mean", "d numbers", "token mean m"),
    Key("", "cov", "d x d PSD matrix", "token covariance Gamma (may be singular)"),
    Key("", "U", "d x d matrix", "the score matrix: weights softmax_i(z^T U x_i)"),
    Key("", "V", "k x d matrix", "the value matrix: output V sum_i p_i x_i"),
    Key("", "query_cov", "d x d PSD matrix", "Sigma_q of the queries nu = N(0, Sigma_q)"),
    Key(
        "",
        "query",
        "d numbers (optional)",
        "a fixed query z (else the first column of Sigma_q^(1/2))",
        example=lambda s: [0.5] + [0.0] * (len(s["mean"]) - 1),
    ),
    Key("", "L", "strictly increasing integers >= 1", "prompt lengths"),
    Key("", "trials", "integer >= 2", "Monte Carlo prompts per L"),
    Key("", "delta", "number in (0, 1)", "level of the high-probability bound"),
    Key("", "seed", "integer >= 0", "the random seed (`--seed` overrides it)"),
)
COMMON_KEYS = frozenset(k.name for k in COMMON_KEY_DOCS)


def common_key_docs(**meanings: str) -> tuple[Key, ...]:
    """COMMON_KEY_DOCS with a claim's own meaning for some keys (how it uses them)."""
    return tuple(
        replace(k, meaning=meanings[k.name]) if k.name in meanings else k for k in COMMON_KEY_DOCS
    )


def table_keys(table: str) -> frozenset:
    """The keys of sub-table `table` that some registered claim reads (from the claims' `keys`)."""
    from .registry import CLAIMS

    return frozenset(k.name for c in CLAIMS.values() for k in c.keys if k.table == table)


def load_toml(path: str | Path, what: str = "scenario file") -> dict:
    """The TOML file as a dict; a ValueError names the file and what is wrong with it: missing, a
    symbolic-link loop, a directory, not a regular file (a pipe, a device such as /dev/stdin), not
    readable, not UTF-8, not TOML. `what` names the file's role ("scenario file", "sweep grid")."""
    import errno
    import os
    import stat

    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ValueError(f"{what} {str(path)!r} is a loop of symbolic links") from None
        if exc.errno == errno.ENOENT:
            broken = " (a symbolic link to a missing file)" if path.is_symlink() else ""
            raise ValueError(f"{what} {str(path)!r} does not exist{broken}") from None
        raise ValueError(f"{what} {str(path)!r} cannot be read: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise ValueError(f"{what} {str(path)!r} is a directory, not a TOML file")
    if not stat.S_ISREG(mode):
        raise ValueError(
            f"{what} {str(path)!r} is not a regular file (a pipe or a device); give the path of "
            f"a TOML file"
        )
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{what} {str(path)!r} is not UTF-8 text (byte {exc.object[exc.start]:#04x} "
            f"at offset {exc.start}); TOML files are UTF-8"
        ) from None
    except OSError as exc:
        raise ValueError(f"{what} {str(path)!r} cannot be read: {exc.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} {str(path)!r} is not valid TOML: {exc}") from None


# The largest dimension a scenario may ask for: every claim builds d x d matrices and converts them
# to exact rationals or 40-digit numbers, and the structural limits of each claim
# (core/budgets.py) are lower still; 64 keeps the defaults built for a large d cheap (a few
# 64 x 64 lists).
DIMENSION_CAP = 64


def dimension(name: str, value) -> int:
    """A dimension: an integer in [1, DIMENSION_CAP]."""
    d = validate.prompt_length(name, value)
    if d > DIMENSION_CAP:
        raise ValueError(f"{name} = {d} is above the largest supported dimension {DIMENSION_CAP}")
    return d


def defaults_for_dimension(d: int) -> dict:
    """Defaults when only d is given: m = 0, Gamma = I, U = I/2 with 0.2 above the diagonal
    (non-symmetric, so U and U^T differ), V = I, query_cov = I."""
    d = dimension("d", d)
    U = 0.5 * np.eye(d) + 0.2 * np.eye(d, k=1)
    return {
        "mean": [0.0] * d,
        "cov": np.eye(d).tolist(),
        "U": U.tolist(),
        "V": np.eye(d).tolist(),
        "query_cov": np.eye(d).tolist(),
    }


# The most entries a list of a scenario may hold (prompt lengths, risk levels, a matrix's rows,
# mixture components, points). A certificate records a number or more per entry of L (and per
# point), so the cap bounds its size by what the scenario asks; 64 is also DIMENSION_CAP, the
# longest row or column of a matrix.
MAX_LIST_LENGTH = 64
# A value quoted in an error message is shortened to about this many characters: a 2,000,000-entry
# list once gave a 16.9 MB one-line error.
SHOWN_CHARACTERS = 80


def show(value) -> str:
    """`value` as the TOML file writes it (true, "0.5", [1, 2]), shortened for an error message:
    a long list shows its first entries and its length."""
    import json

    def toml(v) -> str:
        try:
            return json.dumps(v)
        except TypeError:  # a TOML date or time: written as the file writes it
            return str(v)

    if isinstance(value, list) and len(value) > 6:
        head = ", ".join(toml(v) for v in value[:3])
        text = f"[{head}, ... ({len(value)} entries)]"
    else:
        text = toml(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 3] + "..."


def value_problem(value, where: str) -> str | None:
    """Why a value the user wrote is not made of numbers, or None. One rule for every key:
    numbers are numbers, so a boolean or a string is refused wherever it stands (a matrix entry
    `true`, a vector entry "0.5") rather than converted; a list holds at most MAX_LIST_LENGTH
    entries; tables (such as the points of [scalar]) are checked key by key."""
    if isinstance(value, (bool, np.bool_)):
        return f"{where} is a boolean ({show(value)}), not a number"
    if isinstance(value, (str, bytes)):
        return f"{where} is a string ({show(value)}), not a number: write numbers unquoted"
    if isinstance(value, (list, tuple, np.ndarray)):
        if len(value) > MAX_LIST_LENGTH:
            return f"{len(value)} entries, more than the {MAX_LIST_LENGTH} a scenario list may hold"
        if isinstance(value, np.ndarray) and value.dtype.kind in "iuf":
            return None
        for i, v in enumerate(value):
            problem = value_problem(v, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(value, dict):
        for k, v in value.items():
            problem = value_problem(v, f"{where}.{k}")
            if problem:
                return problem
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        return None
    return f"{where} is a {type(value).__name__} ({show(value)}), not a number"


def check_values(user: dict, table: str = "") -> None:
    """ValueError naming the key and its value (shortened) when a value of the user's scenario is
    not made of numbers (`value_problem`). Checked before any claim's own validation, whose
    numpy conversion would turn true into 1.0 and "0.5" into 0.5."""
    for key, value in user.items():
        name = f"{table}.{key}" if table else key
        if isinstance(value, dict) and not table:
            check_values(value, key)  # a sub-table such as [icl]
            continue
        problem = value_problem(value, name)
        if problem:
            raise ValueError(f"{name} = {show(value)}: {problem}")


def merge(default: dict, user: dict, allowed: frozenset) -> dict:
    """User values over the claim's defaults; unknown keys raise ValueError naming them, and values
    that are not numbers (`check_values`) too."""
    for key, value in user.items():
        if isinstance(value, dict):
            known = table_keys(key)
            if not known or key not in allowed:
                raise ValueError(
                    f"unknown scenario table [{key}] (this claim reads: {sorted(allowed)})"
                )
            for sub in value:
                if sub not in known:
                    raise ValueError(f"unknown scenario key {key}.{sub} (known: {sorted(known)})")
        elif key not in allowed:
            raise ValueError(f"unknown scenario key {key!r} (this claim reads: {sorted(allowed)})")
    check_values(user)
    out = dict(default)
    if "d" in user and user["d"] != default.get("d"):
        out.update(defaults_for_dimension(dimension("d", user["d"])))
        out.pop("query", None)
    for key, value in user.items():
        if isinstance(value, dict):
            out[key] = {**out.get(key, {}), **value}
        else:
            out[key] = value
    return out


def reader_problem(user: dict, claim) -> str | None:
    """Why `claim` cannot take the user's scenario (the first key it does not read: a top-level key
    or table outside its scenario_keys, or a key of a table it reads but does not document, such as
    an [icl] key of another in-context claim), or None when it can."""
    for key, value in user.items():
        if key not in claim.scenario_keys:
            return f"[{key}]" if isinstance(value, dict) else key
        if isinstance(value, dict):
            unknown = sorted(set(value) - claim.reads(key))
            if unknown:
                return f"{key}.{unknown[0]}"
    return None


def common(s: dict) -> dict:
    """Validate and convert the common keys to arrays; returns a new dict."""
    out = dict(s)
    mean = validate.vector("mean", s["mean"])
    d = dimension("length of mean", mean.shape[0])
    if "d" in s and dimension("d", s["d"]) != d:
        raise ValueError(f"d = {s['d']} but mean has length {d}")
    out["d"] = d
    out["mean"] = mean
    out["cov"] = validate.covariance("cov", s["cov"], d)
    out["U"] = validate.matrix("U", s["U"], (d, d))
    out["V"] = validate.matrix("V", s["V"], (None, d))
    out["query_cov"] = validate.covariance("query_cov", s.get("query_cov", np.eye(d).tolist()), d)
    if s.get("query") is not None:
        out["query"] = validate.vector("query", s["query"], d)
    out["L"] = validate.prompt_lengths("L", s["L"])
    # at least 2 prompts per L: the Monte Carlo checks estimate a spread from them
    out["trials"] = validate.integer("trials", s["trials"], 2)
    out["delta"] = validate.number("delta", s["delta"], 0.0, 1.0, open_low=True, open_high=True)
    out["seed"] = seed_of(s)
    return out


def seed_of(s: dict) -> int:
    """The scenario's seed (default 0), an integer >= 0."""
    return validate.integer("seed", s.get("seed", 0), 0)


def for_certificate(s: dict) -> dict:
    """The scenario as plain lists, for the certificate."""
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in s.items()}
