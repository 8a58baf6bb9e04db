"""PyMC ADVI (full-rank or mean field) for Bayesian logistic regression (Section 5.1), and mean-field ADVI on a
Gaussian target N(0, V) (`fit_gaussian`: the stand-in for Stan's ADVI in Fig. 7 of the RABVI paper).

The paper: "For ADVI, we use the standard implementations given by pyMC3 with default
step size schedules (a modification of Adam and RMSProp for pyMC)"; Table 1: PyMC ADVI,
T = 10⁴ iterations. We wrap ``pm.fit`` (PyMC 5) with ``method="fullrank_advi"`` or
``"advi"`` and keep every PyMC default:

* optimiser: ``obj_optimizer=pymc.variational.updates.adagrad_window`` (default of
  ``ObjectiveFunction.step_function``) with learning_rate=1e-3, epsilon=0.1, n_win=10:
  θ ← θ − 1e-3 · g / sqrt(0.1 + Σ_{last 10 steps} g²) elementwise, i.e. Adagrad over a
  sliding window of 10 squared gradients (RMSProp-like; no momentum, no decay schedule);
* ELBO gradient: reparameterisation with ``obj_n_mc=1`` draw (PyMC's default: None = 1);
* initialisation: μ = the model's initial point (0 here, no jitter); full rank
  L = I with softplus on the diagonal, so Σ₀ = softplus(1)² I ≈ 1.72 I; mean field
  ρ = 0, σ = softplus(0) = log 2, so Σ₀ = (log 2)² I ≈ 0.48 I.

With these defaults the mean moves by at most ~1e-3/√10 per iteration, so convergence is
slow: on Pima (d = 9), after T = 10⁴ the full-rank standard deviations were still 2–3×
the Laplace ones; they matched after ≈ 2–3·10⁴ iterations (measured, seed 0).

Model (same target as `lsvi.core.targets.logistic_logdensity`): one vector variable
``beta ~ N(0, diag(prior_var))`` (so PyMC's flat parameter order is the column order of X)
and ``pm.Potential`` Σ_i log σ(x̃_iᵀβ) = −Σ_i softplus(−x̃_iᵀβ), x̃_i the flipped rows.

Timing. ``pm.fit(0, ...)`` builds and compiles PyTensor's step function without
iterating (``info["compile_time"]``; building the model and our μ, Σ function before
it: ``info["setup_time"]``; their sum is the trace's ``compile_s``); ``Inference.refine(T)``
then runs the T iterations with that compiled function and our callback (``loop_s``).
``elapsed`` and ``loop_s`` are measured from just before ``refine`` and exclude the time
spent recording (one call of a pre-compiled function for μ, Σ per record).
``info["total_time"]`` is the time (`lsvi.core.clock`) of the whole call.

Divergence. PyMC raises FloatingPointError when the loss (−ELBO estimate) is NaN (±inf
is not checked); we
catch it, store ``info["error"] = repr(err)``, ``info["diverged"] = True`` and return the
records collected before it (the caller decides what to do with them).

Configuration (issue 17). The pip install of PyTensor links no BLAS (``blas__ldflags`` is
empty; PyTensor warns). ``blas_ldflags="-lopenblas"`` (Debian's ``libopenblas-dev``) sets
``pytensor.config.blas__ldflags`` for this fit, so that PyTensor's C backend calls OpenBLAS
for its dot products; ``compile_mode`` ("NUMBA", "JAX", ...) is passed to PyTensor's
compilation of the step function (``compile_kwargs={"mode": ...}``). Both default to None:
PyMC as installed. `benchmarks/time_to_accuracy.md` times both (the BLAS brings nothing
at the Pima/Sonar sizes, where one iteration is a 768×9 or 208×61 matrix-vector product).

References
----------
A. Kucukelbir, D. Tran, R. Ranganath, A. Gelman, D. M. Blei (2017). Automatic differentiation
variational inference. JMLR 18(14), 1–45.
"""
from __future__ import annotations

import logging
import math
from typing import NamedTuple

import numpy as np

from lsvi.baselines import GaussianTrace, thin
from lsvi.core import clock


