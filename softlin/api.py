"""The Python API for notebooks and scripts: `softlin.verify` (README, "Python API").

    import softlin
    cert = softlin.verify("lemma-2.1", scenario={"trials": 400}, profile="quick")
    cert.status                     # "verified"
    cert.checks[0].id, cert.checks[0].passed
    cert                            # in Jupyter: the verdict and a table of the checks

A claim runs as `softlin verify` runs it (softlin/core/execute.py): its scenario merged over the
claim's default, validated once, its work estimated and admitted, then the claim run with its own
random stream. The certificate is the one the CLI writes, byte for byte (`Certificate.to_json`).
Nothing is written unless `out=` names a folder. Bad input raises a ValueError naming the value,
before any work.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from . import certio
from .core import execute
from .core import budgets, registry, scenario as scen
from .core.claim import PROFILES
from .commands import check_out
from .render import text


@dataclass(frozen=True)
class CheckResult:
    """One check of a certificate, as written (docs/certificates.md): its full id
    ("<claim>/<check id>"), name, kind, evidence tier, outcome (`passed`: True, False, or None when
    undecided or not judged), measured value, the bound it was held to and their unit, and the rule
    that judged it when the certificate states one."""

    id: str
    name: str
    kind: str
    tier: str
    passed: bool | None
    value: Any
    bound: Any
    unit: str
    judged: bool = True
    rule: Any = None
    detail: str = ""

    @classmethod
    def from_record(cls, record: dict) -> CheckResult:
        return cls(
            id=record["id"],
            name=record["name"],
            kind=record["kind"],
            tier=record["tier"],
            passed=record["passed"],
            value=record.get("value"),
            bound=record.get("bound"),
            unit=record.get("unit", ""),
            judged=record.get("judged", True),
            rule=record.get("rule"),
            detail=record.get("detail", ""),
        )


class Certificate:
    """A claim's certificate as `softlin verify` writes it: `.status`, `.checks`, `.data` (the
    parsed JSON), `.to_json()` (its bytes as text) and `.path` (where `out=` wrote it, else None).
    Numbers are the written ones (8 significant digits, docs/certificates.md)."""

    def __init__(self, cert: dict, path: Path | None = None):
        self._text = certio.dumps(cert)
        self.data: dict = json.loads(self._text)
        self.path = path

    @property
    def claim(self) -> str:
        return self.data["claim"]

    @property
    def status(self) -> str:
        return self.data["status"]

    @property
    def checks(self) -> list[CheckResult]:
        return [CheckResult.from_record(r) for r in self.data["checks"]]

    def to_json(self) -> str:
        """The certificate file's text, as `softlin verify` writes certificates/<claim>.json."""
        return self._text

    def __repr__(self) -> str:
        passed, judged, total = text.passed_count(self.data)
        return (
            f"<Certificate {self.claim}: {self.status}; {passed} of {judged} judged checks passed, "
            f"{total} in all; profile {self.data['profile']}, seed {self.data['seed']}>"
        )

    def _repr_html_(self) -> str:
        """Jupyter's view: the verdict, the judged checks counted by tier, a row per check."""
        e = html.escape
        passed, judged, total = text.passed_count(self.data)
        checks = self.checks
        with_rule = any(c.rule is not None for c in checks)
        head = ["id", "tier", "value", "bound", *(["rule"] if with_rule else []), "passed"]
        rows = []
        for c in checks:
            cells = [c.id, c.tier, text.fmt(c.value), text.fmt(c.bound)]
            if with_rule:
                cells.append(text.fmt(c.rule))
            cells.append(text.result_word(c.passed, c.judged))
            rows.append("<tr>" + "".join(f"<td>{e(str(x))}</td>" for x in cells) + "</tr>")
        return (
            f"<div><p><b>{e(self.claim)}</b>: <b>{e(self.status)}</b> ({e(self.data['title'])}; "
            f"profile {e(str(self.data['profile']))}, seed {e(str(self.data['seed']))})</p>"
            f"<p>{passed} of {judged} judged checks passed ({total} in all); judged checks by "
            f"tier: {e(text.tiers_summary(self.data))}</p>"
            "<table><thead><tr>"
            + "".join(f"<th>{h}</th>" for h in head)
            + "</tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table></div>"
        )


def verify(
    claim: str,
    *,
    scenario: str | Path | dict | None = None,
    profile: str = "standard",
    seed: int = 0,
    out: str | Path | None = None,
) -> Certificate:
    """Run `claim` (an id of `softlin list`) on `scenario` (None: the claim's own; a TOML file's
    path; or a dict with the keys of such a file, checked the same way, docs/scenarios.md) at
    `profile` with `seed`, and return its certificate. `seed` replaces the scenario's own, as
    `--seed` does; a scenario that sets another seed is an error. With `out` (a folder) the
    certificate is written to out/certificates/<claim>.json as `softlin verify --out` writes it
    (no pages); otherwise nothing is written. ValueError, naming the value, for an unknown claim,
    profile or scenario key, a bad scenario value, a seed that is not an integer >= 0, a run above
    the CLI's default time or memory cap, or an `out` that cannot be written."""
    if not isinstance(claim, str):
        raise ValueError(f"claim {claim!r} is not a claim id (a string such as 'lemma-2.1')")
    c = registry.get(claim)
    if profile not in PROFILES:
        raise ValueError(f"profile {profile!r} is not one of {', '.join(PROFILES)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed {seed!r} is not an integer >= 0")
    user = _user_scenario(scenario)
    if "seed" in user and user["seed"] != seed:
        raise ValueError(
            f"the scenario sets seed = {user['seed']!r} and seed={seed} was given: pass "
            f"seed={user['seed']!r}, or drop seed from the scenario"
        )
    with execute.named(c.id):
        planned = execute.plan(c, user, profile, seed=seed)
    budgets.admit(
        [planned.estimate],
        budgets.DEFAULT_MAX_MINUTES,
        raise_cap="run it with `softlin verify --max-minutes M` (the API keeps the default cap)",
    )
    if out is not None:
        try:
            check_out(Path(out))
        except ValueError as exc:  # its message names the CLI's flag: name the argument
            raise ValueError(str(exc).replace("--out ", "out=", 1)) from None
    cert = execute.run_reported(c, planned.scenario, profile)
    path = certio.write(Path(out), cert) if out is not None else None
    return Certificate(cert, path)


def _user_scenario(scenario) -> dict:
    """The user's keys: {} for None, a TOML file's table, or a dict holding only what a TOML file
    can (tables with string keys; strings, booleans, integers, floats and lists of them). NumPy
    arrays and tuples become lists and NumPy scalars numbers, so a dict gives the certificate its
    TOML twin gives."""
    if scenario is None:
        return {}
    if isinstance(scenario, (str, Path)):
        return scen.load_toml(scenario)
    if isinstance(scenario, dict):
        return _toml_value(scenario, "")
    raise ValueError(
        f"scenario {scenario!r} is not a TOML file's path or a dict of scenario keys "
        "(docs/scenarios.md)"
    )


def _toml_value(value, where: str):
    """`value` as TOML types; ValueError naming the key `where` of what TOML cannot hold."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            if not isinstance(key, str):
                raise ValueError(f"scenario key {key!r} is not a string")
            out[key] = _toml_value(v, f"{where}.{key}" if where else key)
        return out
    if isinstance(value, (np.ndarray, np.generic)):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_toml_value(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, (bool, int, float, str)):
        return value
    raise ValueError(
        f"scenario key {where} = {value!r}: a {type(value).__name__} is not a scenario value "
        "(numbers, booleans, strings, lists and tables, as in a TOML file)"
    )
