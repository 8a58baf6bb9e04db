"""Mean-field Gaussian truncated to a box Θ = Π_i [lower_i, upper_i] (BSL experiment, Appendix C.4).

q_η(x) = exp{η⁽⁰⁾ + η⁽¹⁾ᵀx + η⁽²⁾ᵀx²} 1_Θ(x): the statistic is the mean-field one,
s(x) = (1, x, x²); the support is the box. We keep η⁽²⁾ < 0 (a proper truncated
Gaussian with location μ = −η⁽¹⁾/(2η⁽²⁾) and scale σ² = −1/(2η⁽²⁾)); μ may lie outside Θ.
"""
import jax
import jax.numpy as jnp
from jax.scipy.special import log_ndtr

from lsvi.core.families import ExponentialFamily, _identity
from lsvi.core.families.gaussian import meanfield_from_natural


def log_diff_ndtr(a, b):
    """log(Φ(b) − Φ(a)) for a < b, stable in both tails (uses Φ(b)−Φ(a) = Φ(−a)−Φ(−b) for a > 0)."""
    flip = a > 0
    lo, hi = jnp.where(flip, -b, a), jnp.where(flip, -a, b)
    lhi, llo = log_ndtr(hi), log_ndtr(lo)
    return lhi + jnp.log1p(-jnp.exp(llo - lhi))


def _standardised_bounds(eta, lower, upper):
    d = lower.shape[0]
    mean, var = meanfield_from_natural(eta, d)
    sd = jnp.sqrt(var)
    return mean, sd, (lower - mean) / sd, (upper - mean) / sd


def truncated_moments(eta, lower, upper):
    """Mean (d,) and variance (d,) of the truncated law q̄_η on the box."""
    mean, sd, a, b = _standardised_bounds(eta, lower, upper)
    log_z = log_diff_ndtr(a, b)
    log_phi = lambda u: -0.5 * u**2 - 0.5 * jnp.log(2.0 * jnp.pi)
    ra, rb = jnp.exp(log_phi(a) - log_z), jnp.exp(log_phi(b) - log_z)  # φ/Z, 0 at ±∞
    ua = jnp.where(jnp.isfinite(a), a * ra, 0.0)
    ub = jnp.where(jnp.isfinite(b), b * rb, 0.0)
    m = mean + sd * (ra - rb)
    v = sd**2 * (1.0 + ua - ub - (ra - rb) ** 2)
    return m, v


def truncated_gaussian_meanfield(lower, upper) -> ExponentialFamily:
    """Truncated mean-field Gaussian family on the box [lower, upper] (arrays (d,), may be ±inf)."""
    lower, upper = jnp.asarray(lower, jnp.float64), jnp.asarray(upper, jnp.float64)
    d = lower.shape[0]

    def statistic(X):
        return jnp.concatenate([jnp.ones((X.shape[0], 1), X.dtype), X, X**2], axis=1)

    def dot(eta, X):
        return eta[0] + X @ eta[1 : d + 1] + (X**2) @ eta[d + 1 :]

    def sample(key, eta, n):
        mean, sd, a, b = _standardised_bounds(eta, lower, upper)
        z = jax.random.truncated_normal(key, a, b, (n, d), dtype=eta.dtype)
        return jnp.clip(mean + sd * z, lower, upper)

    def is_valid(eta):
        return jnp.all(jnp.isfinite(eta)) & jnp.all(eta[d + 1 :] < 0)

    def log_partition(eta):
        mean, sd, a, b = _standardised_bounds(eta, lower, upper)
        return jnp.sum(0.5 * mean**2 / sd**2 + 0.5 * jnp.log(2.0 * jnp.pi * sd**2) + log_diff_ndtr(a, b))

    return ExponentialFamily(
        "truncated_gaussian_meanfield", d, 2 * d + 1, statistic, dot, sample, is_valid, log_partition, _identity
    )
