"""The online variational updates of `lsvi.core.online` against numerical argmins and hand cases."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import minimize

from lsvi.core import online

D = 3
RNG = np.random.default_rng(0)
X_T = jnp.asarray(RNG.normal(size=D))
M_T = jnp.asarray(RNG.normal(size=D))
S_T = jnp.asarray(RNG.uniform(0.3, 1.5, size=D))


def _argmin(objective, m0, s0):
    """Numerical argmin over (m, log σ) by Newton-type trust region with exact derivatives."""
    d = m0.shape[0]
    f = lambda p: objective(p[:d], jnp.exp(p[d:]))
    p0 = np.concatenate([m0, np.log(s0)])
    res = minimize(lambda p: float(f(jnp.asarray(p))), p0, jac=lambda p: np.asarray(jax.grad(f)(jnp.asarray(p))),
                   hess=lambda p: np.asarray(jax.hessian(f)(jnp.asarray(p))), method="trust-exact",
                   options={"gtol": 1e-13})
    return res.x[:d], np.exp(res.x[d:])


@pytest.mark.parametrize("loss", ["logistic", "squared"])
@pytest.mark.parametrize("alpha", [0.05, 1.0, 5.0])
def test_svb_closed_form_is_the_argmin(loss, alpha):
    g_m, g_s = online.grad_location_scale(online.LOSSES[loss], M_T, S_T, X_T, 1.0)
    m, s = online.svb_step(g_m, g_s, M_T, S_T, alpha)
    m_num, s_num = _argmin(lambda m_, s_: online.svb_objective(m_, s_, g_m, g_s, M_T, S_T, alpha), M_T, S_T)
    np.testing.assert_allclose(m, m_num, atol=1e-8, rtol=0)
    np.testing.assert_allclose(s, s_num, atol=1e-8, rtol=0)


def test_sva_closed_form_is_the_argmin():
    G_m, G_s = jnp.asarray(RNG.normal(size=D)) * 3, jnp.asarray(RNG.uniform(0, 2, size=D))
    m, s = online.sva_step(G_m, G_s, 0.3, 2.0)
    m_num, s_num = _argmin(lambda m_, s_: online.sva_objective(m_, s_, G_m, G_s, 0.3, 2.0), M_T, S_T)
    np.testing.assert_allclose(m, m_num, atol=1e-8, rtol=0)
    np.testing.assert_allclose(s, s_num, atol=1e-8, rtol=0)


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.5), (0.1, 2.0)])
def test_ngvi_closed_form_is_the_argmin(alpha, beta):
    g1, g2 = online.grad_expectation(online.logistic_loss, M_T, S_T, X_T, -1.0)
    m, s = online.ngvi_step(g1, g2, M_T, S_T, alpha, beta, 1.5)
    obj = lambda m_, s_: online.ngvi_objective(m_, s_, g1, g2, M_T, S_T, alpha, beta, 1.5)
    m_num, s_num = _argmin(obj, M_T, S_T)
    np.testing.assert_allclose(m, m_num, atol=1e-8, rtol=0)
    np.testing.assert_allclose(s, s_num, atol=1e-8, rtol=0)


def test_h_is_stable_and_solves_its_quadratic():
    x = jnp.array([-30.0, -1.0, 0.0, 0.5, 1e4])
    hx = online.h(x)
    assert np.all(hx > 0)
    np.testing.assert_allclose(hx**2 + 2 * x * hx - 1, 0.0, atol=1e-9)  # h solves u² + 2xu − 1 = 0


def test_expected_squared_loss_is_exact():
    m, var, y = M_T, S_T**2, 0.7
    want = 0.5 * ((y - X_T @ m) ** 2 + X_T**2 @ var)
    np.testing.assert_allclose(online.expected_loss(online.squared_loss, m, var, X_T, y), want, rtol=1e-12)


def test_svb_on_squared_loss_is_bayes_with_tempering():
    """1-D Gaussian model, loss ½(y − θ)²: one SVB step agrees with the exact tempered-Bayes update
    (precision 1/σ² → 1/σ² + α) to first order in α (SVB linearises the loss; the two differ at O(α²))."""
    x, y, m, s, a = jnp.array([1.0]), 2.0, jnp.array([0.5]), jnp.array([1.2]), 1e-4
    m1, s1 = online.svb_step(*online.grad_location_scale(online.squared_loss, m, s, x, y), m, s, a)
    prec = 1 / s**2 + a
    m_bayes = (m / s**2 + a * y) / prec
    np.testing.assert_allclose(m1, m_bayes, atol=1e-7)
    np.testing.assert_allclose(s1, 1 / jnp.sqrt(prec), atol=1e-7)


def test_run_online_forecasts_before_seeing_and_oga_is_gradient_descent():
    X = jnp.asarray(RNG.normal(size=(20, D)))
    y = jnp.sign(X @ jnp.array([1.0, -1.0, 0.5]))
    losses, ms, _ = online.run_online("oga", "logistic", X, y, lr=0.2)
    np.testing.assert_allclose(losses[0], np.log(2.0))  # θ_1 = 0
    g = -y[0] * X[0] / (1 + jnp.exp(y[0] * X[0] @ ms[0]))
    np.testing.assert_allclose(ms[1], ms[0] - 0.2 * g, atol=1e-14)
    for method in ("sva", "svb", "ngvi"):
        losses, ms, ss = online.run_online(method, "logistic", X, y, alpha=0.5, beta=0.5)
        assert losses.shape == (20,) and np.all(np.isfinite(losses)) and np.all(ss > 0)
        np.testing.assert_allclose(ms[0], 0.0)


def test_ewa_weights_are_the_tempered_posterior():
    grid = jnp.linspace(0.05, 0.95, 19)
    x = jnp.asarray(RNG.integers(0, 2, size=12), dtype=float)
    L = -(x[:, None] * jnp.log(grid) + (1 - x[:, None]) * jnp.log1p(-grid))
    log_prior = jnp.full(19, -jnp.log(19.0))
    lw = online.ewa_log_weights(log_prior, L, 0.7)
    np.testing.assert_allclose(lw[0], log_prior, atol=1e-14)
    t = 7  # p_8 = π_{7,α}: prior × likelihood of x_1..x_7 to the power α
    k = x[:t].sum()
    post = (grid**k * (1 - grid) ** (t - k)) ** 0.7
    np.testing.assert_allclose(jnp.exp(lw[t]), post / post.sum(), rtol=1e-10)
