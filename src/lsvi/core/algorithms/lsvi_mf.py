"""Algorithm 2: LSVI-MF, mean-field Gaussian family (Theorem D.2, Appendix D.3).

Regress f(μ + σ ⊙ Z) on the whitened statistic (eq. 42)

    t(z) = (1, z, (z² − 1)/√2),   E[t(Z)t(Z)ᵀ] = I,   Z ~ N(0, I_d),

so the OLS is a plain average, γ̂ = N⁻¹ Σ t(Z_i) f(μ + σ ⊙ Z_i) (eq. 20), and map γ → η
by eq. (43):

    β⁽²⁾ = γ⁽²⁾ / (√2 σ²),   β⁽¹⁾ = γ⁽¹⁾ / σ − 2 β⁽²⁾ ⊙ μ,
    β⁽⁰⁾ = γ⁽⁰⁾ − β⁽¹⁾ᵀμ − β⁽²⁾ᵀ(μ² + σ²).

O(Nd) per iteration (plus the cost of f), no matrix inversion.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from lsvi.core.algorithms import whitened
from lsvi.core.families.gaussian import meanfield_from_natural

SQRT2 = math.sqrt(2.0)  # a Python float: no array created at import time


def whitened_statistic(Z):
    """t(Z) (N, 2d+1) of eq. (42) for Z (N, d)."""
    return jnp.concatenate([jnp.ones((Z.shape[0], 1), Z.dtype), Z, (Z**2 - 1.0) / SQRT2], axis=1)


def estimate_gamma(Z, y, centre: bool = False):
    """γ̂ = N⁻¹ Σ t(Z_i) y_i (eq. 20), computed without forming t(Z). Returns (γ0, γ1 (d,), γ2 (d,)).

    ``centre=True`` replaces y by y − ȳ in γ⁽¹⁾, γ⁽²⁾ (a control variate: E[t_k(Z)] = 0 for
    k ≥ 1), which removes the ȳ²-sized variance of eq. (20) when |f| is large. The
    paper uses eq. (20) as is (``centre=False``).
    """
    n = Z.shape[0]
    g0 = jnp.mean(y)
    r = y - g0 if centre else y
    return g0, Z.T @ r / n, ((Z**2 - 1.0).T @ r) / (n * SQRT2)


def gamma_to_eta(g0, g1, g2, mean, var):
    """Eq. (43): the regressor on s(x) = (1, x, x²) from the regressor γ on t(z)."""
    b2 = g2 / (SQRT2 * var)
    b1 = g1 / jnp.sqrt(var) - 2.0 * b2 * mean
    b0 = g0 - b1 @ mean - b2 @ (mean**2 + var)
    return jnp.concatenate([jnp.array([b0]), b1, b2])


def regression(family, log_target, num_samples: int, centre: bool = False, residual: str = "X"):
    """(key, η) -> (P (N, d), f(X) (N,), η' (m,)) for Algorithm 2, X = μ + σ ⊙ Z; ``family``
    is `gaussian_meanfield(d)`, ``centre`` as in `estimate_gamma`, ``residual`` as in
    `lsvi.core.algorithms.whitened.regression`."""
    d = family.dim
    to_eta = lambda eta, *gamma: gamma_to_eta(*gamma, *meanfield_from_natural(eta, d))
    return whitened.regression(family, log_target, num_samples, estimate_gamma, to_eta, centre, residual)
