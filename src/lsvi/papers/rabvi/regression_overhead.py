"""RABVI paper (Welandawe et al.), Section 7: "We fit the regression model for C (and κ) in Stan, which results in
extremely small computational overhead of less than 0.5 %". Measured here as the share of a RABVI run's CPU time spent
in the eq. 21 fits.

`lsvi.core.bbvi.rabvi.rabvi` takes the eq. 21 fit as its `regression` argument, so the fit is timed by wrapping it
(`TimedRegression`), without touching the library: CPU (process) time, `time.process_time`, summed over the calls of
one run, over the process time of the whole `rabvi` call, both measured in the same process (every thread of the
process counts: XLA's and PyMC's). Two fits: the weighted least squares `rabvi.wls_skl_regression` (the project's
stand-in at cpu scale) and the Bayesian fit of eqs 21, 23–24 by PyMC NUTS (`lsvi.baselines.pymc_skl_regression.fit`,
2 chains × (1000 + 1000), the like-for-like of the paper's Stan fit). Not counted as regression: eq. 26's line for
K_γ (`rabvi.wls_line`, a closed-form weighted mean: the paper's sentence names the regression "for C (and κ)").
The CPU time of child processes (PyTensor compiling C code with the system compiler) is not in `process_time`; it is
recorded apart (`child_cpu_s`, from `os.times`).

Before the first timed Bayesian run, one fit on dummy data imports PyMC and fills PyTensor's compilation cache
(`warm_up`), as a Stan user compiles the model once; JAX's compilation of the RABVI kernel is part of each run (a
fresh `kernel.build` per run, as a user's run).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import os
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core import targets
from lsvi.core.bbvi import families, kernel, optimizers, rabvi
from lsvi.papers.rabvi import ablations as ra
from lsvi.papers.rabvi.gaussian import COVARIANCES, covariance

FITS = ("wls", "bayes")


class TimedRegression:
    """Wraps an eq. 21 fit `fit(log_gamma (T,), log_delta (T,), w (T,), rho, fix_kappa) -> (Ĉ, κ̂)`, summing the
    process time (`cpu_s`), wall time (`wall_s`) and child-process CPU time (`child_cpu_s`) of its `calls`."""

    def __init__(self, fit):
        self.fit, self.cpu_s, self.wall_s, self.child_cpu_s, self.calls = fit, 0.0, 0.0, 0.0, 0

    def __call__(self, *args):
        c0, w0, t0 = time.process_time(), time.perf_counter(), os.times()
        try:
            return self.fit(*args)
        finally:
            t1 = os.times()
            self.cpu_s += time.process_time() - c0
            self.wall_s += time.perf_counter() - w0
            self.child_cpu_s += (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
            self.calls += 1


def bayes_fit(*args):
    """The Bayesian eq. 21 fit (PyMC NUTS, priors eqs 23–24), `lsvi.baselines.pymc_skl_regression.fit`."""
    from lsvi.baselines import pymc_skl_regression

    return pymc_skl_regression.fit(*args)


def warm_up() -> None:
    """Import PyMC and compile its eq. 21 model once on dummy data (three epochs)."""
    g = np.log([0.15, 0.075, 0.0375])
    bayes_fit(g, 2 * g - 1.0, rabvi.weights(3), 0.5, True)


def _target(name: str, d: int):
    if name in COVARIANCES:
        fam = families.meanfield(d)
        return fam, targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(covariance(name, d))))
    from lsvi.papers.rabvi import posteriordb_models

    model = posteriordb_models.build(name)
    return families.meanfield(model.dim), model.logdensity


def overhead_run(name: str, d: int, fit: str, seed: int = 0, k_max: int = 100_000) -> dict:
    """One RABVI run (Algorithm 2, paper defaults, avgAdam, M = 10, mean field, κ = 1, r = 1) on the Section 7.1
    Gaussian `name` in dimension d, or on posteriordb posterior `name` (d ignored), from `ra.random_init(seed)`, with
    the eq. 21 fit `fit` ∈ `FITS` timed. One dict: target, d, fit, seed, iterations, epochs, calls, run_cpu_s,
    reg_cpu_s, share (= reg_cpu_s / run_cpu_s), run_wall_s, reg_wall_s, reg_child_cpu_s, terminated."""
    fam, log_target = _target(name, d)
    bb = kernel.build(fam, log_target, optimizers.get("avg_adam"), 10)
    timed = TimedRegression(rabvi.wls_skl_regression if fit == "wls" else bayes_fit)
    lam0 = ra.random_init(seed, fam.dim)
    c0, w0 = time.process_time(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = rabvi.rabvi(bb, fam, lam0, jax.random.PRNGKey(seed), regression=timed, k_max=k_max, r=1.0)
    run_cpu, run_wall = time.process_time() - c0, time.perf_counter() - w0
    return {"target": name, "d": fam.dim, "fit": fit, "seed": seed, "iterations": res.iterations,
            "epochs": len(res.epochs), "calls": timed.calls, "run_cpu_s": run_cpu, "reg_cpu_s": timed.cpu_s,
            "share": timed.cpu_s / run_cpu, "run_wall_s": run_wall, "reg_wall_s": timed.wall_s,
            "reg_child_cpu_s": timed.child_cpu_s, "terminated": res.terminated}


def overhead_study(gaussian_targets, d: int, posteriordb_targets, reps: int, *, seed: int = 0,
                   k_max: int = 100_000, fits=FITS) -> list[dict]:
    """`overhead_run` for every target (the Gaussians in dimension d, then the posteriordb posteriors), fit and
    repetition (seeds seed..seed + reps − 1; the same seeds for both fits)."""
    if "bayes" in fits:
        warm_up()
    rows = []
    for name in list(gaussian_targets) + list(posteriordb_targets):
        for fit in fits:
            for rep in range(reps):
                rows.append(overhead_run(name, d, fit, seed + rep, k_max))
    return rows
