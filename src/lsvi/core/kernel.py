"""The LSVI step, written once: regress, control the step size, relax (eq. 10).

    η_{t+1} = ε_t η'_{t+1} + (1 − ε_t) η_t,    η'_{t+1} = the regression target at η_t.

Every algorithm of the library is this step with its own *regression*
``(key, η (m,)) -> (P (N, d), f(X) (N,), η' (m,))``: Algorithm 1 solves the OLS of f(X) on
s(X) (`lsvi.core.algorithms.lsvi_generic`), Algorithms 2–3 regress on the whitened
statistic t(Z) and map γ → η in closed form (`lsvi_mf`, `lsvi_fc`), and natural-gradient
descent regresses nothing but returns η' = η − (0, F̂⁻¹ĝ), the ε = 1 end of its step
(`ngd`). P are the points at which Algorithm 4 evaluates η̃ᵀs(·) for its residual
variance (the draws X, unless an option says otherwise).

API in the style of Blackjax: ``kernel = build_kernel(family, regression)``,
``state = init(eta0)``, ``state, info = kernel(key, state, step_size, max_residual_var)``.
The step size ε_t and the bound u² of Algorithm 4 are arguments of the kernel, never closed
over, so that a schedule, a sweep over ε or several schedules at once reuse one kernel:
`run` scans T steps over an array of step sizes, `run_schedule` applies a
`lsvi.core.step_size.Schedule`, and repetitions are a ``jax.vmap`` over keys.
"""
from __future__ import annotations

from functools import partial
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core import step_size as _step_size
from lsvi.core.families import normalise as _normalise
from lsvi.core.step_size import Schedule
from lsvi.core import clock

# A regression: (key, η (m,)) -> (P (N, d), f(X) (N,), η' (m,))
Regression = Callable


class LSVIState(NamedTuple):
    """eta (m,): current natural parameter; t: iteration counter (int)."""

    eta: jax.Array
    t: jax.Array


class LSVIInfo(NamedTuple):
    """Per-iteration diagnostics: step size used, residual variance (Algorithm 4), halvings,
    acceptance, and the mean of f over the draws (a free, noisy progress signal)."""

    eps: jax.Array
    residual_var: jax.Array
    num_halvings: jax.Array
    accepted: jax.Array
    mean_log_target: jax.Array


def init(eta0) -> LSVIState:
    eta0 = jnp.asarray(eta0)
    return LSVIState(eta0, jnp.zeros((), jnp.int32))


def build_kernel(family, regression: Regression, max_halvings: int = 60, normalise: bool = False):
    """One step ``kernel(key, state, step_size, max_residual_var=inf) -> (state, info)``.

    step_size: ε_t, the input of Algorithm 4; max_residual_var: its bound u² (``inf``: no
    control). Algorithm 4 halves ε until the relaxed iterate is in V and caps it at u/v̂;
    the iterate is then projected into the family's admissible set (`family.project`) and,
    with ``normalise``, given η⁽⁰⁾ = −log Z(η̄) (NGD's convention). A step for which no
    valid ε is found (e.g. a non-finite f) is rejected: η is left unchanged and
    ``info.accepted`` is False.
    """

    def kernel(key, state: LSVIState, step_size, max_residual_var=jnp.inf):
        P, y, eta_target = regression(key, state.eta)
        eps, c = _step_size.control(step_size, max_residual_var, family, state.eta, eta_target, P, y, max_halvings)
        eta = family.project(eps * eta_target + (1.0 - eps) * state.eta)
        if normalise:
            eta = _normalise(family, eta)
        # where, not ε = 0: a non-finite target would make 0·NaN = NaN.
        eta = jnp.where(c.accepted, eta, state.eta)
        info = LSVIInfo(c.eps, c.residual_var, c.num_halvings, c.accepted, jnp.mean(y))
        return LSVIState(eta, state.t + 1), info

    return kernel


@partial(jax.jit, static_argnames=("kernel",))
def run(key, kernel, state: LSVIState, step_sizes, max_residual_var=jnp.inf):
    """Iterate ``kernel`` over T = len(step_sizes) steps (``lax.scan``), step t with
    ε = step_sizes[t] and the key ``jax.random.split(key, T)[t]``.

    Returns (final state, trace of η (T + 1, m) starting with the initial η, `LSVIInfo`
    with leaves of shape (T,)).
    """
    step_sizes = jnp.asarray(step_sizes, state.eta.dtype)

    def body(s, args):
        k, eps = args
        s, info = kernel(k, s, eps, max_residual_var)
        return s, (s.eta, info)

    keys = jax.random.split(key, step_sizes.shape[0])
    final, (etas, infos) = jax.lax.scan(body, state, (keys, step_sizes))
    return final, jnp.concatenate([state.eta[None], etas]), infos


def step_sizes(schedule: Schedule, num_steps: int, start: int = 0):
    """ε_t (num_steps,) of ``schedule`` for t = start, …, start + num_steps − 1."""
    return schedule.eps(jnp.arange(start, start + num_steps))


def run_schedule(key, kernel, state: LSVIState, schedule: Schedule, num_steps: int):
    """`run` with the step sizes and bound u² of a `Schedule` (continuing from ``state.t``)."""
    return run(key, kernel, state, step_sizes(schedule, num_steps, int(state.t)), schedule.u2)


def run_repetitions(key, kernel, state: LSVIState, schedule: Schedule, num_steps: int, num_reps: int):
    """`run_schedule` vmapped over ``num_reps`` independent keys (``jax.random.split(key, num_reps)``):
    leaves get a leading (num_reps,) axis."""
    keys = jax.random.split(key, num_reps)
    eps = step_sizes(schedule, num_steps, int(state.t))
    return jax.vmap(lambda k: run(k, kernel, state, eps, schedule.u2))(keys)


class TimedRuns(NamedTuple):
    """etas (R, T+1, m) traces; infos: LSVIInfo with leaves (R, T); times (R,) time (`lsvi.core.clock`) of
    each run (s, compilation excluded); compile_time (s)."""

    etas: np.ndarray
    infos: LSVIInfo
    times: np.ndarray
    compile_time: float


def run_sequential(keys, kernel, state: LSVIState, schedule: Schedule, num_steps: int) -> TimedRuns:
    """`run_schedule` once per key (keys (R, 2)), one run after the other, each timed.

    Compiled once ahead of time (``lower().compile()``), so the times are those of the
    iterations alone. Sequential rather than `run_repetitions` because a vmap over R
    repetitions holds R × N draws (and R × N × n linear predictors) in memory at once."""
    eps = step_sizes(schedule, num_steps, int(state.t))
    u2 = jnp.asarray(schedule.u2, state.eta.dtype)
    t0 = clock.seconds()
    compiled = run.lower(keys[0], kernel, state, eps, u2).compile()
    compile_time = clock.seconds() - t0
    etas, infos, times = [], [], []
    for k in keys:
        t0 = clock.seconds()
        final, trace, info = compiled(k, state, eps, u2)
        final.eta.block_until_ready()
        times.append(clock.seconds() - t0)
        etas.append(np.asarray(trace))
        infos.append(jax.tree.map(np.asarray, info))
    infos = jax.tree.map(lambda *x: np.stack(x), *infos)
    return TimedRuns(np.array(etas), infos, np.array(times), compile_time)
