"""Random-walk Metropolis–Hastings for noisy log targets, on top of Blackjax (BSL benchmark, C.4).

The sampler is Blackjax's Gaussian random walk (``blackjax.mcmc.random_walk``:
``build_additive_step`` + ``normal(sigma)``, the kernel behind
``blackjax.additive_step_random_walk``); nothing of Metropolis–Hastings is re-implemented
here. What this module adds is the plumbing for a log target that is itself random, such
as the synthetic likelihood ``log_target(key, x)``:

* Blackjax's top-level ``additive_step_random_walk(logdensity_fn, ...)`` fixes
  ``logdensity_fn`` once, so no PRNG key could reach it. Its kernel,
  ``build_additive_step()``, takes ``logdensity_fn`` as an argument at every call; we
  build ``x ↦ log_target(k_t, x)`` with a fresh key k_t at each iteration (a pure closure,
  so the whole chain stays inside one ``lax.scan``).
* Blackjax's ``RWState`` stores the log density of the current position and the RMH
  kernel only evaluates the proposal: the estimate at the current state is kept until a
  proposal is accepted. With an unbiased likelihood estimator this is the pseudo-marginal
  sampler (Andrieu & Roberts 2009); for the synthetic likelihood (whose estimator is not
  unbiased) it is the standard BSL-MCMC of Price et al. (2018). This is the default.
* ``refresh_current=True`` re-estimates the current state's log density at every
  iteration with the same key as the proposal ("Monte Carlo within Metropolis", with
  common random numbers): this is what the authors' script does (it re-initialises the
  Blackjax state at each step); it mixes better but targets only an approximation of the
  BSL posterior, and costs twice the simulations.

Proposal scale: Blackjax's ``normal(sigma)`` takes ``sigma`` as the standard deviation
(vector) or a matrix square root Σ^{1/2} (the noise is ``sigma @ z``).

References
----------
Andrieu, C. and Roberts, G. O. (2009). The pseudo-marginal approach for efficient Monte Carlo
computations. Annals of Statistics 37(2), 697–725.
Price, L. F., Drovandi, C. C., Lee, A. and Nott, D. J. (2018). Bayesian synthetic likelihood.
Journal of Computational and Graphical Statistics 27(1), 1–11.
"""
from __future__ import annotations

from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from blackjax.mcmc import random_walk as rw
from lsvi.core import clock


class ChainTrace(NamedTuple):
    """positions (num_steps, d); logdensity (num_steps,) of the kept state; is_accepted
    (num_steps,); acceptance_rate (num_steps,): Blackjax's min(1, ratio) per step."""

    positions: jax.Array
    logdensity: jax.Array
    is_accepted: jax.Array
    acceptance_rate: jax.Array


def build_kernel(log_target: Callable, sigma, refresh_current: bool = False):
    """One RWMH step ``step(key, RWState) -> (RWState, RWInfo)`` for a noisy ``log_target(key, x)``.

    sigma: standard deviations (d,) or Σ^{1/2} (d, d) of the Gaussian random-walk step.
    """
    kernel = rw.build_additive_step()
    random_step = rw.normal(jnp.asarray(sigma))

    def step(key, state: rw.RWState):
        k_target, k_mh = jax.random.split(key)
        logdensity = lambda x: log_target(k_target, x)  # fresh simulations at this iteration
        if refresh_current:
            state = rw.RWState(state.position, logdensity(state.position))
        return kernel(k_mh, state, logdensity, random_step)

    return step


def init(key, position, log_target: Callable) -> rw.RWState:
    """Blackjax ``RWState`` at ``position`` with one estimate of its log density."""
    return rw.init(jnp.asarray(position), lambda x: log_target(key, x))


@partial(jax.jit, static_argnames=("step", "num_steps"))
def run_chain(key, step, state: rw.RWState, num_steps: int):
    """``num_steps`` iterations of ``step`` in a ``lax.scan``. Returns (final state, ChainTrace)."""

    def body(s, k):
        s, info = step(k, s)
        return s, ChainTrace(s.position, s.logdensity, info.is_accepted, info.acceptance_rate)

    return jax.lax.scan(body, state, jax.random.split(key, num_steps))


def build_sampler(log_target: Callable, sigma, num_steps: int, refresh_current: bool = False):
    """A jitted ``sample(key, initial_positions (num_chains, d)) -> ChainTrace`` running independent
    chains (vmapped); leaves of the trace have shape (num_chains, num_steps, ...).

    Jitted, so it can be compiled ahead of time (``sample.lower(key, x0).compile()``) and
    timed without its compilation.
    """
    step = build_kernel(log_target, sigma, refresh_current)

    @jax.jit
    def sample(key, initial_positions):
        n = initial_positions.shape[0]
        k_init, k_run = jax.random.split(key)
        states = jax.vmap(lambda k, x: init(k, x, log_target))(jax.random.split(k_init, n), initial_positions)
        _, trace = jax.vmap(lambda k, s: run_chain(k, step, s, num_steps))(jax.random.split(k_run, n), states)
        return trace

    return sample


class TimedChains(NamedTuple):
    """traces: ChainTrace whose leaves have shape (R, num_chains, num_steps, ...), one run per
    key; times (R,): time (`lsvi.core.clock`) of each run (s, compilation excluded); compile_time (s)."""

    traces: ChainTrace
    times: np.ndarray
    compile_time: float


def run_sequential(sampler, keys, initial_positions) -> TimedChains:
    """``sampler(key, initial_positions)`` (`build_sampler`) once per key (keys (R, 2)), one
    run after the other, each timed; the MCMC counterpart of `lsvi.core.kernel.run_sequential`.

    Compiled once ahead of time (``sampler.lower(...).compile()``), so that the times are
    those of the chains alone; every run waits for its result (``block_until_ready``)."""
    x0 = jnp.atleast_2d(jnp.asarray(initial_positions))
    t0 = clock.seconds()
    compiled = sampler.lower(keys[0], x0).compile()
    compile_time = clock.seconds() - t0
    traces, times = [], []
    for k in keys:
        t0 = clock.seconds()
        trace = jax.block_until_ready(compiled(k, x0))
        times.append(clock.seconds() - t0)
        traces.append(jax.tree.map(np.asarray, trace))
    return TimedChains(jax.tree.map(lambda *x: np.stack(x), *traces), np.array(times), compile_time)


def run_chains(key, log_target: Callable, initial_positions, sigma, num_steps: int, refresh_current: bool = False):
    """Independent chains from ``initial_positions`` (num_chains, d); see `build_sampler`."""
    sample = build_sampler(log_target, sigma, num_steps, refresh_current)
    return sample(key, jnp.atleast_2d(jnp.asarray(initial_positions)))


def diagnostics(positions, burn_in: int = 0, names=None):
    """R̂ (rank-normalised, split) and bulk/tail ESS by ArviZ for chains (num_chains, num_steps, d).

    Returns a dict name -> {"rhat", "ess_bulk", "ess_tail"}.
    """
    import arviz as az

    x = np.asarray(positions)[:, burn_in:]
    d = x.shape[-1]
    names = list(names) if names is not None else [f"x{i}" for i in range(d)]
    ds = az.convert_to_dataset({n: x[..., i] for i, n in enumerate(names)})
    rhat, bulk, tail = az.rhat(ds), az.ess(ds, method="bulk"), az.ess(ds, method="tail")
    return {n: {"rhat": float(rhat[n]), "ess_bulk": float(bulk[n]), "ess_tail": float(tail[n])} for n in names}
