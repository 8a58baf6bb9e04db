"""NGD baseline: Proposition 2.4 with exact expectations, Gaussian targets, backtracking."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import lsvi  # noqa: F401
from lsvi.core import quadrature as exact
from lsvi.core.algorithms import lsvi_generic as generic
from lsvi.core import losses
from lsvi.core.algorithms import ngd
from lsvi.core import targets
from lsvi.core.families import gaussian_fullcov, gaussian_meanfield, normalise
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, meanfield_from_natural, meanfield_to_natural
from lsvi.core import algorithms, kernel
from lsvi.core.step_size import constant, harmonic


def small_logistic(d=2, n=6, seed=0):
    """A smooth, non-Gaussian log posterior in d dimensions (n data points)."""
    rng = np.random.default_rng(seed)
    Xf = rng.choice([-1.0, 1.0], size=n)[:, None] * rng.normal(size=(n, d))
    return targets.logistic_regression(Xf, 4.0)


def start(meanfield: bool):
    if meanfield:
        return gaussian_meanfield(2), meanfield_to_natural(jnp.array([0.3, -0.2]), jnp.array([0.8, 1.3]))
    return gaussian_fullcov(2), fullcov_to_natural(jnp.array([0.3, -0.2]), jnp.array([[0.8, 0.3], [0.3, 1.3]]))


def quartic(key, X):
    """A non-Gaussian polynomial log target: Gauss–Hermite with K ≥ 4 nodes is exact."""
    x1, x2 = X[:, 0], X[:, 1]
    return -(x1**4 + x2**4) / 8.0 + 0.5 * x1 * x2 - 0.3 * x1**2 + x1 - 0.5 * x2**2


@pytest.mark.parametrize("meanfield", [False, True])
@pytest.mark.parametrize("target, num_nodes, tol", [("quartic", 8, 1e-11), ("logistic", 100, 1e-8)])
def test_proposition_2_4_one_ngd_step_is_one_lsvi_step(meanfield, target, num_nodes, tol):
    """With exact expectations (Gauss–Hermite): η_NGD = (1−ε)η + εφ(η) (eq. 5, 6, 34).

    The score-function form is an algebraic identity on any node set; the reparameterised
    gradient agrees up to the quadrature error (none for the quartic target)."""
    family, eta = start(meanfield)
    f = quartic if target == "quartic" else small_logistic()
    Z, w = exact.gauss_hermite(2, num_nodes)

    @jax.jit
    def steps(Z, w):
        Xq, wq = exact.gaussian_nodes(eta, 2, meanfield, num_nodes)
        phi = exact.lsvi_map(family, f(None, Xq), Xq, wq)
        out = []
        for gradient in ("reparam", "score"):
            direction, X, _ = ngd.natural_gradient(family, eta, Z, w, f, None, gradient=gradient)
            for eps in (1.0, 0.3):
                lsvi_step = normalise(family, (1 - eps) * eta + eps * phi)
                out.append((ngd.ngd_update(family, eta, direction, eps), lsvi_step, jnp.max(jnp.abs(X - Xq))))
        return out

    for eta_ngd, eta_lsvi, node_gap in steps(Z, w):
        assert node_gap < 1e-13  # NGD's reparameterisation = the nodes of lsvi.core.quadrature
        np.testing.assert_allclose(eta_ngd, eta_lsvi, rtol=tol, atol=tol)
        assert not np.allclose(eta_ngd, normalise(family, eta), atol=1e-3)  # a real step


def test_meanfield_exact_fim_matches_quadrature():
    family, eta = start(meanfield=True)
    Z, w = exact.gauss_hermite(2, 10)
    X = family.reparameterise(eta, Z)
    F_quad = ngd.fisher_mc(family, X, w)
    np.testing.assert_allclose(ngd.fisher_meanfield_exact(eta, 2), F_quad, rtol=1e-10, atol=1e-12)
    g = jnp.array([0.3, -1.0, 2.0, 0.5])
    np.testing.assert_allclose(ngd.solve_meanfield_exact(eta, 2, g), jnp.linalg.solve(F_quad, g), rtol=1e-9)


def test_score_ngd_is_algorithm_1_on_the_same_draws():
    """F̂⁻¹ Cov̂(s̄, η̄ᵀs̄ − f) = η̄ − OLS slope: the η̄ parts of the two steps agree exactly."""
    family = gaussian_fullcov(3)
    eta = fullcov_to_natural(jnp.zeros(3), jnp.eye(3))
    f = small_logistic(d=3, n=10)
    N = 500
    Z = jax.random.normal(jax.random.PRNGKey(0), (N, 3))
    eps = 0.4

    @jax.jit
    def both(Z):
        direction, X, y = ngd.natural_gradient(family, eta, Z, jnp.full(N, 1.0 / N), f, None, gradient="score")
        lsvi_bar = ((1 - eps) * eta + eps * generic.ols(family.statistic(X), y))[1:]
        return ngd.ngd_update(family, eta, direction, eps)[1:], lsvi_bar

    ngd_bar, lsvi_bar = both(Z)
    np.testing.assert_allclose(ngd_bar, lsvi_bar, rtol=1e-8, atol=1e-10)


def gaussian_target(mean, cov):
    prec = jnp.linalg.inv(cov)
    return lambda key, X: -0.5 * jnp.sum(((X - mean) @ prec) * (X - mean), axis=1)


def test_ngd_fullcov_converges_on_gaussian_target():
    d = 3
    rng = np.random.default_rng(1)
    A = rng.normal(size=(d, d))
    m_star, S_star = jnp.asarray(rng.normal(size=d)), jnp.asarray(A @ A.T / d + 0.5 * np.eye(d))
    family = gaussian_fullcov(d)
    step = algorithms.build_kernel("ngd", family, gaussian_target(m_star, S_star), 2000)
    state = kernel.init(fullcov_to_natural(jnp.zeros(d), jnp.eye(d)))
    _, trace, info = kernel.run_schedule(jax.random.PRNGKey(2), step, state, harmonic(), 30)
    assert trace.shape == (31, family.num_params) and info.eps.shape == (30,)
    np.testing.assert_allclose(info.eps, 1.0 / jnp.arange(1, 31))  # no halving was needed
    m, S = fullcov_from_natural(trace[-1], d)
    assert losses.kl_gaussian(m, S, m_star, S_star) < 2e-3
    assert losses.kl_gaussian(*fullcov_from_natural(trace[0], d), m_star, S_star) > 0.3


def test_ngd_meanfield_converges_on_gaussian_target():
    d = 4
    m_star, v_star = jnp.array([1.0, -2.0, 0.5, 0.0]), jnp.array([0.5, 2.0, 1.0, 0.2])
    family = gaussian_meanfield(d)
    # exact FIM here; the Monte Carlo FIM path is the full-covariance test's
    step = algorithms.build_kernel("ngd", family, gaussian_target(m_star, jnp.diag(v_star)), 2000, fim="exact")
    _, trace, _ = kernel.run_schedule(jax.random.PRNGKey(3), step, kernel.init(meanfield_to_natural(jnp.zeros(d), jnp.ones(d))),
                                      harmonic(), 30)
    m, v = meanfield_from_natural(trace[-1], d)
    assert losses.kl_gaussian(m, jnp.diag(v), m_star, jnp.diag(v_star)) < 2e-3


def test_backtracking_keeps_iterates_valid():
    family = gaussian_fullcov(2)
    step = algorithms.build_kernel("ngd", family, small_logistic(), 500)
    _, trace, info = kernel.run_schedule(jax.random.PRNGKey(4), step, kernel.init(fullcov_to_natural(jnp.zeros(2), jnp.eye(2))),
                                         constant(50.0), 5)  # far too large a step
    assert np.any(info.num_halvings > 0) and np.all(info.accepted)
    assert all(bool(family.is_valid(e)) for e in trace)
    np.testing.assert_allclose(trace[:, 0], jax.vmap(lambda e: -family.log_partition(e))(trace), rtol=1e-12)


def test_rejects_unsupported_family():
    from lsvi.core.families import bernoulli

    with pytest.raises(ValueError):
        algorithms.build_kernel("ngd", bernoulli(3), lambda k, X: X.sum(1), 10)
