"""Exact finite-L errors of the Jacobians in V and U for Gaussian prompts, by quadrature.

Notation of numerics/selfnormalised.py: tokens N(m, Gamma), a = U z, q = a^T Gamma a, c = Gamma a,
e = c / sqrt(q), P = Gamma - c c^T / q (P = Gamma, e = 0 when q = 0). Token i is m + e g_i + r_i
with g_i ~ N(0, 1), r_i ~ N(0, P) independent; the weights p = softmax(sqrt(q) g) depend on the g_i
only. With f = g - sqrt(q) and x = f^2 - 1 (both mean zero under the tilt w = e^{sqrt(q) g - q/2}):

    zhat - mu_a = e (sum p f) + sum p r,
    C_hat - Gamma = alpha e e^T + e s^T + s e^T + R,     alpha = sum p x - (sum p f)^2,
    s = sum p_i (g_i - gbar) r_i,  R = sum p_i (r_i - rbar)(r_i - rbar)^T - P.

Conditionally on g, s ~ N(0, H P) with H = sum p_i^2 (g_i - gbar)^2, E R = -A P (A = sum p^2), and
the Wick formula for the weighted covariance of Gaussian vectors gives
(derivations/gradient_error_display.py, proved there; the emitted kernel
`gradient_U_error_display`), with M = V^T V,

    E||V (C_hat - Gamma)||_F^2 = S_aa (e^T M e)|e|^2 - 2 S_aA e^T M P e
                                 + (2 S_AA + S_A - 2 S_A3) tr(P M P)
                                 + (S_A - 2 S_A3 + S_AA) tr P tr(P M)
                                 + S_H (2 e^T M P e + |e|^2 tr(M P) + e^T M e tr P),

S_aa = E alpha^2, S_aA = E alpha A, S_AA = E A^2, S_A = E A, S_A3 = E sum p^3, S_H = E H; and
E||grad_V err||^2 = k E|zhat - mu_a|^2 = k (tr Gamma S_A + |c|^2 / q (S_B - S_A)),
S_B = E (sum p f)^2.
The grad_U error is |z|^2 times the display. At L = 1: alpha = -1, A = 1, H = 0, so the display is
||V Gamma||_F^2 exactly.

The scalars S are computed by numerics/gradient_scalars.py (quadrature over set partitions, an
algorithm); this module assembles the per-query errors from them and tabulates them in q.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import interpolate

from . import kernels, query_average, validate
from .gradient_scalars import NAMES, TERMS, log_scalars, log_scalars_many, scalars

# ---------------------------------------------------------------------------------------------
# Per-query assembly.

# the scalars the grad_U display weighs (S_B enters the grad_V error only)
DISPLAY_SCALARS = ("aa", "aA", "AA", "A", "A3", "H")


@dataclass
class Geometry:
    """Per-query matrix factors of the module docstring for queries Z (n, d)."""

    q: np.ndarray
    zz: np.ndarray  # |z|^2
    rho: np.ndarray  # |c|^2 / q
    trG: float
    # (n,) each: e^T M e, |e|^2, e^T M P e, tr P, tr(M P), tr(P M P), the kernel's invariants
    invariants: dict


def geometry(Gamma, U, V, Z) -> Geometry:
    Z = np.atleast_2d(np.asarray(Z, dtype=float))
    M = V.T @ V
    C = Z @ (Gamma @ U).T  # rows c = Gamma U z
    A = Z @ U.T
    q = np.maximum(np.einsum("ni,ni->n", A, C), 0.0)
    pos = q > 1e-300
    E = np.where(pos[:, None], C / np.sqrt(np.where(pos, q, 1.0))[:, None], 0.0)
    Ps = Gamma[None] - np.einsum("ni,nj->nij", E, E)
    eMe = np.einsum("ni,ij,nj->n", E, M, E)
    ee = np.einsum("ni,ni->n", E, E)
    eMPe = np.einsum("ni,ij,njk,nk->n", E, M, Ps, E)
    trP = np.einsum("nii->n", Ps)
    trMP = np.einsum("ij,nji->n", M, Ps)
    trPMP = np.einsum("nij,jk,nki->n", Ps, M, Ps)
    invariants = dict(eMe=eMe, ee=ee, eMPe=eMPe, trP=trP, trMP=trMP, trPMP=trPMP)
    rho = np.divide(np.sum(C * C, axis=1), q, out=np.zeros_like(q), where=pos)
    return Geometry(q, np.sum(Z * Z, axis=1), rho, float(np.trace(Gamma)), invariants)


def errors(S: dict, geo: Geometry, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(E||grad_V err||^2, E||grad_U err||^2) per query, from scalars S
    (each an array over the queries)."""
    err_V = k * (geo.trG * S["A"] + geo.rho * (S["B"] - S["A"]))
    err_U = kernels.gradient_U_error_display(
        geo.zz, **geo.invariants, **{f"S_{n}": S[n] for n in DISPLAY_SCALARS}
    )
    return err_V, err_U


