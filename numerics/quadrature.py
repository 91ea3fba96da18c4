"""Independent routes to T[mu](z): high-precision mpmath quadrature and tensor Gauss-Hermite.

mpmath route (any d, Gaussian and mixture): with z' = m + B g and a = U z, rotate g so that B^T a
lies along the first axis (g is rotation invariant); only that coordinate feels the tilt, so

    E[e^{a^T z'} z'] / E[e^{a^T z'}] = m + Gamma a * r(t) / t,   t = sqrt(a^T Gamma a),
    r(t) = int g e^{t g} phi(g) dg / int e^{t g} phi(g) dg   (two 1-D integrals, by mpmath.quad).

This uses only rotation invariance, not the lemma (which says r(t) = t). In d = 1 it is the direct
integral. Working precision: `dps` digits (default 40), so agreement to 1e-25 is meaningful.

Gauss-Hermite route (rank(Gamma) <= 3, float64): probabilists' Hermite nodes in each of the r
directions of B (B B^T = Gamma), weights exp(a^T z') shifted by their maximum. With n nodes the
rule is exact for polynomials of degree 2n - 1; exp(t g) is entire, and its truncation error decays
like t^{2n} / (2n)!, below 1e-16 for n = 60 and |t| <= 6.

`gauss_hermite` and `tensor_grid` are the one home of that rule for every Gauss-Hermite
quadrature in softlin (E f(g), g ~ N(0, I_dim)).

Reach of the mpmath route (what `mp_digits` derives). Both the output's terms and the tilt enter
its error: at `dps` digits the output V (m + Gamma a r(t)/t) is rounded to ~10^-dps S, S =
||V||_inf (||m||_inf + ||Gamma a||_inf); and the integrand exp(t g - g^2/2) is evaluated with a
relative error ~ (t^2 / 2) 10^-dps at the nodes that carry its mass (g near t), which moves the
weighted mean r(t) by that much times the spread of g (a few), so the output by ~ ||V|| ||B|| t^2
10^-dps. For a mixture the component logits log pi_k + a^T m_k + log I0(t_k) (about t_k^2 / 2)
are rounded to 10^-dps of their size, which moves the weights and the output by that times S. An
absolute error of 1e-30 (5 digits below the 40-digit check's 1e-25) therefore needs
30 + log10 max(S, ||V|| ||B|| t^2, S max|logit|) digits: 40 at every tilt and size up to 1e10, more
above (DPS_CAP digits at most: at 100 digits one pair of integrals takes ~2 s); beyond the cap the
route raises OutOfReach naming the value. A float64 answer (the Gauss-Hermite route's refinement,
`gauss_hermite_limit`) needs 16 digits relative only: r(t)'s error is at most min(t^2 10^-dps,
the spread of g) ~ min(t^2 10^-40, 10), relative to r ~ t at most 1e-20 at any t, so 40 digits
serve a Gaussian at every tilt; a mixture's weights need 20 + log10 max|logit| digits.

Reach of the Gauss-Hermite route (`gauss_hermite_bound`, derived). The n-node rule integrates
every polynomial of degree <= 2n - 1 exactly; for a monomial g^(2j), j >= n, it gives a value in
[0, E g^(2j)] (positive weights; the error is f^(2n)(xi) / (2n)! times a positive constant, and
f^(2n) >= 0), and 0 = E g^(2j+1) for the odd ones (symmetric nodes). Expanding e^(b g) and
g e^(b g) in powers of g, the rule's relative errors are at most P(Poisson(b^2/2) >= n) and
P(Poisson(b^2/2) >= n - 1) (the omitted terms sum to e^(b^2/2) times those tails). Over the
r coordinates of the tensor rule (b = B^T a, each |b_j| <= t) the tilted mean's relative errors add
up to eta = 2 r P(Poisson(t^2/2) >= n - 1), so its shift B b is off by at most eta ||B|| t. The
logits a^T z'_i are rounded to delta = d u ||a|| (||m|| + ||B|| (t + 6)) (u the unit roundoff; nodes
beyond t + 6 carry weights below e^-18), which moves the tilted mean by at most 2 delta ||B||; and
`psd_root` drops eigenvalues below 1e-12 max, whose tilt shift lambda_dropped ||a|| the rule never
sees. With n = 60, eta <= 1e-16 holds for t up to ~5.3 (P(Poisson(14) >= 59) = 5e-17). Where the
sum of these, times ||V||, exceeds REACH_RELATIVE times the row's largest output, the row is taken
from the mpmath route instead (rounded to float64); rows it cannot reach either are NaN.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from scipy.stats import poisson

from .laws import GaussianLaw, MixtureLaw, psd_root

DEFAULT_DPS = 40
DEFAULT_NODES = 60
# The mpmath route's most digits (module docstring: ~2 s per pair of integrals at 100 digits).
DPS_CAP = 80
# Absolute error the mpmath route aims at: 1e-30, five digits below the 1e-25 of the 40-digit check.
TARGET_DIGITS = 30
# A Gauss-Hermite row whose error bound exceeds this times its largest output is refined: a tenth
# of the 1e-12 float64 check's tolerance (claims/shared/limit_battery.py).
REACH_RELATIVE = 1e-13
UNIT_ROUNDOFF = 2.0**-53


class OutOfReach(ValueError):
    """A route asked for a value beyond its reach; the message names the value that exceeded it."""


def mp_digits(size) -> int:
    """Digits for an absolute error of 10^-TARGET_DIGITS on an output whose error scale (module
    docstring) is `size`: 40 while size <= 1e10, TARGET_DIGITS + log10(size) above; OutOfReach above
    DPS_CAP."""
    size = mp.mpf(size)
    dps = DEFAULT_DPS
    if size > 1:
        dps = max(DEFAULT_DPS, TARGET_DIGITS + int(mp.ceil(mp.log10(size))))
    if dps > DPS_CAP:
        raise OutOfReach(
            f"the output's error scale {mp.nstr(size, 3)} (terms, tilt^2, logits) needs {dps} "
            f"digits for an absolute error of 1e-{TARGET_DIGITS}, above the route's {DPS_CAP}"
        )
    return dps


def _inf_norm(x) -> mp.mpf:
    return max([abs(v) for v in x] or [mp.mpf(0)])


def _error_scale(components, Um, Vm, zm) -> mp.mpf:
    """The mpmath route's error scale (module docstring) for components [(log w, m, G)] (mp), at
    low precision: max(S, ||V|| ||B|| max(1, t^2), S max(1, |logits|)) over the components."""
    with mp.workdps(20):
        a = Um * zm
        v = max(mp.fsum(abs(Vm[i, j]) for j in range(Vm.cols)) for i in range(Vm.rows))
        scale = mp.mpf(0)
        for log_w, m, G in components:
            Ga = G * a
            t2 = abs((a.T * Ga)[0, 0])
            g = max(mp.fsum(abs(G[i, j]) for j in range(G.cols)) for i in range(G.rows))
            S = v * (_inf_norm(m) + _inf_norm(Ga))
            scale = max(scale, S, v * mp.sqrt(g) * max(1, t2))
            if len(components) > 1:  # one component's weight is 1 whatever its logit
                logit = abs(log_w) + abs((a.T * m)[0, 0]) + t2
                scale = max(scale, S * max(1, logit))
        return scale


def gauss_hermite(nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes x and weights w with sum_i w_i f(x_i) ~ E f(g), g ~ N(0, 1): probabilists' Hermite
    (weight e^{-x^2/2}), the weights divided by int e^{-x^2/2} dx = sqrt(2 pi), so they sum to 1 up
    to rounding; exact for polynomials of degree <= 2 nodes - 1."""
    x, w = hermegauss(nodes)
    w = w / math.sqrt(2 * math.pi)
    return x, w


