"""Baselines of Section 5.1, wrapped from the libraries that provide them (never re-implemented).

* `lsvi.baselines.pymc_advi`        PyMC ADVI, full-rank or mean field (``pm.fit``)
* `lsvi.baselines.gmmvi_single`     GMMVI (``gmmvi`` package, TensorFlow), one full-covariance component
* `lsvi.baselines.blackjax_meanfield`  Blackjax ``meanfield_vi`` (SGD, optax)
* `lsvi.baselines.nuts`             Blackjax NUTS gold standard with ArviZ diagnostics

Every VI baseline returns a `GaussianTrace`: its Gaussian iterate recorded at some
iterations, with the wall time elapsed when it was recorded. `to_natural` maps a trace to
the natural parameters of `lsvi.core.families` (one row per record), so that the *same* loss
code (`lsvi.core.losses.kl_trace`, same draws) scores LSVI, NGD and every baseline.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.families.gaussian import fullcov_to_natural, meanfield_to_natural


class GaussianTrace(NamedTuple):
    """Gaussian iterates of a VI run.

    iterations (K,) int   iteration index of each record (0 = the initial distribution)
    mean (K, d)
    cov (K, d, d) full covariance, or (K, d) variances when ``meanfield``
    elapsed (K,) float    wall-clock seconds since the start of the optimisation loop
                          (library set-up/compilation excluded where it can be separated,
                          see each wrapper's docstring)
    meanfield bool
    info dict             library, version, settings and anything worth reporting
    """

    iterations: np.ndarray
    mean: np.ndarray
    cov: np.ndarray
    elapsed: np.ndarray
    meanfield: bool
    info: dict


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
