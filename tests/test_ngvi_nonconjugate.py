"""Notebook 51 (Wu & Gardner, non-conjugate NGVI): gradient identities, the NGD step, the landscape, Remark 2."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.checks import ngvi_landscape as nl
from lsvi.core.families.gaussian import fullcov_to_natural
from lsvi.core.losses import kl_gaussian
from lsvi.experiments import ngvi_nonconjugate as nc
from lsvi.experiments.plotting import ngvi_nonconjugate as plotting

jax.config.update("jax_enable_x64", True)
NODES = nl.hermite_nodes(48)


@pytest.fixture(scope="module")
def problem():
    Xf = nc.simulated_logistic(3, 60, 3)
    m = jnp.array([0.3, -0.5, 0.2])
    W = jnp.array([[1.0, 0.2, 0.0], [0.2, 0.7, -0.1], [0.0, -0.1, 0.5]])
    return Xf, m, W @ W.T


def test_bonnet_price_identities_match_autodiff(problem):
    # ∇_m E f = E∇f and ∇_Σ E f = ½E∇²f (quadrature) against autodiff of the quadrature objective itself.
    Xf, m, S = problem
    g_m, G_S = nl.exact_moment_gradients(Xf, m, S, NODES)
    a_m, a_S = jax.grad(lambda m_, S_: nl.expected_loglik(Xf, m_, S_, NODES), argnums=(0, 1))(m, S)
    np.testing.assert_allclose(g_m, a_m, rtol=1e-4, atol=1e-8)  # both by the same quadrature
    np.testing.assert_allclose(G_S, 0.5 * (a_S + a_S.T), rtol=1e-4, atol=1e-8)


def test_price_estimator_is_unbiased(problem):
    Xf, m, S = problem
    Z = jax.random.normal(jax.random.PRNGKey(0), (200_000, 3))
    g_m, G_S = nl.price_gradients(Xf, m, jnp.linalg.cholesky(S), Z)
    e_m, E_S = nl.exact_moment_gradients(Xf, m, S, NODES)
    np.testing.assert_allclose(g_m, e_m, atol=0.05)
    np.testing.assert_allclose(G_S, E_S, atol=0.02)


def test_ngd_step_is_gradient_step_in_expectation_parameters(problem):
    # eq. (8): θ_{t+1} = θ_t − ρ ∇_ω ℓ(ω_t), ∇_ω by autodiff of the exact −ELBO in ω = (m, vech S).
    Xf, m, S = problem
    d, rho = 3, 0.3
    grad_w = jax.grad(lambda w: nl.neg_elbo(Xf, *nl.unpack_expectation(w, d), 1.0, NODES))(nl.pack_expectation(m, S))
    m1, S1 = nc.exact_ngd(Xf, 1.0, m, S, rho, 1, NODES)
    expected = fullcov_to_natural(m, S)[1:] - rho * grad_w
    np.testing.assert_allclose(fullcov_to_natural(m1, S1)[1:], expected, rtol=1e-4, atol=1e-6)  # quadrature-level


def test_logistic_nonconvex_in_omega_convex_in_sqrt():
    Xf = nc.simulated_logistic(0, 200, 2)
    res = nl.logistic_landscape(Xf, 1.0, [0.01, 1.0], NODES)
    assert res["lam_by_s"][0] > 0 > res["lam_expectation"]  # small Σ: the KL dominates; s = 1: negative curvature
    assert res["fd_expectation"] == pytest.approx(res["lam_expectation"], rel=1e-4)
    assert res["lam_sqrt"] >= 1.0 - 1e-8  # strong convexity 1/v in (m, L)


def test_poisson_closed_form_and_nonconvexity():
    rng = np.random.default_rng(0)
    X = jnp.asarray(rng.normal(size=(10, 2)))
    y = jnp.asarray(rng.poisson(1.0, size=10).astype(float))
    m, S = jnp.array([0.2, -0.1]), jnp.array([[0.3, 0.05], [0.05, 0.2]])
    # closed-form E_q exp(xᵀβ) against Monte Carlo
    B = m + jax.random.normal(jax.random.PRNGKey(1), (400_000, 2)) @ jnp.linalg.cholesky(S).T
    mc = jnp.mean(jnp.sum(y * (B @ X.T) - jnp.exp(B @ X.T), axis=1))
    closed = -nl.poisson_neg_elbo(X, y, m, S, 1.0) + kl_gaussian(m, S, jnp.zeros(2), jnp.eye(2)) \
        + jnp.sum(jax.scipy.special.gammaln(y + 1.0))
    assert float(closed) == pytest.approx(float(mc), rel=5e-3)
    res = nl.poisson_landscape(X, y, [0.25, 2.0], 0.5)
    assert res["lam_expectation"] < 0 < res["lam_sqrt"]


def test_remark2_price_never_leaves_autodiff_does():
    Xf = nc.simulated_logistic(2, 20, 2, scale=2.0)
    exits = nl.domain_exits(jax.random.PRNGKey(0), Xf, 1.0, jnp.eye(2), 1.0, 300)
    assert exits["price"] == (0, 0)
    assert exits["autodiff"][0] > 0


def test_price_zero_variance_for_quadratic():
    A = jnp.array([[2.0, 0.5], [0.5, 1.0]])
    s = nl.quadratic_estimator_spread(jax.random.PRNGKey(0), A, jnp.ones(2), jnp.array([0.3, -0.2]), 0.5 * jnp.eye(2), 100)
    assert s["price_cov_maxdev"] <= 1e-12
    assert s["bonnet_mean_sd"] > 0.1 and s["autodiff_cov_sd"] > 0.1


def test_proposition1_multistart_reaches_reference():
    Xf = nc.simulated_logistic(1, 80, 2)
    means, covs = nc.multistart_ngd(Xf, 1.0, jax.random.PRNGKey(0), 5, 0.5, 80, NODES)
    m_ref, S_ref, g = nc.sqrt_optimum(Xf, 1.0, NODES)
    assert g <= 1e-6
    assert nl.relative_spread(means, covs, m_ref, S_ref) <= 1e-6


def test_stochastic_kernels_decrease_elbo_and_keep_sgd_projection(tmp_path):
    Xf = nc.simulated_logistic(4, 100, 3)
    df, best = nc.tuned_runs(Xf, 1.0, 5, 30, {"sgd": [0.5], "sgd_price": [0.5], "ngd": [0.2]}, 0, NODES)
    for method in ("sgd", "sgd_price", "ngd"):
        v = df[df.method == method].set_index("t")["neg_elbo"]
        assert v.iloc[-1] < v.loc[0]
    assert best == {"sgd": 0.5, "sgd_price": 0.5, "ngd": 0.2}
    kernel = nc.build_sgd_kernel(Xf, 1.0, 2, "price", min_diag=0.3)
    state = kernel(jax.random.PRNGKey(0), nc.sgd_init(jnp.zeros(3), 0.01 * jnp.eye(3)), 0.1)
    assert np.all(np.diag(state.L) >= 0.3) and np.allclose(np.triu(state.L, 1), 0.0)
    fig = plotting.ngvi_fig02_logistic({"sim": df}, {"sim": best})
    fig.savefig(tmp_path / "fig2.png")
    assert (tmp_path / "fig2.png").stat().st_size > 0


def test_average_pool():
    X = np.arange(2 * 784, dtype=float).reshape(2, 784)
    P = nc.average_pool(X, 28, 7)
    assert P.shape == (2, 49)
    assert P[0, 0] == pytest.approx(np.mean([r * 28 + c for r in range(4) for c in range(4)]))
