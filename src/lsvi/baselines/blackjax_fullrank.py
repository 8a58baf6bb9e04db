"""Full-rank ADVI from Blackjax (``blackjax.fullrank_vi``), beside `lsvi.baselines.blackjax_meanfield`.

Not a baseline of the paper (which runs Blackjax only in mean field, on MNIST): the
time-to-accuracy benchmark (issue 17) compares every Gaussian VI a practitioner could pick.
Blackjax parametrises q = N(μ, LLᵀ) with L lower triangular, its diagonal exp(·) of
free parameters, and ``init`` sets μ = 0, L = I (so q₀ = N(0, I), LSVI's initial q on Pima
and Sonar). Each step is an optax step on (μ, L-parameters) along a reparameterised Monte
Carlo gradient of the negative ELBO over ``num_samples`` draws. Same optimiser as the
mean-field wrapper: ``optax.sgd(learning_rate)``. The loop is one ``lax.scan`` (compiled
once per static arguments, cached); every iterate is kept and ``elapsed`` spreads the loop
time evenly over the iterations (a scan has no per-iteration clock).
"""
from __future__ import annotations

import time
from functools import lru_cache, partial

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
import optax

from lsvi.baselines import GaussianTrace


def _chol(chol_params, d: int):
    """L (d, d) from Blackjax's flat parameters (d log-diagonal entries, then the strict lower
    triangle in ``jnp.tril_indices(d, -1)`` order), as ``blackjax.vi.fullrank_vi`` builds it."""
    tril = jnp.zeros((d, d)).at[jnp.tril_indices(d, k=-1)].set(chol_params[d:])
    return tril + jnp.diag(jnp.exp(chol_params[:d]))


@partial(jax.jit, static_argnames=("logdensity", "d", "num_iterations", "num_samples", "learning_rate"))
def _run(key, logdensity, d: int, num_iterations: int, num_samples: int, learning_rate: float):
    algo = blackjax.fullrank_vi(logdensity, optax.sgd(learning_rate), num_samples)
    state = algo.init(jnp.zeros(d, jnp.float64))

    def body(s, k):
        s, info = algo.step(k, s)
        return s, (s.mu, s.chol_params, info.elbo)

    _, (mu, chol, elbo) = jax.lax.scan(body, state, jax.random.split(key, num_iterations))
    mu = jnp.concatenate([state.mu[None], mu])
    L = jax.vmap(lambda c: _chol(c, d))(jnp.concatenate([state.chol_params[None], chol]))
    return mu, L @ jnp.swapaxes(L, -1, -2), elbo


@lru_cache(maxsize=16)
def _compiled(logdensity, d: int, num_iterations: int, num_samples: int, learning_rate: float):
    return _run.lower(jax.random.PRNGKey(0), logdensity, d, num_iterations, num_samples, learning_rate).compile()


def fit(logdensity, d: int, num_iterations: int = 1000, num_samples: int = 100, learning_rate: float = 1e-3,
        seed: int = 0) -> GaussianTrace:
    """Blackjax full-rank VI with SGD on ``logdensity(beta (d,)) -> scalar``.

    Returns a `GaussianTrace` of the num_iterations + 1 iterates (mean (T+1, d), cov
    (T+1, d, d)); ``loop_s`` is the compiled run, ``compile_s`` its compilation (0 when cached).
    A non-finite iterate is reported in ``info["error"]``."""
    t0 = time.perf_counter()
    compiled = _compiled(logdensity, d, num_iterations, num_samples, learning_rate)
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    mu, cov, elbo = jax.block_until_ready(compiled(jax.random.PRNGKey(seed)))
    wall = time.perf_counter() - t0
    mu, cov, elbo = map(np.asarray, (mu, cov, elbo))
    info = dict(library="blackjax", version=blackjax.__version__, optimizer="optax.sgd",
                learning_rate=learning_rate, num_samples=num_samples, init="mu = 0, L = I (Blackjax default)",
                loss=elbo)
    finite = np.isfinite(mu).all(axis=1) & np.isfinite(cov).all(axis=(1, 2))
    if not finite.all():
        info["error"] = f"non-finite iterate from iteration {int(np.argmin(finite))}"
    its = np.arange(num_iterations + 1)
    return GaussianTrace(its, mu, cov, wall * its / num_iterations, False, info, loop_s=wall, compile_s=compile_s)


def fit_problem(problem, num_iterations: int, num_samples=None, seed: int = 0, learning_rate: float = 1e-3
                ) -> GaussianTrace:
    """`fit` on ``problem.logdensity`` with the signature of `lsvi.baselines.BASELINES`
    (``num_samples=None``: 100 draws per gradient)."""
    return fit(problem.logdensity, problem.d, num_iterations, 100 if num_samples is None else int(num_samples),
               learning_rate, seed)
