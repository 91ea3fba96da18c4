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
import threading
from collections import OrderedDict

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


def outward(ball: arb, digits: int = 8) -> list[float]:
    """[lower, upper] of a ball as floats of `digits` significant digits, rounded outwards, so that
    the interval a certificate writes (at eight digits) still contains the ball."""
    lo, hi = float(ball.lower()), float(ball.upper())
    lo, hi = math.nextafter(lo, -math.inf), math.nextafter(hi, math.inf)

    def rounded(x, mode):
        if x == 0 or not math.isfinite(x):
            return x
        d = decimal.Decimal(x)
        exponent = d.adjusted() - (digits - 1)
        return float(d.quantize(decimal.Decimal(1).scaleb(exponent), rounding=mode))

    return [rounded(lo, decimal.ROUND_FLOOR), rounded(hi, decimal.ROUND_CEILING)]
