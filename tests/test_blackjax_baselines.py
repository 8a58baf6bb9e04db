"""Blackjax wrappers: mean-field VI (`lsvi.baselines.blackjax_meanfield`) and the NUTS gold
standard (`lsvi.baselines.nuts`) recover known Gaussian targets."""
import jax.numpy as jnp
import numpy as np

from lsvi.baselines import blackjax_meanfield, blackjax_vi, nuts, thin, to_natural
from lsvi.core.families.gaussian import meanfield_from_natural

MEAN = jnp.array([1.0, -2.0, 0.5])
SD = jnp.array([0.5, 1.5, 1.0])


def diag_gauss(x):
    return -0.5 * jnp.sum(((x - MEAN) / SD) ** 2)


def test_meanfield_vi_recovers_a_diagonal_gaussian():
    """In the family: SGD on the reparameterised ELBO converges to (MEAN, SD²); starting from
    Blackjax's default (0, e⁻⁴). lr 0.02, 3000 steps of 64 draws: observed errors < 0.01."""
    tr = blackjax_meanfield.fit(diag_gauss, 3, num_iterations=3000, num_samples=64, learning_rate=0.02, seed=0)
    assert tr.meanfield and tr.mean.shape == (3001, 3) and tr.cov.shape == (3001, 3)
    np.testing.assert_allclose(tr.mean[0], 0.0)
    np.testing.assert_allclose(tr.cov[0], np.exp(-4.0))
    np.testing.assert_allclose(tr.mean[-1], MEAN, atol=0.05)
    np.testing.assert_allclose(np.sqrt(tr.cov[-1]), SD, rtol=0.05)
    assert np.all(np.diff(tr.elapsed) >= 0) and "error" not in tr.info
    mean, var = meanfield_from_natural(to_natural(tr)[-1], 3)
    np.testing.assert_allclose(mean, tr.mean[-1], rtol=1e-10)


def test_meanfield_vi_reports_divergence():
    tr = blackjax_meanfield.fit(lambda x: jnp.sum(x**4), 2, num_iterations=50, num_samples=8, learning_rate=1.0)
    assert "non-finite" in tr.info["error"]


def test_nuts_gold_standard_on_a_correlated_gaussian():
    """4 chains × 1000 draws of a correlated 2-d Gaussian: mean within 5 Monte Carlo
    standard errors, sd within 10 %, R̂ < 1.02, no divergences."""
    C = jnp.array([[1.0, 0.8], [0.8, 1.0]]) * 4.0
    P = jnp.linalg.inv(C)
    res = nuts.sample(lambda x: -0.5 * (x - 3.0) @ P @ (x - 3.0), 2, num_chains=4, num_warmup=500, num_draws=1000)
    assert res.positions.shape == (4, 1000, 2)
    se = 2.0 / np.sqrt(res.ess_bulk_min)
    np.testing.assert_allclose(res.mean, 3.0, atol=5 * se)
    np.testing.assert_allclose(res.sd, 2.0, rtol=0.1)
    assert res.rhat_max < 1.02 and res.divergences == 0 and res.ess_bulk_min > 300


def test_thin_records_first_and_last_iterations():
    its = thin(10_000, 30)
    assert its[0] == 0 and its[-1] == 10_000 and np.all(np.diff(its) > 0) and len(its) <= 30
    np.testing.assert_array_equal(thin(5, 30), np.arange(6))


def test_repeated_fits_compile_once_and_differ_by_their_seed(monkeypatch):
    """The compiled loop is cached per static arguments: a second fit (another seed) reuses it
    (one lowering) and is a function of its key (other iterates); a new N compiles again."""
    calls = []
    lower = blackjax_vi._run.lower  # args: key, algorithm, params_of, moments, logdensity, d, T, N, ...
    monkeypatch.setattr(blackjax_vi._run, "lower", lambda *a, **k: calls.append(a[7]) or lower(*a, **k))
    blackjax_vi._compiled.cache_clear()
    a = blackjax_meanfield.fit(diag_gauss, 3, num_iterations=3, num_samples=4, seed=0)
    b = blackjax_meanfield.fit(diag_gauss, 3, num_iterations=3, num_samples=4, seed=1)
    blackjax_meanfield.fit(diag_gauss, 3, num_iterations=3, num_samples=16, seed=0)
    assert calls == [4, 16]
    assert not np.allclose(a.mean[-1], b.mean[-1])
    np.testing.assert_allclose(a.elapsed[-1], a.loop_s)


def test_every_registered_baseline_has_the_registry_signature():
    """`BASELINES[name]` calls ``fit_problem(problem, num_iterations, num_samples, seed, **options)``
    of its module; through the registry, Blackjax gives the same trace as a direct `fit`."""
    import importlib
    import inspect
    from types import SimpleNamespace

    from lsvi.baselines import BASELINES

    assert set(BASELINES) == {"pymc_advi", "gmmvi", "blackjax"}
    for name, fit in BASELINES.items():
        params = list(inspect.signature(importlib.import_module(fit.module).fit_problem).parameters)
        assert params[:4] == ["problem", "num_iterations", "num_samples", "seed"], name
    prob = SimpleNamespace(logdensity=diag_gauss, d=3, meanfield=True)
    via = BASELINES["blackjax"](prob, 20, 16, 2, learning_rate=0.02)
    direct = blackjax_meanfield.fit(diag_gauss, 3, 20, 16, 0.02, 2)
    np.testing.assert_array_equal(via.mean, direct.mean)
    np.testing.assert_array_equal(via.cov, direct.cov)
