"""JUnit XML for `softlin verify --junit PATH` (and `verify --check --junit PATH`): what CI systems
read.

One <testsuite> per claim, one <testcase> per check (classname the claim id, name the check's
stable id, its prose name, tier, kind, value and bound in <system-out>). A refuted check is a
<failure>; an undecided one (passed = null) or one not judged is <skipped> with the reason. Under
`--check` a check whose numbers, text or verdict would change is a <failure> of type "would change"
naming each old and new value, and each suite also holds a testcase "certificate reproduces", a
<failure> listing every difference, with the seed and the command that reproduces the run; the
certificate files --check found invalid are the failing testcases of a suite "certificate files".
Each suite's <properties> give the seed, profile, verdict, the kernels' input hash and the version
of Python and of every dependency pyproject.toml declares (`dependency_versions`). A suite's time is
the claim's run time, and each of its testcases an equal share of it (one run makes all the checks,
and times none alone). The layout follows the JUnit schema that Jenkins, GitLab and GitHub
reporters read (testsuites > testsuite > properties, testcase > failure | skipped, system-out).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..certio import changed_checks
from ..judge.check import judged


def _text(value) -> str:
    if isinstance(value, float):
        return f"{value:.8g}"
    return str(value)


def dependency_versions() -> dict[str, str]:
    """{distribution: installed version} for Python and every dependency softlin declares in
    pyproject.toml's `dependencies` (read from the installed metadata; extras left out), so that a
    JUnit report names each version a run used, python-flint included (the certificates' provenance
    records only some of them)."""
    import platform
    import re
    from importlib import metadata

    versions = {"python": platform.python_version()}
    try:
        requirements = metadata.requires("softlin") or []
    except metadata.PackageNotFoundError:  # not installed: no declared list to read
        return versions
    for requirement in requirements:
        if "extra ==" in requirement:
            continue
        name = re.match(r"[A-Za-z0-9._-]+", requirement)
        if name is None:
            continue
        try:
            versions[name.group(0)] = metadata.version(name.group(0))
        except metadata.PackageNotFoundError:
            versions[name.group(0)] = "not installed"
    return versions


def _suite(
    root: ET.Element,
    cert: dict,
    seconds: float,
    differences: list[str] | None,
    reproduce: str | None,
) -> None:
    checks = cert.get("checks", [])
    changed = changed_checks(differences or [])
    failures = sum(ch.get("passed") is False or ch.get("id") in changed for ch in checks) + bool(
        differences
    )
    skipped = sum(ch.get("passed") is None and ch.get("id") not in changed for ch in checks)
    suite = ET.SubElement(
        root,
        "testsuite",
        name=cert["claim"],
        tests=str(len(checks) + (differences is not None)),
        failures=str(failures),
        errors="0",
        skipped=str(skipped),
        time=f"{seconds:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    provenance = cert.get("provenance", {})
    pairs = [
        ("seed", cert.get("seed")),
        ("profile", cert.get("profile")),
        ("status", cert.get("status")),
    ]
    versions = {k: v for k, v in provenance.items() if not isinstance(v, (dict, list))}
    for name, version in dependency_versions().items():
        versions.setdefault(name, version)  # the certificate's own record wins
    pairs += [
        (k if k == "kernels_input_hash" else f"version.{k}", v) for k, v in sorted(versions.items())
    ]
    for name, value in pairs:
        if value is not None:
            ET.SubElement(props, "property", name=name, value=_text(value))
    # The checks of a claim come out of one run, which times no check alone: each testcase gets an
    # equal share of the claim's run time (the suite's time), so that the testcases add up to it.
    share = f"{seconds / (len(checks) + (differences is not None) or 1):.6f}"
    for check in checks:
        cid = str(check.get("id") or check.get("name", ""))
        case = ET.SubElement(suite, "testcase", classname=cert["claim"], name=cid, time=share)
        summary = (
            f"tier {check.get('tier')}; kind {check.get('kind')}; "
            f"value {_text(check.get('value'))}; bound {_text(check.get('bound'))}; "
            f"unit {check.get('unit', '')}"
        )
        if check.get("detectable") is not None:
            summary += f"; detectable relative slip {_text(check['detectable'])}"
        if check.get("passed") is False:
            ET.SubElement(
                case, "failure", message=f"refuted: {summary}", type="refuted"
            ).text = str(check.get("detail", ""))
        elif cid in changed:
            ET.SubElement(
                case,
                "failure",
                message=f"would change: {'; '.join(changed[cid])}"[:1000],
                type="would change",
            ).text = "\n".join(changed[cid]) + f"\nreproduce: {reproduce}"
        elif not judged(check):
            ET.SubElement(case, "skipped", message=f"not judged: {check.get('reason', '')}"[:1000])
        elif check.get("passed") is None:
            ET.SubElement(case, "skipped", message=f"undecided: {check.get('detail', '')}"[:1000])
        ET.SubElement(
            case, "system-out"
        ).text = f"{check.get('name', '')}\n{summary}\n{check.get('detail', '')}"
    if differences is not None:
        case = ET.SubElement(
            suite, "testcase", classname=cert["claim"], name="certificate reproduces", time=share
        )
        if differences:
            n = len(differences)
            failure = ET.SubElement(
                case,
                "failure",
                type="would change",
                message=f"{n} difference{'s' * (n != 1)}; seed {cert.get('seed')}; "
                f"reproduce: {reproduce}",
            )
            failure.text = "\n".join(differences)


def _files_suite(root: ET.Element, bad) -> None:
    """Under --check, the certificate files that are not a valid certificate of their claim (named
    after another claim, or owned by none): a testsuite "certificate files", a failing testcase
    named by each file."""
    suite = ET.SubElement(
        root,
        "testsuite",
        name="certificate files",
        tests=str(len(bad)),
        failures=str(len(bad)),
        errors="0",
        skipped="0",
        time="0.000",
    )
    for path, problem in bad:
        case = ET.SubElement(suite, "testcase", classname="certificate files", name=str(path))
        case.set("time", "0.000")
        ET.SubElement(case, "failure", type="invalid certificate file", message=problem[:1000])


def document(runs: list[dict], bad=()) -> bytes:
    """The XML document for `runs`: dicts with `cert`, `seconds`, and under --check `differences`
    (a list, empty when the certificate reproduces) and `reproduce` (the command); `bad`: the
    [(path, problem)] of the certificate files --check found invalid."""
    root = ET.Element("testsuites", name="softlin verify")
    for run in runs:
        _suite(
            root, run["cert"], run.get("seconds", 0.0), run.get("differences"), run.get("reproduce")
        )
    if bad:
        _files_suite(root, bad)
    counts = {
        k: sum(int(s.get(k)) for s in root) for k in ("tests", "failures", "errors", "skipped")
    }
    for key, value in counts.items():
        root.set(key, str(value))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
