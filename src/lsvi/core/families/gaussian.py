"""Gaussian families in natural parameters.

Full covariance (eq. 15). The paper writes s(x) = (1, x, vec(xxᵀ)), whose d² quadratic
components are linearly dependent (x_i x_j = x_j x_i); Algorithm 1 needs a minimal family
(Assumption 2.1), so we keep the d(d+1)/2 upper-triangular products, in the row-major
order of t(z) in eq. (16):

    s(x) = (1, x, x_1², x_1x_2, …, x_1x_d, x_2², …, x_d²)            m = 1 + d + d(d+1)/2
    ηᵀs(x) = η⁽⁰⁾ + η⁽¹⁾ᵀx + xᵀ M x,   M_ii = θ_ii,  M_ij = M_ji = θ_ij / 2 (i < j)

so that Σ = (−2M)⁻¹ and μ = Σ η⁽¹⁾. Mean field (Appendix D.3): s(x) = (1, x, x²),
m = 2d + 1, σ² = −1/(2η⁽²⁾), μ = σ² η⁽¹⁾.

(Algorithms 2–3 of the paper initialise with η⁽¹⁾ = −Σ⁻¹μ; the sign is a typo, eq. 15
gives η⁽¹⁾ = Σ⁻¹μ.)
"""
import jax
import jax.numpy as jnp
from jax.scipy.linalg import cho_solve, solve_triangular

from lsvi.core.families import ExponentialFamily, _identity

LOG_2PI = jnp.log(2.0 * jnp.pi)


# ---------------------------------------------------------------- full covariance
def num_params_fullcov(d: int) -> int:
    return 1 + d + d * (d + 1) // 2


def quad_matrix(theta, d: int):
    """Symmetric M (d, d) with xᵀMx = Σ_{i≤j} θ_ij x_i x_j, θ (d(d+1)/2,) row-major."""
    iu = jnp.triu_indices(d)
    upper = jnp.zeros((d, d), theta.dtype).at[iu].set(theta)
    return 0.5 * (upper + upper.T)  # halves off-diagonals, keeps the diagonal


def quad_coefficients(M):
    """Inverse of `quad_matrix`: θ_ii = M_ii, θ_ij = 2 M_ij (i < j)."""
    d = M.shape[0]
    iu = jnp.triu_indices(d)
    return (2.0 * M - jnp.diag(jnp.diag(M)))[iu]


def _split_fullcov(eta, d):
    return eta[0], eta[1 : d + 1], quad_matrix(eta[d + 1 :], d)


def fullcov_precision_cholesky(eta, d: int):
    """(μ (d,), L (d, d)) with L lower-triangular, L Lᵀ = Σ⁻¹ = −2M. O(d³)."""
    _, eta1, M = _split_fullcov(eta, d)
    L = jnp.linalg.cholesky(-2.0 * M)
    mean = cho_solve((L, True), eta1)
    return mean, L


def fullcov_transform(eta, Z, d: int):
    """X = μ + L⁻ᵀZ (N, d) for Z (N, d): N(μ, Σ) draws from standard normal ones, with L the
    Cholesky factor of the precision Σ⁻¹ = LLᵀ (so that L⁻ᵀL⁻¹ = Σ). C = L⁻ᵀ is formed once
    by a triangular solve (O(d³)); X = μ + ZCᵀ is then a plain matrix product, several times
    faster on CPU than N triangular solves. Differentiable in η (reparameterisation)."""
    mean, L = fullcov_precision_cholesky(eta, d)
    C = solve_triangular(L, jnp.eye(d, dtype=eta.dtype), lower=True, trans="T")
    return mean + Z @ C.T


def fullcov_from_natural(eta, d: int):
    """(μ (d,), Σ (d, d)) from η (m,)."""
    mean, L = fullcov_precision_cholesky(eta, d)
    cov = cho_solve((L, True), jnp.eye(d, dtype=eta.dtype))
    return mean, 0.5 * (cov + cov.T)


