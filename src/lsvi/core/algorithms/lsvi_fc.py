"""Algorithm 3: LSVI-FC, full-covariance Gaussian family (Theorem 4.1, Appendix D.4).

Regress f(μ + CZ) on the whitened statistic t(z) of eq. (16) (E[t tᵀ] = I), so the OLS
is the average γ̂ = N⁻¹ Σ t(Z_i) f(μ + CZ_i) (eq. 20), then map γ → η (eq. 18/66–67).
With Γ the symmetric matrix of eq. (67), matching γᵀt(z) = βᵀs(μ + Cz) term by term
(Lemma D.3, eq. 52: Γ = CᵀBC) gives, for the quadratic form B of β,

    B = C⁻ᵀ Γ C⁻¹,   β⁽¹⁾ = C⁻ᵀ γ⁽¹⁾ − 2Bμ,   β⁽⁰⁾ = γ⁽⁰⁾ − tr Γ − β⁽¹⁾ᵀμ − μᵀBμ.

(Eq. 18 prints vec(C⁻¹ΓC⁻ᵀ); with x = μ + Cz the quadratic term is zᵀCᵀBCz, so B =
C⁻ᵀΓC⁻¹ — the tests check the map against the OLS of Algorithm 1.)

Lemma D.3 holds for any square root CCᵀ = Σ. We take C = L⁻ᵀ with L the Cholesky factor
of the precision Σ⁻¹ = −2M, which the natural parameter gives directly: then C⁻¹ = Lᵀ,
C⁻ᵀ = L and the map needs no triangular solve at all, and B = LΓLᵀ.

γ̂ is formed without materialising t(Z) (N × d(d+1)/2): with w_i = f_i (or f_i − f̄),
G = N⁻¹ Zᵀ diag(w) Z (d × d) and Γ = (G − w̄ I)/2. Cost O(Nd² + d³) per iteration,
no inversion of the m × m Fisher matrix.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from lsvi.core.algorithms import whitened
from lsvi.core.families.gaussian import fullcov_precision_cholesky, quad_coefficients

SQRT2 = math.sqrt(2.0)  # a Python float: no array created at import time


def whitened_statistic(Z):
    """t(Z) (N, 1 + d + d(d+1)/2) of eq. (16): (1, z, (z_1²−1)/√2, z_1z_2, …, (z_d²−1)/√2)."""
    n, d = Z.shape
    iu = jnp.triu_indices(d)
    quad = (Z[:, :, None] * Z[:, None, :])[:, iu[0], iu[1]]
    diag = iu[0] == iu[1]
    quad = jnp.where(diag, (quad - 1.0) / SQRT2, quad)
    return jnp.concatenate([jnp.ones((n, 1), Z.dtype), Z, quad], axis=1)


def estimate_gamma(Z, y, centre: bool = False):
    """(γ⁽⁰⁾, γ⁽¹⁾ (d,), Γ (d, d)) from eq. (20) and (67), without forming t(Z).

    ``centre`` as in `lsvi.core.algorithms.lsvi_mf.estimate_gamma`.
    """
    n, d = Z.shape
    g0 = jnp.mean(y)
    w = y - g0 if centre else y
    G = (Z * w[:, None]).T @ Z / n
    Gamma = 0.5 * (G - jnp.mean(w) * jnp.eye(d, dtype=Z.dtype))
    return g0, Z.T @ w / n, 0.5 * (Gamma + Gamma.T)


def gamma_matrix(gamma2, d: int):
    """Γ (d, d) of eq. (67) from the d(d+1)/2 quadratic components γ⁽²⁾ of γ."""
    iu = jnp.triu_indices(d)
    scale = jnp.where(iu[0] == iu[1], 1.0 / SQRT2, 0.5)
    upper = jnp.zeros((d, d), gamma2.dtype).at[iu].set(gamma2 * scale)
    return upper + jnp.triu(upper, 1).T


def gamma_to_eta(g0, g1, Gamma, mean, L):
    """Eq. (18) with C = L⁻ᵀ: the minimal natural parameter β (m,) from (γ⁽⁰⁾, γ⁽¹⁾, Γ)."""
    B = L @ Gamma @ L.T
    b1 = L @ g1 - 2.0 * B @ mean
    b0 = g0 - jnp.trace(Gamma) - b1 @ mean - mean @ B @ mean
    return jnp.concatenate([jnp.array([b0]), b1, quad_coefficients(B)])


def regression(family, log_target, num_samples: int, centre: bool = False, residual: str = "X"):
    """(key, η) -> (P (N, d), f(X) (N,), η' (m,)) for Algorithm 3, X = μ + L⁻ᵀZ; ``family``
    is `gaussian_fullcov(d)`, ``centre`` as in `estimate_gamma`, ``residual`` as in
    `lsvi.core.algorithms.whitened.regression` (the paper's s(X), or the authors' s(Z))."""
    d = family.dim
    to_eta = lambda eta, *gamma: gamma_to_eta(*gamma, *fullcov_precision_cholesky(eta, d))
    return whitened.regression(family, log_target, num_samples, estimate_gamma, to_eta, centre, residual)
