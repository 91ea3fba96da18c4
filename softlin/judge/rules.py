"""The five rules a check's verdict follows from, applied in one place.

A check states a `value`, a `bound` and a `rule`; `passed` is the rule applied to them, so a reader
recomputes every verdict from the certificate alone (`decide`, which
tests/judge/test_verdicts_recompute.py applies to every committed certificate):

    value <= bound     a statistic at most its critical value, an error at most its tolerance
    value >= bound     a power at least its target, a refuting statistic beyond its critical value
    |value| <= bound   a signed deviation within a symmetric tolerance
    value == bound     exact values (rationals written as strings, counts, booleans, verdict words)
    value in bound     a number inside an interval [lo, hi] (an Arb ball rounded outward)

With lists the rule applies entrywise and the check passes when every entry does; a scalar bound
is shared by every entry of a list value; for `value in bound` the bound is one interval or a list
of intervals, one per entry.

A number that is not finite (NaN, +-inf) anywhere in the value or in a bound that a comparison
reads is never a pass: the decision is undecided (passed None), with the reason. So is a value or
bound of the wrong shape, and an interval with lo > hi. `value == bound` compares exactly and reads
no floats as numbers to be judged (it is the rule of exact arithmetic): NaN there is still
undecided.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

RULES = ("value <= bound", "value >= bound", "|value| <= bound", "value == bound", "value in bound")


@dataclass(frozen=True)
class Decision:
    """The outcome of a rule: True (passed), False (failed) or None (undecided, with `reason`)."""

    passed: bool | None
    reason: str = ""


def _is_number(x: Any) -> bool:
    # A boolean is not a number here: True <= 1 would otherwise pass a comparison silently.
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _number(x: Any) -> float | None:
    """x as a float when it is a real number (Python or NumPy scalar; JSON writes non-finite floats
    as the strings "nan", "inf", "-inf", read back here), else None."""
    if isinstance(x, str) and x in ("nan", "inf", "-inf"):
        return float(x)
    if _is_number(x):
        return float(x)
    try:  # NumPy scalars, without importing NumPy here
        import numbers

        if isinstance(x, numbers.Real) and type(x).__name__ not in ("bool", "bool_"):
            return float(x)
    except TypeError:  # pragma: no cover - defensive
        pass
    return None


def _entries(value: Any) -> list:
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _compare(rule: str, v: Any, b: Any) -> Decision:
    x, y = _number(v), _number(b)
    if x is None or y is None:
        return Decision(None, f"{rule}: {v!r} against {b!r} is not a comparison of two numbers")
    if not (math.isfinite(x) and math.isfinite(y)):
        return Decision(None, f"non-finite number in {rule}: value {x!r}, bound {y!r}")
    if rule == "value <= bound":
        return Decision(x <= y)
    if rule == "value >= bound":
        return Decision(x >= y)
    return Decision(abs(x) <= y)  # "|value| <= bound"


def _contains(v: Any, interval: Any) -> Decision:
    pair = _entries(interval)
    if len(pair) != 2:
        return Decision(None, f"value in bound: {interval!r} is not an interval [lo, hi]")
    x, lo, hi = _number(v), _number(pair[0]), _number(pair[1])
    if x is None or lo is None or hi is None:
        return Decision(None, f"value in bound: {v!r} in {interval!r} is not numeric")
    if not all(math.isfinite(t) for t in (x, lo, hi)):
        return Decision(None, f"non-finite number in value in bound: {x!r} in [{lo!r}, {hi!r}]")
    if lo > hi:
        return Decision(None, f"value in bound: the interval [{lo!r}, {hi!r}] is empty")
    return Decision(lo <= x <= hi)


def _has_nan(x: Any) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_has_nan(e) for e in x)
    n = _number(x)
    return n is not None and not math.isfinite(n)


def decide(rule: str, value: Any, bound: Any) -> Decision:
    """Apply `rule` to value and bound (the module docstring): entrywise over lists, undecided on a
    non-finite number or a shape that does not match."""
    if rule not in RULES:
        raise ValueError(f"rule {rule!r} is not one of {RULES}")
    if rule == "value == bound":
        if _has_nan(value) or _has_nan(bound):
            return Decision(None, f"non-finite number in an exact comparison: {value!r}")
        return Decision(_plain(value) == _plain(bound))
    values = _entries(value)
    if not values:
        return Decision(None, f"{rule}: the value is an empty list")
    if rule == "value in bound":
        # One interval [lo, hi] for every entry, or a list of intervals, one per entry.
        bound_list = _entries(bound)
        shared = len(bound_list) == 2 and not any(isinstance(e, (list, tuple)) for e in bound_list)
        bounds = [bound] * len(values) if shared else [_entries(b) for b in bound_list]
        if not isinstance(value, (list, tuple)) and not shared:
            return Decision(None, f"value in bound: one value {value!r} against several intervals")
        judge_one = _contains
    else:
        if isinstance(bound, (list, tuple)):
            bounds = _entries(bound)
        else:
            bounds = [bound] * len(values)
        judge_one = lambda v, b: _compare(rule, v, b)  # noqa: E731 - one line, local
    if len(bounds) != len(values):
        return Decision(
            None, f"{rule}: {len(values)} values against {len(bounds)} bounds (shapes differ)"
        )
    outcomes = [judge_one(v, b) for v, b in zip(values, bounds)]
    undecided = [o.reason for o in outcomes if o.passed is None]
    if undecided:
        more = f" (and {len(undecided) - 1} more)" if len(undecided) > 1 else ""
        return Decision(None, undecided[0] + more)
    return Decision(all(o.passed for o in outcomes))


def _plain(x: Any) -> Any:
    """Tuples as lists and NumPy scalars as Python ones, so that equal values compare equal."""
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return [_plain(e) for e in x]
    return x
