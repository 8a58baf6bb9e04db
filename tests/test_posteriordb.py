"""posteriordb files (checksums, loading, Table C.1 dimensions) and the JAX translations of its models."""
from __future__ import annotations

import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from lsvi.papers.rabvi import posteriordb as pdb
from lsvi.papers.rabvi import posteriordb_models as pm

jax.config.update("jax_enable_x64", True)

NAMES = list(pdb.POSTERIORS)


def test_every_file_matches_its_recorded_sha256():
    assert pdb.verify_all() == len(pdb.SHA256) > 100


def test_a_changed_or_missing_file_is_a_clear_error(tmp_path):
    rel = "data/data/eight_schools.json.zip"
    (tmp_path / "data/data").mkdir(parents=True)
    shutil.copy(pdb.resolve(pdb.PDB_DIR) / rel, tmp_path / rel)
    assert pdb.load_data("8schools_nc", root=tmp_path)["J"] == 8
    raw = bytearray((tmp_path / rel).read_bytes())
    raw[-1] ^= 1
    (tmp_path / rel).write_bytes(bytes(raw))
    with pytest.raises(pdb.PosteriorDBFileError, match="sha256"):
        pdb.load_data("8schools_nc", root=tmp_path)
    with pytest.raises(pdb.PosteriorDBFileError, match="missing"):
        pdb.load_data("dogs", root=tmp_path)


def test_registry_is_table_c1():
    assert len(pdb.POSTERIORS) == 18 and len(pdb.SHORT) == 18
    assert sum(p.table_dim for p in pdb.POSTERIORS.values()) == 7 + 8 + 8 + 26 + 3 + 2 + 5 + 10 + 10 + 4 + 13 + 3 + 6 + 8 + 5 + 66 + 10 + 6
    assert {n for n in NAMES if not pdb.has_reference_draws(n)} == {"dogs-dogs", "dogs-dogs_log", "mcycle_gp-accel_gp", "diamonds-diamonds"}
    with pytest.raises(LookupError):
        pdb.load_reference("dogs")


def test_reference_draws_and_data_load():
    ref = pdb.load_reference("arK")
    assert ref.draws.shape == (10, 1000, 7) and ref.names[0] == "alpha"
    assert ref.flat.shape == (10000, 7)
    data = pdb.load_data("arK")
    assert data["y"].shape == (data["T"],)
    mom = pdb.reference_moments("mcycle_gp")
    assert mom.source == "summary" and len(mom.names) == 66 and np.all(mom.sd > 0)


@pytest.mark.parametrize("name", NAMES)
def test_model_dimensions_names_and_finite_log_density_at_the_reference_mean(name):
    p = pdb.posterior(name)
    m = pm.build(name)
    assert len(m.names) == p.table_dim  # Table C.1 counts constrained parameters
    if p.reference_kind == "none":  # dogs, dogs_log: a point inside the support
        x = jnp.array([-0.5, -0.2, 0.1]) if name == "dogs-dogs" else jnp.array([-0.2, 0.05])
    elif p.reference_kind == "moments":
        mom = pdb.reference_moments(name)
        assert mom.names == m.names
        x = jnp.asarray(mom.mean)
    else:
        ref = pdb.load_reference(name)
        assert ref.names == m.names
        x = jnp.asarray(ref.flat.mean(0))

    def roundtrip(x):
        theta = m.unconstrain(x)
        return theta, m.constrain(theta), m.logdensity(theta)

    theta, back, lp = jax.jit(roundtrip)(x)  # one compilation per model
    assert theta.shape == (m.dim,)
    np.testing.assert_allclose(back, x, rtol=1e-8, atol=1e-10)
    assert np.isfinite(float(lp))


def _eight_schools_by_hand(tt, mu, tau, y, s):
    """The Stan program eight_schools_noncentered with scipy.stats, on θ = (theta_trans, mu, log tau)."""
    theta = mu + tau * tt
    return (stats.norm.logpdf(tt, 0, 1).sum() + stats.norm.logpdf(y, theta, s).sum() + stats.norm.logpdf(mu, 0, 5)
            + stats.cauchy.logpdf(tau, 0, 5) + np.log(tau))  # + log-Jacobian of tau = exp(u)


