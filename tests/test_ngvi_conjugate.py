"""Notebook 50 (Wu & Gardner 2024): `lsvi.checks.ngvi_rates` and `lsvi.experiments.ngvi_conjugate`."""
import jax
import jax.numpy as jnp
import numpy as np

from lsvi.checks import ngvi_rates as nr
from lsvi.core.losses import kl_gaussian
from lsvi.experiments import ngvi_conjugate as nc
from lsvi.experiments.plotting import ngvi_conjugate as plotting

jax.config.update("jax_enable_x64", True)
P = nr.simulated(0, 40, 2, s=0.7)


def test_posterior_is_ridge_solution():
    # independent closed form: ridge regression with penalty s²/prior variance (numpy lstsq on the augmented system)
    X, y, s = np.asarray(P.X), np.asarray(P.y), P.s
    A = np.vstack([X / s, np.eye(2)])
    b = np.concatenate([y / s, np.zeros(2)])
    mean, cov = nr.posterior(P)
    np.testing.assert_allclose(mean, np.linalg.lstsq(A, b, rcond=None)[0], rtol=1e-10)
    np.testing.assert_allclose(cov, np.linalg.inv(A.T @ A), rtol=1e-10)


def test_full_batch_step_with_rho_one_is_the_posterior_from_any_start():
    mean, cov = nr.posterior(P)
    full = jnp.arange(40)
    for start in (nr.natural(P.m0, P.S0), nr.natural(jnp.array([50.0, -3.0]), 0.01 * jnp.eye(2))):
        m, c = nr.moments(nr.ngd_step(P, start, full, 1.0))
        assert float(kl_gaussian(m, c, mean, cov)) < 1e-12


def test_weighted_average_matches_a_loop():
    rng = np.random.default_rng(1)
    means = jnp.asarray(rng.normal(size=(5, 2)))
    covs = jnp.asarray([np.eye(2) * (1 + k) for k in range(5)])
    am, ac = nr.weighted_average(means, covs)
    T = 4
    w1 = sum(t * means[t] for t in range(1, T + 1)) / (T * (T + 1) / 2)
    w2 = sum(t * (covs[t] + jnp.outer(means[t], means[t])) for t in range(1, T + 1)) / (T * (T + 1) / 2)
    np.testing.assert_allclose(am[T - 1], w1, rtol=1e-12)
    np.testing.assert_allclose(ac[T - 1], w2 - jnp.outer(w1, w1), rtol=1e-12)


def test_lemma2_ratio_is_one_and_a_wrong_objective_fails():
    ratios, l4 = nr.lemma2(P, 0, 5)
    np.testing.assert_allclose(ratios, 1.0, atol=1e-9)
    assert l4 < 1e-9
    # a non-conjugate-like perturbation (KL to a posterior with doubled covariance scaled in ω) breaks equality
    w, wp = nr.expectation(jnp.array([1.0, 0.0]), jnp.eye(2)), nr.expectation(jnp.array([0.0, 2.0]), 2 * jnp.eye(2))
    assert abs(float(nr.neg_elbo_gap(P, w, wp)) - 2 * float(nr.bregman_dual(w, wp))) > 1e-3


def test_gradient_variance_scales_as_one_over_batch_size():
    eta = nr.natural(P.m0, P.S0)
    key = jax.random.PRNGKey(0)
    v1 = nr.gradient_variance(key, P, eta, 0.2, 4, 400)[0]
    v2 = nr.gradient_variance(key, P, eta, 0.2, 8, 400)[0]
    assert v1 > 0 and 0.35 < v2 / v1 < 0.65
    # exact gradient (B = n with the full index set) has zero variance
    exact = nr.ngd_step(P, eta, jnp.arange(40), 0.2)
    assert float(jnp.abs(exact - nr.ngd_step(P, eta, jnp.arange(40), 0.2)).max()) == 0.0


def test_stochastic_ngd_average_converges_and_covariance_stays_below_prior():
    T = 400
    mean, cov = nr.posterior(P)
    etas = nr.ngd_run(P, nr.natural(P.m0, P.S0), nr.batch_indices(jax.random.PRNGKey(2), 40, 4, T), nr.theorem_rho(T))
    m, c = nr.moments(etas)
    assert nr.max_cov_excess(c, P.S0) <= 1e-12
    am, ac = nr.weighted_average(m, c)
    kl = np.asarray(nr.kl_to(am, ac, mean, cov))
    assert kl[-1] < 0.05 * kl[9]


def test_sgd_full_batch_converges_to_the_posterior():
    # SGD's objective (closed-form expected log-likelihood + exact KL) is minimised at the exact posterior
    mean, cov = nr.posterior(P)
    mu, L = nc.curvature(P)
    batches = jnp.tile(jnp.arange(40), (4000, 1))
    m, c = nc.sgd_run(P, P.m0, jnp.eye(2), batches, 2.0 / mu, 2.0 * L / mu)
    assert float(kl_gaussian(m[-1], c[-1], mean, cov)) < 1e-4


def test_compare_claims_and_figure(tmp_path):
    mu, L = nc.curvature(P)
    runs = nc.compare(jax.random.PRNGKey(3), P, 2, 50, 4, 2.0 / mu, 2.0 * L / mu)
    assert runs["kl"]["ngd"].shape == (2, 51) and runs["nlpd"]["sgd"].shape[0] == 2
    assert np.all(runs["nlpd"]["ngd"] >= runs["nlpd_exact"] - 1e-3)
    table = nc.theorem1_table(runs, 10.0, [10, 50])
    var = {0: (10.0, 1.0), 10: (9.0, 1.0)}
    rows = nc.claims({1.0: dict(ngd_vs_md=0.0, eq15_vs_md=0.0, travelled=1.0)}, (np.ones(3), 0.0), 0.0, 0.0, var, (0.5, 4),
                     table, runs, "test")
    assert len({r["id"] for r in rows}) == len(rows) == 12
    plotting.ngvi_fig01_bike(runs, table).savefig(tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 0
