"""Token laws: samplers with the parameters their exact limits need.

- GaussianLaw N(m, Gamma), Gamma PSD and possibly singular: z = m + B g with B = Q sqrt(Lambda)
  restricted to the positive eigenvalues (so B B^T = Gamma and g has rank(Gamma) coordinates);
  with `factor="cholesky"` B is the lower Cholesky factor instead (Gamma positive definite), the
  root the ICL training streams were drawn with.
- MixtureLaw sum_k pi_k N(m_k, Gamma_k).
- RademacherLaw, UniformLaw: iid coordinates with mean 0 and variance 1 (the negative controls).

`sample(rng, shape)` returns an array of shape `shape + (d,)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import validate


def psd_root(cov: np.ndarray) -> np.ndarray:
    """B (d x r) with B B^T = cov, r = numerical rank; eigenvalues below 1e-12 * max are dropped.
    The cut is relative to the matrix's own scale (as validation's semidefiniteness): with a floor
    of 1 it was absolute below scale 1, and a valid covariance of scale 1e-12 lost a direction, so
    its tokens were drawn from another law than the exact routes integrate (issue 41: prop-3.1 and
    asm-3.3 refuted at cov times 2^-40, U times 2^20, the same tilts as their built-in
    scenarios)."""
    values, vectors = np.linalg.eigh(cov)
    keep = values > 1e-12 * float(values.max(initial=0.0))
    return vectors[:, keep] * np.sqrt(values[keep])


@dataclass
class _AffineLaw:
    """z = m + B u for a standardised noise u (mean 0, covariance I): mean m, covariance B B^T."""

    mean: np.ndarray
    cov: np.ndarray
    # "eigh" (psd_root, any PSD covariance) or "cholesky" (positive definite only): the same law,
    # different random streams, so a stream keeps the root it was drawn with.
    factor: str = "eigh"
    root: np.ndarray = field(init=False, repr=False)

    def __post_init__(self):
        self.mean = validate.vector("mean", self.mean)
        self.cov = validate.covariance("cov", self.cov, self.mean.shape[0])
        if self.factor == "eigh":
            self.root = psd_root(self.cov)
        elif self.factor == "cholesky":
            try:
                self.root = np.linalg.cholesky(self.cov)
            except np.linalg.LinAlgError:
                raise ValueError(
                    "cov must be positive definite for a Cholesky root; "
                    'use factor="eigh" for a singular covariance'
                ) from None
        else:
            raise ValueError(f'factor must be "eigh" or "cholesky", got {self.factor!r}')

    @property
    def d(self) -> int:
        return self.mean.shape[0]

    def noise(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return self.mean + self.noise(rng, tuple(shape) + (self.root.shape[1],)) @ self.root.T


@dataclass
class GaussianLaw(_AffineLaw):
    name: str = "gaussian"

    def noise(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.standard_normal(shape)


@dataclass
class MixtureLaw:
    weights: np.ndarray
    means: np.ndarray  # (K, d)
    covs: np.ndarray  # (K, d, d)
    name: str = "mixture"
    # GaussianLaw(m_k, Gamma_k): the components `sample` draws from
    components: list = field(init=False, repr=False)
    roots: list = field(init=False, repr=False)

    def __post_init__(self):
        self.weights = validate.vector("mixture weights", self.weights)
        if np.any(self.weights <= 0) or abs(self.weights.sum() - 1) > 1e-12:
            raise ValueError(
                f"mixture weights must be positive and sum to 1, got {self.weights.tolist()}"
            )
        K = self.weights.shape[0]
        self.means = validate.as_array("mixture means", self.means, 2)
        if self.means.shape[0] != K:
            raise ValueError(f"mixture means has {self.means.shape[0]} rows for {K} weights")
        d = self.means.shape[1]
        covs = validate.as_array("mixture covs", self.covs, 3)
        if covs.shape != (K, d, d):
            raise ValueError(f"mixture covs must have shape {(K, d, d)}, got {covs.shape}")
        self.covs = np.stack(
            [validate.covariance(f"mixture covs[{j}]", c, d) for j, c in enumerate(covs)]
        )
        self.components = [GaussianLaw(m, c) for m, c in zip(self.means, self.covs)]
        self.roots = [c.root for c in self.components]

    @property
    def d(self) -> int:
        return self.means.shape[1]

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Overall mean and covariance (for the moment-matched Gaussian control)."""
        mean = self.weights @ self.means
        second = np.einsum(
            "k,kij->ij", self.weights, self.covs + np.einsum("ki,kj->kij", self.means, self.means)
        )
        return mean, second - np.outer(mean, mean)

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        shape = tuple(shape)
        labels = rng.choice(self.weights.shape[0], size=shape, p=self.weights)
        out = np.empty(shape + (self.d,))
        for j, component in enumerate(self.components):
            mask = labels == j
            out[mask] = component.sample(rng, (int(mask.sum()),))
        return out


@dataclass
class RademacherLaw:
    d: int
    name: str = "rademacher"

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.integers(0, 2, size=tuple(shape) + (self.d,)) * 2.0 - 1.0


@dataclass
class UniformLaw:
    d: int
    name: str = "uniform"

    def sample(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        root3 = np.sqrt(3.0)
        return rng.uniform(-root3, root3, size=tuple(shape) + (self.d,))


@dataclass
class AffineRademacherLaw(_AffineLaw):
    """u iid +-1: the same mean and covariance as N(m, Gamma), not Gaussian (a negative control
    for Gaussian closed forms)."""

    name: str = "affine-rademacher"

    def noise(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.integers(0, 2, size=shape) * 2.0 - 1.0
