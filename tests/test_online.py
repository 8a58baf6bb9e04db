"""The online variational updates of `lsvi.core.online` against numerical argmins and hand cases, and the
algorithms (`build_*`, `run`) against their steps."""
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


@pytest.mark.parametrize("loss", [online.logistic_loss, online.squared_loss], ids=["logistic", "squared"])
@pytest.mark.parametrize("alpha", [0.05, 1.0, 5.0])
def test_svb_closed_form_is_the_argmin(loss, alpha):
    g_m, g_s = online.grad_location_scale(loss, M_T, S_T, X_T, 1.0)
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


def test_run_forecasts_before_seeing_and_oga_is_gradient_descent():
    X = jnp.asarray(RNG.normal(size=(20, D)))
    y = jnp.sign(X @ jnp.array([1.0, -1.0, 0.5]))
    losses, ms, _ = online.run(online.build_oga(online.logistic_loss, lr=0.2), X, y)
    np.testing.assert_allclose(losses[0], np.log(2.0))  # θ_1 = 0
    g = -y[0] * X[0] / (1 + jnp.exp(y[0] * X[0] @ ms[0]))
    np.testing.assert_allclose(ms[1], ms[0] - 0.2 * g, atol=1e-14)
    for build in (online.build_sva, online.build_svb):
        losses, ms, ss = online.run(build(online.logistic_loss, alpha=0.5), X, y)
        assert losses.shape == (20,) and ms.shape == ss.shape == (20, D)
        assert np.all(np.isfinite(losses)) and np.all(ss > 0)
        np.testing.assert_allclose(ms[0], 0.0)
    losses, ms, ss = online.run(online.build_ngvi(online.logistic_loss, alpha=0.5, beta=0.5), X, y)
    assert losses.shape == (20,) and np.all(np.isfinite(losses)) and np.all(ss > 0)
    np.testing.assert_allclose(ms[0], 0.0)


@pytest.mark.parametrize("build", [lambda loss: online.build_oga(loss, lr=0.3),
                                   lambda loss: online.build_sva(loss, alpha=0.4, prior_sd=1.5),
                                   lambda loss: online.build_svb(loss, alpha=0.4, init_sd=0.7),
                                   lambda loss: online.build_ngvi(loss, alpha=0.4, beta=2.0, prior_sd=1.5)],
                         ids=["oga", "sva", "svb", "ngvi"])
def test_run_is_the_step_iterated_with_each_forecast_made_before_its_datum(build):
    """`run` = `init` at 0 then `step` over the stream; Info records (m_t, σ_t) and the loss of θ_t = m_t, the state
    before x_t is used (squared loss, so the recorded loss is checked against ½(y_t − x_tᵀm_t)² by hand)."""
    X = jnp.asarray(RNG.normal(size=(6, D)))
    y = jnp.asarray(RNG.normal(size=6))
    algorithm = build(online.squared_loss)
    losses, ms, ss = online.run(algorithm, X, y)
    state = algorithm.init(jnp.zeros(D))
    for t in range(6):
        np.testing.assert_allclose(ms[t], state.m, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(ss[t], state.sigma, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(losses[t], 0.5 * (y[t] - X[t] @ state.m) ** 2, rtol=1e-12)
        state, info = algorithm.step(state, X[t], y[t])
        np.testing.assert_allclose(info.loss, losses[t], rtol=1e-12)


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
