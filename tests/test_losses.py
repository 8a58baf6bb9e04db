"""KL losses: the Monte Carlo "KL up to a constant" and exact Gaussian KLs."""
import itertools

import jax
import jax.numpy as jnp
import numpy as np

import lsvi  # noqa: F401
from lsvi.core import losses
from lsvi.core.families import bernoulli, gaussian_fullcov, gaussian_meanfield, log_density
from lsvi.core.families.bernoulli import bernoulli_to_natural
from lsvi.core.families.gaussian import fullcov_to_natural, meanfield_to_natural


def spd(rng, d):
    A = rng.normal(size=(d, d))
    return jnp.asarray(A @ A.T + d * np.eye(d))


def unnormalised_log_q(family, eta):
    """f(x) = η̄ᵀs̄(x): q_η with η⁽⁰⁾ = 0, so Z(π) = exp(log_partition(η))."""
    eta0 = eta.at[0].set(0.0)
    return lambda key, X: family.dot(eta0, X)


def test_kl_of_q_against_itself_is_minus_log_normaliser():
    rng = np.random.default_rng(0)
    for family, eta in [
        (gaussian_fullcov(3), fullcov_to_natural(jnp.asarray(rng.normal(size=3)), spd(rng, 3))),
        (bernoulli(5), bernoulli_to_natural(jnp.asarray(rng.uniform(0.1, 0.9, 5)))),
    ]:
        kl = jax.jit(lambda key, eta: losses.kl_estimate(key, family, eta, unnormalised_log_q(family, eta), 500))
        est, se = kl(jax.random.PRNGKey(1), eta)
        # the integrand log q̄ − f = −log Z is constant: exact, zero standard error
        np.testing.assert_allclose(est, -family.log_partition(eta), rtol=1e-12, atol=1e-12)
        assert se < 1e-10


def test_kl_gaussian_zero_and_symmetric():
    rng = np.random.default_rng(2)
    m0, m1 = jnp.asarray(rng.normal(size=4)), jnp.asarray(rng.normal(size=4))
    S0, S1 = spd(rng, 4), spd(rng, 4)
    assert abs(losses.kl_gaussian(m0, S0, m0, S0)) < 1e-12
    assert losses.kl_gaussian(m0, S0, m1, S1) > 0
    np.testing.assert_allclose(losses.kl_gaussian_symmetric(m0, S0, m1, S1), losses.kl_gaussian_symmetric(m1, S1, m0, S0), rtol=1e-13)
    # explicit-inverse textbook formula as a reference
    P1 = np.linalg.inv(np.asarray(S1))
    dm = np.asarray(m1 - m0)
    ref = 0.5 * (np.trace(P1 @ S0) + dm @ P1 @ dm - 4 + np.linalg.slogdet(S1)[1] - np.linalg.slogdet(S0)[1])
    np.testing.assert_allclose(losses.kl_gaussian(m0, S0, m1, S1), ref, rtol=1e-12)


def test_kl_gaussian_matches_monte_carlo_estimate():
    rng = np.random.default_rng(3)
    d = 3
    m0, m1 = jnp.asarray(rng.normal(size=d)), jnp.asarray(rng.normal(size=d))
    S0, S1 = spd(rng, d), spd(rng, d)
    family = gaussian_fullcov(d)
    eta0, eta1 = fullcov_to_natural(m0, S0), fullcov_to_natural(m1, S1)
    # normalised target: log Z(π) = 0, so the estimate is the KL itself
    target = lambda key, X: log_density(family, eta1, X)
    est, se = losses.kl_estimate(jax.random.PRNGKey(4), family, eta0, target, 200_000)
    exact = losses.kl_gaussian(m0, S0, m1, S1)
    assert abs(est - exact) < 4 * se, (est, se, exact)
    # unnormalised target (f = η̄₁ᵀs̄): the estimate is KL − log Z(π)
    est_u, _ = losses.kl_estimate(jax.random.PRNGKey(4), family, eta0, unnormalised_log_q(family, eta1), 200_000)
    np.testing.assert_allclose(est_u, est - family.log_partition(eta1), rtol=1e-10)


def test_kl_estimate_bernoulli_matches_enumeration():
    d = 4
    family = bernoulli(d)
    p, r = jnp.array([0.2, 0.5, 0.7, 0.9]), jnp.array([0.3, 0.4, 0.6, 0.5])
    eta_q, eta_p = bernoulli_to_natural(p), bernoulli_to_natural(r)
    grid = jnp.asarray(list(itertools.product([0.0, 1.0], repeat=d)))
    lq, lp = log_density(family, eta_q, grid), log_density(family, eta_p, grid)
    exact = jnp.sum(jnp.exp(lq) * (lq - lp))
    est, se = losses.kl_estimate(jax.random.PRNGKey(5), family, eta_q, lambda k, X: log_density(family, eta_p, X), 100_000)
    assert abs(est - exact) < 4 * se


def test_kl_trace_common_random_numbers():
    rng = np.random.default_rng(6)
    family = gaussian_meanfield(2)
    etas = jnp.stack([meanfield_to_natural(jnp.asarray(rng.normal(size=2)), jnp.ones(2) * s) for s in (0.5, 1.0, 2.0)])
    target = lambda key, X: -0.5 * jnp.sum(X**2, axis=1)
    key = jax.random.PRNGKey(7)
    est, se = losses.kl_trace(key, family, etas, target, 1000)
    e, s = losses.kl_estimate(key, family, etas[2], target, 1000)
    np.testing.assert_allclose([est[2], se[2]], [e, s], rtol=1e-12)
    est_b, _ = losses.kl_trace(key, family, etas, target, 1000, batch_size=3)  # one vmapped batch
    np.testing.assert_allclose(est_b, est, rtol=1e-12)
    est_i, _ = losses.kl_trace(key, family, etas, target, 1000, common_random_numbers=False)
    assert est_i.shape == (3,) and not np.allclose(est_i, est)