def exact_errors(Gamma, U, V, z, L: int) -> tuple[float, float]:
    """Both exact errors at one query (direct quadrature, no table)."""
    geo = geometry(Gamma, U, V, np.asarray(z, dtype=float)[None, :])
    S = {n: np.array([s]) for n, s in scalars(float(geo.q[0]), L).items()}
    eV, eU = errors(S, geo, V.shape[0])
    return float(eV[0]), float(eU[0])


@dataclass
class Table:
    """Scalars on q_j = q_max (j/(points-1))^2, cubic splines in sqrt(q) (even in sqrt q): log S for
    the positive ones, S / S_A for E alpha A (which changes sign)."""

    L: int
    q: np.ndarray
    logs: dict

    def __post_init__(self):
        x = np.sqrt(self.q)
        ends = ((1, 0.0), "not-a-knot")
        self._s = {n: interpolate.CubicSpline(x, v, bc_type=ends) for n, v in self.logs.items()}

    def scalars(self, q) -> dict:
        q = np.asarray(q, dtype=float)
        if np.any(q > self.q[-1] * (1 + 1e-12)):
            raise ValueError(
                f"q outside the table range [0, {self.q[-1]:.4g}]: {float(np.max(q)):.4g}"
            )
        x = np.sqrt(np.maximum(q, 0.0))
        out = {n: np.exp(s(x)) for n, s in self._s.items() if n != "aA"}
        out["aA"] = self._s["aA"](x) * out["A"]
        return out


def table(L: int, q_max: float, points: int = 32) -> Table:
    """The scalars at L on q_j = q_max (j / (points - 1))^2 (see Table)."""
    return tables([L], q_max, points)[0]


def tables(Ls, q_max: float, points: int = 32) -> list[Table]:
    """The tables of several L on one grid of q (gradient_scalars.log_scalars_many forms the
    inner expectations once per q for all of them); each equal to its `table`."""
    q_max = max(float(q_max), 1e-6)
    qs = q_max * (np.arange(points) / (points - 1)) ** 2
    per_q = [log_scalars_many(q, Ls) for q in qs]
    return [
        _table(L, qs, [{n: s * math.exp(lv) for n, (lv, s) in at[i].items()} for at in per_q])
        for i, L in enumerate(Ls)
    ]


def _table(L: int, qs: np.ndarray, vals: list[dict]) -> Table:
    logs = {}
    for n in NAMES:
        v = np.array([x[n] for x in vals])
        if n == "aA":
            logs[n] = v / np.array([x["A"] for x in vals])
        elif np.all(v > 0):
            logs[n] = np.log(v)
        else:
            raise ArithmeticError(f"S_{n} is not positive on [0, {qs[-1]:.3g}] at L = {L}")
    return Table(int(L), qs, logs)


def scalar_average(lam: float, L: int, kappa: float, step: float = 0.4) -> tuple[float, float]:
    """(log E_g S_B(lam g^2), log E_g g^2 S_aa(lam g^2)) for g ~ N(0, 1): up to constants, the
    L2(nu) errors of grad_V and grad_U for d = 1 (P = 0, e^2 = Gamma, z^2 = g^2 for Sigma_q = 1), by
    the trapezoid rule on g >= 0 over q <= 2 lam (kappa ln L + 30)
    (as selfnormalised.scalar_average; the integrand is analytic in g: step 0.4 agrees with 0.2 to
    ~1e-6 relative)."""
    from scipy.special import logsumexp

    L = validate.prompt_length("L", L)
    gs, log_w = query_average.half_line_rule(lam, L, kappa, step)
    sub = {"B": TERMS["B"], "aa": TERMS["aa"]}
    vals = [log_scalars(lam * g * g, L, terms=sub) for g in gs]
    lb = np.array([v["B"][0] for v in vals])
    la = np.array([v["aa"][0] for v in vals])
    with np.errstate(divide="ignore"):
        lg2 = 2 * np.log(gs)
    return float(logsumexp(log_w + lb)), float(logsumexp(log_w + la + lg2))
