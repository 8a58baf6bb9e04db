"""Simulated logistic-regression data: the one generator behind every synthetic design of the project.

`logistic` draws, from one numpy generator seeded with ``seed`` and in this order,

    Z ~ N(0, scale² I) (n, d − 1) with a bias column of ones first (``bias=True``), or (n, d) without;
    β₀ ~ N(0, I_d) (unless ``beta`` is given);
    y_i = +1 with probability σ(x_iᵀβ₀), else −1,

and returns (X (n, d), y (n,), β₀ (d,)). `flipped` gives the label-flipped design y_i x_i that
`lsvi.core.targets.logistic_regression` takes. Used by the exact checks of notebooks 11 and 14 (no bias,
β₀ = (1, −0.5)), Wu & Gardner's non-conjugate landscape (notebook 51) and Alquier's online VI (notebook 52).
"""
from __future__ import annotations

import numpy as np


def logistic(seed: int, n: int, d: int, *, beta=None, bias: bool = True, scale: float = 1.0):
    """(X (n, d), y (n,) in {−1, +1}, β₀ (d,)) of a simulated logistic regression (module docstring)."""
    rng = np.random.default_rng(seed)
    Z = scale * rng.normal(size=(n, d - 1 if bias else d))
    X = np.hstack([np.ones((n, 1)), Z]) if bias else Z
    beta0 = rng.normal(size=d) if beta is None else np.asarray(beta, dtype=float)
    y = np.where(rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ beta0)), 1.0, -1.0)
    return X, y, beta0


def flipped(X, y) -> np.ndarray:
    """The label-flipped design y_i x_i (n, d)."""
    return np.asarray(y)[:, None] * np.asarray(X)


def flipped_design(seed: int, n: int, d: int, **options) -> np.ndarray:
    """`flipped` of `logistic` (``options``: ``beta``, ``bias``, ``scale``): the design alone, (n, d)."""
    X, y, _ = logistic(seed, n, d, **options)
    return flipped(X, y)