def test_eight_schools_log_density_equals_scipy_by_hand():
    m = pm.build("8schools_nc")
    d = pdb.load_data("8schools_nc")
    ths = np.random.default_rng(0).normal(size=(3, 10))
    ours = jax.jit(jax.vmap(m.logdensity))(jnp.asarray(ths))
    for th, lp in zip(ths, ours):
        expected = _eight_schools_by_hand(th[:8], th[8], np.exp(th[9]), d["y"], d["sigma"])
        assert float(lp) == pytest.approx(expected, rel=1e-12)


def test_dogs_log_density_equals_a_loop_over_dogs_and_trials():
    """Stan's dogs program written again as its loops (scipy's Bernoulli), against our vectorised one."""
    m = pm.build("dogs")
    y = pdb.load_data("dogs")["y"]
    beta = np.array([1.2, -0.3, -0.15])
    lp = stats.norm.logpdf(beta, 0, 100).sum()
    for j in range(y.shape[0]):
        n_avoid = n_shock = 0
        for t in range(y.shape[1]):
            if t > 0:
                n_avoid += 1 - y[j, t - 1]
                n_shock += y[j, t - 1]
            eta = beta[0] + beta[1] * n_avoid + beta[2] * n_shock
            lp += stats.bernoulli.logpmf(y[j, t], 1 / (1 + np.exp(-eta)))
    assert float(m.logdensity(jnp.asarray(beta))) == pytest.approx(lp, rel=1e-12)


def test_dogs_log_is_minus_infinity_outside_its_uniform_priors_box():
    m = pm.build("dogs_log")
    assert np.isfinite(float(m.logdensity(jnp.array([-0.2, 0.05]))))
    assert float(m.logdensity(jnp.array([0.2, 0.05]))) == -np.inf


def test_stan_transforms_log_jacobians_match_autodiff():
    """The log-Jacobian terms of the ordered / simplex / bounded transforms equal log|det ∂x/∂u|."""

    def both(u):
        out = []
        for f in (pm._ordered, pm._pos_ordered):
            out += [f(u)[1], jnp.linalg.slogdet(jax.jacfwd(lambda v: f(v)[0])(u))[1]]
        out += [pm._lub(u[0], 0.3)[1], jnp.log(jax.grad(lambda v: pm._lub(v, 0.3)[0])(u[0]))]
        out += [pm._simplex2(u[:1])[1], jnp.log(jax.grad(lambda v: pm._simplex2(jnp.atleast_1d(v))[0][0])(u[0]))]
        return jnp.stack(out)

    got = np.asarray(jax.jit(both)(jnp.array([0.3, -0.7])))
    np.testing.assert_allclose(got[0::2], got[1::2], rtol=1e-12)


def test_mcycle_gp_gradient_is_finite_where_the_spectral_density_underflows():
    """At θ = 0 (lscale = 1) the higher frequencies' spectral density exp(−lscale² λ²/2) underflows to 0; the
    translation takes its square root in closed form, so the gradient stays finite (sqrt(0)' = ∞ made it NaN) and
    the log density equals brms's sqrt(spd) form wherever that one is finite."""
    m = pm.build("mcycle_gp-accel_gp")
    g = jax.grad(m.logdensity)(jnp.zeros(m.dim))
    assert np.all(np.isfinite(np.asarray(g)))
    theta = jnp.asarray(np.random.default_rng(0).normal(scale=0.3, size=m.dim))
    sdgp, lscale, lam = 1.7, 0.4, jnp.linspace(0.1, 5.0, 7)
    brms = jnp.sqrt(sdgp**2 * jnp.sqrt(2 * jnp.pi) * lscale * jnp.exp(-0.5 * lscale**2 * lam**2))
    ours = sdgp * (2 * jnp.pi) ** 0.25 * jnp.sqrt(lscale) * jnp.exp(-0.25 * lscale**2 * lam**2)
    np.testing.assert_allclose(ours, brms, rtol=1e-12)
    assert np.isfinite(float(m.logdensity(theta)))
