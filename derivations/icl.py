"""In-context linear regression (docs/paper.md section 5, Theorem 5.2): the infinite-prompt risk, derived.

Tokens z_i = (x_i, y_i) in R^(d+1), x_i ~ N(0, Sigma), y_i = w^T x_i, task w ~ N(0, I_d); query
z_q = (x, 0); prediction = last coordinate of the attention output; loss 1/2 (prediction - w^T x)^2.

Derivation route (nothing below types the known risk in):

1. Given w the tokens are N(0, Gamma_w), Gamma_w = C_w Sigma C_w^T with C_w = [I_d; w^T], i.e.
   Gamma_w = B_w B_w^T with B_w = C_w S for any root Sigma = S S^T (rank d).
2. Lemma 2.1 (`lemma21.gaussian_limit_matrix`, m = 0) gives the infinite-prompt output
   V Gamma_w U z_q; its last coordinate is the prediction.
3. E over x ~ N(0, Sigma) of the squared error uses the second moment E[x x^T] = S S^T, itself the
   zero-tilt second moment of `tilt.tilt_moments_entries` (so derived from the 1-D integrals).
4. E over w ~ N(0, I) of the resulting quartic polynomial: monomials are replaced by products of the
   1-D Gaussian moments E g^p (`tilt.gaussian_moment_1d(p)` at t = 0).

This gives R_inf(U, V) for the full (d+1) x (d+1) parameters with symbolic entries (d = 1, 2). Only
the block U11 = U[:d, :d], the row u^T = U[d, :d], and the last row of V, (v^T, b), can enter (the
query's last coordinate is 0 and only the last output coordinate is read). The suite then *proves*
that the entry derivation equals the matrix form (Sigma symmetric, tau = tr Sigma,
kappa = (tr Sigma)^2 + 2 tr Sigma^2 = E (w^T Sigma w)^2):

    R_full = 1/2 [ P^T Sigma P + tr(M^T Sigma M) + b^2 kappa u^T Sigma u + 2 b tau P^T Sigma u ],
    P = U11^T Sigma v,   M = b U11^T Sigma - I + u v^T Sigma,

and its restriction to U = [[A, 0], [0, 0]], V's last row (0, ..., 0, b), equals docs/paper.md's
R_inf(A, b) = 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T).

Flow facts (all proved with symbolic entries for d = 1, 2, 3):
    grad_A R = b Sigma (b Sigma A - I) Sigma,   grad_b R = tr(Sigma A Sigma (b Sigma A - I)^T);
    d/dt (||A||_F^2 - b^2) = 0 along dA/dt = -grad_A R, db/dt = -grad_b R;
    stationary points: b Sigma A = I, or b = 0 and tr(Sigma A Sigma) = 0 (on the balanced set
    ||A||_F = |b| the second family is the origin only);
    endpoint b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1: b* Sigma A* = I, balanced,
    zero risk (checked exactly for rational Sigma by `endpoint_exact`).
Block invariance: on {u = 0, v = 0} the full-flow derivatives of u and v vanish identically
(proved: grad_u R_full = grad_v R_full = 0 there, since every surviving term is odd in w).
"""

from __future__ import annotations


import sympy as sp

from . import lemma21, tilt
from .gaussian_expectations import standard_expectation
from .proof import Proof, prove_zero

b_sym = sp.Symbol("b", real=True)


# ---------------------------------------------------------------------------------------------
# Gaussian expectations of polynomials, from the derived 1-D moments.

gaussian_expectation = standard_expectation   # E over independent N(0, 1) variables


# ---------------------------------------------------------------------------------------------
# Entry derivation of R_inf(U, V).

def entry_symbols(d: int):
    """Symbolic root S of Sigma (lower triangular), full U, V ((d+1) x (d+1)), task w, query root g."""
    S = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"s{i}{j}", real=True) if j <= i else 0)
    U = sp.Matrix(d + 1, d + 1, lambda i, j: sp.Symbol(f"u{i}{j}", real=True))
    V = sp.Matrix(d + 1, d + 1, lambda i, j: sp.Symbol(f"v{i}{j}", real=True))
    w = sp.Matrix(d, 1, sp.symbols(f"w0:{d}", real=True))
    return S, U, V, w


