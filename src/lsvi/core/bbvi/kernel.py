"""One black-box VI step (RABVI paper, eq. 4): λ ← λ − γ d_k, with d_k the optimiser's direction
for the reparameterisation gradient of −ELBO (eq. 3) estimated with M draws,

    ĝ(λ) = ∇_λ [ −M^{-1} Σ_m log π(μ_λ + L_λ z_m) − H(q_λ) ],   z_m ~ N(0, I_d),

(exact entropy H). A family without a closed-form entropy (``family.entropy`` None, e.g. a normalising flow)
uses its ``sample_and_log_density`` (θ_m = T_λ(z_m) and log q_λ(θ_m)) and the estimate
−M^{-1} Σ_m [log π(θ_m) − log q_λ(θ_m)] of −ELBO instead. Blackjax shape: `init(λ) -> State`, `step(key, state, step_size) -> (State, Info)`,
the learning rate γ an argument of the step; `run(key, state, step_size, num_steps)` scans it and
returns every iterate (the trace FASO diagnoses). `step` and `run` are jitted (`num_steps` static).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
A. Kucukelbir, D. Tran, R. Ranganath, A. Gelman, D. M. Blei (2017). Automatic differentiation
variational inference. JMLR 18(14), 1–45.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import optax

from lsvi.core.bbvi.families import Family


class State(NamedTuple):
    position: jnp.ndarray  # λ (P,)
    opt_state: optax.OptState


class Info(NamedTuple):
    loss: jnp.ndarray  # Monte Carlo −ELBO estimate at the pre-step λ
    grad_norm: jnp.ndarray


class BBVI(NamedTuple):
    init: Callable
    step: Callable
    run: Callable


def subtract(position, direction, step_size):
    """The step of eq. 4: λ − γ d (the default ``apply`` of `build`)."""
    return position - step_size * direction


def build(family: Family, log_target: Callable, optimizer: optax.GradientTransformation,
          num_samples: int = 10) -> BBVI:
    """`log_target` θ (d,) -> scalar (unnormalised log π); `num_samples` = M (default 10). The step from the
    optimiser's direction d is `subtract` (eq. 4), unless the optimiser carries its own ``apply(λ, d, γ) -> λ'``
    (`lsvi.core.bbvi.optimizers.SteppedTransformation`, e.g. eq. B.14's step in the natural parameters)."""
    apply = getattr(optimizer, "apply", subtract)
    logp = jax.vmap(log_target)

    if family.entropy is not None:
        def neg_elbo(lam, z):
            return -jnp.mean(logp(family.sample(lam, z))) - family.entropy(lam)
    else:
        def neg_elbo(lam, z):
            theta, logq = family.sample_and_log_density(lam, z)
            return -jnp.mean(logp(theta) - logq)

    grad = jax.value_and_grad(neg_elbo)

    def init(position) -> State:
        position = jnp.asarray(position, float)
        return State(position, optimizer.init(position))

    def step(key, state: State, step_size) -> tuple[State, Info]:
        z = jax.random.normal(key, (num_samples, family.dim))
        loss, g = grad(state.position, z)
        d, opt_state = optimizer.update(g, state.opt_state, state.position)
        return State(apply(state.position, d, step_size), opt_state), Info(loss, jnp.linalg.norm(g))

    def run(key, state: State, step_size, num_steps: int):
        """`num_steps` steps at fixed γ: (final State, iterates (num_steps, P), Info per step)."""

        def body(s, k):
            s, info = step(k, s, step_size)
            return s, (s.position, info)

        state, (trace, info) = jax.lax.scan(body, state, jax.random.split(key, num_steps))
        return state, trace, info

    return BBVI(init, jax.jit(step), jax.jit(run, static_argnums=3))
