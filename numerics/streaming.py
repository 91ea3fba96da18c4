"""The mean and standard error of independent draws that arrive in chunks (an algorithm).

Chan, Golub and LeVeque's pairwise update: a chunk of k values with mean m_k and sum of squared
deviations M2_k joins n earlier values (mean m, M2) as

    n' = n + k,   m' = m + (m_k - m) k / n',   M2' = M2 + M2_k + (m_k - m)^2 n k / n',

and the standard error of the mean is sqrt(M2 / (n - 1) / n). Unlike the one-pass sum of squares
(sum y^2 / n - mean^2), it does not cancel where the mean is far above the spread (a risk of 1e6
measured to 1e-3).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class StreamedMean:
    count: int = 0
    mean: float = 0.0
    m2: float = 0.0  # sum of squared deviations from the mean

    def add(self, values) -> None:
        v = np.asarray(values, dtype=float).ravel()
        k = v.size
        if k == 0:
            return
        chunk_mean = float(v.mean())
        chunk_m2 = float(np.sum((v - chunk_mean) ** 2))
        total = self.count + k
        delta = chunk_mean - self.mean
        self.mean += delta * k / total
        self.m2 += chunk_m2 + delta * delta * self.count * k / total
        self.count = total

    def stderr(self) -> float:
        """sqrt(sample variance / count); needs at least two values."""
        if self.count < 2:
            raise ValueError(f"a standard error needs at least two values, not {self.count}")
        return math.sqrt(self.m2 / (self.count - 1) / self.count)
