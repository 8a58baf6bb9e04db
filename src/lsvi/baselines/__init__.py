"""Baselines of Section 5.1, wrapped from the libraries that provide them (never re-implemented).

* `lsvi.baselines.pymc_advi`        PyMC ADVI, full-rank or mean field (``pm.fit``)
* `lsvi.baselines.gmmvi_single`     GMMVI (``gmmvi`` package, TensorFlow), one full-covariance component
* `lsvi.baselines.blackjax_meanfield`  Blackjax ``meanfield_vi`` (SGD, optax)
* `lsvi.baselines.blackjax_fullrank`   Blackjax ``fullrank_vi`` (SGD, optax; time-to-accuracy benchmark), both
  through `lsvi.baselines.blackjax_vi` (the shared scan loop)
* `lsvi.baselines.viabel_faso`      viabel 0.5.1 (RABVI's authors): FASO and RAABBVI, shims only while it runs
* `lsvi.baselines.nuts`             Blackjax NUTS gold standard with ArviZ diagnostics

Every VI baseline returns a `GaussianTrace`: its Gaussian iterate recorded at some
iterations, with the time (`lsvi.core.clock`) elapsed when it was recorded, the time of the optimisation
loop (``loop_s``) and of the library's set-up and compilation (``compile_s``). `to_natural`
maps a trace to the natural parameters of `lsvi.core.families` (one row per record), so
that the *same* loss code (`lsvi.core.losses.kl_trace`, same draws) scores LSVI, NGD and
every baseline.

`BASELINES` maps a name to a fit function with one signature,
``fit(problem, num_iterations, num_samples=None, seed=0, **options) -> GaussianTrace``, where
``problem`` is any object with the attributes of `LogisticProblem` (e.g.
`lsvi.papers.lsvi.logistic.Problem`) and ``num_samples=None`` keeps the library's default.
A new baseline is one module with a ``fit_problem`` function of that signature plus one
entry in `BASELINES`; the module is imported at the first call (PyMC, TensorFlow and
Blackjax are heavy imports).
"""
from __future__ import annotations

import importlib
from typing import Callable, NamedTuple, Optional, Protocol

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.families.gaussian import fullcov_to_natural, meanfield_to_natural


class GaussianTrace(NamedTuple):
    """Gaussian iterates of a VI run.

    iterations (K,) int   iteration index of each record (0 = the initial distribution)
    mean (K, d)
    cov (K, d, d) full covariance, or (K, d) variances when ``meanfield``
    elapsed (K,) float    seconds (`lsvi.core.clock`) since the start of the optimisation loop
                          (recording excluded where the wrapper can separate it)
    meanfield bool
    info dict             library, version, settings and anything worth reporting; an
                          ``error`` entry when the library failed or diverged (the records
                          collected before it are kept)
    loop_s float          seconds of the optimisation loop (num_iterations iterations)
    compile_s float       seconds of the library's set-up and compilation in this call (model
                          building, graph tracing, XLA compilation; 0 when reused from a cache)
    """

    iterations: np.ndarray
    mean: np.ndarray
    cov: np.ndarray
    elapsed: np.ndarray
    meanfield: bool
    info: dict
    loop_s: float
    compile_s: float


class LogisticProblem(Protocol):
    """What a baseline reads of a problem (`lsvi.papers.lsvi.logistic.Problem` has it):
    X (n, d) the flipped design y_i x_i; prior_var (d,) prior variances of N(0, diag(v));
    logdensity ``beta (d,) -> scalar`` (`lsvi.core.targets.logistic_logdensity`); d; meanfield
    (whether the Gaussian family is mean field)."""

    X: jax.Array
    prior_var: jax.Array
    logdensity: Callable
    d: int
    meanfield: bool


def _imported(module: str) -> Callable:
    """The ``fit_problem`` of ``module``, imported at the first call."""

    def fit(problem: LogisticProblem, num_iterations: int, num_samples: Optional[int] = None, seed: int = 0,
            **options) -> GaussianTrace:
        return importlib.import_module(module).fit_problem(problem, num_iterations, num_samples, seed, **options)

    fit.__doc__ = f"`{module}.fit_problem`"
    fit.module = module
    return fit


# name -> fit(problem, num_iterations, num_samples=None, seed=0, **options) -> GaussianTrace
BASELINES: dict[str, Callable] = {
    "pymc_advi": _imported("lsvi.baselines.pymc_advi"),              # full rank, or mean field for a mean-field problem
    "gmmvi": _imported("lsvi.baselines.gmmvi_single"),               # one full-covariance component
    "blackjax": _imported("lsvi.baselines.blackjax_meanfield"),      # mean field, SGD
}


def to_natural(trace: GaussianTrace):
    """Normalised natural parameters (K, m) of the `gaussian_fullcov(d)` or
    `gaussian_meanfield(d)` family, one row per record of ``trace``."""
    mean = jnp.asarray(trace.mean, jnp.float64)
    cov = jnp.asarray(trace.cov, jnp.float64)
    if trace.meanfield:
        return jax.vmap(meanfield_to_natural)(mean, cov)
    return jax.vmap(fullcov_to_natural)(mean, cov)


def thin(num_iterations: int, num_records: int) -> np.ndarray:
    """Iterations 0 = t_0 < t_1 < … < t_K = num_iterations at which to record a run,
    about ``num_records`` of them, log-spaced (the figures use a log time axis),
    always including 0 and the last iteration."""
    if num_records >= num_iterations + 1:
        return np.arange(num_iterations + 1)
    grid = np.unique(np.round(np.geomspace(1, num_iterations, num_records - 1)).astype(int))
    return np.concatenate([[0], grid])
