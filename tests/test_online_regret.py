"""`lsvi.papers.alquier.checks.online_regret`: Donsker–Varadhan, the EWA bound by hand, L and γ, the ELBO argmins."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.papers.alquier.checks import online_regret as orr
from lsvi.core import online

RNG = np.random.default_rng(1)


def test_dv_infimum_is_attained_at_the_gibbs_measure_and_is_a_lower_bound():
    K, alpha = 7, 0.4
    log_prior = jnp.log(jnp.asarray(RNG.dirichlet(np.ones(K))))
    L = jnp.asarray(RNG.uniform(0, 10, K))
    value = lambda p: p @ L + jnp.sum(p * (jnp.log(p) - log_prior)) / alpha
    gibbs = jax.nn.softmax(log_prior - alpha * L)
    np.testing.assert_allclose(orr.dv_infimum(log_prior, L, alpha), value(gibbs), rtol=1e-12)
    for _ in range(50):
        assert orr.dv_infimum(log_prior, L, alpha) <= value(jnp.asarray(RNG.dirichlet(np.ones(K)))) + 1e-12


def test_ewa_one_step_by_hand_and_the_bound():
    """Two-point grid {0.2, 0.8}, uniform prior, T = 1, x_1 = 1: θ_1 = 0.5, loss log 2; bound by hand."""
    grid, log_prior, alpha = jnp.array([0.2, 0.8]), jnp.log(jnp.array([0.5, 0.5])), 1.0
    incurred, thetas, xs, L = orr.ewa_bernoulli(jax.random.PRNGKey(0), grid, log_prior, alpha, 1, q=1.0)
    np.testing.assert_allclose(thetas[0], 0.5)
    np.testing.assert_allclose(incurred[0], np.log(2.0))
    np.testing.assert_allclose(L, -np.log(np.array([0.2, 0.8])))
    C = -np.log(0.2)
    want = -np.log(0.5 * 0.2 + 0.5 * 0.8) + C**2 / 2  # −log Σ π_k p_k(x) + αC²T/2
    np.testing.assert_allclose(orr.ewa_regret_bound(log_prior, L, alpha, C, 1), want, rtol=1e-12)


def test_adversarial_sequence_punishes_the_forecaster():
    grid = jnp.linspace(0.1, 0.9, 9)
    log_prior = jnp.full(9, -jnp.log(9.0))
    incurred, thetas, xs, L = orr.ewa_bernoulli(jax.random.PRNGKey(0), grid, log_prior, 0.1, 200)
    np.testing.assert_array_equal(xs, (thetas < 0.5).astype(float))
    assert np.all(incurred >= np.log(2.0) - 1e-12)  # each loss ≥ −log max(θ, 1 − θ)… ≥ log 2 at the worse side


def test_lipschitz_constant_bounds_the_gradients():
    X = jnp.asarray(RNG.normal(size=(30, 4)))
    L = orr.logistic_lipschitz(X)
    for t in range(30):
        m, s = jnp.asarray(RNG.normal(size=4) * 3), jnp.asarray(RNG.uniform(0.01, 5, 4))
        g_m, g_s = online.grad_location_scale(online.logistic_loss, m, s, X[t], 1.0)
        assert np.sqrt(np.sum(g_m**2) + np.sum(g_s**2)) <= L + 1e-12


def test_kl_strong_convexity_lower_bounds_the_hessian():
    s0, d = 1.7, 3
    kl = lambda p: orr.kl_gaussian(p[:d], jnp.diag(p[d:] ** 2), jnp.zeros(d), jnp.diag(jnp.full(d, s0**2)))
    for _ in range(10):
        p = jnp.concatenate([jnp.asarray(RNG.normal(size=d)), jnp.asarray(RNG.uniform(0.1, 20, d))])
        assert np.linalg.eigvalsh(jax.hessian(kl)(p)).min() >= orr.kl_strong_convexity(s0) * (1 - 1e-10)


def test_elbo_without_1_over_n_targets_the_tempered_posterior_and_with_it_pi_n_alpha_over_n():
    x = jnp.asarray(RNG.normal(1.0, 1.0, size=(15, 2)))
    alpha, s0 = 0.6, 2.0
    for per_obs, a_eff in ((False, alpha), (True, alpha / 15)):
        m, s, g = orr.elbo_argmin(x, alpha, s0, per_obs)
        m_ref, s_ref = orr.conjugate_tempered_posterior(x, a_eff, s0)
        np.testing.assert_allclose(m, m_ref, atol=1e-9)
        np.testing.assert_allclose(s, s_ref, atol=1e-9)


def test_sva_bound_rejects_the_squared_loss():
    import pytest

    with pytest.raises(ValueError):
        orr.sva_regret_bound("squared", jnp.ones((3, 2)), jnp.ones(3), 0.1, 1.0)


def test_ewa_weights_are_tempered_posteriors_not_the_final_one():
    grid = jnp.linspace(0.05, 0.95, 11)
    log_prior = jnp.full(11, -jnp.log(11.0))
    x = jnp.asarray(RNG.integers(0, 2, size=25), dtype=float)
    vs_t, vs_n = orr.ewa_weights_vs_tempered(grid, log_prior, x, 0.8)
    assert vs_t < 1e-10
    assert vs_n > 1e-3  # p_t ≠ π_{n,α} for t ≤ n when the last datum moves the posterior


def test_ewa_study_rows_and_the_bound_holds():
    grid = jnp.linspace(0.1, 0.9, 9)  # q = 0.3 is a grid point, so the infimum over the model is 0
    log_prior = jnp.full(9, -jnp.log(9.0))
    rows = orr.ewa_study(jax.random.PRNGKey(3), [20, 50], 1.0, grid, log_prior, -np.log(0.1), q=0.3, repetitions=3)
    assert len(rows) == 6 and all(r["cumulative_loss"] <= r["bound"] for r in rows)
    assert all(r["excess_kl"] >= -1e-12 for r in rows)


def test_sva_bound_holds_on_a_small_logistic_sequence():
    X = jnp.asarray(np.hstack([np.ones((40, 1)), RNG.normal(size=(40, 2))]))
    y = jnp.asarray(np.sign(RNG.normal(size=40)))
    (row,) = orr.sva_bound_table(X, y, [0.1], 1.0)
    assert row["inf_grad"] < 1e-6 and row["cumulative_loss"] <= row["bound"]
    np.testing.assert_allclose(row["L"], np.sqrt(2) * np.linalg.norm(X, axis=1).max())


def test_closed_forms_agree_with_the_argmin_to_the_optimisers_precision():
    res = orr.closed_form_discrepancies(0, 2, 2, 1.0)  # both losses
    for name, v in res.items():
        assert v["discrepancy"] <= 2 * v["optimiser"] + 1e-12, (name, v)
    # the Newton-step estimate sees a displaced point: at the exact minimiser of a quadratic shifted by 1e-3 it is 1e-3
    f = lambda m, s: jnp.sum((m - 1.0) ** 2) + jnp.sum((jnp.log(s) - 0.5) ** 2)
    assert orr.newton_distance(f, np.array([1.0 + 1e-3, 1.0]), np.exp(np.array([0.5, 0.5]))) == pytest.approx(1e-3, rel=1e-6)
    assert orr.newton_distance(f, np.ones(2), np.exp(np.full(2, 0.5))) < 1e-14
