"""`lsvi.fit`, the top-level API, and the README example that shows it (run here as printed)."""
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import lsvi

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_example(name: str = "fit") -> str:
    text = README.read_text()
    m = re.search(rf"<!-- {name} example: tests/test_api.py runs it -->\s*```python\n(.*?)```", text, re.S)
    assert m, f"README lost its {name} example"
    return m.group(1)


def test_the_readme_example_runs_and_recovers_its_gaussian_target():
    scope = {}
    exec(readme_example(), scope)  # noqa: S102  (our own README)
    result = scope["result"]
    assert result.algorithm == "alg3" and result.etas.shape[0] == 31
    np.testing.assert_allclose(result.mean, [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(result.cov, np.diag([1.0, 0.25]), atol=0.05)


def test_fit_mean_field_and_a_generic_family():
    d = 3
    m = jnp.array([0.5, -1.0, 2.0])
    res = lsvi.fit(lambda x: -0.5 * jnp.sum((x - m) ** 2), lsvi.families.gaussian_meanfield(d), 5000, 20, 2)
    assert res.algorithm == "alg2"
    np.testing.assert_allclose(res.mean, m, atol=0.05)
    np.testing.assert_allclose(res.cov, np.ones(d), rtol=0.1)
    # Algorithm 1 on a product of Bernoullis: the target is in the family, so one full step is exact
    fam = lsvi.families.bernoulli(d)
    logit = jnp.array([1.0, -1.0, 0.0])
    res = lsvi.fit(lambda g: g @ logit, fam, 200, 1, 1.0, batched=False,
                   eta0=jnp.concatenate([jnp.zeros(1), jnp.zeros(d)]))
    assert res.algorithm == "alg1"
    np.testing.assert_allclose(res.eta[1:], logit, atol=1e-8)
    with pytest.raises(ValueError, match="pass eta0"):
        lsvi.fit(lambda g: g @ logit, fam, 200, 1, 1.0)
    with pytest.raises(TypeError, match="schedule"):
        lsvi.fit(lambda x: -x @ x, lsvi.families.gaussian_fullcov(2), 100, 1, "harmonic")


def test_same_seed_same_numbers():
    f = lambda x: -0.5 * x @ x - 0.1 * x[0] ** 4
    a = lsvi.fit(f, lsvi.families.gaussian_fullcov(2), 500, 5, 3, seed=7)
    b = lsvi.fit(f, lsvi.families.gaussian_fullcov(2), 500, 5, 3, seed=7)
    c = lsvi.fit(f, lsvi.families.gaussian_fullcov(2), 500, 5, 3, seed=8)
    np.testing.assert_array_equal(a.etas, b.etas)
    assert not np.allclose(a.etas[-1], c.etas[-1])
    assert bool(jax.numpy.all(a.info.accepted))


# --------------------------------------------------------------------------- bad input (issue 30)


def _gauss(x):
    return -0.5 * jnp.sum(x**2)


def test_too_few_draws_names_the_minimum():
    fam = lsvi.families.gaussian_fullcov(3)  # m = 1 + 3 + 6 = 10
    with pytest.raises(ValueError, match=r"alg1 .* needs num_samples >= 11, got 5"):
        lsvi.fit(_gauss, fam, 5, 3, 1.0, algorithm="alg1")
    with pytest.raises(ValueError, match=r"needs num_samples >= 2, got 1"):
        lsvi.fit(_gauss, fam, 1, 3, 1.0)
    assert lsvi.core.api.min_num_samples("alg1", fam) == fam.num_params + 1 == 11


@pytest.mark.parametrize("num_steps", [0, -2, 2.5, True])
def test_num_steps_must_be_a_positive_integer(num_steps):
    with pytest.raises(ValueError, match="num_steps must be a positive integer"):
        lsvi.fit(_gauss, lsvi.families.gaussian_fullcov(2), 100, num_steps, 1.0)


def test_a_log_density_not_finite_at_the_initial_draws_is_refused():
    with pytest.raises(ValueError, match="not finite at 16 of 16 draws"):
        lsvi.fit(lambda x: jnp.nan * jnp.sum(x), lsvi.families.gaussian_fullcov(3), 100, 3, 1.0)
    # finite only on half the space: still refused, with the count
    with pytest.raises(ValueError, match=r"not finite at \d+ of 16 draws"):
        lsvi.fit(lambda x: jnp.log(x[0]), lsvi.families.gaussian_meanfield(2), 100, 3, 1.0)


def test_a_log_density_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match=r"one scalar per point: X of shape \(16, 2\) gave shape \(16, 2\)"):
        lsvi.fit(lambda x: -0.5 * x**2, lsvi.families.gaussian_fullcov(2), 100, 3, 1.0)
    with pytest.raises(ValueError, match="one scalar per point"):  # batched, but summed over the batch
        lsvi.fit(lambda X: -0.5 * jnp.sum(X**2), lsvi.families.gaussian_fullcov(2), 100, 3, 1.0, batched=True)


def test_unknown_family_algorithm_or_schedule_are_refused():
    with pytest.raises(TypeError, match="ExponentialFamily"):
        lsvi.fit(_gauss, "gaussian", 100, 3, 1.0)
    with pytest.raises(ValueError, match="unknown algorithm 'alg9'; registered: alg1, alg2, alg3, ngd"):
        lsvi.fit(_gauss, lsvi.families.gaussian_fullcov(2), 100, 3, 1.0, algorithm="alg9")
    with pytest.raises(ValueError, match="Table 3"):
        lsvi.fit(_gauss, lsvi.families.gaussian_fullcov(2), 100, 3, 9)


def test_an_improper_target_raises():
    # +1/2 |x|^2 has no normalisable fit: every regression target eta' is outside V, Algorithm 4 only
    # shrinks the steps (they are "accepted", creeping towards the boundary): fit raises, it never returns
    with pytest.raises(RuntimeError, match="outside V .* at every one of the 4 steps"):
        lsvi.fit(lambda x: 0.5 * jnp.sum(x**2), lsvi.families.gaussian_fullcov(2), 500, 4, 1.0)


def _nan_far_out(x):  # finite on [-2.5, 2.5], NaN beyond: some batches of draws hold a NaN
    return jnp.where(jnp.all(jnp.abs(x) < 2.5), -0.5 * jnp.sum(x**2), jnp.nan)


def test_rejected_steps_warn_with_their_count_and_all_rejected_raises():
    import warnings as _w

    with _w.catch_warnings():  # a valid fit: nothing rejected, no warning
        _w.simplefilter("error")
        res = lsvi.fit(_gauss, lsvi.families.gaussian_fullcov(2), 500, 4, 1.0)
    assert res.num_rejected == res.num_backtracked == 0
    # 100 draws a step: most batches hold a NaN (the regression is NaN, no step is valid), one does not
    with pytest.warns(RuntimeWarning, match=r"7 of 8 steps were rejected"):
        res = lsvi.fit(_nan_far_out, lsvi.families.gaussian_fullcov(1), 100, 8, 0.5, seed=0)
    assert res.num_rejected == 7 == int(np.sum(~np.asarray(res.info.accepted)))
    assert bool(lsvi.families.gaussian_fullcov(1).is_valid(res.eta))  # the kept iterate is a valid q
    # 400 draws a step: every batch holds a NaN
    with pytest.raises(RuntimeError, match="every one of the 8 steps was rejected"):
        lsvi.fit(_nan_far_out, lsvi.families.gaussian_fullcov(1), 400, 8, 0.5, seed=0)


def test_the_readme_rabvi_example_stops_near_its_gaussian_target():
    scope = {}
    exec(readme_example("rabvi"), scope)  # noqa: S102  (our own README)
    res, mean, cov = scope["res"], scope["mean"], scope["cov"]
    assert res.terminated and res.success
    np.testing.assert_allclose(mean, 1.0, atol=0.1)
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), scope["scales"], rtol=0.1)


