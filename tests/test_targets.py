"""Logistic-regression targets (Section 5.1, eq. 21)."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.stats import norm

import lsvi  # noqa: F401
from lsvi.core import targets


def random_data(seed=0, n=50, d=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[:, 0] = 1.0
    y = rng.choice([-1.0, 1.0], size=n)
    return y[:, None] * X


def naive_log_posterior(Xf, prior_var, B):
    """float64 numpy/scipy reference: prior + Σ log(1 / (1 + exp(-x̃ᵀβ)))."""
    prior = norm.logpdf(B, scale=np.sqrt(prior_var)).sum(axis=1)
    return prior + np.log(1.0 / (1.0 + np.exp(-(B @ Xf.T)))).sum(axis=1)


def test_paper_prior_variance():
    np.testing.assert_array_equal(targets.paper_prior_variance(4), [400.0, 25.0, 25.0, 25.0])
    np.testing.assert_array_equal(targets.paper_prior_variance(3, intercept=False), [25.0, 25.0, 25.0])


def test_log_sigmoid_values_and_exact_derivative():
    u = jnp.array([-800.0, -30.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 30.0, 800.0])
    np.testing.assert_allclose(targets.log_sigmoid(u), jax.nn.log_sigmoid(u), rtol=1e-14, atol=0)
    grad = jax.vmap(jax.grad(targets.log_sigmoid))(u)
    np.testing.assert_allclose(grad, jax.nn.sigmoid(-u), rtol=1e-14, atol=0)  # σ(−u), ½ at 0
    assert grad[4] == 0.5


def test_log_sigmoid_second_derivative_is_minus_sigma_sigma_everywhere_including_zero():
    """d²/du² log σ(u) = −σ(u)σ(−u) (< 0: log σ is concave), −¼ at u = 0 exactly (where the
    linear predictors of β = 0 lie: a Newton or Laplace start). The custom JVP once gave +¼ there."""
    u = jnp.array([-800.0, -30.0, -1.0, -1e-3, 0.0, 1e-3, 1.0, 30.0, 800.0])
    hess = jax.vmap(jax.grad(jax.grad(targets.log_sigmoid)))(u)
    np.testing.assert_allclose(hess, -jax.nn.sigmoid(u) * jax.nn.sigmoid(-u), rtol=1e-12, atol=1e-300)
    assert hess[4] == -0.25
    # Forward-over-reverse (jax.hessian) of the single-point logistic log density at β = 0.
    Xf = jnp.asarray(random_data())
    H = jax.hessian(targets.logistic_logdensity(Xf, 25.0))(jnp.zeros(Xf.shape[1]))
    np.testing.assert_allclose(H, -0.25 * Xf.T @ Xf - jnp.eye(Xf.shape[1]) / 25.0, rtol=1e-12)


def test_logistic_matches_naive_reference():
    Xf = random_data()
    v = np.asarray(targets.paper_prior_variance(Xf.shape[1]))
    B = np.random.default_rng(1).normal(size=(30, Xf.shape[1]))
    got = targets.logistic_regression(Xf, v)(None, jnp.asarray(B))
    np.testing.assert_allclose(got, naive_log_posterior(Xf, v, B), rtol=1e-12, atol=1e-10)


def test_logistic_is_stable_for_large_linear_predictors():
    Xf = np.array([[1.0, 0.0], [0.0, 1.0]])
    B = jnp.array([[-800.0, 800.0]])  # log σ(−800) = −800 − log1p(e^−800); naive form gives −inf
    got = targets.logistic_regression(Xf, 1e12)(None, B)
    prior = norm.logpdf(B, scale=1e6).sum()
    np.testing.assert_allclose(got[0], prior - 800.0, rtol=1e-14)


@pytest.mark.parametrize("num_draws, chunk", [(1, 1), (37, 16), (12, 3)])
def test_chunked_equals_unchunked(num_draws, chunk):
    Xf = random_data(seed=2, n=20, d=3)
    B = jnp.asarray(np.random.default_rng(num_draws).normal(size=(num_draws, 3)))
    dense = targets.logistic_regression(Xf, 25.0)(None, B)
    chunked = targets.logistic_regression(Xf, 25.0, chunk_size=chunk)(None, B)
    np.testing.assert_allclose(chunked, dense, rtol=0, atol=1e-10)


def test_memory_budget_triggers_chunking():
    Xf = random_data(seed=3, n=100, d=3)
    assert targets.resolve_chunk_size(1000, 100, None, 2.5e7) is None
    assert targets.resolve_chunk_size(1000, 100, None, 1e4) == 100
    # balanced chunks: each within the budget, padding below one row per chunk
    for N, n, budget in ((2500, 11_774, 2.5e7), (10_000, 11_774, 2.5e7), (1001, 100, 3e4), (7, 5, 10)):
        c = targets.resolve_chunk_size(N, n, None, budget)
        k = -(-N // c)
        assert c * n <= budget and k * c - N < k
    assert targets.resolve_chunk_size(2500, 11_774, None, 2.5e7) == 1250  # not 2 x 2123 rows
    B = jnp.asarray(np.random.default_rng(0).normal(size=(1001, 3)))
    dense = targets.logistic_regression(Xf, 25.0)(None, B)
    budget = targets.logistic_regression(Xf, 25.0, max_elements=3e4)(None, B)  # 4 chunks of 251, padded
    np.testing.assert_allclose(budget, dense, rtol=0, atol=1e-10)


def test_gradient_finite_and_analytic_and_chunked():
    Xf = random_data(seed=4)
    v = targets.paper_prior_variance(Xf.shape[1])
    B = jnp.asarray(np.random.default_rng(5).normal(size=(11, Xf.shape[1])))
    grad = lambda lt: jax.grad(lambda b: jnp.sum(lt(None, b)))(B)
    g_dense = grad(targets.logistic_regression(Xf, v))
    g_chunk = grad(targets.logistic_regression(Xf, v, chunk_size=4))
    analytic = -B / v + jax.nn.sigmoid(-(B @ Xf.T)) @ Xf  # ∇ log σ(u) = σ(−u)
    assert np.all(np.isfinite(g_dense))
    np.testing.assert_allclose(g_dense, analytic, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(g_chunk, g_dense, rtol=0, atol=1e-10)


def test_single_point_logdensity_matches_batch():
    Xf = random_data(seed=6)
    v = targets.paper_prior_variance(Xf.shape[1])
    B = jnp.asarray(np.random.default_rng(7).normal(size=(4, Xf.shape[1])))
    beta = B[2]
    batch = targets.logistic_regression(Xf, v)(None, B)[2]  # the same β within a larger batch
    point = targets.logistic_logdensity(Xf, v)(beta)
    np.testing.assert_allclose(point, batch, rtol=1e-14)
    # the log joint written out in numpy: log N(β; 0, diag v) + Σ_i log σ(x̃_iᵀβ)
    b, vv, Xn = np.asarray(beta), np.asarray(v), np.asarray(Xf)
    reference = -0.5 * np.sum(b**2 / vv + np.log(2 * np.pi * vv)) - np.sum(np.logaddexp(0.0, -(Xn @ b)))
    np.testing.assert_allclose(point, reference, rtol=1e-13)
    # its gradient (NUTS, Blackjax VI) is the analytic one: −β/v + X̃ᵀσ(−X̃β)
    analytic = -beta / v + Xf.T @ jax.nn.sigmoid(-(Xf @ beta))
    np.testing.assert_allclose(jax.grad(targets.logistic_logdensity(Xf, v))(beta), analytic, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("scale", ["unbiased", "paper"])
def test_subsampled_expectation_over_batches(scale):
    Xf = random_data(seed=8, n=40, d=3)
    n, P = Xf.shape[0], 8
    v = targets.paper_prior_variance(3)
    B = jnp.asarray(np.random.default_rng(9).normal(size=(3, 3)))
    sub = targets.subsampled_logistic_regression(Xf, v, P, scale=scale)
    keys = jax.random.split(jax.random.PRNGKey(0), 4000)
    vals = jax.vmap(lambda k: sub(k, B))(keys)  # (K, 3)
    prior = targets.gaussian_log_prior(B, v)
    loglik = targets.logistic_regression(Xf, v)(None, B) - prior
    expected = prior + (loglik if scale == "unbiased" else (P / n) * loglik)  # E_U f̂ (eq. 21)
    se = vals.std(axis=0) / np.sqrt(len(keys))
    assert np.all(np.abs(vals.mean(axis=0) - expected) < 4.0 * se)


def test_subsampled_uses_one_batch_per_call():
    Xf = random_data(seed=10, n=40, d=3)
    sub = targets.subsampled_logistic_regression(Xf, 25.0, 5, scale=1.0)
    B = jnp.asarray(np.random.default_rng(11).normal(size=(4, 3)))
    key = jax.random.PRNGKey(3)
    # same key, same batch: rows evaluated together or apart agree
    np.testing.assert_allclose(sub(key, B)[:2], sub(key, B[:2]), rtol=1e-14)
    idx = jax.random.randint(key, (5,), 0, 40)
    ref = targets.gaussian_log_prior(B, jnp.full(3, 25.0)) + jnp.sum(jax.nn.log_sigmoid(B @ Xf[idx].T), axis=1)
    np.testing.assert_allclose(sub(key, B), ref, rtol=1e-13)
    assert not np.allclose(sub(jax.random.PRNGKey(4), B), sub(key, B))
    with pytest.raises(ValueError):
        targets.subsampled_logistic_regression(Xf, 25.0, 5, scale="biased")


def test_gaussian_logdensity_gradient_is_minus_precision_times_offset():
    P = jnp.array([[2.0, 0.5], [0.5, 1.0]])
    m = jnp.array([1.0, -2.0])
    f = targets.gaussian_logdensity(P, m)
    x = jnp.array([0.3, 0.7])
    np.testing.assert_allclose(jax.grad(f)(x), -P @ (x - m), rtol=1e-12)
    assert float(f(m)) == 0.0
