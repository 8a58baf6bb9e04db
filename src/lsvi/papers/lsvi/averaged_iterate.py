"""Theorem 3.4's weighted average of the iterates, for the logistic-regression runs (Figs 1 and 4).

Theorem 3.4 (eq. 12) bounds the weighted average of the iterates in moment space, not the last iterate:

    ω̄_k = C_k⁻¹ Σ_{t=1}^{k} c_{t−1} ω̂_t,   ω̂_t = ω(η̂_t) = ∇Z(η̂_t) = Z_{η̂_t} E_{η̂_t}[s(X)],
    c_0 = 1,  c_t = c_{t−1} ε_{t−1}⁻¹ (ε_t⁻¹ − μ)⁻¹,  C_k = Σ_{t=1}^{k} c_{t−1}

(`lsvi.exact.rates.theorem_weights`), with ε_t the step size of iteration t. For the Gaussian families
s(x) = (1, x, x ⊗ x) (mean field: x²), so ω̄_k is a Gaussian whose mean and second moment are the
Z_t c_{t−1}-weighted averages of the iterates' (the mass Z̄ = C_k⁻¹ Σ c_{t−1} Z_t does not change the
normalised distribution, which is what the KL curves and the distances to NUTS score).

μ, the relative strong-convexity constant of the uKL, is not known for a logistic posterior; μ = 0 (the
theorem under relative convexity alone) gives c_t = ε_t / ε_0: each iterate ω̂_t is weighted by the step
ε_{t−1} that produced it. A larger μ only moves weight to later iterates.

The step sizes are the ones the run used (`lsvi.core.kernel.LSVIInfo.eps`: after Algorithm 4's
halvings), one sequence per repetition.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_from_natural, \
    meanfield_to_natural
from lsvi.exact.rates import theorem_weights


def _mass_and_moments(family, eta):
    """(log Z_η (), mean (d,), second moment (d,) or (d, d)) of one iterate η (m,)."""
    d = family.dim
    log_z = eta[0] + family.log_partition(eta)
    if family.name == "gaussian_meanfield":
        mean, var = meanfield_from_natural(eta, d)
        return log_z, mean, var + mean**2
    mean, cov = fullcov_from_natural(eta, d)
    return log_z, mean, cov + jnp.outer(mean, mean)


def _natural(family, mean, second):
    """Normalised η of the Gaussian with this mean and second moment."""
    if family.name == "gaussian_meanfield":
        return meanfield_to_natural(mean, second - mean**2)
    cov = second - jnp.outer(mean, mean)
    return fullcov_to_natural(mean, 0.5 * (cov + cov.T))


def weights(eps, mu: float = 0.0) -> np.ndarray:
    """c_t of Theorem 3.4 for step sizes eps (R, T) (one row per repetition): returns (R, T), row r the
    c_0..c_{T−1} of repetition r (`lsvi.exact.rates.theorem_weights`)."""
    eps = np.atleast_2d(np.asarray(eps, float))
    return np.stack([theorem_weights(e, mu) for e in eps])


def average_trace(family, etas, eps, mu: float = 0.0) -> np.ndarray:
    """The normalised natural parameters of ω̄_k, k = 0..T, for the traces etas (R, T + 1, m) of a run
    with step sizes eps (R, T). Index 0 is η̂_0 itself (no average yet); index k ≥ 1 is η(ω̄_k).

    A repetition that blew up keeps its iterates in the average (the theorem conditions on the event
    𝒜_k that excludes them; its curve shows what averaging such a run gives)."""
    etas = jnp.asarray(etas)
    R, T1, m = etas.shape
    c = jnp.asarray(weights(eps, mu))  # (R, T): c_{t−1} weighs ω̂_t, t = 1..T
    log_z, mean, second = jax.vmap(jax.vmap(lambda e: _mass_and_moments(family, e)))(etas[:, 1:])
    a = jnp.log(c) + log_z  # (R, T): log of each iterate's weight c_{t−1} Z_t
    w = jnp.exp(a - jnp.max(a, axis=1, keepdims=True))  # rescaled per repetition: ratios unchanged
    cw = jnp.cumsum(w, axis=1)
    expand = (Ellipsis,) + (None,) * (mean.ndim - 2)
    mean_bar = jnp.cumsum(w[expand] * mean, axis=1) / cw[expand]
    expand2 = (Ellipsis,) + (None,) * (second.ndim - 2)
    second_bar = jnp.cumsum(w[expand2] * second, axis=1) / cw[expand2]
    bar = jax.vmap(jax.vmap(lambda mu_, s_: _natural(family, mu_, s_)))(mean_bar, second_bar)
    return np.asarray(jnp.concatenate([etas[:, :1], bar], axis=1))
