"""How far a failed check is past its bound, and whether that is too close to call at one seed.

A mutant is killed by a check whose `passed` is False: its value lies beyond its bound under the
check's rule (softlin/judge/rules.py). The *margin* is that excess, relative to the bound, the
largest over the check's entries:

    value <= bound     (value - bound) / |bound|
    value >= bound     (bound - value) / |bound|
    |value| <= bound   (|value| - bound) / bound
    value in [lo, hi]  (distance from the interval) / max(|lo|, |hi|)
    value == bound     none: an exact mismatch has no distance (it is never a near miss)

A kill is *small* (a near miss that another seed may not repeat) when it is within twice the check's
resolution of its bound:

- a z or t statistic (units "|z|", "z"): the statistic moves by about one unit between seeds, so
  its excess over the critical value is small below 2 units (two standard deviations);
- a containment (value in [lo, hi]): the interval's width is the check's resolution, so a value
  less than two widths outside it is small;
- anything else (an error against its tolerance, a count against its critical count, a ratio): a
  relative excess below 10 % of the bound.

A bound of 0 (a count that must be zero, say) gives an infinite relative excess for any positive
value: such a kill is a count of independent events past what the test accepts and is judged by
the rule above for its unit ("rejections": relative excess, infinite, never small).
"""

from __future__ import annotations

import math

# A statistic whose noise is one unit: within this many units of its critical value is a near miss.
STATISTIC_UNITS = ("|z|", "z")
SMALL_STATISTIC_EXCESS = 2.0
# A containment within this many interval widths of its interval is a near miss.
SMALL_INTERVAL_WIDTHS = 2.0
# Anything else within this relative excess of its bound is a near miss.
SMALL_RELATIVE_EXCESS = 0.10


def _entries(x) -> list:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _num(x) -> float | None:
    if isinstance(x, bool) or x is None:
        return None
    if isinstance(x, str) and x in ("nan", "inf", "-inf"):
        return float(x)
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _pairs(record: dict) -> list[tuple[float, object]]:
    """(value entry, its bound) for each entry of a check record."""
    values = _entries(record.get("value"))
    bound = record.get("bound")
    if record.get("rule") == "value in bound":
        bounds = _entries(bound)
        shared = len(bounds) == 2 and not any(isinstance(b, (list, tuple)) for b in bounds)
        bounds = [bound] * len(values) if shared else bounds
    else:
        bounds = _entries(bound) if isinstance(bound, (list, tuple)) else [bound] * len(values)
    return [(_num(v), b) for v, b in zip(values, bounds)]


def entry_excess(rule: str, v: float, b) -> tuple[float, float] | None:
    """(relative excess, excess in the check's own resolution) of one failing entry, None when the
    entry passes or cannot be read. The second number is in statistic units for a z test, in
    interval widths for a containment, and the relative excess again otherwise."""
    if v is None or not math.isfinite(v):
        return None
    if rule == "value in bound":
        lo, hi = (_num(e) for e in _entries(b))
        if lo is None or hi is None or lo <= v <= hi:
            return None
        distance = lo - v if v < lo else v - hi
        scale = max(abs(lo), abs(hi))
        width = hi - lo
        relative = distance / scale if scale > 0 else math.inf
        return relative, (distance / width if width > 0 else math.inf)
    y = _num(b)
    if y is None or not math.isfinite(y):
        return None
    if rule == "value <= bound":
        excess = v - y
    elif rule == "value >= bound":
        excess = y - v
    elif rule == "|value| <= bound":
        excess = abs(v) - y
    else:
        return None
    if excess <= 0:
        return None
    relative = excess / abs(y) if y != 0 else math.inf
    return relative, excess


def margin(record: dict) -> dict:
    """The margin of a failed check record: {"margin": relative excess (None for an exact
    mismatch), "small": whether the kill is a near miss (module docstring)}."""
    rule = record.get("rule", "")
    if rule == "value == bound" or not rule:
        return {"margin": None, "small": False}
    excesses = [e for v, b in _pairs(record) if (e := entry_excess(rule, v, b)) is not None]
    if not excesses:
        # failed although no entry is past its bound (a check without a rule, or unreadable
        # numbers): no margin can be stated, so it is not taken as decisive
        return {"margin": None, "small": True}
    relative, own = max(excesses, key=lambda e: e[1] if math.isfinite(e[1]) else math.inf)
    unit = record.get("unit", "")
    if rule == "value in bound":
        small = own < SMALL_INTERVAL_WIDTHS
    elif unit in STATISTIC_UNITS:
        small = own < SMALL_STATISTIC_EXCESS
    else:
        small = relative < SMALL_RELATIVE_EXCESS
    return {"margin": relative, "small": small}


def failed_evidence(records: list[dict]) -> list[dict]:
    """The judged evidence checks (every tier but consistency) that failed: what refutes a claim."""
    return [
        r
        for r in records
        if r.get("judged", True) and r.get("passed") is False and r.get("tier") != "consistency"
    ]


def killing_check(records: list[dict]) -> dict | None:
    """The most decisive of the failed evidence checks: one that is not a near miss if any (the
    largest relative excess among those), else the near miss with the largest excess; with its id,
    margin and smallness. None when no evidence check failed."""
    rows = [{"id": r.get("id", ""), **margin(r)} for r in failed_evidence(records)]
    if not rows:
        return None

    def key(row):
        m = row["margin"]
        return (not row["small"], math.inf if m is None else m)

    return max(rows, key=key)
