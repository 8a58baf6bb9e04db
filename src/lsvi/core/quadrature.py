"""Exact (quadrature) versions of the LSVI map, for theorem checks in low dimension.

With expectations computed exactly, the LSVI map (eq. 3) is φ(η) = F_η⁻¹ z_η with
F_η = E_η[ssᵀ], z_η = E_η[fs]. For Gaussian families we compute E_η by tensor
Gauss–Hermite quadrature (exact for polynomials of degree ≤ 2K−1 per coordinate); for
the Bernoulli product by enumeration of {0,1}^d. Intended for d ≤ 3 (Gaussian) or
d ≤ 15 (Bernoulli).
"""
from __future__ import annotations

import itertools

import jax.numpy as jnp
import numpy as np

from lsvi.core.families.gaussian import fullcov_transform, meanfield_transform


def gauss_hermite(d: int, num_nodes: int = 20):
    """Nodes Z (K^d, d) and weights w (K^d,) with Σ w g(Z) ≈ E[g(Z)], Z ~ N(0, I_d)."""
    x, w = np.polynomial.hermite_e.hermegauss(num_nodes)  # weight exp(-x²/2)
    w = w / np.sqrt(2.0 * np.pi)
    Z = np.array(list(itertools.product(x, repeat=d)))
    W = np.prod(np.array(list(itertools.product(w, repeat=d))), axis=1)
    return jnp.asarray(Z), jnp.asarray(W)


def binary_grid(d: int):
    """All 2^d points of {0,1}^d, (2^d, d)."""
    return jnp.asarray(np.array(list(itertools.product([0.0, 1.0], repeat=d))))


def gaussian_nodes(eta, d: int, meanfield: bool, num_nodes: int = 20):
    """Quadrature nodes X (K^d, d) and weights (K^d,) for q̄_η Gaussian."""
    Z, w = gauss_hermite(d, num_nodes)
    return (meanfield_transform if meanfield else fullcov_transform)(eta, Z, d), w


def fisher(family, X, w):
    """(F = E[ssᵀ] (m, m), S = s(X) (n, m)) under the weights w (n,) of the nodes X (n, d)."""
    S = family.statistic(X)
    return (S * w[:, None]).T @ S, S


def fisher_and_z(family, f_values, X, w):
    """F = E[ssᵀ] (m, m) and z = E[fs] (m,) under the weights w of the nodes X."""
    F, S = fisher(family, X, w)
    return F, S.T @ (w * f_values)


def lsvi_map(family, f_values, X, w):
    """φ(η) = F⁻¹ z (eq. 3) from nodes X ~ q̄_η with weights w and f(X)."""
    F, z = fisher_and_z(family, f_values, X, w)
    return jnp.linalg.solve(F, z)
