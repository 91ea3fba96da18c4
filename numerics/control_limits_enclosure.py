"""Proved enclosures of the exact limits of the non-Gaussian control laws (Rademacher, uniform),
from the laws' definitions, by Arb ball arithmetic (python-flint).

With independent coordinates of law x the limit acts coordinatewise (derivations/controls.py):
T[mu](z) = V f(U z), f(a)_j = E[x e^{a_j x}] / E[e^{a_j x}]. Here f is computed from the definition
of each law, not from the derived closed form it is checked against:

- Rademacher (x = +-1 with probability 1/2): the two-point sums, f(a) = (e^a - e^-a) / (e^a + e^-a);
- uniform on [-sqrt 3, sqrt 3]: the two integrals int x e^{a x} dx and int e^{a x} dx over the
  interval, each a ball from `acb.integral` (an entire integrand on a finite segment: the proved
  Gauss-Legendre error bound, no tail).

The inputs a = U z are the floats the emitted kernels receive, read exactly (a float is a dyadic
rational), and V f(U z) is summed in ball arithmetic from V's floats, so each ball contains the
exact value of the limit at the float inputs."""

from __future__ import annotations

import numpy as np
from flint import acb, arb

from .arb.context import precision

PRECISION_BITS = 80


def rademacher_tilted_mean(a: float) -> arb:
    """A ball containing E[x e^{a x}] / E[e^{a x}] for x = +-1 with probability 1/2."""
    with precision(PRECISION_BITS):
        up, down = arb(a).exp(), (-arb(a)).exp()
        return (up - down) / (up + down)


def uniform_tilted_mean(a: float) -> arb:
    """A ball containing E[x e^{a x}] / E[e^{a x}] for x uniform on [-sqrt 3, sqrt 3]."""
    with precision(PRECISION_BITS):
        c = arb(3).sqrt()
        ta = acb(a)
        numerator = acb.integral(lambda x, _: x * (ta * x).exp(), -c, c)
        denominator = acb.integral(lambda x, _: (ta * x).exp(), -c, c)
        return (numerator / denominator).real


TILTED_MEAN = {"rademacher": rademacher_tilted_mean, "uniform": uniform_tilted_mean}


def limit_balls(law: str, U: np.ndarray, V: np.ndarray, Z: np.ndarray) -> list[list[arb]]:
    """Balls of V f(U z) per query row of Z (n, d) -> n lists of k balls, for law "rademacher" or
    "uniform". U z is formed in floats, as the float route forms it: the balls are of the limit at
    those inputs."""
    if law not in TILTED_MEAN:
        raise ValueError(f"no enclosure for control law {law!r} (known: {sorted(TILTED_MEAN)})")
    A = np.atleast_2d(np.asarray(U, float) @ np.atleast_2d(np.asarray(Z, float)).T)  # (d, n)
    V = np.atleast_2d(np.asarray(V, float))
    out = []
    with precision(PRECISION_BITS):
        for n in range(A.shape[1]):
            f = [TILTED_MEAN[law](float(a)) for a in A[:, n]]
            out.append(
                [
                    sum((arb(float(V[i, j])) * f[j] for j in range(V.shape[1])), arb(0))
                    for i in range(V.shape[0])
                ]
            )
    return out