def test_the_readme_online_example_runs_every_method():
    scope = {}
    exec(readme_example("online"), scope)  # noqa: S102  (our own README)
    losses = scope["losses"]
    assert losses.shape == (2000,) and bool(jnp.all(jnp.isfinite(losses)))
    # the last method run (OGA) learns: its forecasts' loss falls below the 0-forecast's log 2
    assert float(losses[1000:].mean()) < 0.9 * float(np.log(2.0))



def test_the_readme_ngvi_example_reaches_the_logistic_posterior():
    """Wu & Gardner's stochastic NGVI from the README: every step valid, the final q near the exact Gaussian VI
    optimum, found independently by BFGS on the quadrature negative ELBO in (m, L) coordinates."""
    from lsvi.papers.ngvi.checks import landscape as nl
    from lsvi.papers.ngvi import nonconjugate as nc

    scope = {}
    exec(readme_example("ngvi"), scope)  # noqa: S102  (our own README)
    assert bool(scope["info"].valid.all())
    Xf = scope["y"][:, None] * scope["X"]
    m_ref, S_ref, gnorm = nc.sqrt_optimum(Xf, 1.0, nl.hermite_nodes(32))
    assert gnorm < 1e-5
    sd = np.sqrt(np.diag(S_ref))
    np.testing.assert_allclose(scope["mean"], m_ref, atol=0.5 * sd.max())  # within half a posterior sd
    np.testing.assert_allclose(np.sqrt(np.diag(scope["cov"])), sd, rtol=0.3)
