"""Formatting shared by the Markdown, HTML and README renderers: numbers, check results, errata,
the proof of the Monte Carlo bound, and the validation of certificates as renderer input.

Everything here is a pure function of certificate data.
"""

from __future__ import annotations

import json
import re

import numpy as np

from ..judge.check import judged, TIERS

STATUSES = ("verified", "refuted", "inconclusive")
REQUIRED = ("claim", "status", "profile", "seed", "scenario", "checks")
CHECK_KEYS = ("name", "kind", "tier", "passed", "value", "bound", "detail")

BOUND_PROOF_TITLE = "The high-probability bound used by the Monte Carlo check."
BOUND_PROOF_BODY = """\
Write w = exp(z'^T U z) / E exp(z'^T U z)
(so E w = 1), mu_a for the tilted mean, X_L = (1/L) sum_i w_i (z_i - mu_a) and \
D_L = (1/L) sum_i w_i.
Then T[mu_L](z) - T[mu](z) = V X_L / D_L exactly, with E X_L = 0.
(i) Chebyshev: P(||V X_L|| > s) <= E||V X_L||^2 / s^2 = E[w^2 ||V(z' - mu_a)||^2] / (L s^2); take
s^2 = E[w^2 ||V(z' - mu_a)||^2] / (L delta / 2).
(ii) Lower tail of a mean of iid nonnegative variables (Maurer 2003): \
P(D_L <= 1 - t) <= exp(-L t^2 / (2 E w^2));
take t = sqrt(2 E w^2 ln(2/delta) / L).
With probability at least 1 - delta both hold, and \
||T[mu_L](z) - T[mu](z)|| <= s / (1 - t) = eps_L(delta)
(infinite, i.e. vacuous, when t >= 1). For N(m, Gamma) tokens E w^2 = exp(a^T Gamma a) and
E[w^2 ||V(z' - mu_a)||^2] = exp(a^T Gamma a) (tr(V Gamma V^T) + |V Gamma a|^2), a = U z (derived in
derivations/concentration.py); for mixtures, the same sums over components."""
BOUND_PROOF = f"**{BOUND_PROOF_TITLE}** {BOUND_PROOF_BODY}"

# Keys of an erratum given as a dict that hold its one-line summary, in order of preference.
ERRATUM_HEADLINE_KEYS = ("title", "summary", "erratum", "statement", "text", "description", "what")


def has_bound_series(cert: dict) -> bool:
    """The certificate carries the check battery's Monte Carlo series (with its bound eps_L(delta)),
    so its page includes the proof of that bound."""
    main = cert.get("series", {}).get("main")
    return isinstance(main, dict) and "bound" in main


def validate(cert: dict, where: str) -> dict:
    """The renderer's input contract: a ValueError naming the certificate and the offending
    field."""
    if not isinstance(cert, dict):
        raise ValueError(f"{where} is not a JSON object")
    if cert.get("format") != 1:
        raise ValueError(
            f"{where} is not a format-1 softlin certificate (format = {cert.get('format')!r})"
        )
    for key in REQUIRED:
        if key not in cert:
            raise ValueError(f"{where} has no {key!r} field")
    if cert["status"] not in STATUSES:
        raise ValueError(f"{where} has status {cert['status']!r}, not one of {STATUSES}")
    if not isinstance(cert["checks"], list):
        raise ValueError(f"{where}: 'checks' is not a list")
    for i, check in enumerate(cert["checks"]):
        if not isinstance(check, dict) or any(k not in check for k in CHECK_KEYS):
            raise ValueError(f"{where}: checks[{i}] lacks one of {CHECK_KEYS}")
        if check["passed"] not in (True, False, None):
            raise ValueError(
                f"{where}: checks[{i}].passed is {check['passed']!r}, not true, false or null"
            )
    for key in ("formulas", "formulas_mathml", "quantities", "series", "provenance"):
        if not isinstance(cert.get(key, {}), dict):
            raise ValueError(f"{where}: {key!r} is not an object")
    if not isinstance(cert.get("errata", []), list):
        raise ValueError(f"{where}: 'errata' is not a list")
    return cert


