"""numerics/first_order_reference.py, the brute-force tr C1(z) the product-law and mixture kernels
are checked against: closed forms it must reproduce, and prop-3.1's check that refutes a kernel
off by 1e-5."""

import math

import numpy as np

from softlin.claims.prop_3_1 import beyond
from softlin.numerics import first_order_reference as ref


def test_no_tilt_gives_the_covariance_term():
    """a = 0: w = 1 and tr C1 = E|V (z' - m)|^2 = tr(V Gamma V^T), for every law."""
    root = np.array([[1.0, 0.2], [0.0, 0.7]])
    V, m = np.array([[1.0, -0.5]]), np.array([0.3, 0.1])
    want = float(np.trace(V @ root @ root.T @ V.T))
    zero = np.zeros((2, 2))
    for kind in ("rademacher", "uniform"):
        got = ref.product_trace_c1(kind, m, root, zero, V, np.ones(2))
        assert math.isclose(got, want, rel_tol=1e-13)
    got = ref.mixture_trace_c1([1.0], [m], [root], zero, V, np.ones(2))
    assert math.isclose(got, want, rel_tol=1e-12)


def test_one_rademacher_coordinate_has_its_closed_form():
    """x = +-1, tilt b: w = e^{b x} / cosh b, m_a = tanh b, so
    tr C1 = (e^{2b} (1 - tanh b)^2 + e^{-2b} (1 + tanh b)^2) / (2 cosh^2 b); for a uniform
    coordinate the Gauss-Legendre rule against SciPy's adaptive quadrature of the same
    expectation."""
    from scipy import integrate

    for b in (0.3, 1.7):
        t = math.tanh(b)
        want = (math.exp(2 * b) * (1 - t) ** 2 + math.exp(-2 * b) * (1 + t) ** 2) / (
            2 * math.cosh(b) ** 2
        )
        got = ref.product_trace_c1("rademacher", [0.0], [[1.0]], [[b]], [[1.0]], [1.0])
        assert math.isclose(got, want, rel_tol=1e-14)
        s3 = math.sqrt(3)
        Z = integrate.quad(lambda x: math.exp(b * x), -s3, s3)[0] / (2 * s3)
        ma = integrate.quad(lambda x: x * math.exp(b * x), -s3, s3)[0] / (2 * s3) / Z
        want = integrate.quad(
            lambda x: (math.exp(b * x) / Z) ** 2 * (x - ma) ** 2, -s3, s3, epsabs=0, epsrel=1e-13
        )[0] / (2 * s3)
        got = ref.product_trace_c1("uniform", [0.0], [[1.0]], [[b]], [[1.0]], [1.0])
        assert math.isclose(got, want, rel_tol=1e-12)


def test_a_point_mass_component_and_too_large_ranks():
    """A component of rank 0 is one point; a rule beyond MAX_POINTS declines by BeyondReach."""
    got = ref.mixture_trace_c1([1.0], [[0.5]], [np.zeros((1, 0))], [[2.0]], [[1.0]], [1.0])
    assert got == 0.0
    for call in (
        lambda: ref.product_trace_c1(
            "uniform", np.zeros(5), np.eye(5), np.eye(5), np.eye(5), np.ones(5)
        ),
        lambda: ref.mixture_trace_c1(
            [1.0], [np.zeros(5)], [np.eye(5)], np.eye(5), np.eye(5), np.ones(5)
        ),
    ):
        try:
            call()
        except ref.BeyondReach:
            continue
        raise AssertionError("a rule of more than MAX_POINTS points ran")


def test_the_check_refutes_a_kernel_off_by_1e_5_and_passes_the_emitted_one():
    from softlin.numerics import first_order

    root = np.array([[1.0, 0.3], [0.0, 0.8]])
    U = np.array([[0.4, 0.2], [-0.3, 0.5]])  # not symmetric: U^T z differs from U z
    V, m, Sq = np.eye(2), np.zeros(2), np.array([[1.0, 0.3], [0.3, 0.6]])
    Z = beyond.kernel_queries(Sq, U, root)
    reference = {"rademacher": lambda z: ref.product_trace_c1("rademacher", m, root, U, V, z)}

    def checks(trace_fn):
        laws = {"rademacher": (None, None, trace_fn)}
        return beyond.kernel_checks(laws, reference, Z)[0]

    emitted = lambda Z: first_order.product_trace_c1("rademacher", root, U, V, Z)  # noqa: E731
    assert checks(emitted).passed is True
    assert checks(lambda Z: emitted(Z) * (1 + 1e-5)).passed is False
    transposed = lambda Z: first_order.product_trace_c1("rademacher", root, U.T, V, Z)  # noqa: E731
    assert checks(transposed).passed is False
