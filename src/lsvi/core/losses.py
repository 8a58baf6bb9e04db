"""Losses: the Monte Carlo "KL up to an unknown constant" of the figures, and exact Gaussian KLs.

The figures of Section 5 plot, for the current q̄_η̄,

    L(η) = E_{q̄_η̄}[log q̄_η̄(X) − f(X)] = KL(q̄_η̄ ‖ π̄) − log Z(π),

(f = log π unnormalised, π̄ = π / Z(π)): the KL up to the unknown constant log Z(π),
which for the logistic targets of `lsvi.core.targets` is log p(y). Estimated by plain Monte
Carlo with a fixed number of draws from q̄_η̄, with its standard error.
"""
from __future__ import annotations

from typing import Optional

import jax
import jax.numpy as jnp
from jax.scipy.linalg import solve_triangular

from lsvi.core.families import log_density


def kl_integrand(key, family, eta, log_target, num_draws: int):
    """log q̄_η(X_i) − f(X_i) (num_draws,), X_i i.i.d. ~ q̄_η."""
    kx, kf = jax.random.split(key)
    X = family.sample(kx, eta, num_draws)
    return log_density(family, eta, X) - log_target(kf, X)


def kl_estimate(key, family, eta, log_target, num_draws: int):
    """(estimate, standard error) of E_q̄[log q̄_η − f] = KL(q̄_η̄‖π̄) − log Z(π).

    eta (m,) any `ExponentialFamily` parameter (η⁽⁰⁾ is ignored: `log_density`
    normalises). The standard error is sd/√N over the ``num_draws`` draws.
    """
    r = kl_integrand(key, family, eta, log_target, num_draws)
    return jnp.mean(r), jnp.std(r, ddof=1) / jnp.sqrt(num_draws)


def kl_trace(
    key,
    family,
    etas,
    log_target,
    num_draws: int,
    common_random_numbers: bool = True,
    batch_size: Optional[int] = None,
):
    """`kl_estimate` along a trace etas (T, m) -> (estimates (T,), standard errors (T,)).

    common_random_numbers: use the same key for every iterate (same base normals Z for
    Gaussian families, same subsample for a subsampled target), so that differences
    between iterations are not drowned in Monte Carlo noise. Otherwise each iterate gets
    its own key.
    batch_size: iterates evaluated at once (``jax.lax.map`` vmaps within a batch);
    default 1 (sequential), which bounds memory to one iterate's N draws — the
    target's (N × n) product dominates for large data sets.
    """
    if common_random_numbers:
        one = lambda eta: kl_estimate(key, family, eta, log_target, num_draws)
        return jax.lax.map(one, etas, batch_size=batch_size)
    keys = jax.random.split(key, etas.shape[0])
    one = lambda args: kl_estimate(args[0], family, args[1], log_target, num_draws)
    return jax.lax.map(one, (keys, etas), batch_size=batch_size)


# ---------------------------------------------------------------- exact Gaussian KL
def kl_gaussian(mean0, cov0, mean1, cov1):
    """KL(N(mean0, cov0) ‖ N(mean1, cov1)), exact, by Cholesky factors (no inverse).

        KL = ½ [tr(Σ₁⁻¹Σ₀) + (μ₁−μ₀)ᵀΣ₁⁻¹(μ₁−μ₀) − d + log|Σ₁| − log|Σ₀|]

    With Σ = LLᵀ: tr(Σ₁⁻¹Σ₀) = ‖L₁⁻¹L₀‖²_F and the quadratic form is ‖L₁⁻¹(μ₁−μ₀)‖².
    mean (d,), cov (d, d) symmetric positive definite.
    """
    d = mean0.shape[0]
    L0 = jnp.linalg.cholesky(cov0)
    L1 = jnp.linalg.cholesky(cov1)
    A = solve_triangular(L1, L0, lower=True)
    v = solve_triangular(L1, mean1 - mean0, lower=True)
    logdet = 2.0 * (jnp.sum(jnp.log(jnp.diag(L1))) - jnp.sum(jnp.log(jnp.diag(L0))))
    return 0.5 * (jnp.sum(A**2) + jnp.sum(v**2) - d + logdet)


def kl_gaussian_symmetric(mean0, cov0, mean1, cov1):
    """Jeffreys divergence KL(N₀‖N₁) + KL(N₁‖N₀) (a sum, not an average)."""
    return kl_gaussian(mean0, cov0, mean1, cov1) + kl_gaussian(mean1, cov1, mean0, cov0)
