"""lsvi.core.bbvi: Gaussian families, eq. 18 averaging, the BBVI kernel, FASO (Alg. 1) and RABVI (Alg. 2)."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core.bbvi import faso, families, kernel, optimizers, rabvi


def gaussian_target(d, r=0.5):
    i = np.arange(d)
    V = r ** np.abs(i[:, None] - i[None, :])
    P = jnp.asarray(np.linalg.inv(V))
    return V, (lambda th: -0.5 * th @ P @ th)


def meanfield_star(V):
    fam = families.meanfield(len(V))
    return fam, fam.init(np.zeros(len(V)), np.diag(1 / np.diag(np.linalg.inv(V))))


def test_averaged_rms_is_the_running_mean_of_squared_gradients():
    """Eq. 18 with β_k = 1 − 1/k: ν after k updates is the mean of the k squared gradients."""
    tx = optimizers.avg_rmsprop(eps=0.0)
    g = np.random.default_rng(0).normal(size=(50, 3))
    state = tx.init(jnp.zeros(3))
    for k in range(50):
        d, state = tx.update(jnp.asarray(g[k]), state)
        np.testing.assert_allclose(state.nu, np.mean(g[: k + 1] ** 2, axis=0), rtol=1e-12)
        np.testing.assert_allclose(d, g[k] / np.sqrt(np.mean(g[: k + 1] ** 2, axis=0)), rtol=1e-12)


@pytest.mark.parametrize("make", [families.meanfield, families.fullrank])
def test_family_moments_entropy_and_sampling(make):
    d = 3
    fam = make(d)
    rng = np.random.default_rng(1)
    A = rng.normal(size=(d, d))
    cov = A @ A.T + 0.5 * np.eye(d) if fam.name == "fullrank" else np.diag([0.5, 2.0, 1.0])
    m = rng.normal(size=d)
    lam = fam.init(m, cov)
    m2, cov2 = fam.mean_cov(lam)
    np.testing.assert_allclose(m2, m, atol=1e-12)
    np.testing.assert_allclose(cov2, cov, atol=1e-10)
    exact_h = 0.5 * np.linalg.slogdet(2 * np.pi * np.e * cov)[1]
    np.testing.assert_allclose(fam.entropy(lam), exact_h, atol=1e-10)
    th = np.asarray(fam.sample(lam, jax.random.normal(jax.random.PRNGKey(0), (200_000, d))))
    np.testing.assert_allclose(np.cov(th.T), cov, atol=0.05 * np.max(np.abs(cov)))


def test_skl_of_family_parameters_matches_monte_carlo():
    rng = np.random.default_rng(2)
    m0, m1 = rng.normal(size=2), rng.normal(size=2)
    S0, S1 = np.array([[1.0, 0.3], [0.3, 0.5]]), np.array([[2.0, -0.4], [-0.4, 1.0]])
    x = rng.multivariate_normal(m0, S0, 400_000)

    def logpdf(x, m, S):
        r = x - m
        return -0.5 * np.sum(r @ np.linalg.inv(S) * r, 1) - 0.5 * np.linalg.slogdet(2 * np.pi * S)[1]

    mc = np.mean(logpdf(x, m0, S0) - logpdf(x, m1, S1))
    fam = families.fullrank(2)
    lam0, lam1 = (fam.init(m, S) for m, S in ((m0, S0), (m1, S1)))
    mc_rev = np.mean(logpdf(x1 := rng.multivariate_normal(m1, S1, 400_000), m1, S1) - logpdf(x1, m0, S0))
    # SKL of the family's parameters = the Monte Carlo KL both ways (tests the λ <-> (m, S) maps too)
    assert abs(float(families.skl(fam, lam0, lam1)) - (mc + mc_rev)) < 0.02


def test_fixed_rate_iterate_average_recovers_the_meanfield_optimum():
    V, logp = gaussian_target(3)
    fam, lam_star = meanfield_star(V)
    bb = kernel.build(fam, logp, optimizers.avg_adam(), 10)
    state = bb.init(jnp.zeros(6))
    state, trace, info = bb.run(jax.random.PRNGKey(0), state, 0.03, 4000)
    lam_bar = np.asarray(trace[1500:]).mean(0)
    assert float(families.skl(fam, lam_star, jnp.asarray(lam_bar))) < 1e-3
    assert info.loss.shape == (4000,)


def test_faso_succeeds_and_its_average_is_accurate():
    V, logp = gaussian_target(4)
    fam, lam_star = meanfield_star(V)
    bb = kernel.build(fam, logp, optimizers.avg_adam(), 10)
    res = faso.faso(bb, jnp.zeros(8), 0.1, jax.random.PRNGKey(1), eps=0.05, meanfield_dim=4, r=1.0)
    assert res.success and res.k_conv is not None and res.ess_min >= 50 and res.error < 0.05
    sd = np.exp(np.asarray(lam_star)[4:])
    # Prop. 5.1-type accuracy of the average against the exact optimum (bias O(γ) included)
    assert np.max(np.abs(res.position[:4]) / sd) < 0.2
    assert np.max(np.abs(res.position[4:] - np.asarray(lam_star)[4:])) < 0.2


def test_faso_warns_when_k_max_is_too_small():
    V, logp = gaussian_target(2)
    fam, _ = meanfield_star(V)
    bb = kernel.build(fam, logp, optimizers.avg_adam(), 10)
    with pytest.warns(RuntimeWarning, match="FASO"):
        res = faso.faso(bb, jnp.full(4, 3.0), 0.01, jax.random.PRNGKey(0), k_max=300, meanfield_dim=2)
    assert not res.success and res.iterations == 300


def test_chi_schedule():
    assert faso.chi(0.0) == 2.0 and faso.chi(3.0) == pytest.approx(1.5)


def test_split_rhat_flags_a_trend_and_passes_noise():
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(400, 2))
    assert np.all(faso.split_rhat(noise) < 1.05)
    assert np.all(faso.split_rhat(noise + np.linspace(0, 5, 400)[:, None]) > 1.5)


@pytest.mark.parametrize("kappa", [1.0, 0.7])
def test_wls_regression_recovers_c_and_kappa(kappa):
    rho, C = 0.5, 3.0
    g = 0.3 * rho ** np.arange(1, 6)
    delta = C * g ** (2 * kappa) * (1 / rho ** kappa - 1) ** 2
    c_hat, k_hat = rabvi.wls_skl_regression(np.log(g), np.log(delta), rabvi.weights(5), rho, fix_kappa=kappa == 1.0)
    assert c_hat == pytest.approx(C, rel=0.05) and k_hat == pytest.approx(kappa, abs=0.011)


def test_weights_eq25():
    w = rabvi.weights(4)
    np.testing.assert_allclose(w, [(1 + 9 / 9) ** -0.25, (1 + 4 / 9) ** -0.25, (1 + 1 / 9) ** -0.25, 1.0])


def test_rabvi_terminates_near_the_exact_optimum():
    V, logp = gaussian_target(4)
    fam, lam_star = meanfield_star(V)
    bb = kernel.build(fam, logp, optimizers.avg_adam(), 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no FASO failure, no K_max
        res = rabvi.rabvi(bb, fam, jnp.zeros(8), jax.random.PRNGKey(0), r=1.0)
    assert res.terminated and len(res.epochs) >= 3
    assert np.sqrt(float(families.skl(fam, lam_star, jnp.asarray(res.position)))) < 0.2
    gammas = [e.gamma for e in res.epochs]
    np.testing.assert_allclose(gammas, 0.3 * 0.5 ** np.arange(len(gammas)))
    np.testing.assert_allclose([e.eps for e in res.epochs], 0.1 * 0.5 ** np.arange(len(gammas)))


@pytest.mark.slow
def test_pymc_regression_recovers_c():
    from lsvi.baselines import pymc_skl_regression

    rho, C = 0.5, 3.0
    g = 0.3 * rho ** np.arange(1, 5)
    delta = C * g ** 2 * (1 / rho - 1) ** 2 * np.exp(np.random.default_rng(0).normal(0, 0.05, 4))
    c_hat, k_hat = pymc_skl_regression.fit(np.log(g), np.log(delta), rabvi.weights(4), rho, True, draws=300, tune=300)
    assert c_hat == pytest.approx(C, rel=0.2) and k_hat == 1.0
