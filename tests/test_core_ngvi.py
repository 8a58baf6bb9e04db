"""Wu & Gardner's stochastic NGVI in the library (src/lsvi/core/ngvi.py): eq. 8 with the conjugate (eq. 15) and
the Price (eq. 11) gradient estimators, checked against closed forms and independent computations."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core import ngvi
from lsvi.core.losses import kl_gaussian


def _regression(seed=0, n=60, d=3, s=0.7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + s * rng.normal(size=n)
    prec = np.eye(d) + X.T @ X / s**2  # prior N(0, I)
    cov = np.linalg.inv(prec)
    return jnp.asarray(X), jnp.asarray(y), s, cov @ (X.T @ y / s**2), cov


def test_one_full_batch_step_with_rho_one_is_the_exact_posterior():
    """Conjugate model: θ_p + ∇_ω E f is the posterior's natural parameter, so ρ = 1 lands on it (Lemma 1)."""
    X, y, s, m_post, c_post = _regression()
    kernel = ngvi.build_kernel(jnp.zeros(3), jnp.eye(3), ngvi.linear_regression_gradient(X, y, s))
    state, info = kernel(jax.random.PRNGKey(0), ngvi.init(jnp.ones(3), 2.0 * jnp.eye(3)), 1.0)
    m, c = ngvi.mean_cov(state)
    np.testing.assert_allclose(m, m_post, rtol=1e-10)
    np.testing.assert_allclose(c, c_post, rtol=1e-10, atol=1e-13)
    assert bool(info.valid) and int(state.t) == 1


def test_price_estimator_on_a_gaussian_likelihood_is_eq15_at_the_draws_mean():
    """For a quadratic f, ∇²f is constant (the quadratic part of ĝ is exact for any draws) and ∇f is linear, so the
    Price average is eq. 15's gradient shifted by the draws' mean: ĝ₁ = Xᵀy/s² − XᵀX(β̄ − m)/s²."""
    X, y, s, *_ = _regression(1)
    loglik = lambda b: -0.5 * jnp.sum((y - X @ b) ** 2) / s**2  # noqa: E731
    m, c = jnp.array([0.3, -1.0, 2.0]), jnp.array([[1.0, 0.2, 0.0], [0.2, 0.5, 0.1], [0.0, 0.1, 2.0]])
    key = jax.random.PRNGKey(3)
    got = ngvi.price_gradient(loglik, num_samples=3)(key, m, c)
    exact = ngvi.linear_regression_gradient(X, y, s)(None, m, c)
    beta_bar = m + jnp.linalg.cholesky(c) @ jax.random.normal(key, (3, 3), dtype=m.dtype).mean(0)
    np.testing.assert_allclose(got[3:], exact[3:], rtol=1e-10)
    np.testing.assert_allclose(got[:3], exact[:3] - X.T @ X @ (beta_bar - m) / s**2, rtol=1e-9, atol=1e-9)


def test_stochastic_runs_reach_the_posterior_on_average_theorem1_rate():
    """Mini-batch NGD with ρ_t = 2/(t+2): the Theorem-1 average ω̄_T ends close to the posterior, far closer than
    the prior, and the KL of ω̄_T shrinks with T (about 1/T)."""
    X, y, s, m_post, c_post = _regression(2, n=200)
    kernel = ngvi.build_kernel(jnp.zeros(3), jnp.eye(3), ngvi.linear_regression_gradient(X, y, s, batch_size=10))

    def kl_avg(T, key):
        state0 = ngvi.init(jnp.zeros(3), jnp.eye(3))
        _, info = ngvi.run(key, kernel, state0, ngvi.theorem_step_sizes(T))
        etas = [state0.eta]
        eta = state0.eta
        for g, r in zip(info.gradient, ngvi.theorem_step_sizes(T)):  # replay the iterates from the recorded ĝ_t
            eta = ngvi.step(eta, ngvi.init(jnp.zeros(3), jnp.eye(3)).eta, g, r)
            etas.append(eta)
        ms, cs = zip(*[ngvi.mean_cov(ngvi.NGVIState(e, 0)) for e in etas])
        m, c = ngvi.weighted_average(jnp.stack(ms), jnp.stack(cs))
        return float(kl_gaussian(m, c, jnp.asarray(m_post), jnp.asarray(c_post)))

    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    short = np.mean([kl_avg(20, k) for k in keys])
    long = np.mean([kl_avg(160, k) for k in keys])
    prior = float(kl_gaussian(jnp.zeros(3), jnp.eye(3), jnp.asarray(m_post), jnp.asarray(c_post)))
    assert long < short / 3 and long < prior / 100


def test_price_gradient_on_a_logistic_model_agrees_with_quadrature():
    """Non-conjugate f: the Price estimate averaged over many draws matches the exact gradient (1-D Gauss–Hermite
    per datum), within Monte Carlo error."""
    rng = np.random.default_rng(4)
    Xf = jnp.asarray(rng.normal(size=(40, 2)))
    loglik = lambda b: jnp.sum(jax.nn.log_sigmoid(Xf @ b))  # noqa: E731
    m, c = jnp.array([0.5, -0.2]), jnp.array([[0.4, 0.1], [0.1, 0.3]])
    z, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / np.sqrt(2 * np.pi)
    mu, sd = np.asarray(Xf @ m), np.sqrt(np.einsum("ij,jk,ik->i", Xf, c, Xf))
    sig = 1 / (1 + np.exp(-(mu[:, None] + sd[:, None] * z)))
    g_m = np.asarray(Xf).T @ ((1 - sig) @ w)
    G_S = -0.5 * (np.asarray(Xf).T * ((sig * (1 - sig)) @ w)) @ np.asarray(Xf)
    exact = ngvi.expectation_gradient(jnp.asarray(g_m), jnp.asarray(G_S), m)
    est = ngvi.price_gradient(loglik, num_samples=20_000)(jax.random.PRNGKey(0), m, c)
    np.testing.assert_allclose(est, exact, atol=0.05 * float(jnp.max(jnp.abs(exact))))


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="exactly one"):
        ngvi.price_gradient(None, 5)
    with pytest.raises(ValueError, match="num_samples >= 1"):
        ngvi.price_gradient(lambda b: 0.0, 0)
    with pytest.raises(ValueError, match=r"mean \(d,\) and cov \(d, d\)"):
        ngvi.init(jnp.zeros(3), jnp.eye(2))
