"""The real NVP flow family (lsvi.baselines.flowjax_realnvp) and the BBVI kernel's entropy-free ELBO path."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.scipy.stats import norm

from lsvi.baselines import flowjax_realnvp as fr
from lsvi.core.bbvi import families, kernel, optimizers

jax.config.update("jax_enable_x64", True)


def test_zero_initialised_flow_is_the_standard_normal():
    flow = fr.realnvp(3, jax.random.PRNGKey(0))
    z = jax.random.normal(jax.random.PRNGKey(1), (50, 3))
    theta, logq = jax.jit(flow.family.sample_and_log_density)(flow.init, z)
    np.testing.assert_allclose(np.sort(np.asarray(theta), 1), np.sort(np.asarray(z), 1), atol=1e-12)  # permutations
    np.testing.assert_allclose(logq, norm.logpdf(theta).sum(-1), atol=1e-10)


def test_log_density_of_samples_matches_flowjax_inverse_pass():
    flow = fr.realnvp(4, jax.random.PRNGKey(2))
    lam = flow.init + 0.3 * jax.random.normal(jax.random.PRNGKey(3), flow.init.shape)
    z = jax.random.normal(jax.random.PRNGKey(4), (20, 4))
    theta, logq = jax.jit(flow.family.sample_and_log_density)(lam, z)
    np.testing.assert_allclose(logq, jax.jit(lambda l, t: fr.log_density(flow, l, t))(lam, theta), atol=1e-8)
    assert float(jnp.max(jnp.abs(theta - jax.jit(flow.family.sample)(lam, z)))) == 0.0
    assert flow.family.num_params == flow.init.size and flow.family.entropy is None


@pytest.mark.parametrize("d", [3, 7, 10])
def test_every_coordinate_is_transformed(d):
    flow = fr.realnvp(d, jax.random.PRNGKey(98))
    lam = flow.init + 0.3 * jax.random.normal(jax.random.PRNGKey(5), flow.init.shape)
    z = jax.random.normal(jax.random.PRNGKey(1), (100, d))
    theta = np.asarray(jax.jit(flow.family.sample)(lam, z))
    for i in range(d):  # no output coordinate is a base coordinate passed through
        assert not any(np.allclose(theta[:, i], z[:, j]) for j in range(d))


def test_paper_architecture_size():
    # 3 coupling layers on d = 3: conditioner 1 -> 8 -> 8 -> 2 x 2 (loc, scale of the 2 transformed coordinates)
    flow = fr.realnvp(3, jax.random.PRNGKey(0))
    assert flow.family.num_params == 3 * ((1 * 8 + 8) + (8 * 8 + 8) + (8 * 4 + 4))


def test_entropy_free_elbo_is_exact_when_q_equals_the_target():
    # log π(θ) − log q(θ) = 0 for every θ when π = q normalised: the estimator has zero variance
    m, s = jnp.array([1.0, -2.0]), jnp.array([0.5, 3.0])
    mf = families.meanfield(2)

    def sld(lam, z):
        theta = mf.sample(lam, z)
        return theta, norm.logpdf(theta, lam[:2], jnp.exp(lam[2:])).sum(-1)

    fam = mf._replace(entropy=None, sample_and_log_density=sld)
    bb = kernel.build(fam, lambda t: norm.logpdf(t, m, s).sum(), optimizers.get("sgd"), 7)
    lam = jnp.concatenate([m, jnp.log(s)])
    _, info = bb.step(jax.random.PRNGKey(0), bb.init(lam), 0.0)
    assert abs(float(info.loss)) < 1e-12  # (the gradient is zero in expectation only: score term)
    # and the Gaussian (closed-form entropy) path gives −ELBO = −E log π − H = 0 in expectation only
    _, info_g = kernel.build(mf, lambda t: norm.logpdf(t, m, s).sum(), optimizers.get("sgd"), 7).step(
        jax.random.PRNGKey(0), bb.init(lam), 0.0)
    assert abs(float(info_g.loss)) > 1e-6


@pytest.mark.parametrize("seed", [0])
def test_flow_bbvi_recovers_a_correlated_gaussian(seed):
    mu, cov = jnp.array([1.0, -1.0]), jnp.array([[1.0, 0.8], [0.8, 1.0]])
    prec = jnp.linalg.inv(cov)
    flow = fr.realnvp(2, jax.random.PRNGKey(seed))
    bb = kernel.build(flow.family, lambda t: -0.5 * (t - mu) @ prec @ (t - mu), optimizers.get("adam"), 10)
    state, trace, _ = bb.run(jax.random.PRNGKey(1), bb.init(flow.init), 0.01, 3000)
    lam = trace[-500:].mean(0)
    theta = jax.jit(flow.family.sample)(lam, jax.random.normal(jax.random.PRNGKey(2), (20000, 2)))
    np.testing.assert_allclose(theta.mean(0), mu, atol=0.1)
    np.testing.assert_allclose(theta.std(0), jnp.sqrt(jnp.diag(cov)), rtol=0.1)
    assert abs(float(jnp.corrcoef(theta.T)[0, 1]) - 0.8) < 0.1  # a mean-field Gaussian could not