def derived_full_risk(d: int) -> sp.Expr:
    """R_inf(U, V) with symbolic entries, by Lemma 2.1 and Gaussian expectations (module docstring)."""
    S, U, V, w = entry_symbols(d)
    C = sp.Matrix.vstack(sp.eye(d), w.T)                 # tokens (x, w^T x) = C x
    B_w = C * S                                          # Gamma_w = B_w B_w^T
    # The prediction is linear in the query x: pred = r^T x with r^T = e_last^T V Gamma_w U [I; 0].
    s = lemma21.limit_symbols(d + 1, d + 1, 1)
    limit = lemma21.gaussian_limit_matrix(s)
    columns = []
    for j in range(d):                                   # query e_j (last coordinate 0)
        e_j = sp.Matrix(d + 1, 1, lambda i, _: 1 if i == j else 0)
        columns.append(limit.subs({s["m"]: sp.zeros(d + 1, 1), s["Gamma"]: B_w * B_w.T, s["U"]: U,
                                   s["V"]: V, s["z"]: e_j}).as_explicit())
    T = sp.Matrix.hstack(*columns)
    r = T[d, :].T                                        # pred = r^T x
    err = r - w                                          # pred - w^T x = err^T x
    # E_x (err^T x)^2 = err^T E[x x^T] err, E[x x^T] = zero-tilt second moment of x = S g.
    _, _, second = tilt.tilt_moments_entries(sp.zeros(d, 1), sp.zeros(d, 1), S)
    inner = sp.expand((err.T * second * err)[0, 0] / 2)
    return gaussian_expectation(inner, list(w))


def matrix_full_risk(Sigma: sp.Matrix, U11, u, v, b) -> sp.Expr:
    """The matrix form of R_full (module docstring), for explicit matrices."""
    d = Sigma.shape[0]
    tau = Sigma.trace()
    kappa = tau**2 + 2 * (Sigma * Sigma).trace()
    P = U11.T * Sigma * v
    M = b * U11.T * Sigma - sp.eye(d) + u * v.T * Sigma
    return ((P.T * Sigma * P)[0, 0] + (M.T * Sigma * M).trace() + b**2 * kappa * (u.T * Sigma * u)[0, 0]
            + 2 * b * tau * (P.T * Sigma * u)[0, 0]) / 2


def paper_risk(Sigma, A, b) -> sp.Expr:
    """docs/paper.md's R_inf(A, b) = 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T) (comparison target only)."""
    M = b * Sigma * A - sp.eye(Sigma.shape[0])
    return (M * Sigma * M.T).trace() / 2


def _blocks(U: sp.Matrix, V: sp.Matrix, d: int):
    return U[:d, :d], U[d, :d].T, V[d, :d].T, V[d, d]


def full_risk_proofs(d: int) -> list[Proof]:
    S, U, V, w = entry_symbols(d)
    derived = derived_full_risk(d)
    Sigma = S * S.T
    U11, u, v, b = _blocks(U, V, d)
    tag = f"d={d}"
    out = [prove_zero(f"derived R_inf(U, V) (Lemma 2.1 + Gaussian expectations) equals the matrix form R_full [{tag}]",
                      derived - matrix_full_risk(Sigma, U11, u, v, b))]
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    bb = sp.Symbol("b", real=True)
    restrict = {U[i, j]: (A[i, j] if i < d and j < d else 0) for i in range(d + 1) for j in range(d + 1)}
    restrict.update({V[d, j]: 0 for j in range(d)})
    restrict[V[d, d]] = bb
    out.append(prove_zero(f"derived R_inf restricted to U = [[A,0],[0,0]], V last row (0,..,0,b) equals "
                          f"docs/paper.md's 1/2 tr((b Sigma A - I) Sigma (b Sigma A - I)^T) [{tag}]",
                          derived.subs(restrict) - paper_risk(Sigma, A, bb)))
    # Only U11, u, v, b enter: the derivative in every other entry is zero.
    others = [U[i, d] for i in range(d + 1)] + [V[i, j] for i in range(d) for j in range(d + 1)]
    out.append(prove_zero(f"R_inf(U, V) does not depend on U's last column nor on V's first d rows [{tag}]",
                          sp.Matrix([sp.diff(derived, x) for x in others])))
    return out


