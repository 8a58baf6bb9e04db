"""Variable selection (Section 5.2, Appendix C.3): LSVI (Algorithm 1) with products of Bernoullis.

`run_lsvi` runs Algorithm 1 on log π*(γ) (`lsvi.papers.lsvi.variable_selection`) from
p = (½, …, ½), with probabilities clipped to [10⁻³, 1 − 10⁻³] as in the authors' sampler. For a
number of predictors small enough to enumerate {0,1}^d, `exact_lsvi` computes the same iteration
with exact expectations (the regression replaced by F_η⁻¹z_η on the full grid), and
`exact_marginals` and `kl_bernoulli_to_posterior` the references it is compared with.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import lsvi  # noqa: F401  (float64)
from lsvi.core import algorithms, kernel, quadrature
from lsvi.core.families import bernoulli
from lsvi.core.families.bernoulli import bernoulli_probabilities, bernoulli_to_natural
from lsvi.papers.lsvi.variable_selection import VSPosterior, log_pi
from lsvi.papers.lsvi.variable_selection_scores import bernoulli_log_q


class LSVIResult(NamedTuple):
    """probs (R, d): inclusion probabilities of the final iterate of each of R repetitions;
    etas (R, T+1, d+1): traces of η; times (R,): time (`lsvi.core.clock`) of each repetition (s);
    compile_time (s); num_evaluations (per repetition, N·T); accepted (R, T): whether each
    step was taken. A step is rejected (η unchanged) when the regression has no finite
    solution, e.g. when a coordinate is constant over the N draws (p at the clipping bound
    with N·p ≲ 1): a run whose last steps were rejected has frozen, not converged."""

    probs: np.ndarray
    etas: np.ndarray
    times: np.ndarray
    compile_time: float
    num_evaluations: int
    accepted: np.ndarray


def lsvi_kernel(post: VSPosterior, num_samples: int, clip: float = 1e-3):
    """(family, kernel) of Algorithm 1 for the target log π(γ | D) and Bernoulli products.

    ``clip``: probabilities are kept in [clip, 1 − clip]; 1e-3 is the bound the authors'
    sampler applies (``sampling_method_numpy(..., eps=1e-3)`` in ylefay/LSVI).
    """
    d = post.gram.shape[0]
    family = bernoulli(d, clip)
    return family, algorithms.build_kernel("alg1", family, lambda key, g: log_pi(post, g), num_samples)


def initial_eta(d: int, p0: float = 0.5):
    return bernoulli_to_natural(jnp.full(d, p0))


def run_lsvi(post: VSPosterior, num_samples: int, num_steps: int, schedule, num_reps: int, seed: int = 0,
             clip: float = 1e-3, p0: float = 0.5) -> LSVIResult:
    """``num_reps`` independent runs of Algorithm 1 from p = (p0, …, p0), one after the other
    (a vmap over repetitions would hold num_reps × N × d draws in memory at once)."""
    family, kern = lsvi_kernel(post, num_samples, clip)
    state = kernel.init(initial_eta(family.dim, p0))
    keys = jax.random.split(jax.random.PRNGKey(seed), num_reps)
    runs = kernel.run_sequential(keys, kern, state, schedule, num_steps)
    probs = np.array([np.asarray(bernoulli_probabilities(jnp.asarray(e[-1]))) for e in runs.etas])
    return LSVIResult(probs, runs.etas, runs.times, runs.compile_time, num_samples * num_steps,
                      np.asarray(runs.infos.accepted, bool))


# ----------------------------------------------------------------------------------------
# Exact computations by enumeration (small d)


def exact_marginals(post: VSPosterior):
    """Posterior inclusion probabilities by enumeration of {0,1}^d; returns (marginals, log Z*)."""
    d = post.gram.shape[0]
    grid = quadrature.binary_grid(d)
    lp = log_pi(post, grid)
    logz = jax.scipy.special.logsumexp(lp)
    return np.asarray(jnp.exp(lp - logz) @ grid), float(logz)


def exact_lsvi(post: VSPosterior, num_steps: int, schedule, clip: float = 1e-3, p0: float = 0.5):
    """Algorithm 1 with exact expectations (enumeration of {0,1}^d): the iteration that the
    Monte Carlo LSVI estimates, with the same step-size schedule and clipping.

    Returns the trace of the inclusion probabilities (num_steps + 1, d)."""
    d = post.gram.shape[0]
    family = bernoulli(d, clip)
    grid = quadrature.binary_grid(d)
    f = log_pi(post, grid)

    def regression(key, eta):
        p = bernoulli_probabilities(eta)
        w = jnp.exp(bernoulli_log_q(grid, p))
        return grid, f, quadrature.lsvi_map(family, f, grid, w)

    kern = kernel.build_kernel(family, regression)
    _, trace, _ = kernel.run_schedule(jax.random.PRNGKey(0), kern, kernel.init(initial_eta(d, p0)), schedule, num_steps)
    return np.asarray(jax.vmap(bernoulli_probabilities)(trace))


def kl_bernoulli_to_posterior(post: VSPosterior, p):
    """KL(q_p ‖ π(· | D)) by enumeration (small d)."""
    d = post.gram.shape[0]
    grid = quadrature.binary_grid(d)
    lp = log_pi(post, grid)
    logz = jax.scipy.special.logsumexp(lp)
    lq = bernoulli_log_q(grid, jnp.asarray(p))
    q = jnp.exp(lq)
    return float(jnp.sum(jnp.where(q > 0, q * (lq - (lp - logz)), 0.0)))
