"""Section 7.1 helpers: the seven covariances (condition numbers as the paper states), the exact mean-field
optimum equals the numerical argmin of KL(q‖π), the schedules, WAdagrad, and the baseline iterate averages."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy.optimize import minimize

from lsvi.core import targets
from lsvi.core.bbvi import families, kernel, optimizers
from lsvi.papers.rabvi import gaussian as rg


@pytest.mark.parametrize("name, lo, hi", [("identity", 1, 1), ("diagonal", 99, 101), ("uniform", 350, 450),
                                          ("banded", 70, 90), ("first1000_uniform", 4500, 5500),
                                          ("first1000_banded", 8500, 9500)])
def test_covariances_condition_numbers_as_in_the_paper(name, lo, hi):
    V = rg.covariance(name, 100)
    assert np.allclose(V, V.T) and np.all(np.linalg.eigvalsh(V) > 0)
    assert lo - 1e-9 <= np.linalg.cond(V) <= hi + 1e-9  # Section 7.1: ~400, ~80, ~5000, ~9000


def test_covariance_entries():
    V = rg.covariance("first1000_banded", 6)
    assert V[0, 0] == 1000 and V[1, 1] == 1 and np.isclose(V[1, 3], 0.8 ** 2)
    assert np.allclose(np.diag(rg.covariance("diagonal_banded", 4)), [1, 2, 3, 4])
    assert np.isclose(rg.covariance("uniform", 4)[0, 3], 0.8)


def test_meanfield_q_star_is_the_kl_argmin():
    V = rg.covariance("diagonal_banded", 4)
    P = np.linalg.inv(V)
    fam = families.meanfield(4)

    def kl(lam):  # KL(q‖π) up to a constant, closed form
        m, s2 = lam[:4], np.exp(2 * lam[4:])
        return 0.5 * (np.sum(np.diag(P) * s2) + m @ P @ m) - np.sum(lam[4:])

    num = minimize(kl, np.ones(8), method="BFGS", options={"gtol": 1e-10}).x
    np.testing.assert_allclose(np.asarray(rg.q_star(fam, V)), num, atol=1e-6)
    full = families.fullrank(4)
    np.testing.assert_allclose(full.mean_cov(rg.q_star(full, V))[1], V, atol=1e-10)


def test_schedules():
    ed = rg.schedule("exp_decay", 100_000)
    assert ed[0] == 0.01 and ed[899] == 0.01 and np.isclose(ed[900], 0.0096)
    assert 0.9e-4 < ed[-1] < 1.2e-4  # "final learning rate approximately 0.0001"
    c = rg.schedule("cosine", 1000)
    assert np.isclose(c[0], 1e-2) and np.all(np.diff(c) < 0) and c[-1] > 1e-4
    assert np.all(rg.schedule("fixed", 10) == 0.01)


def test_windowed_adagrad_matches_direct_computation():
    rng = np.random.default_rng(0)
    grads = rng.normal(size=(15, 3))
    tx = rg.windowed_adagrad(n_win=4, eps=1e-6)
    state = tx.init(jnp.zeros(3))
    for k, g in enumerate(grads):
        d, state = tx.update(jnp.asarray(g), state)
        window = grads[max(0, k - 3):k + 1]
        np.testing.assert_allclose(d, g / np.sqrt(np.mean(window ** 2, 0) + 1e-6), rtol=1e-12)


def test_run_gamma_schedule_averages_equal_brute_force():
    V = rg.covariance("banded", 3)
    fam = families.meanfield(3)
    bb = kernel.build(fam, targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V))), optimizers.adam(), 2)
    key, n = jax.random.PRNGKey(3), 600
    curve = rg.run_gamma_schedule(bb, jnp.zeros(6), rg.schedule("fixed", n), key)
    _, trace, _ = bb.run(key, bb.init(jnp.zeros(6)), 0.01, n)  # same keys: split(key, n)
    trace = np.asarray(trace)
    assert list(curve.iterations) == [200, 400, 600]
    for k, avg in zip(curve.iterations, curve.averages):
        np.testing.assert_allclose(avg, trace[k - k // 5:k].mean(0), atol=1e-10)


def test_run_gamma_schedule_batch_of_keys_equals_one_call_per_key():
    V = rg.covariance("uniform", 3)
    fam = families.meanfield(3)
    bb = kernel.build(fam, targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V))), optimizers.rmsprop(), 2)
    gammas = rg.schedule("exp_decay", 800)
    keys = jnp.stack([jax.random.PRNGKey(s) for s in (5, 6, 7)])
    batch = rg.run_gamma_schedule(bb, jnp.zeros(6), gammas, keys)
    assert batch.averages.shape == (3, 4, 6)
    for k, avg in zip(keys, batch.averages):
        one = rg.run_gamma_schedule(bb, jnp.zeros(6), gammas, k)
        np.testing.assert_array_equal(batch.iterations, one.iterations)
        np.testing.assert_allclose(avg, one.averages, rtol=1e-10, atol=1e-12)
    lam_star = rg.q_star(fam, V)
    np.testing.assert_allclose(rg.curve_sqrt_skl(fam, batch, lam_star)[1],
                               rg.curve_sqrt_skl(fam, rg.run_gamma_schedule(bb, jnp.zeros(6), gammas, keys[1]), lam_star),
                               rtol=1e-8)


def test_study_seeds_gives_each_seed_what_study_target_gives_it():
    kw = dict(num_steps=600, baselines=["Adam", "SGD-ED"], rabvi_optimizers=["avg_adam", "rmsprop"], k_max=2000)
    many = rg.study_seeds("banded", 3, [0, 4], advi_steps=0, **kw)
    for seed, out in zip([0, 4], many):
        one = rg.study_target("banded", 3, seed=seed, **kw)
        assert out["faso"] == one["faso"]
        for o in ("avg_adam", "rmsprop"):
            np.testing.assert_array_equal(out["rabvi"][o]["true"], one["rabvi"][o]["true"])
            np.testing.assert_array_equal(out["rabvi"][o]["iterations"], one["rabvi"][o]["iterations"])
        assert out["rabvi"]["avg_adam"]["next"] == one["rabvi"]["avg_adam"]["next"]
        for label in kw["baselines"]:
            np.testing.assert_allclose(out["baselines"][label][1], one["baselines"][label][1], rtol=1e-8)
    assert many[0]["baselines"]["Adam"][1][-1] != many[1]["baselines"]["Adam"][1][-1]  # the seeds differ