# ---------------------------------------------------------------------------------------------
# Gradients of the full and restricted risks (matrix forms, proved against entry derivatives).

def full_gradients(Sigma, U11, u, v, b):
    """(grad_U11, grad_u, grad_v, grad_b) of R_full in matrix form (Sigma symmetric)."""
    d = Sigma.shape[0]
    tau = Sigma.trace()
    kappa = tau**2 + 2 * (Sigma * Sigma).trace()
    P = U11.T * Sigma * v
    M = b * U11.T * Sigma - sp.eye(d) + u * v.T * Sigma
    gU = Sigma * v * P.T * Sigma + b * Sigma * M.T * Sigma + b * tau * Sigma * v * u.T * Sigma
    gu = Sigma * M * Sigma * v + b**2 * kappa * Sigma * u + b * tau * Sigma * P
    gv = Sigma * U11 * Sigma * P + Sigma * M.T * Sigma * u + b * tau * Sigma * U11 * Sigma * u
    gb = (M.T * Sigma * U11.T * Sigma).trace() + b * kappa * (u.T * Sigma * u)[0, 0] + tau * (P.T * Sigma * u)[0, 0]
    return gU, gu, gv, gb


def restricted_gradients(Sigma, A, b):
    """(grad_A, grad_b) of R_inf(A, b) in matrix form."""
    M = b * Sigma * A - sp.eye(Sigma.shape[0])
    return b * Sigma * M * Sigma, (Sigma * A * Sigma * M.T).trace()


def _sym_sigma(d: int) -> sp.Matrix:
    return sp.Matrix(d, d, lambda i, j: sp.Symbol(f"S{min(i, j)}{max(i, j)}", real=True))


def gradient_proofs(d: int) -> list[Proof]:
    tag = f"d={d}"
    Sigma = _sym_sigma(d)
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    U11 = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"p{i}{j}", real=True))
    u = sp.Matrix(d, 1, sp.symbols(f"q0:{d}", real=True))
    v = sp.Matrix(d, 1, sp.symbols(f"r0:{d}", real=True))
    b = b_sym
    R = paper_risk(Sigma, A, b)
    gA, gb = restricted_gradients(Sigma, A, b)
    out = [prove_zero(f"grad_A R_inf = b Sigma (b Sigma A - I) Sigma [{tag}]",
                      gA - sp.Matrix(d, d, lambda i, j: sp.diff(R, A[i, j]))),
           prove_zero(f"grad_b R_inf = tr(Sigma A Sigma (b Sigma A - I)^T) [{tag}]", gb - sp.diff(R, b))]
    # Conservation: d/dt (||A||_F^2 - b^2) = 2 <A, -grad_A> - 2 b (-grad_b).
    rate = -2 * sum(A[i, j] * gA[i, j] for i in range(d) for j in range(d)) + 2 * b * gb
    out.append(prove_zero(f"d/dt (||A||_F^2 - b^2) = 0 along the (A, b) gradient flow [{tag}]", rate))
    # Stationary set: grad_A = 0 and grad_b = 0 on b Sigma A = I (A = Sigma^-1 / b), and at b = 0 exactly
    # when tr(Sigma A Sigma) = 0.
    Ainv = Sigma.inv() / b
    out.append(prove_zero(f"b Sigma A = I is stationary (both gradients vanish at A = Sigma^-1 / b) [{tag}]",
                          sp.Matrix([sp.simplify(x) for x in gA.subs(dict(zip(A, Ainv)))] + [sp.simplify(gb.subs(dict(zip(A, Ainv))))])))
    out.append(prove_zero(f"at b = 0: grad_A R = 0 and grad_b R = -tr(Sigma A Sigma) [{tag}]",
                          sp.Matrix(list(gA.subs(b, 0)) + [gb.subs(b, 0) + (Sigma * A * Sigma).trace()])))
    # Full gradients and block invariance.
    Rf = matrix_full_risk(Sigma, U11, u, v, b)
    fU, fu, fv, fb = full_gradients(Sigma, U11, u, v, b)
    out.append(prove_zero(f"full gradients (U11, u, v, b) of R_full equal their matrix forms [{tag}]",
                          sp.Matrix(list(fU - sp.Matrix(d, d, lambda i, j: sp.diff(Rf, U11[i, j])))
                                    + list(fu - sp.Matrix([sp.diff(Rf, x) for x in u]))
                                    + list(fv - sp.Matrix([sp.diff(Rf, x) for x in v]))
                                    + [fb - sp.diff(Rf, b)])))
    on_block = {**{x: 0 for x in u}, **{x: 0 for x in v}}
    out.append(prove_zero(f"block invariance: grad_u R_full = grad_v R_full = 0 on {{u = 0, v = 0}} [{tag}]",
                          sp.Matrix(list(fu.subs(on_block)) + list(fv.subs(on_block)))))
    out.append(prove_zero(f"on {{u = 0, v = 0}} the full flow of (U11, b) is the (A, b) flow [{tag}]",
                          sp.Matrix(list(fU.subs(on_block) - gA.subs(dict(zip(A, U11)))) +
                                    [fb.subs(on_block) - gb.subs(dict(zip(A, U11)))])))
    return out


