"""GMMVI (Arenz et al., 2023) with a single full-covariance Gaussian, wrapped from ``gmmvi``.

The ``gmmvi`` package (PyPI gmmvi 1.1, TensorFlow) assembles the GMMVI update from
modules named by one letter each (`gmmvi.configs.get_default_algorithm_config`). The
comparison of Section 5.1 is with the *gradient-free* iteration, so the default code is

    ``ZEPTRUX``  Z  MORE natural-gradient estimator: an importance-weighted least-squares
                    fit of a quadratic to the target's log density (function values only,
                    like LSVI Algorithm 1), ridge 1e-12;
                 E  fixed number of components (no component adaptation; we start with 1);
                 P  "mixture-based" sample selector, library defaults: ``ratio_reused_samples
                    _to_desired = 0``, i.e. exactly ``num_samples`` fresh draws from the
                    current Gaussian per iteration, no reuse of earlier draws (as LSVI);
                 T  trust-region (KL-constrained) component update, the step size being the
                    KL bound;
                 R  improvement-based step size (library default: ε₀ = 1, ×1.15 when the
                    component's expected log-ratio improved, ×0.85 otherwise, in [1e-3, 1]);
                 U, X  direct weight update, fixed weight step: no-ops for one component.

"ZEMTRUX" (component-based selector of the GMMVI paper; it reuses the 2·N newest draws
and only tops up to N effective samples) can be passed as ``algorithm``; every config key
can be overridden by ``**overrides`` (merged into the library's config dict).

Set-up. The initial distribution is N(0, I) (like LSVI; the library's own
`construct_initial_mixture` would use the experiment yml's prior): a `FullCovGMM` with
weight 1, mean 0 and covariance I is built directly. ``train_iter`` is one `tf.function`;
its first call traces it and TF optimises the graph at its first run (≈ 1–10 s, which
would all land on iteration 1). With ``warmup=True`` (default) one iteration is run and
undone (every `tf.Variable` of the GMMVI object restored: model, step sizes, sample
database, counters) before the clock starts, so that cost is in the trace's ``compile_s``,
not in ``elapsed`` and ``loop_s``; the warm-up only advances TF's random streams. With MORE the target's
gradient is never used, but the library's sample selector would still compute it by
autodiff; the target therefore declares ``use_log_density_and_grad`` and returns zero
gradients (only for MORE: a first-order estimator, e.g. Stein "S", gets true gradients).
``elapsed`` includes reading the recorded mean/covariance back from TF (negligible);
``compile_s`` (config, model, graph, warm-up) excludes importing TensorFlow and gmmvi
(once per process).

Precision. The library is hard-coded float32 (its `tf.Variable`s, `TensorArray`s and
bracketing search). The target log density is evaluated in float64 (draws cast up, value
cast down to float32); everything else, including the recorded means/covariances, is
float32 precision (returned as float64 arrays). Seeding: `tf.random.set_seed(seed)` and
`np.random.seed(seed)` before the model and the graph are built: same seed, same trace
(checked on CPU). TF's own thread pools (not OPENBLAS_NUM_THREADS) set its CPU threads.

References
----------
O. Arenz, P. Dahlinger, Z. Ye, M. Volpp, G. Neumann (2023). A unified perspective on natural
gradient variational inference with Gaussian mixture models. TMLR.
"""
from __future__ import annotations

import contextlib
import io
import os
from importlib.metadata import version

import numpy as np

from lsvi.baselines import GaussianTrace, thin
from lsvi.core import clock

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# Measured on Pima (2 shared CPU cores), N = 10⁴, T = 10: importing TensorFlow and gmmvi
# ≈ 10 s once per process; set-up 11 s in a fresh process, 4.5 s afterwards; loop 1.7–2.5 s
# (0.17–0.25 s per iteration).


def _gmmvi_config(algorithm, num_samples, overrides):
    from gmmvi.configs import get_default_algorithm_config, update_config

    with contextlib.redirect_stdout(io.StringIO()):  # the library prints the codename
        config = get_default_algorithm_config(algorithm)
    config = update_config(config, {
        "temperature": 1.0, "use_sample_database": True, "max_database_size": 10_000_000,
        "model_initialization": {"use_diagonal_covs": False, "num_initial_components": 1,
                                 "prior_mean": 0.0, "prior_scale": 1.0, "initial_cov": 1.0},
        "sample_selector_config": {"desired_samples_per_component": int(num_samples)},
    })
    return update_config(config, overrides)


