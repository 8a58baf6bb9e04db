"""Exponential families: conversions, sampling moments, normalisation, validity."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core.quadrature import binary_grid, gauss_hermite
from lsvi.core.families import bernoulli, gaussian_fullcov, gaussian_meanfield, log_density, normalise
from lsvi.core.families import truncated_gaussian_meanfield
from lsvi.core.families.bernoulli import bernoulli_probabilities, bernoulli_to_natural
from lsvi.core.families.gaussian import (
    fullcov_from_natural,
    fullcov_to_natural,
    meanfield_from_natural,
    meanfield_to_natural,
    quad_coefficients,
    quad_matrix,
)
from lsvi.core.families.truncated_gaussian import truncated_moments


def random_gaussian(key, d):
    A = jax.random.normal(key, (d, d))
    return jax.random.normal(jax.random.fold_in(key, 1), (d,)), A @ A.T + 0.5 * jnp.eye(d)


@pytest.mark.parametrize("d", [1, 2, 4])
def test_fullcov_roundtrip_and_statistic(d):
    mean, cov = random_gaussian(jax.random.key(d), d)
    eta = fullcov_to_natural(mean, cov)
    m2, c2 = fullcov_from_natural(eta, d)
    np.testing.assert_allclose(m2, mean, atol=1e-10)
    np.testing.assert_allclose(c2, cov, atol=1e-10)
    fam = gaussian_fullcov(d)
    X = jax.random.normal(jax.random.key(7), (5, d))
    np.testing.assert_allclose(fam.statistic(X) @ eta, fam.dot(eta, X), atol=1e-10)
    assert fam.statistic(X).shape == (5, fam.num_params)
    M = quad_matrix(eta[d + 1 :], d)
    np.testing.assert_allclose(quad_coefficients(M), eta[d + 1 :], atol=1e-12)
    # normalised: log density matches the closed-form Gaussian density
    ref = jax.scipy.stats.multivariate_normal.logpdf(X, mean, cov)
    np.testing.assert_allclose(log_density(fam, eta, X), ref, atol=1e-9)
    np.testing.assert_allclose(normalise(fam, eta)[0], eta[0], atol=1e-10)


def test_fullcov_sampling_moments():
    d = 3
    mean, cov = random_gaussian(jax.random.key(0), d)
    X = gaussian_fullcov(d).sample(jax.random.key(1), fullcov_to_natural(mean, cov), 400_000)
    np.testing.assert_allclose(X.mean(0), mean, atol=0.02 * np.sqrt(np.diag(cov)).max())
    np.testing.assert_allclose(np.cov(X.T), cov, atol=0.03 * np.abs(cov).max())


def test_meanfield_roundtrip_density_sampling():
    d = 4
    mean, var = jnp.array([1.0, -2.0, 0.0, 3.0]), jnp.array([0.5, 2.0, 1.0, 0.1])
    eta = meanfield_to_natural(mean, var)
    m2, v2 = meanfield_from_natural(eta, d)
    np.testing.assert_allclose(m2, mean)
    np.testing.assert_allclose(v2, var)
    fam = gaussian_meanfield(d)
    X = fam.sample(jax.random.key(0), eta, 200_000)
    np.testing.assert_allclose(X.mean(0), mean, atol=0.02)
    np.testing.assert_allclose(X.var(0), var, rtol=0.02)
    ref = jax.scipy.stats.norm.logpdf(X[:10], mean, jnp.sqrt(var)).sum(1)
    np.testing.assert_allclose(log_density(fam, eta, X[:10]), ref, atol=1e-10)


def test_validity():
    d = 2
    fam = gaussian_fullcov(d)
    eta = fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    assert fam.is_valid(eta)
    assert not fam.is_valid(eta.at[d + 1].set(0.3))  # positive x_1² coefficient
    assert not fam.is_valid(eta.at[1].set(jnp.nan))
    mf = gaussian_meanfield(d)
    assert mf.is_valid(meanfield_to_natural(jnp.zeros(d), jnp.ones(d)))
    assert not mf.is_valid(jnp.array([0.0, 0.0, 0.0, -1.0, 0.1]))


def test_bernoulli_normalisation_and_projection():
    d = 5
    p = jnp.array([0.1, 0.5, 0.9, 0.3, 0.999999])
    fam = bernoulli(d, eps=1e-3)
    eta = bernoulli_to_natural(p)
    grid = binary_grid(d)
    np.testing.assert_allclose(jnp.exp(log_density(fam, eta, grid)).sum(), 1.0, atol=1e-12)
    np.testing.assert_allclose(eta[0], -fam.log_partition(eta), atol=1e-12)
    np.testing.assert_allclose(bernoulli_probabilities(eta), p, atol=1e-12)
    q = bernoulli_probabilities(fam.project(eta))
    assert q.max() <= 1 - 1e-3 + 1e-12 and q.min() >= 1e-3 - 1e-12
    X = fam.sample(jax.random.key(0), eta, 100_000)
    np.testing.assert_allclose(X.mean(0), p, atol=0.01)


def test_truncated_gaussian_moments_and_normaliser():
    lower, upper = jnp.array([1.0, 0.0, -jnp.inf]), jnp.array([2.0, 100.0, 0.9])
    fam = truncated_gaussian_meanfield(lower, upper)
    eta = meanfield_to_natural(jnp.array([1.7, 35.0, 0.6]), jnp.array([0.3, 400.0, 0.2]))
    X = fam.sample(jax.random.key(0), eta, 400_000)
    assert jnp.all(X >= lower) and jnp.all(X <= upper)
    m, v = truncated_moments(eta, lower, upper)
    np.testing.assert_allclose(X.mean(0), m, rtol=5e-3)
    np.testing.assert_allclose(X.var(0), v, rtol=2e-2)
    # normalising constant by 1-D quadrature, coordinate by coordinate
    grid = np.linspace(-30, 130, 400_001)
    logz = 0.0
    for i in range(3):
        xs = np.clip(grid, float(lower[i]) if np.isfinite(lower[i]) else -30, float(upper[i]))
        xs = np.unique(xs)
        dens = np.exp(float(eta[1 + i]) * xs + float(eta[4 + i]) * xs**2)
        logz += np.log(np.trapezoid(dens, xs))
    np.testing.assert_allclose(fam.log_partition(eta), logz, rtol=1e-6)


def test_gauss_hermite_is_exact_for_low_degree():
    Z, w = gauss_hermite(2, 6)
    np.testing.assert_allclose(w.sum(), 1.0, atol=1e-13)
    np.testing.assert_allclose((w * Z[:, 0] ** 4).sum(), 3.0, atol=1e-12)
    np.testing.assert_allclose((w * Z[:, 0] ** 2 * Z[:, 1] ** 2).sum(), 1.0, atol=1e-12)
