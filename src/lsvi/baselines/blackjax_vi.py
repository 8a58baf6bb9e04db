"""The loop shared by the Blackjax VI wrappers (`blackjax_meanfield`, `blackjax_fullrank`).

``fit(algorithm, ...)`` runs ``getattr(blackjax, algorithm)(logdensity, optax.sgd(learning_rate), num_samples)``
(``algorithm`` = "meanfield_vi" or "fullrank_vi", a name so that it can key the compilation cache) from its own ``init`` at μ = 0 for ``num_iterations`` steps in
one ``lax.scan`` that keeps every iterate, and returns a `GaussianTrace`. ``params_of(state)`` picks the
family's scale parameters from a Blackjax state (ρ, or the Cholesky parameters) and ``moments(params
(T+1, k), d)`` turns them into variances (T+1, d) or covariances (T+1, d, d). The compiled loop is
cached per static arguments (log density, d, T, N, learning rate, family), so repeated fits compile
once: the first call's ``compile_s`` holds the compilation, the others' are 0. ``elapsed`` spreads the
loop time evenly over the iterations (a scan has no per-iteration clock).
"""
from __future__ import annotations

from functools import lru_cache, partial

import blackjax
import jax
import jax.numpy as jnp
import numpy as np
import optax

from lsvi.baselines import GaussianTrace
from lsvi.core import clock


@partial(jax.jit, static_argnames=("algorithm", "params_of", "moments", "logdensity", "d", "num_iterations",
                                   "num_samples", "learning_rate"))
def _run(key, algorithm: str, params_of, moments, logdensity, d: int, num_iterations: int, num_samples: int,
         learning_rate: float):
    algo = getattr(blackjax, algorithm)(logdensity, optax.sgd(learning_rate), num_samples)
    state = algo.init(jnp.zeros(d, jnp.float64))

    def body(s, k):
        s, info = algo.step(k, s)
        return s, (s.mu, params_of(s), info.elbo)

    _, (mu, params, elbo) = jax.lax.scan(body, state, jax.random.split(key, num_iterations))
    mu = jnp.concatenate([state.mu[None], mu])
    params = jnp.concatenate([params_of(state)[None], params])
    return mu, moments(params, d), elbo


@lru_cache(maxsize=16)
def _compiled(algorithm: str, params_of, moments, logdensity, d: int, num_iterations: int, num_samples: int,
              learning_rate: float):
    """The compiled `_run` for these static arguments: a function of the key alone."""
    return _run.lower(jax.random.PRNGKey(0), algorithm, params_of, moments, logdensity, d, num_iterations, num_samples,
                      learning_rate).compile()


def fit(algorithm: str, params_of, moments, meanfield: bool, init: str, logdensity, d: int, num_iterations: int,
        num_samples: int, learning_rate: float, seed: int) -> GaussianTrace:
    """Blackjax VI (``algorithm``) with SGD on ``logdensity(beta (d,)) -> scalar``: the num_iterations + 1
    iterates as a `GaussianTrace` (``loop_s`` the compiled run, ``compile_s`` its compilation, 0 when
    cached); a non-finite iterate is reported in ``info["error"]`` (the trace is returned as is)."""
    t0 = clock.seconds()
    compiled = _compiled(algorithm, params_of, moments, logdensity, d, num_iterations, num_samples, learning_rate)
    compile_s = clock.seconds() - t0
    t0 = clock.seconds()
    mu, scale, elbo = jax.block_until_ready(compiled(jax.random.PRNGKey(seed)))
    wall = clock.seconds() - t0
    mu, scale, elbo = map(np.asarray, (mu, scale, elbo))
    info = dict(library="blackjax", version=blackjax.__version__, optimizer="optax.sgd",
                learning_rate=learning_rate, num_samples=num_samples, init=init, loss=elbo)
    finite = np.isfinite(mu).all(axis=1) & np.isfinite(scale.reshape(len(scale), -1)).all(axis=1)
    if not finite.all():
        info["error"] = f"non-finite iterate from iteration {int(np.argmin(finite))}"
    its = np.arange(num_iterations + 1)
    return GaussianTrace(its, mu, scale, wall * its / num_iterations, meanfield, info, loop_s=wall,
                         compile_s=compile_s)
