"""How close an approximation of a posterior is, measured against reference draws (RABVI paper, Section 7.2).

Every function compares an approximation, given by its draws or its moments, with a reference sample of the
posterior that no method under test defined (posteriordb's reference draws, or a long NUTS run). The RABVI paper
(Welandawe et al., Section 7.2, after Table C.1) lists four measures; with μ, σ (d,) the reference mean and sd:

* relative mean error  ‖(μ − μ̂)/σ‖₂ and relative sd error  ‖(σ − σ̂)/σ‖₂  (`relative_errors`);
* the 95 % under-coverage error of coordinate i, max(0, 0.95 − c_i), c_i := Π(θ_i ∈ (a_i, b_i)), where (a_i, b_i)
  is the approximation's central 95 % interval for θ_i (`undercoverage`). The paper prints min(0, |.95 − c_i|),
  which is 0 for every c_i; "under coverage" and the figure's positive values say max(0, 0.95 − c_i), used here.
  c_i is the fraction of reference draws inside (a_i, b_i);
* MMD²(P, Q) = E[k(x, x') − 2 k(x, y) + k(y, y')] with k(x, y) = exp(−½‖(x − y)/σ_k‖²) (`mmd_squared`). The paper
  does not give the bandwidth σ_k. Here the coordinates are first standardised by the reference sd σ (so that
  every parameter counts alike) and σ_k is the median heuristic on the reference sample:
  σ_k² = median ‖x − x'‖² / 2 over reference pairs (`median_bandwidth`). The estimator is the unbiased U-statistic
  (Gretton et al. 2012, eq. 3), so it can be slightly negative when P = Q.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. JMLR 25. (Section 7.2, Figs 8-10, C.14, C.17, C.18.)
A. Gretton, K. M. Borgwardt, M. J. Rasch, B. Schölkopf, A. Smola (2012). A kernel two-sample test. JMLR 13.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

Z95 = 1.959963984540054  # standard normal 0.975 quantile: central 95 % interval of a Gaussian marginal


def relative_errors(mean, sd, ref_mean, ref_sd) -> tuple[np.ndarray, np.ndarray]:
    """(‖(μ − μ̂)/σ‖₂, ‖(σ − σ̂)/σ‖₂) for approximations with moments ``mean``, ``sd`` (..., d) -> ((...), (...))."""
    mean, sd = np.asarray(mean, float), np.asarray(sd, float)
    return (np.linalg.norm((mean - ref_mean) / ref_sd, axis=-1), np.linalg.norm((sd - ref_sd) / ref_sd, axis=-1))


def central_interval(draws, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Empirical central ``level`` interval (a, b) (d,) of each coordinate of ``draws`` (S, d)."""
    a = (1.0 - level) / 2
    lo, hi = np.quantile(np.asarray(draws, float), [a, 1.0 - a], axis=0)
    return lo, hi


def gaussian_interval(mean, sd) -> tuple[np.ndarray, np.ndarray]:
    """Exact central 95 % interval μ̂ ± 1.96 σ̂ of Gaussian marginals (d,)."""
    mean, sd = np.asarray(mean, float), np.asarray(sd, float)
    return mean - Z95 * sd, mean + Z95 * sd


def undercoverage(lo, hi, ref_draws, level: float = 0.95) -> np.ndarray:
    """max(0, level − c_i) (d,), c_i the fraction of reference draws (S, d) with lo_i < θ_i < hi_i."""
    ref = np.asarray(ref_draws, float)
    c = np.mean((ref > lo) & (ref < hi), axis=0)
    return np.maximum(0.0, level - c)


def median_bandwidth(ref_draws, ref_sd, max_points: int = 1000, seed: int = 0) -> float:
    """σ_k with σ_k² = median ‖x − x'‖²/2 over pairs of standardised reference draws (at most ``max_points``)."""
    x = _standardised(ref_draws, ref_sd, max_points, seed)
    d2 = _sq_dists(x, x)
    i, j = np.triu_indices(x.shape[0], 1)
    return float(np.sqrt(np.median(np.asarray(d2)[i, j]) / 2.0))


def mmd_squared(draws, ref_draws, ref_sd, bandwidth: float, max_points: int = 1000, seed: int = 0) -> float:
    """Unbiased MMD² between ``draws`` (S, d) and ``ref_draws`` (S', d), coordinates divided by ``ref_sd`` (d,),
    Gaussian kernel of width ``bandwidth``; each sample thinned at random to at most ``max_points`` draws."""
    x = _standardised(draws, ref_sd, max_points, seed)
    y = _standardised(ref_draws, ref_sd, max_points, seed + 1)
    return float(_mmd2_unbiased(x, y, bandwidth))


def _standardised(draws, sd, max_points: int, seed: int) -> jnp.ndarray:
    x = np.asarray(draws, float) / np.asarray(sd, float)
    if x.shape[0] > max_points:
        x = x[np.random.default_rng(seed).choice(x.shape[0], max_points, replace=False)]
    return jnp.asarray(x)


def _sq_dists(x, y):
    return jnp.maximum(jnp.sum(x**2, 1)[:, None] + jnp.sum(y**2, 1)[None, :] - 2.0 * x @ y.T, 0.0)


@jax.jit
def _mmd2_unbiased(x, y, bandwidth):
    kxx = jnp.exp(-0.5 * _sq_dists(x, x) / bandwidth**2)
    kyy = jnp.exp(-0.5 * _sq_dists(y, y) / bandwidth**2)
    kxy = jnp.exp(-0.5 * _sq_dists(x, y) / bandwidth**2)
    n, m = x.shape[0], y.shape[0]
    sxx = (jnp.sum(kxx) - jnp.trace(kxx)) / (n * (n - 1))
    syy = (jnp.sum(kyy) - jnp.trace(kyy)) / (m * (m - 1))
    return sxx + syy - 2.0 * jnp.mean(kxy)
