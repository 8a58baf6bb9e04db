"""Product of Bernoullis on {0, 1}^d (variable selection, Section 5.2).

s(γ) = (1, γ), η = (η⁽⁰⁾, logit p). Since γ_i² = γ_i the statistic is minimal. As in the
authors' implementation, probabilities are kept inside [ε, 1 − ε] (`project`), so an
inclusion probability never collapses to exactly 0 or 1 from a finite sample.
"""
import jax
import jax.numpy as jnp

from lsvi.core.families import ExponentialFamily


def bernoulli_to_natural(p):
    """Normalised η (d+1,) of the product of Bernoulli(p_i)."""
    return jnp.concatenate([jnp.array([jnp.sum(jnp.log1p(-p))]), jnp.log(p) - jnp.log1p(-p)])


def bernoulli_probabilities(eta):
    """p (d,) from η (d+1,)."""
    return jax.nn.sigmoid(eta[1:])


def bernoulli(d: int, eps: float = 1e-4) -> ExponentialFamily:
    """Product-of-Bernoullis family on {0,1}^d; `eps` bounds probabilities in [eps, 1-eps]."""
    lo, hi = jnp.log(eps) - jnp.log1p(-eps), jnp.log1p(-eps) - jnp.log(eps)

    def statistic(X):
        return jnp.concatenate([jnp.ones((X.shape[0], 1), X.dtype), X], axis=1)

    def dot(eta, X):
        return eta[0] + X @ eta[1:]

    def sample(key, eta, n):
        p = bernoulli_probabilities(eta)
        return jax.random.bernoulli(key, p, (n, d)).astype(eta.dtype)

    def is_valid(eta):
        return jnp.all(jnp.isfinite(eta))

    def log_partition(eta):
        return jnp.sum(jax.nn.softplus(eta[1:]))

    def project(eta):
        return eta.at[1:].set(jnp.clip(eta[1:], lo, hi))

    return ExponentialFamily("bernoulli", d, d + 1, statistic, dot, sample, is_valid, log_partition, project)