def fullcov_to_natural(mean, cov):
    """Normalised η (m,) of N(mean, cov)."""
    d = mean.shape[0]
    L = jnp.linalg.cholesky(cov)
    prec = cho_solve((L, True), jnp.eye(d, dtype=cov.dtype))
    eta1 = prec @ mean
    theta = quad_coefficients(-0.5 * prec)
    logdet = 2.0 * jnp.sum(jnp.log(jnp.diag(L)))
    log_z = 0.5 * mean @ eta1 + 0.5 * logdet + 0.5 * d * LOG_2PI
    return jnp.concatenate([jnp.array([-log_z]), eta1, theta])


def gaussian_fullcov(d: int) -> ExponentialFamily:
    """Full-covariance Gaussian family on R^d (eq. 15), minimal statistic of size 1 + d + d(d+1)/2."""
    iu = jnp.triu_indices(d)

    def statistic(X):
        quad = (X[:, :, None] * X[:, None, :])[:, iu[0], iu[1]]
        return jnp.concatenate([jnp.ones((X.shape[0], 1), X.dtype), X, quad], axis=1)

    def dot(eta, X):
        eta0, eta1, M = _split_fullcov(eta, d)
        return eta0 + X @ eta1 + jnp.sum((X @ M) * X, axis=1)

    def reparameterise(eta, Z):
        return fullcov_transform(eta, Z, d)

    def sample(key, eta, n):
        return reparameterise(eta, jax.random.normal(key, (n, d), dtype=eta.dtype))

    def is_valid(eta):
        _, _, M = _split_fullcov(eta, d)
        L = jnp.linalg.cholesky(-2.0 * M)
        return jnp.all(jnp.isfinite(eta)) & jnp.all(jnp.isfinite(L)) & jnp.all(jnp.diag(L) > 0)

    def log_partition(eta):
        mean, L = fullcov_precision_cholesky(eta, d)
        logdet_prec = 2.0 * jnp.sum(jnp.log(jnp.diag(L)))
        return 0.5 * mean @ eta[1 : d + 1] - 0.5 * logdet_prec + 0.5 * d * LOG_2PI

    return ExponentialFamily(
        "gaussian_fullcov", d, num_params_fullcov(d), statistic, dot, sample, is_valid, log_partition, _identity,
        reparameterise,
    )


# ---------------------------------------------------------------- mean field
def meanfield_from_natural(eta, d: int):
    """(μ (d,), σ² (d,)) from η = (η⁽⁰⁾, η⁽¹⁾, η⁽²⁾) (2d+1,)."""
    var = -0.5 / eta[d + 1 :]
    return var * eta[1 : d + 1], var


def meanfield_transform(eta, Z, d: int):
    """X = μ + σ ⊙ Z (N, d) for Z (N, d): the mean-field case of `fullcov_transform`."""
    mean, var = meanfield_from_natural(eta, d)
    return mean + jnp.sqrt(var) * Z


def meanfield_to_natural(mean, var):
    """Normalised η (2d+1,) of N(mean, diag(var))."""
    log_z = jnp.sum(0.5 * mean**2 / var + 0.5 * jnp.log(2.0 * jnp.pi * var))
    return jnp.concatenate([jnp.array([-log_z]), mean / var, -0.5 / var])


def gaussian_meanfield(d: int) -> ExponentialFamily:
    """Mean-field Gaussian family on R^d (Appendix D.3), s(x) = (1, x, x²), m = 2d + 1."""

    def statistic(X):
        return jnp.concatenate([jnp.ones((X.shape[0], 1), X.dtype), X, X**2], axis=1)

    def dot(eta, X):
        return eta[0] + X @ eta[1 : d + 1] + (X**2) @ eta[d + 1 :]

    def reparameterise(eta, Z):
        return meanfield_transform(eta, Z, d)

    def sample(key, eta, n):
        return reparameterise(eta, jax.random.normal(key, (n, d), dtype=eta.dtype))

    def is_valid(eta):
        return jnp.all(jnp.isfinite(eta)) & jnp.all(eta[d + 1 :] < 0)

    def log_partition(eta):
        mean, var = meanfield_from_natural(eta, d)
        return jnp.sum(0.5 * mean**2 / var + 0.5 * jnp.log(2.0 * jnp.pi * var))

    return ExponentialFamily("gaussian_meanfield", d, 2 * d + 1, statistic, dot, sample, is_valid, log_partition,
                             _identity, reparameterise)
