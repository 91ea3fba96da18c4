"""The in-context regression algorithms against independent routes: the per-prompt softmax gradient
against finite differences of its loss and against the emitted sample-gradient kernels; the emitted
transverse rate against the Hessian of R_inf at the endpoint."""

import numpy as np

from softlin.numerics import icl_flows, icl_training, kernels


def _loss(X, x, A, b):
    """1/2 |b xhat - x|^2 for one prompt, written as a plain loop (no shared code with the
    batch)."""
    scores = np.array([X[i] @ A @ x for i in range(len(X))])
    w = np.exp(scores - scores.max())
    xhat = sum(wi * Xi for wi, Xi in zip(w / w.sum(), X))
    return 0.5 * float(np.sum((b * xhat - x) ** 2))


def _prompts(d=3, L=7, k=4, seed=11):
    rng = np.random.default_rng(seed)
    return (
        rng.standard_normal((k, L, d)),
        rng.standard_normal((k, d)),
        0.4 * rng.standard_normal((d, d)),
        0.9,
    )


def test_prompt_gradient_batch_matches_central_differences_of_the_per_prompt_loss():
    X, x, A, b = _prompts()
    d = A.shape[0]
    G = icl_training.prompt_gradient_batch(X, x, A, b)
    h = 1e-6  # central differences: error O(h^2) times third derivatives of order 1, far below 1e-7
    for n in range(len(X)):
        for j in range(d * d):
            E = np.zeros(d * d)
            E[j] = h
            E = E.reshape(d, d)
            fd = (_loss(X[n], x[n], A + E, b) - _loss(X[n], x[n], A - E, b)) / (2 * h)
            assert abs(fd - G[n, j]) < 1e-7, (n, j, fd, G[n, j])
        fd = (_loss(X[n], x[n], A, b + h) - _loss(X[n], x[n], A, b - h)) / (2 * h)
        assert abs(fd - G[n, -1]) < 1e-7


def _loss_at_w(X, x, w, A, b):
    """1/2 (b S - w^T x)^2 with labels y_i = w^T x_i and S = sum_i p_i y_i, a plain loop."""
    scores = np.array([X[i] @ A @ x for i in range(len(X))])
    p = np.exp(scores - scores.max())
    S = sum(pi * (w @ Xi) for pi, Xi in zip(p / p.sum(), X))
    return 0.5 * float((b * S - w @ x) ** 2)


def test_the_gradients_at_each_task_vector_are_the_loss_the_training_runs_on():
    """With w: central differences of the loss at that w, and their mean over a PromptSample is
    the training's own gradient to rounding (what thm-5.2's standard errors rest on)."""
    X, x, A, b = _prompts(seed=13)
    w = np.random.default_rng(14).standard_normal((len(X), A.shape[0]))
    G = icl_training.prompt_gradient_batch(X, x, A, b, w=w)
    h, d = 1e-6, A.shape[0]
    for n in range(len(X)):
        for j in range(d * d):
            E = np.zeros(d * d)
            E[j] = h
            E = E.reshape(d, d)
            fd = _loss_at_w(X[n], x[n], w[n], A + E, b) - _loss_at_w(X[n], x[n], w[n], A - E, b)
            assert abs(fd / (2 * h) - G[n, j]) < 1e-7, (n, j)
        fd = _loss_at_w(X[n], x[n], w[n], A, b + h) - _loss_at_w(X[n], x[n], w[n], A, b - h)
        assert abs(fd / (2 * h) - G[n, -1]) < 1e-7
    Sigma = np.array([[1.0, 0.3], [0.3, 0.6]])
    sample = icl_training.PromptSample(Sigma, 9, 500, np.random.default_rng(15))
    A2 = np.array([[0.5, 0.1], [-0.2, 0.4]])
    _, gA, gb = sample.risk_and_grad(A2, 0.8)
    per_prompt = icl_training.prompt_gradient_batch(sample.X, sample.xq, A2, 0.8, w=sample.w)
    np.testing.assert_allclose(per_prompt.mean(axis=0), [*gA.ravel(), gb], rtol=1e-10, atol=1e-13)
    # the w-averaged gradients have the same mean but spread less: a standard error from them
    # understates the training's (about half, measured at thm-5.2's endpoints)
    averaged = icl_training.prompt_gradient_batch(sample.X, sample.xq, A2, 0.8)
    assert np.all(per_prompt.std(axis=0) > 1.2 * averaged.std(axis=0))


def test_prompt_gradient_batch_equals_the_emitted_sample_gradients_at_V_equal_b_I():
    X, x, A, b = _prompts(seed=12)
    d = A.shape[0]
    G = icl_training.prompt_gradient_batch(X, x, A, b)
    for n in range(len(X)):
        s = X[n] @ A @ x[n]
        p = np.exp(s - s.max())
        p /= p.sum()
        xhat = p @ X[n]
        C = (X[n] - xhat).T @ np.diag(p) @ (X[n] - xhat)
        r = (b * xhat - x[n])[:, None]
        gU = kernels.risk_sample_grad_U(C, b * np.eye(d), r, x[n][:, None])
        gV = kernels.risk_sample_grad_V(r, xhat[:, None])
        assert np.allclose(G[n, :-1], np.asarray(gU).ravel(), rtol=1e-12, atol=1e-12)
        assert abs(G[n, -1] - np.trace(gV)) < 1e-12  # dV/db = I: grad_b = tr(grad_V)


def test_transverse_rate_is_the_smallest_A_curvature_at_the_endpoint():
    S = np.array([[1.6, 0.3], [0.3, 0.5]])
    As, bs = icl_flows.endpoint(S)
    assert float(kernels.icl_risk(S, As, bs)) < 1e-14
    h = 1e-5
    H = np.array(
        [
            (
                (
                    kernels.icl_grad_A(S, As + h * E.reshape(2, 2), bs)
                    - kernels.icl_grad_A(S, As - h * E.reshape(2, 2), bs)
                )
                / (2 * h)
            ).ravel()
            for E in np.eye(4)
        ]
    )
    lowest = float(np.min(np.linalg.eigvalsh((H + H.T) / 2)))
    assert abs(lowest - icl_flows.transverse_rate(S)) < 1e-7 * icl_flows.transverse_rate(S) + 1e-9


def test_the_summands_magnitudes_bound_the_per_prompt_identitys_rounding():
    """A hunt draw (thm-5.2, seed 404, example 6: Sigma = 2.6e5 in d = 1) failed the identity
    mean per-prompt gradient = the training's gradient by 1.3e4 of the mean |gradient|: with
    nearly one-hot weights C_hat w nearly cancels, and both routes agree only to rounding of the
    summands (prompt_gradient_scales), which bound every per-prompt gradient and the gap."""
    smp = icl_training.PromptSample(np.array([[262144.0]]), 32, 2000, np.random.default_rng(1))
    A, b = np.array([[1.0]]), 1.0
    _, gA, gb = smp.risk_and_grad(A, b)
    per = icl_training.prompt_gradient_batch(smp.X, smp.xq, A, b, w=smp.w)
    scales = icl_training.prompt_gradient_scales(smp.X, smp.xq, A, b, smp.w)
    assert np.all(scales * (1 + 1e-12) >= np.abs(per))
    gap = np.abs(per.mean(axis=0) - np.concatenate([gA.ravel(), [gb]]))
    assert gap[0] > 1e-9 * np.abs(per[:, 0]).mean()  # the gradient's own size: too small a scale
    assert np.all(gap <= 1e-12 * scales.mean(axis=0))
