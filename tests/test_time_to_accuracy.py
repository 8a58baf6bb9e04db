"""lsvi.papers.lsvi.time_to_accuracy: time to threshold, the common-draws KL, LSVI traces."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.baselines import GaussianTrace
from lsvi.core import algorithms, losses
from lsvi.core.families import gaussian_fullcov
from lsvi.core.families.gaussian import fullcov_to_natural
from lsvi.papers.lsvi import time_to_accuracy as tta

jax.config.update("jax_enable_x64", True)


def _trace(label, mean, cov, meanfield=False, elapsed=None):
    K = len(mean)
    return tta.MethodTrace(label, "", np.arange(K), np.arange(K, dtype=float) if elapsed is None else elapsed,
                           np.asarray(mean), np.asarray(cov), meanfield, float(K - 1), 0.0)


def _gaussian_target(mean, cov, shift):
    """log N(x; mean, cov) + shift (so log Z = shift), as ``(key, X (N, d)) -> (N,)``."""
    dist = jax.scipy.stats.multivariate_normal
    return lambda key, X: dist.logpdf(X, mean, cov) + shift


def test_time_to_threshold_first_and_sustained():
    t = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    kl = np.array([10.0, 3.0, 0.5, 2.0, 0.4, 0.3])
    assert tta.time_to_threshold(t, kl, 1.0) == 2.0             # first record at or below 1
    assert tta.time_to_threshold(t, kl, 1.0, sustained=True) == 4.0   # stays below from t = 4 on
    assert tta.time_to_threshold(t, kl, 0.1) is None
    assert tta.time_to_threshold(t, np.array([5, 0.0, 0, 0, 0, 2.0]), 1.0, sustained=True) is None


def test_kl_estimator_equals_closed_form_for_gaussian_target():
    d = 3
    rng = np.random.default_rng(0)
    A = rng.normal(size=(d, d))
    target_cov = A @ A.T + d * np.eye(d)
    target_mean = rng.normal(size=d)
    shift = 7.3  # log Z of the unnormalised target
    means = np.stack([np.zeros(d), target_mean + 0.3, target_mean])
    covs = np.stack([np.eye(d), 0.5 * target_cov, target_cov])
    kls = tta.kl_up_to_log_z([_trace("a", means, covs)], _gaussian_target(target_mean, target_cov, shift), d,
                             num_draws=50_000)["a"]
    exact = np.array([losses.kl_gaussian(jnp.asarray(m), jnp.asarray(c), jnp.asarray(target_mean),
                                         jnp.asarray(target_cov)) for m, c in zip(means, covs)])
    np.testing.assert_allclose(kls + shift, exact, atol=0.03)
    assert abs(kls[-1] + shift) < 1e-10  # q = π: log q − log π̃ = −log Z for every draw


def test_mean_field_trace_scored_like_its_full_covariance_twin():
    """Common draws: a mean-field iterate and the same Gaussian given with a full (diagonal)
    covariance get the same estimate, bit for bit up to rounding, and distinct methods share draws."""
    d = 4
    mean = np.array([[0.0, 1.0, -1.0, 0.5], [0.2, 0.1, 0.0, 0.3]])
    var = np.array([[1.0, 2.0, 0.5, 1.5], [0.3, 0.4, 0.5, 0.6]])
    target = _gaussian_target(np.zeros(d), np.eye(d), 0.0)
    kls = tta.kl_up_to_log_z([_trace("mf", mean, var, meanfield=True),
                              _trace("fc", mean, np.stack([np.diag(v) for v in var]))], target, d, num_draws=500)
    np.testing.assert_allclose(kls["mf"], kls["fc"], rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError):
        tta.natural_parameters(_trace("fc", mean, np.stack([np.diag(v) for v in var])), meanfield=True)


def test_lsvi_trace_recovers_a_gaussian_target_and_summary_reads_it():
    """Algorithm 1 with ε = 1 (Table 3 schedule 3) regresses a Gaussian log target exactly (OLS
    of a quadratic on s(X)): the first step lands on the target, so the KL gap to the best is 0
    from iteration 1 on."""
    d = 3
    mean, cov = np.array([1.0, -0.5, 2.0]), np.diag([0.5, 2.0, 1.0]) + 0.2
    target = _gaussian_target(mean, cov, 0.0)
    family = gaussian_fullcov(d)
    kern = algorithms.build_kernel("alg1", family, target, 200)
    tr = tta.lsvi_trace("alg1", family, kern, fullcov_to_natural(jnp.zeros(d), jnp.eye(d)), 3, 5, num_records=10)
    assert list(tr.iterations) == [0, 1, 2, 3, 4, 5]
    assert tr.elapsed[0] == 0.0 and np.all(np.diff(tr.elapsed) >= 0) and tr.loop_s == tr.elapsed[-1]
    np.testing.assert_allclose(tr.mean[-1], mean, atol=1e-8)
    np.testing.assert_allclose(tr.cov[-1], cov, atol=1e-8)
    far = _trace("far", np.zeros((2, d)), np.stack([4 * np.eye(d)] * 2), elapsed=np.array([0.0, 1.0]))
    kls = tta.kl_up_to_log_z([tr, far], target, d, num_draws=2000)
    rows = {r["method"]: r for r in tta.summary([tr, far], kls, deltas=(1.0, 0.1))}
    assert rows["alg1"]["final_gap"] == pytest.approx(0.0, abs=1e-9)
    assert rows["alg1"]["t_0.1"] == tr.elapsed[1]
    assert rows["far"]["t_1"] is None and rows["far"]["final_gap"] > 1.0


def test_averaged_trace_is_theorem_34s_average_at_the_same_records():
    """`averaged` gives ω̄_k of `averaged_iterate.average_trace` (weights from the step sizes the run used)
    at the records of the last iterate, with the same loop times; with ε = 1 on a Gaussian target every
    iterate from k = 1 on is the target, so ω̄_k is too, whatever the weights."""
    from lsvi.papers.lsvi.averaged_iterate import average_trace

    d = 2
    mean, cov = np.array([1.0, -0.5]), np.array([[1.0, 0.3], [0.3, 0.5]])
    target = _gaussian_target(mean, cov, 0.0)
    family = gaussian_fullcov(d)
    kern = algorithms.build_kernel("alg1", family, target, 200)
    eta0 = fullcov_to_natural(jnp.zeros(d), jnp.eye(d))
    run = tta.lsvi_run("alg1", family, kern, eta0, 3, 6, num_records=3)
    assert run.etas.shape == (7, family.num_params) and run.eps.shape == (6,) and np.all(run.eps == 1.0)
    bar = tta.averaged(run, family, "alg1 avg")
    assert bar.label == "alg1 avg" and list(bar.iterations) == list(run.trace.iterations)
    np.testing.assert_array_equal(bar.elapsed, run.trace.elapsed)
    np.testing.assert_allclose(bar.mean[-1], mean, atol=1e-8)
    np.testing.assert_allclose(bar.cov[-1], cov, atol=1e-8)
    # a run with a decreasing schedule: the average lags behind the last iterate and equals average_trace's
    kern3 = algorithms.build_kernel("alg1", family, target, 500)
    run2 = tta.lsvi_run("alg1", family, kern3, eta0, 1, 8, num_records=8)
    ref = average_trace(family, run2.etas[None], run2.eps[None])[0]
    ref_mean, _ = tta._moments(family, ref[np.asarray(run2.trace.iterations)])
    np.testing.assert_allclose(tta.averaged(run2, family, "avg").mean, ref_mean, rtol=1e-12)


def test_aggregate_medians_ranges_and_counts_over_runs():
    rows = [dict(method="a", config="c", iterations=10, loop_s=s, compile_s=1.0, final_gap=g, best_gap=0.0, error="",
                 **{"t_1": t1, "t_1_sustained": t1, "t_0.1": t01, "t_0.1_sustained": t01})
            for s, g, t1, t01 in ((1.0, 0.05, 0.2, 0.5), (2.0, 0.2, 0.4, None), (3.0, 0.01, 0.3, 0.6))]
    (agg,) = tta.aggregate(rows)
    assert agg["runs"] == 3 and agg["loop_s"] == 2.0 and agg["final_gap"] == 0.05
    assert (agg["final_gap_min"], agg["final_gap_max"]) == (0.01, 0.2)
    assert agg["reached_1"] == 3 and agg["t_1"] == 0.3 and (agg["t_1_min"], agg["t_1_max"]) == (0.2, 0.4)
    assert agg["reached_0.1"] == 2 and agg["t_0.1"] == pytest.approx(0.55) and agg["t_0.1_max"] == 0.6


def test_baseline_trace_thinned_keeps_ends():
    K = 501
    g = GaussianTrace(np.arange(K), np.zeros((K, 2)), np.ones((K, 2)), np.linspace(0, 5, K), True, {}, 5.0, 1.0)
    tr = tta.from_gaussian_trace("bj", "cfg", g, num_records=40)
    assert tr.iterations[0] == 0 and tr.iterations[-1] == K - 1 and len(tr.iterations) <= 40
    assert tr.elapsed[-1] == 5.0 and tr.meanfield and tr.error == ""


def test_blackjax_fullrank_recovers_a_gaussian_target():
    """The Blackjax full-rank VI wrapper (a baseline of the benchmark): on a Gaussian target the
    ELBO optimum is the target itself; its covariance read-back (L Lᵀ from Blackjax's flat
    parameters) must match it."""
    from lsvi.baselines import blackjax_fullrank
    from lsvi.core.targets import gaussian_logdensity

    mean = jnp.array([1.0, -2.0, 0.5])
    cov = jnp.array([[1.0, 0.6, 0.0], [0.6, 2.0, -0.3], [0.0, -0.3, 0.5]])
    tr = blackjax_fullrank.fit(gaussian_logdensity(jnp.linalg.inv(cov), mean), 3, num_iterations=3000,
                               num_samples=50, learning_rate=2e-2, seed=0)
    assert not tr.info.get("error") and tr.cov.shape == (3001, 3, 3)
    np.testing.assert_allclose(tr.cov[0], np.eye(3))  # Blackjax's init: L = I
    np.testing.assert_allclose(tr.mean[-1], mean, atol=0.1)
    np.testing.assert_allclose(tr.cov[-1], cov, atol=0.15)


def test_pymc_openblas_option_gives_the_same_iterates():
    """pymc_advi's ``blas_ldflags`` option (issue 17, part 3) changes PyTensor's BLAS, not the
    algorithm: same seed, same iterates. libopenblas is a system library that ``make setup`` installs
    (Debian's libopenblas-dev); where it is missing this test fails, it never skips."""
    import ctypes.util

    assert ctypes.util.find_library("openblas") is not None, (
        "libopenblas is not installed: run 'make setup' as root, or 'apt-get install libopenblas-dev'")
    from lsvi.baselines import pymc_advi

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3)) * np.where(rng.random(60) < 0.5, -1.0, 1.0)[:, None]
    a = pymc_advi.fit(X, 25.0, num_iterations=300, num_records=5, seed=3)
    b = pymc_advi.fit(X, 25.0, num_iterations=300, num_records=5, seed=3, blas_ldflags="-lopenblas")
    assert b.info["blas_ldflags"] == "-lopenblas" and a.info["blas_ldflags"] != "-lopenblas"
    np.testing.assert_allclose(b.mean, a.mean, atol=1e-10)
    np.testing.assert_allclose(b.cov, a.cov, atol=1e-10)
    assert np.max(np.abs(a.mean[-1] - a.mean[0])) > 1e-3  # it did move
