"""Re-check a certificate's "proved for every L" box table (prop-3.1, fixed/bound-every-l) by a
route of its own: scipy quadrature, mpmath and mpmath's interval arithmetic, none of softlin's Arb
code.

    python benchmarks/check_every_l_boxes.py [reports/certificates/prop-3.1.json]
    python benchmarks/check_every_l_boxes.py --run      # prove on the default scenario, re-check
    python benchmarks/check_every_l_boxes.py --grad-v [reports/certificates/prop-3.4.json]

With --grad-v it re-checks prop-3.4's table (series `for_every_L_boxes_grad_V`): the same
statement with V = I and both sides multiplied by k, the number of rows of V.

What it checks, per row [L_lo, L_hi, error_upper, bound_lower] of series `for_every_L_boxes`:

1. the rows cover 2..L_max - 1 without gap or overlap, L_max the tail lemma's threshold
   (quantities.bound_every_l.tail_lemma.threshold), and error_upper < bound_lower;
2. the bound: eps_L^2 = tp (4 e^q / L + L exp(-(L-2)^2 / (8 (L-1) e^q))) evaluated in mpmath at
   every integer L of the box is >= bound_lower (no monotonicity used);
3. the error: A, B1, B2 at L_lo by scipy quadrature (nested, adaptive) of their integral forms
   (A_L = L int t E[w^2 e^{-tw}] phi^{L-1} dt, ...), the box majorant (L_hi/L_lo)(A, B1),
   L_hi (L_hi-1) / (L_lo (L_lo-1)) B2 (phi^{L-1} decreases in L) and err = (tr - rho) A + rho B:
   the majorant must lie below error_upper (within the quadrature's stated error), and the
   exact error at L_lo and L_hi (quadrature) below bound_lower;
4. the tail lemma's G(L_max) <= 1 again, in mpmath interval arithmetic (mpmath.iv), from its
   statement (numerics/every_l.py) with the certificate's s.

It prints one line per row and a verdict; the exit status is 0 when every check holds.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

import mpmath as mp
import numpy as np
from scipy import integrate

QUAD_RELATIVE = 1e-6  # what the nested float quadrature below is trusted to (relative)


def invariants(Gamma, U, V, z, multiplier=1):
    """q, tr(V Gamma V^T), rho = |V Gamma a|^2 / q, tp = tr + |V Gamma a|^2 in mpmath (50 digits
    from the float inputs taken as exact), the last three times `multiplier`."""
    with mp.workdps(50):
        G = mp.matrix(np.asarray(Gamma, float).tolist())
        Um = mp.matrix(np.asarray(U, float).tolist())
        Vm = mp.matrix(np.asarray(V, float).tolist())
        zm = mp.matrix(np.asarray(z, float).tolist())
        a = Um * zm
        Ga = G * a
        q = (a.T * Ga)[0]
        VGa = Vm * Ga
        vga2 = sum(VGa[i] ** 2 for i in range(VGa.rows))
        M = Vm * G * Vm.T
        tr = sum(M[i, i] for i in range(M.rows))
        k = multiplier
        return q, k * tr, k * vga2 / q, k * (tr + vga2)


def inner(t: float, q: float, k: int, h) -> float:
    """E[w^k h(f) e^{-tw}] = e^{(k^2-k) q/2} int phi_N(u) h(u + (k-1) sqrt q) e^{-t w} du,
    w = e^{sqrt(q) u + (k - 1/2) q} (u = g - k sqrt q), by scipy's adaptive quadrature on
    [-40, 40] (the Gaussian beyond is below 1e-300)."""
    rq = math.sqrt(q)

    def f(u):
        w = math.exp(min(rq * u + (k - 0.5) * q, 700.0))
        return math.exp(-u * u / 2 - t * w) / math.sqrt(2 * math.pi) * h(u + (k - 1) * rq)

    val, _ = integrate.quad(f, -40.0, 40.0, epsabs=0.0, epsrel=1e-10, limit=200, points=(0.0,))
    return math.exp((k * k - k) * q / 2) * val


def moments(q: float, L: int) -> tuple:
    """(A_L, B1_L, B2_L) by nested quadrature in v = log t (t dt = e^{2v} dv), from their integral
    forms (module docstring)."""
    one, sq, lin = (lambda f: 1.0), (lambda f: f * f), (lambda f: f)

    def integrand(v, which):
        t = math.exp(v)
        phi = inner(t, q, 0, one)
        if which == "A":
            return L * math.exp(2 * v) * inner(t, q, 2, one) * phi ** (L - 1)
        if which == "B1":
            return L * math.exp(2 * v) * inner(t, q, 2, sq) * phi ** (L - 1)
        return L * (L - 1) * math.exp(2 * v) * inner(t, q, 1, lin) ** 2 * phi ** (L - 2)

    c = -math.log(L)
    out = []
    for which in ("A", "B1", "B2"):
        val, _ = integrate.quad(
            integrand,
            c - 40.0,
            c + 40.0,
            args=(which,),
            epsabs=0.0,
            epsrel=1e-9,
            limit=400,
            points=(c - 3.0, c, c + 3.0),
        )
        out.append(val)
    return tuple(out)


def bound(q, tp, L):
    L = mp.mpf(L)
    return tp * (4 * mp.exp(q) / L + L * mp.exp(-((L - 2) ** 2) / (8 * (L - 1) * mp.exp(q))))


def tail_G(q, rho, tp, s, L_max, C=4, p=1):
    """G(L_max) of the tail lemma in mpmath interval arithmetic (numerics/every_l.py, step 4)."""
    iv = mp.iv
    q, rho, tp = iv.mpf([q, q]), iv.mpf([rho, rho]), iv.mpf([tp, tp])
    e_q = iv.exp(q)
    s = iv.mpf(s)
    t0, kappa = s / e_q, 1 - s / 2
    lam = kappa * t0
    if not (kappa.a > 0 and L_max >= 6 and (L_max - 1 - (p + 2) / lam).a >= 0):
        return None
    phi0 = iv.exp(-lam)
    x = iv.mpf([0, mp.mpf(1) / L_max])
    R1 = 1 / ((1 - x) ** 2 * C * kappa**2)
    cp = rho * e_q * (1 + q) / (C * tp)
    R2 = 6 * cp * x * (1 - x) / ((1 - 2 * x) ** 4 * kappa**4)
    Lm = iv.mpf(L_max)
    E1 = e_q**2 / (4 * C) * Lm ** (p + 1) * phi0 ** (L_max - 3)
    E2 = 6 * cp * e_q**4 / 256 * Lm ** (p + 1) * (Lm - 1) * phi0 ** (L_max - 6)
    return R1 + R2 + E1 + E2


def recheck(rows, tail: dict, Gamma, U, V, z, out=print, multiplier=1) -> bool:
    """The checks of the module docstring; prints a line per row; True when all hold."""
    q, tr, rho, tp = invariants(Gamma, U, V, z, multiplier)
    ok = True
    L_max = tail.get("threshold")
    pairs = [(int(r[0]), int(r[1])) for r in rows]
    cover = bool(pairs) and pairs[0][0] == 2 and pairs[-1][1] == (L_max or 0) - 1
    cover = cover and all(c == b + 1 and a <= b for (a, b), (c, _) in zip(pairs, pairs[1:]))
    out(f"q = {mp.nstr(q, 10)}, tr = {mp.nstr(tr, 10)}, rho = {mp.nstr(rho, 10)}")
    out(f"coverage of 2..L_max - 1 = {L_max and L_max - 1} without gap: {cover}")
    ok &= cover
    for lo, hi, err_up, b_lo in rows:
        lo, hi = int(lo), int(hi)
        row_ok = err_up < b_lo
        b_min = min(bound(q, tp, L) for L in range(lo, hi + 1))
        row_ok &= b_min >= b_lo
        A, B1, B2 = moments(float(q), lo)
        maj = (tr - rho) * A * hi / lo + rho * (B1 * hi / lo + B2 * hi * (hi - 1) / (lo * (lo - 1)))
        row_ok &= maj <= err_up * (1 + QUAD_RELATIVE)
        ends = [(tr - rho) * A + rho * (B1 + B2)]
        if hi != lo:
            A2, B12, B22 = moments(float(q), hi)
            ends.append((tr - rho) * A2 + rho * (B12 + B22))
        row_ok &= max(ends) < b_lo
        out(
            f"[{lo}, {hi}]: error_upper {err_up:.8g} >= majorant {mp.nstr(maj, 9)} "
            f"(exact at the ends {', '.join(mp.nstr(e, 9) for e in ends)}); bound_lower "
            f"{b_lo:.8g} <= min bound {mp.nstr(b_min, 9)}: {'ok' if row_ok else 'FAILED'}"
        )
        ok &= bool(row_ok)
    if L_max:
        G = tail_G(q, rho, tp, tail["s"], L_max)
        tail_ok = G is not None and G.b <= 1
        out(
            f"tail lemma at L_max = {L_max}, s = {tail['s']}: G in {G}: "
            + ("ok" if tail_ok else "FAILED")
        )
        ok &= tail_ok
    else:
        out("no tail threshold: nothing proved beyond the boxes")
        ok = False
    out("RE-CHECKED" if ok else "NOT RE-CHECKED")
    return ok


def _from_certificate(path, grad_v=False):
    """(rows, tail, Gamma, U, V, z, multiplier) from a prop-3.1 certificate, or from a prop-3.4
    one with grad_v (V = I, multiplier k)."""
    cert = json.load(open(path))
    s = cert["scenario"]
    z = s.get("query")
    if z is None and grad_v:
        z = cert["quantities"]["fixed_query"]
    elif z is None:
        from softlin.claims.prop_3_1.common import fixed_query

        z = fixed_query({k: np.asarray(v, float) if k != "d" else v for k, v in s.items()})
    if grad_v:
        rows = cert["series"]["for_every_L_boxes_grad_V"]
        tail = cert["quantities"]["grad_v_bound_every_l"]["tail_lemma"]
        d, k = len(s["cov"]), len(s["V"])
        return rows, tail, s["cov"], s["U"], np.eye(d), z, k
    rows = cert["series"]["for_every_L_boxes"]
    tail = cert["quantities"]["bound_every_l"]["tail_lemma"]
    return rows, tail, s["cov"], s["U"], s["V"], z, 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("certificate", nargs="?", default=None)
    ap.add_argument("--run", action="store_true", help="prove on the default scenario first")
    ap.add_argument("--grad-v", action="store_true", help="prop-3.4's grad_V table")
    args = ap.parse_args(argv)
    default = "prop-3.4" if args.grad_v else "prop-3.1"
    path = args.certificate or f"reports/certificates/{default}.json"
    if args.run:
        from softlin.claims.prop_3_1.claim import default_scenario
        from softlin.numerics import every_l

        s = default_scenario()
        proof = every_l.prove(s["cov"], s["U"], s["V"], s["query"])
        print(f"proof: {proof.status} {proof.reason}")
        rows, tail, G, U, V, z, k = (
            proof.boxes,
            proof.tail.record(),
            s["cov"],
            s["U"],
            s["V"],
            s["query"],
            1,
        )
    else:
        rows, tail, G, U, V, z, k = _from_certificate(path, args.grad_v)
    return 0 if recheck(rows, tail, G, U, V, z, multiplier=k) else 1


if __name__ == "__main__":
    sys.exit(main())
