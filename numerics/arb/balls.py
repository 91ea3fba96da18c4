"""Balls: building them from floats, small operations python-flint lacks, and rounding them
outward to floats.

A float is a dyadic rational, so `arb(x)` of a float x is the exact number x, a ball of radius 0,
at any precision: `exact_array` converts the scenario's float inputs without error, and every
quantity computed from them in ball arithmetic is a ball containing its exact value at those
inputs.
"""

from __future__ import annotations

import decimal
import functools
import math
import sys
import threading
from collections import OrderedDict
from fractions import Fraction

import numpy as np
from flint import acb, arb


def ball(radius: arb) -> acb:
    """The complex ball centred at 0 that contains every z with |Re z|, |Im z| <= radius (the
    radius rounded up: `radius.upper()`)."""
    r = arb(0, radius.upper())
    return acb(r, r)


def ipow(x, n: int):
    """x^n for a ball x (arb or acb) and an integer n >= 0, by repeated squaring: python-flint's
    `**` goes through exp(n log x) and gives nan for a ball that contains 0."""
    result = type(x)(1)
    while n:
        if n & 1:
            result = result * x
        x, n = x * x, n >> 1
    return result


def real_upper(x: acb) -> arb:
    """An upper bound of |x| over the ball x (rounded up), as an exact real ball."""
    return arb(abs(x).upper())


def exact_array(x) -> np.ndarray:
    """An object array of balls, each the exact value of the float at the same index (radius 0)."""
    x = np.asarray(x, dtype=float)
    out = np.empty(x.shape, dtype=object)
    for index, value in np.ndenumerate(x):
        out[index] = arb(float(value))
    return out


def ball_key(x: arb) -> tuple:
    """An exact, hashable key of a real ball: its midpoint and radius as (mantissa, exponent)
    pairs of integers, equal exactly when the balls are (python-flint's arb is not hashable)."""
    if not x.is_finite():
        return ("not finite", x.str(radius=True, more=True))
    return tuple(int(n) for y in (x.mid(), x.rad()) for n in y.man_exp())


def memoised_by_ball(maxsize: int = 256):
    """A decorator: f(x, *args) memoised by `ball_key(x)` and args, the ball x itself handed to f
    (never rebuilt from floats), the oldest of more than `maxsize` results dropped. A cached value
    is shared: callers must not change it."""

    def decorate(f):
        cache: OrderedDict = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(f)
        def memoised(x: arb, *args):
            key = (ball_key(x), *args)
            with lock:
                if key in cache:
                    cache.move_to_end(key)
                    return cache[key]
            value = f(x, *args)
            with lock:
                cache[key] = value
                while len(cache) > maxsize:
                    cache.popitem(last=False)
            return value

        memoised.cache_clear = cache.clear  # type: ignore[attr-defined]
        return memoised

    return decorate


def _fraction(x: arb) -> Fraction:
    """The value of an exact ball (a dyadic rational) as a fraction."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man << exp) if exp >= 0 else Fraction(man, 1 << -exp)


def float_down(x: arb) -> float:
    """The largest float <= every point of the ball x: its lower end mid - rad computed exactly (as
    a fraction of the midpoint's and radius' dyadic values; `x.lower()` would round it at the
    working precision), rounded to the nearest float (Python's float(Fraction)), and stepped down
    once if that lies above it; -inf if x is unbounded below or below the floats' range, nan if x
    is nan."""
    return _float_end(x, -1)


def float_up(x: arb) -> float:
    """The smallest float >= every point of the ball x: its upper end mid + rad, exactly, rounded
    up (as `float_down`, mirrored; not -float_down(-x): arb's negation rounds the midpoint at the
    working precision)."""
    return _float_end(x, 1)


def _float_end(x: arb, side: int) -> float:
    """The ball's end mid + side rad (side = -1: lower, 1: upper) rounded away from the ball."""
    away = side * math.inf
    if x.is_nan():
        return math.nan
    if not x.is_finite():
        end = float(x.lower() if side < 0 else x.upper())
        return end if math.isinf(end) else away
    end = _fraction(x.mid()) + side * _fraction(x.rad())
    try:
        f = float(end)
    except OverflowError:
        return away if side * end > 0 else -side * sys.float_info.max
    if side * (Fraction(f) - end) < 0:  # the nearest float lies inside the ball: one step out
        f = math.nextafter(f, away)
    return f


def outward(ball: arb, digits: int = 8) -> list[float]:
    """[lower, upper] of a ball as floats of `digits` significant digits, rounded outwards, so that
    the interval a certificate writes (at eight digits) still contains the ball: each end rounded
    to a float away from the ball (`float_down`, `float_up`), then to `digits` decimal digits away
    from it again (Decimal of a float is exact; ROUND_FLOOR and ROUND_CEILING)."""
    lo, hi = float_down(ball), float_up(ball)

    def rounded(x, mode):
        if x == 0 or not math.isfinite(x):
            return x
        d = decimal.Decimal(x)
        exponent = d.adjusted() - (digits - 1)
        return float(d.quantize(decimal.Decimal(1).scaleb(exponent), rounding=mode))

    return [rounded(lo, decimal.ROUND_FLOOR), rounded(hi, decimal.ROUND_CEILING)]