def fit(X_flipped, prior_var, num_iterations: int = 10_000, method: str = "fullrank_advi",
        num_records: int = 60, seed: int = 0, obj_n_mc: int = 1, progressbar: bool = False,
        blas_ldflags=None, compile_mode=None) -> GaussianTrace:
    """Run PyMC ADVI on the logistic-regression posterior and record its Gaussian iterates.

    X_flipped (n, d): rows y_i x_i. prior_var (d,) or scalar: prior variances.
    method: "fullrank_advi" (cov (K, d, d)) or "advi" (mean field, cov = variances (K, d)).
    Records at ``thin(num_iterations, num_records)`` (K of them, iteration 0 = initial q).
    Returns a `GaussianTrace`; ``info`` holds the pymc version, settings, compile and total
    time, the block-averaged loss (−ELBO estimate) between records, and divergence info.
    blas_ldflags, compile_mode: the PyTensor configuration (module docstring; None: as installed).
    """
    import pymc as pm
    import pytensor
    import pytensor.tensor as pt

    if method not in ("fullrank_advi", "advi"):
        raise ValueError(f"method must be 'fullrank_advi' or 'advi', got {method!r}")
    meanfield = method == "advi"
    X = np.asarray(X_flipped, np.float64)
    d = X.shape[1]
    sigma = np.sqrt(np.broadcast_to(np.asarray(prior_var, np.float64), (d,)))
    record_at = thin(num_iterations, num_records)
    its, means, covs, elapsed = [], [], [], []
    marks = {"start": 0.0, "overhead": 0.0}
    t_total = clock.seconds()

    flags = {"floatX": "float64"}
    if blas_ldflags is not None:
        flags["blas__ldflags"] = blas_ldflags
    fit_kwargs = {} if compile_mode is None else {"compile_kwargs": {"mode": compile_mode}}
    with pytensor.config.change_flags(**flags), pm.Model():
        beta = pm.Normal("beta", 0.0, sigma=sigma, shape=d)
        Xd = pm.Data("X_flipped", X)
        pm.Potential("loglik", -pt.sum(pt.softplus(-pt.dot(Xd, beta))))
        inference = (pm.ADVI if meanfield else pm.FullRankADVI)(random_seed=seed)
        approx = inference.approx
        assert list(approx.ordering) == ["beta"] and approx.ddim == d
        second = approx.std**2 if meanfield else approx.cov
        moments = pytensor.function([], [approx.mean, second])

        def record(i):
            t = clock.seconds()
            mu, c = moments()
            its.append(i), means.append(mu), covs.append(c)
            elapsed.append(t - marks["start"] - marks["overhead"])
            marks["overhead"] += clock.seconds() - t

        def callback(_approx, _loss, i):
            if i in record_set:
                record(i)

        record_set = set(int(i) for i in record_at[1:])
        t = clock.seconds()
        setup_time = t - t_total
        pm.fit(0, method=inference, callbacks=[callback], progressbar=False, obj_n_mc=obj_n_mc, **fit_kwargs)
        compile_time = clock.seconds() - t
        marks["start"] = clock.seconds()
        record(0)
        error = None
        try:
            inference.refine(num_iterations, progressbar=progressbar)
        except FloatingPointError as err:
            error = err
        loop_time = clock.seconds() - marks["start"] - marks["overhead"]

    hist = np.asarray(inference.hist, np.float64)
    its = np.asarray(its, int)
    bounds = np.minimum(its, len(hist))
    loss = np.array([np.mean(hist[a:b]) if b > a else np.nan for a, b in zip(bounds[:-1], bounds[1:])])
    info = {
        "library": "pymc", "version": pm.__version__, "method": method, "num_iterations": num_iterations,
        "seed": seed, "obj_n_mc": obj_n_mc,
        "blas_ldflags": pytensor.config.blas__ldflags if blas_ldflags is None else blas_ldflags,
        "compile_mode": compile_mode or str(pytensor.config.mode),
        "optimizer": "pymc default: adagrad_window(learning_rate=1e-3, epsilon=0.1, n_win=10)",
        "setup_time": setup_time, "compile_time": compile_time, "total_time": clock.seconds() - t_total,
        "iterations_completed": len(hist),
        "loss_iterations": its[1:], "loss_block_mean": loss,  # mean of −ELBO estimates over (t_{k−1}, t_k]
        "diverged": error is not None, "error": None if error is None else repr(error),
    }
    return GaussianTrace(its, np.asarray(means), np.asarray(covs), np.asarray(elapsed, np.float64), meanfield, info,
                         loop_s=loop_time, compile_s=setup_time + compile_time)


def fit_problem(problem, num_iterations: int, num_samples=None, seed: int = 0, **options) -> GaussianTrace:
    """`fit` with the signature of `lsvi.baselines.BASELINES`: full-rank ADVI, or mean-field
    ADVI when ``problem.meanfield``; ``num_samples`` draws per ELBO gradient (``obj_n_mc``;
    None: PyMC's default, 1). ``options`` go to `fit` (``num_records``, ``method``, ...)."""
    options.setdefault("method", "advi" if problem.meanfield else "fullrank_advi")
    return fit(np.asarray(problem.X), np.asarray(problem.prior_var), num_iterations=num_iterations, seed=seed,
               obj_n_mc=1 if num_samples is None else int(num_samples), **options)


