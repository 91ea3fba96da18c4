"""First and second derivatives of a vector field or a scalar function over a box, by forward-mode
differentiation in Arb (python-flint), so that no derivative is typed by hand.

A function written with + and * only (the emitted kernels on NumPy object arrays are) accepts
`arb_poly` arguments: evaluating it at y + e v, with y a vector of balls (a box) and e the
polynomial variable, gives the polynomial F(e) = F(y) + e DF(y)[v] + e^2 D^2F(y)[v, v] / 2 + ...,
every coefficient a ball that contains its exact value for every point of the box. So

- `jacobian(f, y)`: column j of Df over the box is the e-coefficient of f(y + e e_j);
- `gradient_hessian(g, y)`: grad g_i is the e-coefficient of g(y + e e_i), and by polarisation
  H_ij = c(e_i + e_j) - c(e_i) - c(e_j) with c(v) the e^2-coefficient of g(y + e v) (= v^T H v / 2).

Call inside a `precision` block (numerics/arb/context.py).
"""

from __future__ import annotations

from flint import arb, arb_mat, arb_poly


def coefficient(p, k: int) -> arb:
    """The e^k coefficient of a polynomial (0 beyond its length; an arb is a constant)."""
    if not isinstance(p, arb_poly):
        return arb(p) if k == 0 else arb(0)
    c = p.coeffs()
    return c[k] if k < len(c) else arb(0)


def _shifted(y, direction) -> list:
    """y + e v as polynomials in e, v given as {index: weight}."""
    return [arb_poly([yi, direction.get(i, 0)]) for i, yi in enumerate(y)]


def jacobian(f, y) -> arb_mat:
    """The Jacobian of the vector field f (a list of n values from a list of n) over the box y."""
    n = len(y)
    J = arb_mat(n, n)
    for j in range(n):
        column = f(_shifted(y, {j: 1}))
        for i in range(n):
            J[i, j] = coefficient(column[i], 1)
    return J


def gradient_hessian(g, y) -> tuple[list, arb_mat]:
    """(grad g, Hess g) of a scalar function over the box y (module docstring)."""
    n = len(y)
    first, second = [], []
    for i in range(n):
        value = g(_shifted(y, {i: 1}))
        first.append(coefficient(value, 1))
        second.append(coefficient(value, 2))
    H = arb_mat(n, n)
    for i in range(n):
        H[i, i] = 2 * second[i]
        for j in range(i + 1, n):
            both = coefficient(g(_shifted(y, {i: 1, j: 1})), 2)
            H[i, j] = H[j, i] = both - second[i] - second[j]
    return first, H