def fit_logdensity(log_density_tf, d, num_iterations=10, num_samples=10_000, num_records=None,
                   seed=0, algorithm="ZEPTRUX", *, warmup=True, **overrides) -> GaussianTrace:
    """Single-component GMMVI on a target given as a TensorFlow log density.

    log_density_tf: x (M, d) float64 tf.Tensor -> (M,) float64 unnormalised log density
    (differentiable with `tf.GradientTape` if a first-order estimator is chosen).
    Returns a `GaussianTrace` with mean (K, d), cov (K, d, d), iterations (K,) from
    `thin(num_iterations, num_records)` (all iterations by default; 0 = N(0, I)).
    """
    import tensorflow as tf
    from gmmvi.experiments.target_distributions.lnpdf import LNPDF
    from gmmvi.models.full_cov_gmm import FullCovGMM
    from gmmvi.models.gmm_wrapper import GmmWrapper
    from gmmvi.optimization.gmmvi import GMMVI

    t0 = clock.seconds()
    config = _gmmvi_config(algorithm, num_samples, overrides)
    zero_order = config["ng_estimator_type"] == "MORE"

    class Target(LNPDF):
        def __init__(self):
            super().__init__(use_log_density_and_grad=zero_order, safe_for_tf_graph=True)

        def get_num_dimensions(self):
            return d

        def log_density(self, x):
            return tf.cast(log_density_tf(tf.cast(x, tf.float64)), tf.float32)

        def log_density_and_grad(self, x):  # only used with MORE, which ignores the gradient
            return self.log_density(x), tf.zeros_like(x)

    tf.random.set_seed(seed)
    np.random.seed(seed)
    model = FullCovGMM(tf.ones(1), tf.zeros((1, d)), tf.eye(d, batch_shape=[1]))
    gmmvi = GMMVI.build_from_config(config, Target(), GmmWrapper.build_from_config(model, config))
    records = set(thin(num_iterations, num_iterations + 1 if num_records is None else num_records).tolist())
    its, means, covs, elapsed, info = [], [], [], [], {}

    def record(t, start):
        m, c = model.means[0].numpy().astype(np.float64), model.covs[0].numpy().astype(np.float64)
        if not (np.all(np.isfinite(m)) and np.all(np.isfinite(c))):
            raise FloatingPointError(f"non-finite mean/covariance at iteration {t}")
        its.append(t), means.append(m), covs.append(c)
        elapsed.append(clock.seconds() - start if t else 0.0)

    setup_seconds = None
    try:  # a library failure or NaN ends the run: keep what was recorded
        if warmup:  # trace + run one iteration (TF optimises a graph at its 1st run), then undo it
            state = _variables(gmmvi)
            saved = [v.numpy() for v in state]
            gmmvi.train_iter()
            for v, x in zip(state, saved):
                v.assign(x)
        setup_seconds = clock.seconds() - t0
        start = clock.seconds()
        record(0, start)
        for t in range(1, num_iterations + 1):
            gmmvi.train_iter()
            if t in records:
                record(t, start)
    except Exception as exc:
        info["error"] = f"{type(exc).__name__}: {exc}"
    info.update(
        library="gmmvi", version=version("gmmvi"), tensorflow=tf.__version__, algorithm=algorithm,
        config=config, dtype="float32 (library); target evaluated in float64",
        warmup=warmup, num_target_evaluations=int(gmmvi.sample_db.num_samples_written.numpy()),
        final_kl_bound=float(gmmvi.model.stepsizes.numpy()[0]), seed=seed,
    )
    return GaussianTrace(np.asarray(its), np.asarray(means).reshape(-1, d), np.asarray(covs).reshape(-1, d, d),
                         np.asarray(elapsed), False, info, loop_s=float(elapsed[-1]) if elapsed else 0.0,
                         compile_s=clock.seconds() - t0 if setup_seconds is None else setup_seconds)


def _variables(obj, seen=None):
    """Every `tf.Variable` reachable from ``obj`` through attributes of gmmvi objects, lists
    and dicts (the whole state of a `GMMVI` object: model, wrapper, sample database, counters)."""
    import tensorflow as tf

    seen = set() if seen is None else seen
    if id(obj) in seen or isinstance(obj, (str, bytes, int, float, type)) or obj is None:
        return []
    seen.add(id(obj))
    if isinstance(obj, tf.Variable):
        return [obj]
    children = list(obj.values()) if isinstance(obj, dict) else list(obj) if isinstance(obj, (list, tuple)) \
        else list(vars(obj).values()) if type(obj).__module__.startswith("gmmvi.") else []
    return [v for child in children for v in _variables(child, seen)]


def logistic_logdensity_tf(X_flipped, prior_var):
    """TF float64 log joint B (M, d) -> (M,): log N(β; 0, diag(v)) + Σ_i log σ(x̃_iᵀβ), with
    log σ(u) = −softplus(−u); the same values as `lsvi.core.targets.logistic_regression`."""
    import tensorflow as tf

    X = tf.constant(np.asarray(X_flipped, np.float64))
    v = tf.constant(np.broadcast_to(np.asarray(prior_var, np.float64), (X.shape[1],)))
    const = -0.5 * tf.reduce_sum(tf.math.log(v) + np.log(2.0 * np.pi))

    def log_density(B):
        prior = const - 0.5 * tf.reduce_sum(B**2 / v, axis=1)
        return prior - tf.reduce_sum(tf.math.softplus(-tf.matmul(B, X, transpose_b=True)), axis=1)

    return log_density


def fit(X_flipped, prior_var, num_iterations=10, num_samples=10_000, num_records=None, seed=0,
        algorithm="ZEPTRUX", *, warmup=True, **overrides) -> GaussianTrace:
    """Single-component GMMVI on the logistic-regression posterior of Section 5.1.

    X_flipped (n, d): rows y_i x_i; prior_var (d,) or scalar: prior N(0, diag(prior_var)).
    Target: `logistic_logdensity_tf` (float64). Returns a `GaussianTrace` (mean (K, d),
    cov (K, d, d)); see `fit_logdensity` and the module docstring.
    """
    d = np.asarray(X_flipped).shape[1]
    return fit_logdensity(logistic_logdensity_tf(X_flipped, prior_var), d, num_iterations, num_samples,
                          num_records, seed, algorithm, warmup=warmup, **overrides)


def fit_problem(problem, num_iterations: int, num_samples=None, seed: int = 0, **options) -> GaussianTrace:
    """`fit` with the signature of `lsvi.baselines.BASELINES` (``num_samples=None``: 10⁴, the
    paper's); ``options`` go to `fit`. Full covariance only (the GMMVI of Section 5.1)."""
    if problem.meanfield:
        raise ValueError("the GMMVI baseline fits one full-covariance component, not a mean-field family")
    return fit(np.asarray(problem.X), np.asarray(problem.prior_var), num_iterations,
               10_000 if num_samples is None else int(num_samples), seed=seed, **options)