class GaussianTargetCurve(NamedTuple):
    """Mean-field ADVI iterates on N(0, V) (`fit_gaussian`)."""

    iterations: np.ndarray  # (J,) recorded iterations k = every, 2·every, ...
    mean: np.ndarray  # (J, d) ADVI's μ at those iterations (PyMC's raw iterate, not averaged)
    std: np.ndarray  # (J, d) ADVI's σ = softplus(ρ)
    stop_iteration: int | None  # first k where the convergence callback would have stopped PyMC (None: never)
    info: dict


def fit_gaussian(cov, num_iterations: int, record_every: int = 200, seed: int = 0, obj_n_mc: int = 1,
                 convergence: dict | None = None) -> GaussianTargetCurve:
    """PyMC mean-field ADVI (``pm.ADVI``, every PyMC default) on the target N(0, `cov`) (d, d).

    Model: one vector variable ``x ~ pm.MvNormal(0, cov)`` (PyMC's flat order = the coordinates). ADVI runs
    `num_iterations` steps of PyMC's default optimiser (adagrad_window, learning rate 1e-3, ε = 0.1, window 10) with
    `obj_n_mc` draws per gradient (PyMC's default 1), from PyMC's default start (μ = 0, σ = softplus(0) = log 2).
    The steps run as ``Inference.refine`` calls of gcd(`record_every`, every) iterations (PyMC's per-iteration
    Python callbacks cost ~5× the step itself: 1.3 vs 0.24 ms per iteration at d = 10, measured); μ and σ are
    recorded every `record_every` iterations (a pre-compiled pytensor function, as `fit`).

    Termination. PyMC has no ΔELBO rule (Stan's ADVI's, which the RABVI paper ran); its stopping rule is the callback
    ``pm.callbacks.CheckParametersConvergence`` (`convergence`: its keyword arguments; default
    ``every=100, tolerance=1e-3, diff="absolute"``: PyMC's own default ``diff="relative"`` divides by parameters
    that converge to 0 here, the mean, and would never fire). It is called after each chunk with the iteration
    count, as PyMC would call it, but never allowed to stop the run: `stop_iteration` is the first iteration where it
    raised StopIteration, so that the curve continues to `num_iterations` as the baselines' curves do.
    """
    import pymc as pm
    import pytensor

    V = np.asarray(cov, np.float64)
    d = V.shape[0]
    rule = pm.callbacks.CheckParametersConvergence(**({"every": 100, "tolerance": 1e-3, "diff": "absolute"}
                                                      | (convergence or {})))
    its, means, stds, stop = [], [], [], []
    t0 = clock.seconds()
    log = logging.getLogger("pymc")
    level = log.level
    log.setLevel(logging.WARNING)  # PyMC logs "Finished [100%]" at INFO after every refine chunk
    try:
        with pytensor.config.change_flags(floatX="float64"), pm.Model():
            pm.MvNormal("x", mu=np.zeros(d), cov=V, shape=d)
            inference = pm.ADVI(random_seed=seed)
            approx = inference.approx
            assert list(approx.ordering) == ["x"] and approx.ddim == d
            moments = pytensor.function([], [approx.mean, approx.std])
            inference.fit(0, progressbar=False, obj_n_mc=obj_n_mc)  # builds and compiles the step function
            chunk = math.gcd(record_every, rule.every)
            rule(approx, None, 0)  # PyMC's first call (iteration 0) stores the starting parameters
            t1 = clock.seconds()
            for k in range(chunk, num_iterations + 1, chunk):
                inference.refine(chunk, progressbar=False)
                if not stop:
                    try:
                        rule(approx, None, k)
                    except StopIteration:
                        stop.append(k)
                if k % record_every == 0:
                    mu, sd = moments()
                    its.append(k), means.append(mu), stds.append(sd)
            loop = clock.seconds() - t1
    finally:
        log.setLevel(level)
    info = {"library": "pymc", "version": pm.__version__, "method": "advi", "seed": seed, "obj_n_mc": obj_n_mc,
            "optimizer": "pymc default: adagrad_window(learning_rate=1e-3, epsilon=0.1, n_win=10)",
            "convergence": {"every": rule.every, "tolerance": rule.tolerance, "diff": getattr(rule._diff, "__name__", "")},
            "seconds": clock.seconds() - t0, "loop_s": loop}
    return GaussianTargetCurve(np.asarray(its, int), np.asarray(means), np.asarray(stds), stop[0] if stop else None, info)
