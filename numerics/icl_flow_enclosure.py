"""The in-context regression flow of Theorem 5.2 enclosed (docs/paper.md section 5): the (A, b)
gradient flow from the exact balanced start, its convergence to the Bayes endpoint for all t >= T
proved by a contraction certificate, and the time at which the infinite-prompt risk falls below
eps enclosed.

State y = (vec A (row by row), b) in R^(d^2 + 1); f(y) = -(grad_A R_inf, grad_b R_inf) from the
emitted kernels icl_grad_A, icl_grad_b evaluated on balls and polynomials (they use only + and *),
so the field is the derived one, not retyped. Start: A(0) = alpha G / ||G||_F (G = Theta Theta^T),
b(0) = alpha, enclosed in Arb (the norm's square root is a ball): the start is exactly balanced,
so g(y) = ||A||_F^2 - b^2 (kernel icl_balance) is 0 along the whole flow (proved symbolically in
derivations/icl_gradients.py).

Enclosure on [0, T]: numerics/arb/ode.py. T: the first segment end at which the risk's enclosure is
below every level asked for and the float estimate of the distance to the limit, ||f|| / rate, is
below LIMIT_APPROACH.

Contraction for t >= T. The minimisers form a curve, so mu_2(Df) >= 0 near them (Df = -Hess R has
a zero eigenvalue along the curve): f itself contracts nowhere. On the level set {g = 0} the flow
is also the flow of f~(y) = f(y) - k g(y) grad g(y) (k > 0), since g(y(t)) = 0. Its Jacobian
Df~ = -Hess R - k grad g grad g^T - k g Hess g is symmetric, and at a minimiser with g = 0 it is
negative definite (grad g is not orthogonal to the curve's tangent: at (A*, b*) the tangent is
(-Sigma^-1 / b^2, 1) and grad g = 2 (A*, -b*), whose product is -2 ||Sigma^-1||_F^2 / b*^3 - 2 b*).
On a 2-norm ball K = B(y_hat, rho_K) where lambda_max(Df~) <= -kappa < 0 (proved in balls,
numerics/arb/eigen.py), with y_hat a Newton-refined zero of f~:

- along any solution in K, d/dt ||f~(y)|| <= -kappa ||f~(y)||, so the path from y(T) has length at
  most ||f~(y(T))|| / kappa = ||f(y(T))|| / kappa; if ||y(T) - y_hat|| + that <= rho_K the solution
  stays in K forever and converges, at rate kappa, to a zero y_inf of f~ in K;
- f~ is one-sided Lipschitz with constant -kappa on K, so it has at most one zero there, and
  ||y_hat - y_inf|| <= ||f~(y_hat)|| / kappa: the limit's enclosure;
- g(y_inf) = 0 and f~(y_inf) = 0 give f(y_inf) = 0: y_inf is stationary, so (b > 0 on K, the
  symbolic stationary set) b Sigma A = I with ||A||_F = b, i.e. y_inf = (A*, b*).
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb, arb_mat

from . import icl_flows, kernels
from .arb import ode
from .arb.balls import float_down, float_up, outward
from .arb.context import precision
from .arb.eigen import symmetric_upper_eigenvalue
from .arb.jets import gradient_hessian, jacobian

BITS = 128  # Arb's working precision: rounding ~1e-38, far below the defects (1e-24)
ORDER = 20  # Taylor order of the segments
TOLERANCE = 1e-24  # target size of a segment's last Taylor terms (sets the step)
LIMIT_APPROACH = 1e-4  # integrate until ||f(y(T))|| / rate is below this times the scale
TIME_RESOLUTION = 1e-9  # T(eps) bisected to this relative width


def _object(values, shape):
    out = np.empty(shape, dtype=object)
    for index, v in zip(np.ndindex(*shape), values):
        out[index] = v
    return out


def _scalar(v):
    out = np.empty((), dtype=object)
    out[()] = v
    return out


def split(Sigma: np.ndarray, y: list):
    """(A, b) as kernel arguments: a d x d object array and a 0-d object array."""
    d = Sigma.shape[0]
    return _object(y[:-1], (d, d)), _scalar(y[-1])


def _item(x):
    return x[()] if isinstance(x, np.ndarray) and x.shape == () else x


def vector_field(Sigma: np.ndarray, grad_A=None, grad_b=None):
    """f(y) = -(grad_A R_inf, grad_b R_inf) on lists of balls or polynomials (emitted kernels;
    `grad_A`, `grad_b` replace them in sensitivity tests)."""
    gA = grad_A or kernels.icl_grad_A
    gb = grad_b or kernels.icl_grad_b

    def f(y):
        A, b = split(Sigma, y)
        return [-x for x in np.asarray(gA(Sigma, A, b)).ravel()] + [-_item(gb(Sigma, A, b))]

    return f


def risk(Sigma: np.ndarray):
    """R_inf(y) (kernel icl_risk) on a list of balls or polynomials."""

    def R(y):
        A, b = split(Sigma, y)
        return _item(kernels.icl_risk(Sigma, A, b))

    return R


def balance(Sigma: np.ndarray):
    """g(y) = ||A||_F^2 - b^2 (kernel icl_balance) on a list of balls or polynomials."""

    def g(y):
        A, b = split(Sigma, y)
        return _item(kernels.icl_balance(A, b))

    return g


def balanced_start(Sigma: np.ndarray, alpha: float, Theta=None) -> list:
    """The exact balanced start alpha G / ||G||_F, alpha as balls (G = Theta Theta^T in exact
    arithmetic from the float Theta; default Theta = I)."""
    d = Sigma.shape[0]
    Th = np.eye(d) if Theta is None else np.asarray(Theta, float)
    r = Th.shape[1]
    G = [
        [
            sum((arb(float(Th[i, k])) * arb(float(Th[j, k])) for k in range(r)), arb(0))
            for j in range(d)
        ]
        for i in range(d)
    ]
    norm = sum((x * x for row in G for x in row), arb(0)).sqrt()
    a = arb(float(alpha))
    return [a * x / norm for row in G for x in row] + [a]


def modified_jacobian(f, g, y: list, k: arb) -> arb_mat:
    """Df~ = Df - k grad g grad g^T - k g Hess g over the box y (module docstring)."""
    J = jacobian(f, y)
    grad, H = gradient_hessian(g, y)
    gy = g(y)
    n = len(y)
    out = arb_mat(n, n)
    for i in range(n):
        for j in range(n):
            out[i, j] = J[i, j] - k * grad[i] * grad[j] - k * gy * H[i, j]
    return out


def modified_field(f, g, y: list, k: arb) -> list:
    """f~(y) = f(y) - k g(y) grad g(y) over the box y (module docstring)."""
    grad, _ = gradient_hessian(g, y)
    gy = g(y)
    return [fi - k * gy * gi for fi, gi in zip(f(y), grad)]


def _mid(y):
    return [arb(v.mid()) for v in y]


def _float(y):
    return np.array([float(v.mid()) for v in y])


def choose_k(f, g, y: list) -> arb:
    """The weight k of the level-set term: the best of a few multiples of lambda_max(Hess R) /
    ||grad g||^2 at y by float eigenvalues (a heuristic; the certificate is proved at the k
    chosen)."""
    J = jacobian(f, y)
    n = len(y)
    Jf = np.array([[float(J[i, j].mid()) for j in range(n)] for i in range(n)])
    grad, _ = gradient_hessian(g, y)
    gf = np.array([float(x.mid()) for x in grad])
    base = max(np.abs(np.linalg.eigvalsh((Jf + Jf.T) / 2)).max(), 1e-12) / max(gf @ gf, 1e-300)
    best, best_rate = 1.0, -math.inf
    for factor in (0.125, 0.25, 0.5, 1.0, 2.0, 4.0):
        M = Jf - factor * base * np.outer(gf, gf)
        rate = -np.linalg.eigvalsh((M + M.T) / 2).max()
        if rate > best_rate:
            best, best_rate = factor * base, rate
    return arb(float(best)), best_rate


def newton_zero(f, g, y: list, k: arb, steps: int = 8) -> list:
    """A zero of f~ near y by Newton's method on midpoints (an approximation; its error is bounded
    by the contraction certificate)."""
    x = _mid(y)
    for _ in range(steps):
        J = modified_jacobian(f, g, x, k)
        F = modified_field(f, g, x, k)
        n = len(x)
        Jm = arb_mat([[arb(J[i, j].mid()) for j in range(n)] for i in range(n)])
        step = Jm.solve(arb_mat([[arb(v.mid())] for v in F]))
        x = [arb((x[i] - step[i, 0]).mid()) for i in range(n)]
    return x


def contraction(f, g, centre: list, r: arb) -> dict:
    """The certificate of the module docstring at the enclosed state y(T) in box(centre, r)."""
    k, rate = choose_k(f, g, centre)
    y_hat = newton_zero(f, g, centre, k)
    offset = ode.norm_upper([a - b for a, b in zip(centre, y_hat)])
    start_box = ode.widen(centre, r)
    F = ode.norm_upper(f(start_box))  # >= ||f(y(T))|| = ||f~(y(T))||
    estimate = float_up((offset + r)) + float_up(F) / max(rate, 1e-300)
    rho = arb(2 * estimate)
    result = {"k": k}
    for _ in range(4):  # shrink or grow the ball once or twice
        lam = symmetric_upper_eigenvalue(modified_jacobian(f, g, ode.widen(y_hat, rho), k))
        result.update(rho=rho, lambda_max=lam)
        if lam < 0:
            kappa = -arb(lam.upper())
            path = arb((offset + r + F / kappa).upper())
            result.update(kappa=kappa, path=path)
            if path <= rho:
                break
            rho = 2 * path
        else:
            rho = rho / 4
    if "kappa" not in result:
        result.update(kappa=arb(0), path=arb("inf"))
    b_low = (y_hat[-1] - rho).lower()
    fy = ode.norm_upper(modified_field(f, g, y_hat, k))
    kappa = result["kappa"]
    radius = arb((fy / kappa).upper()) if kappa > 0 else arb("inf")
    result.update(y_hat=y_hat, b_lower=arb(b_low), limit_radius=radius, F=F, offset=offset)
    return result


def enclose_flow(Sigma, alpha, Theta=None, levels=(1e-2, 1e-4), grad_A=None, grad_b=None):
    """Everything the thm-5.2 checks read: the tube, the contraction certificate, T(eps) for each
    level and the limit's enclosure (module docstring). Floats and intervals only in the result."""
    Sigma = np.asarray(Sigma, float)
    d = Sigma.shape[0]
    f = vector_field(Sigma, grad_A, grad_b)
    R, g = risk(Sigma), balance(Sigma)
    rate = icl_flows.transverse_rate(Sigma)
    As, bs = icl_flows.endpoint(Sigma)
    scale = max(1.0, float(np.abs(As).max()), bs)
    low = min(levels)

    def done(tube):
        centre, r = tube.end_state()
        if not R(ode.widen(centre, r)).upper() < low:
            return False
        return float(ode.norm_upper(f(centre)).upper()) / rate <= LIMIT_APPROACH * scale

    with precision(BITS):
        y0 = balanced_start(Sigma, alpha, Theta)
        tube = ode.enclose(f, y0, done, order=ORDER, tolerance=TOLERANCE)
        cert = None
        for attempt in range(3):
            if tube.failure:
                break
            centre, r = tube.end_state()
            cert = contraction(f, g, centre, r)
            proved = cert["kappa"] > 0 and cert["path"] <= cert["rho"] and cert["b_lower"] > 0
            if proved or attempt == 2:  # the certificate is that of the tube's end
                break
            t_goal = 1.5 * tube.t_end
            tube = ode.enclose(f, y0, lambda tb: tb.t_end >= t_goal, tube=tube)
        times = {}
        for eps in levels:
            c = ode.crossing(tube, R, eps, TIME_RESOLUTION) if tube.segments else None
            times[eps] = list(c) if c is not None else [math.nan, math.nan]
        centre, r = tube.end_state() if tube.segments else ([], arb("inf"))
        out = {
            "T": tube.t_end if tube.segments else 0.0,
            "segments": len(tube.segments),
            "failure": tube.failure,
            "radius_T": float_up(r),
            "widest_radius": max((float_up(s.r_sup) for s in tube.segments), default=math.inf),
            "risk_T": outward(R(ode.widen(centre, r))) if tube.segments else [math.nan] * 2,
            "time_to_risk": times,
            "scale": scale,
            "d": d,
        }
        if cert is None:
            out["certificate_failure"] = "no contraction certificate was attempted"
        elif not (cert["kappa"] > 0 and cert["path"] <= cert["rho"] and cert["b_lower"] > 0):
            out["certificate_failure"] = (
                f"no ball around the enclosed state at T = {out['T']:.6g} was proved contracting "
                f"and forward invariant (largest eigenvalue {float_up(cert['lambda_max']):.3g}, "
                f"path {float_up(cert['path']):.3g} against radius {float_up(cert['rho']):.3g})"
            )
        if cert is not None:
            y_hat, rad = cert["y_hat"], cert["limit_radius"]
            out.update(
                contraction_lambda_max=float_up(cert["lambda_max"]),
                contraction_radius=float(cert["rho"].mid()),
                contraction_path=float_up(cert["path"]),
                contraction_k=float(cert["k"].mid()),
                contraction_b_lower=float_down(cert["b_lower"]),
                limit_centre=[float(v.mid()) for v in y_hat],
                limit_radius=float_up(rad),
                limit_balls=[v + arb(0, rad.upper()) for v in y_hat],
                limit_box=[outward(v + arb(0, rad.upper())) for v in y_hat],
                decay_F=float_up(cert["F"]),
                decay_kappa=float_down(cert["kappa"]),
            )
    return out


def distance_upper(point, y_hat) -> float:
    """An upper bound of ||point - y_hat||_2 (floats, exact as balls)."""
    with precision(BITS):
        return float(
            ode.norm_upper([arb(float(p)) - arb(float(c)) for p, c in zip(point, y_hat)]).upper()
        )