def fmt(value) -> str:
    """A value for a table cell: 4 significant digits, long lists summarised, dicts as JSON."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list):
        arr = np.asarray(value, dtype=object)
        if arr.size > 12:
            return f"({arr.size} values)"
        return "[" + ", ".join(fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=False, separators=(", ", ": "))
    return str(value)


def result_word(passed, judged: bool = True) -> str:
    return {True: "pass", False: "FAIL", None: "undecided"}[passed] if judged else "not judged"


def check_result(check: dict) -> str:
    return result_word(check["passed"], judged(check))


def check_detail(check: dict) -> str:
    """The check's detail, with why it was not judged when it was not (and the detail does not say),
    and its resolution when it states one (`detectable`)."""
    detail, reason = check["detail"], check.get("reason", "")
    text = detail if judged(check) or reason in detail else f"{detail}; not judged: {reason}"
    if check.get("rule"):
        text += f"; passes when {check['rule']}"
    level = check.get("false_alarm")
    if isinstance(level, dict):
        text += f"; false alarm {level['alpha']:g} ({level['kind']}: {level['assumption']})"
    eps = check.get("detectable")
    if isinstance(eps, (int, float)):
        text += (
            f"; resolution: detects a relative slip of {eps:.2g} in what it tests with power 0.999"
            if eps < float("inf")
            else "; resolution: no relative slip of a zero prediction is detectable"
        )
    return text


def passed_count(cert: dict) -> tuple[int, int, int]:
    """(checks passed, checks judged, all checks): a check not judged stays on the page, out of the
    verdict."""
    checks = cert["checks"]
    return (sum(c["passed"] is True for c in checks), sum(judged(c) for c in checks), len(checks))


def count_text(cert: dict) -> str:
    """ "35 / 36 / 37": passed / judged / all."""
    return " / ".join(str(n) for n in passed_count(cert))


def proved_for_every_L(check: dict) -> bool:
    """A judged proof that an inequality holds for every prompt length L >= 2 at the scenario
    (Arb over boxes of L and a proved tail: its id ends in `every-l`, by the certificate format);
    its negative controls (`...-every-l-control-...`) are not."""
    return check["tier"] == "proof" and check["id"].endswith("every-l") and judged(check)


def tiers_summary(cert: dict) -> str:
    """ "1 proof, 2 proved for every L >= 2 at this scenario, 4 numerical, 6 statistical; 2
    consistency (not evidence)": what a claim's checks are worth, in the order of
    softlin.core.claim.TIERS, the proofs for every L counted apart from the other proofs."""
    counts = {tier: sum(c["tier"] == tier and judged(c) for c in cert["checks"]) for tier in TIERS}
    every_L = sum(proved_for_every_L(c) for c in cert["checks"])
    counts["proof"] -= every_L
    parts = [f"{counts[t]} {t}" for t in TIERS[:-1] if counts[t]]
    if every_L:
        parts.insert(
            1 if counts["proof"] else 0, f"{every_L} proved for every L >= 2 at this scenario"
        )
    evidence = ", ".join(parts)
    tail = f"; {counts['consistency']} consistency (not evidence)" if counts["consistency"] else ""
    unjudged = sum(not judged(c) for c in cert["checks"])
    level = false_alarm_text(cert)
    return (
        (evidence or "no evidence")
        + tail
        + (f"; {unjudged} not judged" if unjudged else "")
        + (f"; {level}" if level else "")
    )


_TAG_LIKE = re.compile(r"<(?=[A-Za-z/!?])")


def md(value) -> str:
    """Text for Markdown: a `<` that would open an HTML tag becomes `&lt;` (`a <= b` stays as
    it is)."""
    return _TAG_LIKE.sub("&lt;", str(value))


def _plain(value) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(", ", ": "))


def erratum_items(erratum) -> tuple[str, list[tuple[str, object]]]:
    """(headline, [(field, JSON value), ...]) of an erratum given as a string or a dict (any other
    JSON value is shown as JSON). The headline of a dict is its first key in ERRATUM_HEADLINE_KEYS,
    else its first field as "name: value". The values stay JSON: a witness becomes a table."""
    if isinstance(erratum, str):
        return erratum, []
    if isinstance(erratum, dict) and erratum:
        items = list(erratum.items())
        key = next((k for k in ERRATUM_HEADLINE_KEYS if isinstance(erratum.get(k), str)), None)
        if key is None:  # no summary field: the first field, with its name
            key = items[0][0]
            return f"{key}: {_plain(erratum[key])}", [(str(k), v) for k, v in items[1:]]
        return _plain(erratum[key]), [(str(k), v) for k, v in items if k != key]
    return _plain(erratum), []


def erratum_parts(erratum) -> tuple[str, list[tuple[str, str]]]:
    """`erratum_items` with every field as text (JSON for non-strings)."""
    headline, fields = erratum_items(erratum)
    return headline, [(k, _plain(v)) for k, v in fields]


def all_errata(
    certs: list[dict], raw: bool = False
) -> list[tuple[str, str, list[tuple[str, object]]]]:
    """(claim, headline, fields) for every erratum of every certificate, in certificate order; the
    fields as JSON values when `raw`, else as text."""
    parts = erratum_items if raw else erratum_parts
    return [(c["claim"], *parts(e)) for c in certs for e in c.get("errata", [])]


def false_alarm_text(cert: dict) -> str:
    """ "false alarm <= 2e-06 proven + 5.8e-05 nominal": the certificate's family-wise figure
    (softlin/judge/levels.py), its proven and nominal parts apart; "" for a certificate without
    statistical decisions or one written before the figure existed."""
    fa = cert.get("false_alarm")
    if not isinstance(fa, dict) or not (fa.get("bound") or fa.get("nominal")):
        return ""
    return f"false alarm <= {fa['bound']:.2g} proven + {fa['nominal']:.2g} nominal"


def beneath_text(found: dict) -> str:
    """What a claim rests on (render/graph.py, `beneath`) and whether all of it is verified, as a
    sentence for its page."""
    if not found["all"]:
        return "It rests on no other claim."
    direct = ", ".join(found["direct"])
    further = [d for d, _ in found["all"] if d not in found["direct"]]
    said = f"It rests on {direct}" + (
        f", and through them on {', '.join(further)}" if further else ""
    )
    if found["verified"]:
        return said + ". Everything beneath it is verified."
    short = ", ".join(f"{d}: {s or 'no certificate'}" for d, s in found["all"] if s != "verified")
    return (
        said + f". Not everything beneath it is verified ({short}), so the claim graph does not "
        "show it green."
    )