def tensor_grid(nodes: int, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The product rule of `gauss_hermite` over g ~ N(0, I_dim): points (nodes^dim, dim) in
    itertools.product order (last coordinate fastest) and weights (nodes^dim,), each the product of
    its coordinates' weights taken left to right."""
    x, w = gauss_hermite(nodes)
    points = np.array(list(itertools.product(x, repeat=dim)))
    weights = np.prod(np.array(list(itertools.product(w, repeat=dim))), axis=1)
    return points, weights


def _mp_matrix(x) -> mp.matrix:
    arr = np.atleast_2d(np.asarray(x, dtype=float))
    return mp.matrix([[mp.mpf(float(v)) for v in row] for row in arr])


def _tilt_integrals(t: mp.mpf) -> tuple[mp.mpf, mp.mpf]:
    """(int e^{t g} phi, int g e^{t g} phi) by quadrature, split at the tilted mode t."""
    phi = lambda g: mp.exp(t * g - g * g / 2) / mp.sqrt(2 * mp.pi)
    points = [-mp.inf, t, mp.inf]
    return mp.quad(phi, points), mp.quad(lambda g: g * phi(g), points)


def _component_terms(m, G, a) -> tuple[mp.mpf, mp.matrix]:
    """(log E e^{a^T z'} as computed by quadrature, E[z' e^{a^T z'}] / E e^{a^T z'}) for N(m, G)."""
    Ga = G * a
    t2 = (a.T * Ga)[0, 0]
    shift = (a.T * m)[0, 0]
    if t2 <= 0:
        return shift, m
    t = mp.sqrt(t2)
    I0, I1 = _tilt_integrals(t)
    return shift + mp.log(I0), m + Ga * (I1 / I0 / t)


def gaussian_limit_mp(m, cov, U, V, z, dps: int | None = None) -> list:
    """T[N(m, cov)](z) by 1-D quadrature at `dps` digits: a list of k mpf values. By default the
    digits its reach needs for an absolute error of 1e-30 (mp_digits; OutOfReach beyond)."""
    if dps is None:
        dps = mp_digits(
            _error_scale(
                [(0, _mp_matrix(np.reshape(m, (-1, 1))), _mp_matrix(cov))],
                _mp_matrix(U),
                _mp_matrix(V),
                _mp_matrix(np.reshape(z, (-1, 1))),
            )
        )
    with mp.workdps(dps):
        mm, G, Um, Vm, zm = (
            _mp_matrix(np.reshape(m, (-1, 1))),
            _mp_matrix(cov),
            _mp_matrix(U),
            _mp_matrix(V),
            _mp_matrix(np.reshape(z, (-1, 1))),
        )
        _, mean = _component_terms(mm, G, Um * zm)
        out = Vm * mean
        return [out[i, 0] for i in range(out.rows)]


def mixture_limit_mp(law: MixtureLaw, U, V, z, dps: int | None = None) -> list:
    """T[mixture](z) by 1-D quadrature per component at `dps` digits (by default, as
    gaussian_limit_mp, the digits its reach needs; OutOfReach beyond)."""
    if dps is None:
        dps = mp_digits(
            _error_scale(
                [
                    (mp.log(float(w)), _mp_matrix(np.reshape(m, (-1, 1))), _mp_matrix(G))
                    for w, m, G in zip(law.weights, law.means, law.covs)
                ],
                _mp_matrix(U),
                _mp_matrix(V),
                _mp_matrix(np.reshape(z, (-1, 1))),
            )
        )
    with mp.workdps(dps):
        Um, Vm, zm = _mp_matrix(U), _mp_matrix(V), _mp_matrix(np.reshape(z, (-1, 1)))
        a = Um * zm
        logs, means = [], []
        for w, m, G in zip(law.weights, law.means, law.covs):
            log_norm, mean = _component_terms(_mp_matrix(np.reshape(m, (-1, 1))), _mp_matrix(G), a)
            logs.append(mp.log(mp.mpf(float(w))) + log_norm)
            means.append(mean)
        top = max(logs)
        weights = [mp.exp(l - top) for l in logs]
        total = mp.fsum(weights)
        mean = sum(
            (mean * (w / total) for w, mean in zip(weights[1:], means[1:])),
            means[0] * (weights[0] / total),
        )
        out = Vm * mean
        return [out[i, 0] for i in range(out.rows)]


def product_law_limit_mp(kind: str, U, V, z, dps: int = DEFAULT_DPS) -> list:
    """Exact limits of the iid controls, coordinate by coordinate: Rademacher by the two-point sum,
    uniform(-sqrt3, sqrt3) by mpmath quadrature."""
    with mp.workdps(dps):
        Um, Vm, zm = _mp_matrix(U), _mp_matrix(V), _mp_matrix(np.reshape(z, (-1, 1)))
        a = Um * zm
        f = mp.matrix(a.rows, 1)
        for j in range(a.rows):
            aj = a[j, 0]
            if kind == "rademacher":
                f[j, 0] = (mp.exp(aj) - mp.exp(-aj)) / (mp.exp(aj) + mp.exp(-aj))
            elif kind == "uniform":
                c = mp.sqrt(3)
                f[j, 0] = mp.quad(lambda x: x * mp.exp(aj * x), [-c, c]) / mp.quad(
                    lambda x: mp.exp(aj * x), [-c, c]
                )
            else:
                raise ValueError(f"unknown product law {kind!r}")
        out = Vm * f
        return [out[i, 0] for i in range(out.rows)]


def _gauss_hermite_terms(m: np.ndarray, root: np.ndarray, A: np.ndarray, nodes: int):
    """For tilts A (n, d): log E e^{a^T z'} and the tilted mean (n, d) by tensor Gauss-Hermite."""
    r = root.shape[1]
    if r > 3:
        raise ValueError(f"the Gauss-Hermite route supports rank(Gamma) <= 3, got rank {r}")
    if r == 0:
        return A @ m, np.broadcast_to(m, A.shape).copy()
    grid, w = tensor_grid(nodes, r)  # (N, r), (N,)
    log_w = np.log(w)
    points = m + grid @ root.T  # (N, d)
    logits = A @ points.T + log_w  # (n, N)
    top = logits.max(axis=1, keepdims=True)
    weights = np.exp(logits - top)
    total = weights.sum(axis=1, keepdims=True)
    return (np.log(total) + top)[:, 0], (weights @ points) / total


def gauss_hermite_bound(m, cov, root, A, nodes: int = DEFAULT_NODES):
    """(bound on the error of the tilted mean (n,), in z' units; bound on the error of log E
    e^{a^T z'} (n,)) of `_gauss_hermite_terms` for N(m, cov) with root B at the tilts A (n, d): the
    truncation, logit-rounding and dropped-eigenvalue terms of the module docstring. inf where a
    term overflows float64."""
    m, cov, A = np.asarray(m, float), np.asarray(cov, float), np.atleast_2d(A)
    r, d = root.shape[1], len(m)
    with np.errstate(over="ignore", invalid="ignore"):
        t = np.linalg.norm(A @ root, axis=1) if r else np.zeros(len(A))
        lam = t**2 / 2
        eta_mean = 2 * r * poisson.sf(nodes - 2, lam)  # P(Poisson >= n - 1), both moments
        eta_log = r * poisson.sf(nodes - 1, lam)  # P(Poisson >= n), the normaliser
        norm_b = float(np.linalg.norm(root, 2)) if r else 0.0
        a_norm = np.linalg.norm(A, axis=1)
        delta = d * UNIT_ROUNDOFF * a_norm * (np.linalg.norm(m) + norm_b * (t + 6))
        dropped = float(np.linalg.norm(cov - root @ root.T, 2))
        mean_bound = eta_mean * norm_b * t + 2 * delta * norm_b + dropped * a_norm
        log_bound = eta_log + delta + dropped * a_norm**2 / 2
    bad = ~np.isfinite(mean_bound) | ~np.isfinite(log_bound)
    return np.where(bad, np.inf, mean_bound), np.where(bad, np.inf, log_bound)


def _beyond_reach(out: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Rows whose error bound exceeds REACH_RELATIVE times their largest output (or not finite)."""
    with np.errstate(over="ignore", invalid="ignore"):
        size = np.max(np.abs(out), axis=1) if out.shape[1] else np.zeros(len(out))
        return ~(bound <= REACH_RELATIVE * size) & (bound > 0) | ~np.all(np.isfinite(out), axis=1)


def _gaussian_rule(law: GaussianLaw, U, V, Z, nodes: int):
    """(the tensor rule's T (n, k), rows beyond its reach (n,) bool)."""
    A = Z @ U.T
    with np.errstate(over="ignore", invalid="ignore"):
        _, mean = _gauss_hermite_terms(law.mean, law.root, A, nodes)
        out = mean @ V.T
    bound, _ = gauss_hermite_bound(law.mean, law.cov, law.root, A, nodes)
    return out, _beyond_reach(out, float(np.linalg.norm(V, 2)) * bound)


def gauss_hermite_limit(
    law: GaussianLaw, U, V, Z, nodes: int = DEFAULT_NODES, refine: bool = True
) -> np.ndarray:
    """T[N(m, Gamma)](z) for rows z of Z (n, d), by tensor Gauss-Hermite. Returns (n, k). With
    `refine`, a row beyond the rule's reach (gauss_hermite_bound times ||V|| above REACH_RELATIVE
    of the row) is the mpmath route at 40 digits rounded to float64 (module docstring)."""
    Z = np.atleast_2d(Z)
    out, far = _gaussian_rule(law, U, V, Z, nodes)
    if not refine:
        return out
    for i in np.flatnonzero(far):
        out[i] = [float(x) for x in gaussian_limit_mp(law.mean, law.cov, U, V, Z[i], DEFAULT_DPS)]
    return out


def _mixture_rule(law: MixtureLaw, U, V, Z, nodes: int):
    """(the rule's T (n, k), rows beyond its reach (n,) bool, the logits (K, n)): each component's
    bound, and the weights' error 2 max_k (log-normaliser bound + u |logit_k|) times the
    components' spread."""
    A = Z @ U.T
    logs, means, mean_bounds, log_bounds = [], [], [], []
    with np.errstate(over="ignore", invalid="ignore"):
        for w, m, G in zip(law.weights, law.means, law.covs):
            root = psd_root(G)
            log_norm, mean = _gauss_hermite_terms(m, root, A, nodes)
            logs.append(np.log(w) + log_norm)
            means.append(mean)
            mb, lb = gauss_hermite_bound(m, G, root, A, nodes)
            mean_bounds.append(mb)
            log_bounds.append(lb + UNIT_ROUNDOFF * np.abs(logs[-1]))
        logs = np.array(logs)  # (K, n)
        weights = np.exp(logs - logs.max(axis=0))
        weights /= weights.sum(axis=0)
        out = np.einsum("kn,knd->nd", weights, np.array(means)) @ V.T
        # a softmax moves by d w_k = w_k (d l_k - sum_j w_j d l_j): the output by at most
        # 2 max|d l| sum_k w_k ||mean_k - mean|| (0 when one component carries all the weight)
        mixed = np.einsum("kn,knd->nd", weights, np.array(means))
        spread = np.sum(weights * np.linalg.norm(np.array(means) - mixed[None], axis=2), axis=0)
        bound = float(np.linalg.norm(V, 2)) * (
            np.max(mean_bounds, axis=0) + 2 * np.max(log_bounds, axis=0) * spread
        )
    bound = np.where(np.isfinite(bound), bound, np.inf)
    return out, _beyond_reach(out, bound), logs


def mixture_gauss_hermite_limit(
    law: MixtureLaw, U, V, Z, nodes: int = DEFAULT_NODES, refine: bool = True
) -> np.ndarray:
    """The mixture's limit by tensor Gauss-Hermite per component, the components' weights
    softmax(log pi_k + log Z_k(a)). With `refine`, rows beyond reach (_mixture_rule) are the
    mpmath route at 20 + log10 max|logit| digits (at least 40; module docstring), NaN beyond
    DPS_CAP."""
    Z = np.atleast_2d(Z)
    out, far, logs = _mixture_rule(law, U, V, Z, nodes)
    if not refine:
        return out
    for i in np.flatnonzero(far):
        with np.errstate(over="ignore", invalid="ignore"):
            top = float(np.max(np.abs(logs[:, i])))
        dps = DEFAULT_DPS
        if not math.isfinite(top):
            dps = DPS_CAP + 1
        elif top > 1:
            dps = max(DEFAULT_DPS, 20 + math.ceil(math.log10(top)))
        if dps <= DPS_CAP:
            out[i] = [float(x) for x in mixture_limit_mp(law, U, V, Z[i], dps)]
        else:
            out[i] = np.nan
    return out


def refined_rows(law, U, V, Z, nodes: int = DEFAULT_NODES) -> np.ndarray:
    """Which rows of Z the refining float routes above take from the mpmath route (bool (n,))."""
    Z = np.atleast_2d(Z)
    if isinstance(law, MixtureLaw):
        return _mixture_rule(law, U, V, Z, nodes)[1]
    return _gaussian_rule(law, U, V, Z, nodes)[1]
