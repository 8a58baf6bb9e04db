"""GMMVI baseline (`lsvi.baselines.gmmvi_single`, wraps the ``gmmvi`` package): one
full-covariance component, zero-order MORE update. Small runs (TensorFlow import ≈ 10 s)."""
import numpy as np
import pytest

import gmmvi  # noqa: F401  (a missing baseline library must fail, not skip)
import tensorflow as tf

from lsvi.baselines import gmmvi_single, thin, to_natural  # noqa: E402
from lsvi.data.datasets import load  # noqa: E402
from lsvi.core.targets import logistic_regression, paper_prior_variance  # noqa: E402

MEAN = np.array([1.0, -2.0, 0.5])
COV = np.array([[2.0, 0.8, 0.3], [0.8, 1.0, -0.2], [0.3, -0.2, 0.5]])


def gaussian_log_density(x):
    """Unnormalised log N(x; MEAN, COV), x (M, 3) float64 -> (M,)."""
    z = x - tf.constant(MEAN)
    return -0.5 * tf.reduce_sum(z * tf.linalg.matvec(tf.constant(np.linalg.inv(COV)), z), axis=1)


def test_recovers_gaussian_target_in_the_family():
    trace = gmmvi_single.fit_logdensity(gaussian_log_density, 3, num_iterations=15, num_samples=500, seed=0)
    assert "error" not in trace.info
    np.testing.assert_array_equal(trace.iterations, np.arange(16))
    np.testing.assert_allclose(trace.mean[0], 0.0)  # initial N(0, I)
    np.testing.assert_allclose(trace.cov[0], np.eye(3))
    # observed (float32 library, exact quadratic fit): |error| ≈ 5e-6 from iteration 10 on;
    # iteration 1 has barely moved (error ≈ 2) and iteration 5 is at ≈ 1e-2.
    np.testing.assert_allclose(trace.mean[-1], MEAN, atol=1e-3)
    np.testing.assert_allclose(trace.cov[-1], COV, atol=1e-3)
    assert np.abs(trace.mean[1] - MEAN).max() > 0.1  # it does take several steps
    # ZEPTRUX draws exactly N fresh samples per iteration; the warm-up iteration is undone
    assert trace.info["num_target_evaluations"] == 15 * 500
    assert trace.info["config"]["ng_estimator_type"] == "MORE"
    assert trace.info["config"]["num_component_adapter_type"] == "fixed"


def test_tf_target_matches_the_jax_target():
    ds = load("pima")
    X = np.asarray(ds.X)
    v = np.asarray(paper_prior_variance(X.shape[1]))
    B = np.random.default_rng(0).normal(size=(7, X.shape[1])) * 2.0
    ours = gmmvi_single.logistic_logdensity_tf(X, v)(tf.constant(B)).numpy()
    ref = np.asarray(logistic_regression(X, v)(None, B))
    np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-9)


def test_pima_trace_structure_and_determinism():
    ds = load("pima")
    X = np.asarray(ds.X)
    d = X.shape[1]
    v = np.asarray(paper_prior_variance(d))
    T, N = 6, 1000
    trace = gmmvi_single.fit(X, v, num_iterations=T, num_samples=N, num_records=4, seed=3)
    assert "error" not in trace.info
    np.testing.assert_array_equal(trace.iterations, thin(T, 4))
    assert trace.iterations[0] == 0 and trace.iterations[-1] == T and np.all(np.diff(trace.iterations) > 0)
    K = len(trace.iterations)
    assert trace.mean.shape == (K, d) and trace.cov.shape == (K, d, d) and not trace.meanfield
    np.testing.assert_allclose(trace.cov, np.swapaxes(trace.cov, 1, 2), atol=1e-6)
    assert np.all(np.linalg.eigvalsh(trace.cov) > 0)
    assert trace.elapsed[0] == 0.0 and np.all(np.diff(trace.elapsed) >= 0)
    assert trace.loop_s == trace.elapsed[-1] and trace.info["num_target_evaluations"] == T * N
    eta = np.asarray(to_natural(trace))
    assert eta.ndim == 2 and eta.shape[0] == K and np.all(np.isfinite(eta))
    # moves towards the posterior (intercept mean ≈ −0.88, its sd ≈ 0.1; LSVI Alg. 1 / GMMVI T=20)
    assert abs(trace.mean[-1, 0] + 0.88) < abs(trace.mean[0, 0] + 0.88) - 0.3

    again = gmmvi_single.fit(X, v, num_iterations=T, num_samples=N, num_records=4, seed=3)
    np.testing.assert_array_equal(again.mean, trace.mean)
    np.testing.assert_array_equal(again.cov, trace.cov)


def test_library_failure_is_reported_with_what_was_recorded():
    def failing(x):  # log of a negative number -> NaN -> check_numerics raises inside the graph
        return tf.debugging.check_numerics(tf.math.log(x[:, 0] - 100.0), "bad target")

    trace = gmmvi_single.fit_logdensity(failing, 2, num_iterations=3, num_samples=50, warmup=False)
    assert "bad target" in trace.info["error"]
    np.testing.assert_array_equal(trace.iterations, [0])  # the initial distribution only
    assert trace.mean.shape == (1, 2) and trace.cov.shape == (1, 2, 2)
