"""The LSVI iteration shared by Algorithms 1–3: regress, choose ε_t, relax (eq. 10).

    η̂_{t+1} = ε_t η̂'_{t+1} + (1 − ε_t) η̂_t,    η̂'_{t+1} = OLS of f(X) on s(X), X ~ q_η̂_t.

The algorithms differ only in how they compute η̂' (a `regression`): Algorithm 1 solves
the OLS on s(X) (`lsvi.generic`), Algorithms 2–3 regress on the whitened statistic t(Z)
and map γ → η in closed form (`lsvi.gaussian_meanfield`, `lsvi.gaussian_fullcov`).

API in the style of Blackjax: ``step = build_kernel(...)``, ``state = init(eta0)``,
``state, info = step(key, state)``; `run` scans T steps and returns the trace of η_t.
Repetitions are a ``jax.vmap`` of `run` over keys.
"""
from __future__ import annotations

import time
from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi import step_size_control
from lsvi.step_size_control import ControlInfo, Schedule

# A regression: (key, η (m,)) -> (X (N, d), f(X) (N,), η' (m,))
Regression = Callable


class LSVIState(NamedTuple):
    """eta (m,): current natural parameter; t: iteration counter (int)."""

    eta: jax.Array
    t: jax.Array


class LSVIInfo(NamedTuple):
    """Per-iteration diagnostics: step size, residual variance, halvings, acceptance,
    and the mean of f over the draws (a free, noisy progress signal)."""

    eps: jax.Array
    residual_var: jax.Array
    num_halvings: jax.Array
    accepted: jax.Array
    mean_log_target: jax.Array


def init(eta0) -> LSVIState:
    eta0 = jnp.asarray(eta0)
    return LSVIState(eta0, jnp.zeros((), jnp.int32))


def build_kernel(family, regression: Regression, schedule: Schedule, max_halvings: int = 60):
    """One LSVI iteration as a pure function ``step(key, state) -> (state, info)``."""

    def step(key, state: LSVIState):
        X, y, eta_ols = regression(key, state.eta)
        eps, c = step_size_control.control(
            schedule.eps(state.t), schedule.u2, family, state.eta, eta_ols, X, y, max_halvings
        )
        eta = family.project(eps * eta_ols + (1.0 - eps) * state.eta)
        # A rejected step (no valid ε found, e.g. non-finite f) leaves η unchanged.
        eta = jnp.where(c.accepted, eta, state.eta)
        info = LSVIInfo(c.eps, c.residual_var, c.num_halvings, c.accepted, jnp.mean(y))
        return LSVIState(eta, state.t + 1), info

    return step


@partial(jax.jit, static_argnames=("step", "num_steps"))
def run(key, step, state: LSVIState, num_steps: int):
    """Iterate ``step`` ``num_steps`` times (``lax.scan``).

    Returns (final state, trace of η (num_steps + 1, m) starting with the initial η,
    LSVIInfo with leaves of shape (num_steps,)).
    """

    def body(s, k):
        s, info = step(k, s)
        return s, (s.eta, info)

    keys = jax.random.split(key, num_steps)
    final, (etas, infos) = jax.lax.scan(body, state, keys)
    return final, jnp.concatenate([state.eta[None], etas]), infos


@partial(jax.jit, static_argnames=("step", "num_steps", "num_reps"))
def run_repetitions(key, step, state: LSVIState, num_steps: int, num_reps: int):
    """`run` vmapped over ``num_reps`` independent keys: leaves get a leading (num_reps,) axis."""
    keys = jax.random.split(key, num_reps)
    return jax.vmap(lambda k: run(k, step, state, num_steps))(keys)


class TimedRuns(NamedTuple):
    """etas (R, T+1, m) traces; infos: LSVIInfo with leaves (R, T); times (R,) wall time of
    each run (s, compilation excluded); compile_time (s)."""

    etas: np.ndarray
    infos: LSVIInfo
    times: np.ndarray
    compile_time: float


def run_sequential(keys, step, state: LSVIState, num_steps: int) -> TimedRuns:
    """`run` once per key (keys (R, 2)), one run after the other, each timed.

    Compiled once ahead of time (``lower().compile()``), so the times are those of the
    iterations alone. Sequential rather than `run_repetitions` because a vmap over R
    repetitions holds R × N draws (and R × N × n linear predictors) in memory at once."""
    t0 = time.perf_counter()
    compiled = run.lower(keys[0], step, state, num_steps).compile()
    compile_time = time.perf_counter() - t0
    etas, infos, times = [], [], []
    for k in keys:
        t0 = time.perf_counter()
        final, trace, info = compiled(k, state)
        final.eta.block_until_ready()
        times.append(time.perf_counter() - t0)
        etas.append(np.asarray(trace))
        infos.append(jax.tree.map(np.asarray, info))
    infos = jax.tree.map(lambda *x: np.stack(x), *infos)
    return TimedRuns(np.array(etas), infos, np.array(times), compile_time)