# ---------------------------------------------------------------------------------------------
# Endpoint in exact arithmetic.

def endpoint(Sigma: sp.Matrix):
    """b* = tr(Sigma^-2)^(1/4), A* = tr(Sigma^-2)^(-1/4) Sigma^-1 (exact SymPy numbers)."""
    Sinv = Sigma.inv()
    t = (Sinv * Sinv).trace()
    return Sinv * t ** sp.Rational(-1, 4), t ** sp.Rational(1, 4)


def endpoint_exact(Sigma: sp.Matrix) -> dict:
    """For a rational SPD Sigma: risk, gradients and balance defect at (A*, b*), each reduced exactly."""
    A, b = endpoint(Sigma)
    gA, gb = restricted_gradients(Sigma, A, b)
    d = Sigma.shape[0]
    balance = sum(A[i, j] ** 2 for i in range(d) for j in range(d)) - b**2
    return {
        "risk": sp.nsimplify(sp.simplify(paper_risk(Sigma, A, b))),
        "grad_A_max": max(abs(sp.simplify(x)) for x in gA),
        "grad_b": sp.simplify(gb),
        "balance": sp.simplify(balance),
        "b_sigma_A_minus_I": max(abs(sp.simplify(x)) for x in (b * Sigma * A - sp.eye(d))),
        "b_star": b,
    }


# ---------------------------------------------------------------------------------------------
# Kernel expressions (dimension-free MatrixSymbols).

def kernel_symbols(d=None):
    d = d if d is not None else sp.Symbol("d", integer=True, positive=True)
    return {"Sigma": sp.MatrixSymbol("Sigma", d, d), "A": sp.MatrixSymbol("A", d, d), "b": b_sym,
            "u": sp.MatrixSymbol("u", d, 1), "v": sp.MatrixSymbol("v", d, 1), "d": d}


def kernel_risk(k):
    S, A, b = k["Sigma"], k["A"], k["b"]
    M = b * S * A - sp.Identity(k["d"])
    return sp.Trace(M * S * M.T) / 2


def kernel_grad_A(k):
    S, A, b = k["Sigma"], k["A"], k["b"]
    return b * S * (b * S * A - sp.Identity(k["d"])) * S


def kernel_grad_b(k):
    S, A, b = k["Sigma"], k["A"], k["b"]
    return sp.Trace(S * A * S * (b * S * A - sp.Identity(k["d"])).T)


def kernel_full(k):
    """(R_full, grad_U11, grad_u, grad_v, grad_b) as matrix expressions (U11 is k['A'])."""
    S, U11, u, v, b = k["Sigma"], k["A"], k["u"], k["v"], k["b"]
    I = sp.Identity(k["d"])
    tau = sp.Trace(S)
    kappa = sp.Trace(S) ** 2 + 2 * sp.Trace(S * S)
    P = U11.T * S * v
    M = b * U11.T * S - I + u * v.T * S
    R = (sp.Trace(P.T * S * P) + sp.Trace(M.T * S * M) + b**2 * kappa * sp.Trace(u.T * S * u)
         + 2 * b * tau * sp.Trace(P.T * S * u)) / 2
    gU = S * v * P.T * S + b * S * M.T * S + b * tau * S * v * u.T * S
    gu = S * M * S * v + b**2 * kappa * S * u + b * tau * S * P
    gv = S * U11 * S * P + S * M.T * S * u + b * tau * S * U11 * S * u
    gb = sp.Trace(M.T * S * U11.T * S) + b * kappa * sp.Trace(u.T * S * u) + tau * sp.Trace(P.T * S * u)
    return R, gU, gu, gv, gb


def kernel_loss_variance(k):
    """Var over queries x ~ N(0, Sigma) of the infinite-prompt loss (1/2) x^T K x, K = M^T M,
    M = b Sigma A - I: tr((K Sigma)^2) / 2 (proved in `loss_variance_proofs`)."""
    S, A, b = k["Sigma"], k["A"], k["b"]
    M = b * S * A - sp.Identity(k["d"])
    KS = M.T * M * S
    return sp.Trace(KS * KS) / 2


def loss_variance_proofs(d: int) -> list[Proof]:
    """Var[(1/2) x^T K x] = tr((K Sigma)^2) / 2 for x = S g, g ~ N(0, I), Sigma = S S^T, any symmetric K
    (symbolic entries), with the Gaussian moments of `gaussian_expectations`."""
    S = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"s{i}{j}", real=True) if j <= i else 0)
    K = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"k{min(i, j)}{max(i, j)}", real=True))
    g = sp.symbols(f"g0:{d}", real=True)
    x = S * sp.Matrix(g)
    loss = (x.T * K * x)[0, 0] / 2
    var = standard_expectation(loss**2, g) - standard_expectation(loss, g) ** 2
    KS = K * S * S.T
    return [prove_zero(f"Var of the loss (1/2) x^T K x, x ~ N(0, Sigma): tr((K Sigma)^2)/2 [d={d}]",
                       var - (KS * KS).trace() / 2)]


def kernel_proofs(d: int) -> list[Proof]:
    """The emitted dimension-free expressions equal the proved explicit ones at dimension d."""
    k = kernel_symbols(d)
    Sigma = _sym_sigma(d)
    A = sp.Matrix(d, d, lambda i, j: sp.Symbol(f"a{i}{j}", real=True))
    u = sp.Matrix(d, 1, sp.symbols(f"q0:{d}", real=True))
    v = sp.Matrix(d, 1, sp.symbols(f"r0:{d}", real=True))
    entries = {}
    for name, value in (("Sigma", Sigma), ("A", A), ("u", u), ("v", v)):
        entries.update({k[name][i, j]: value[i, j] for i in range(value.shape[0]) for j in range(value.shape[1])})

    def ex(e):
        e = e.replace(lambda x: isinstance(x, sp.Trace), lambda x: sp.Matrix(x.arg.as_explicit()).trace())
        e = sp.Matrix(e.as_explicit()) if isinstance(e, sp.MatrixExpr) else sp.Matrix([e.doit()])
        return e.applyfunc(lambda x: sp.expand(x.doit().xreplace(entries)))

    gA, gb = restricted_gradients(Sigma, A, b_sym)
    R, gU, gu, gv, gbf = kernel_full(k)
    fU, fu, fv, fb = full_gradients(Sigma, A, u, v, b_sym)
    tag = f"d={d}"
    return [
        prove_zero(f"emitted icl_risk / grad kernels equal the proved expressions [{tag}]",
                   sp.Matrix(list(ex(kernel_risk(k)) - sp.Matrix([paper_risk(Sigma, A, b_sym)]))
                             + list(ex(kernel_grad_A(k)) - gA) + list(ex(kernel_grad_b(k)) - sp.Matrix([gb])))),
        prove_zero(f"emitted full-risk kernels equal the proved expressions [{tag}]",
                   sp.Matrix(list(ex(R) - sp.Matrix([matrix_full_risk(Sigma, A, u, v, b_sym)]))
                             + list(ex(gU) - fU) + list(ex(gu) - fu) + list(ex(gv) - fv)
                             + list(ex(gbf) - sp.Matrix([fb])))),
    ]


def proofs() -> list[Proof]:
    out = []
    for d in (1, 2):
        out += full_risk_proofs(d)
    for d in (1, 2, 3):
        out += gradient_proofs(d)
    for d in (1, 2):
        out += kernel_proofs(d)
    for d in (1, 2, 3):
        out += loss_variance_proofs(d)
    return out
