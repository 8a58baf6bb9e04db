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

from operator import attrgetter

import blackjax
import jax
import jax.numpy as jnp

from lsvi.baselines import GaussianTrace, blackjax_vi

_CHOL_PARAMS = attrgetter("chol_params")


def _chol(chol_params, d: int):
    """L (d, d) from Blackjax's flat parameters (d log-diagonal entries, then the strict lower
    triangle in ``jnp.tril_indices(d, -1)`` order), as ``blackjax.vi.fullrank_vi`` builds it."""
    tril = jnp.zeros((d, d)).at[jnp.tril_indices(d, k=-1)].set(chol_params[d:])
    return tril + jnp.diag(jnp.exp(chol_params[:d]))


def _covariances(chol_params, d: int):
    """Σ = LLᵀ (T+1, d, d) from the stacked parameters (T+1, d(d+1)/2)."""
    L = jax.vmap(lambda c: _chol(c, d))(chol_params)
    return L @ jnp.swapaxes(L, -1, -2)


def fit(logdensity, d: int, num_iterations: int = 1000, num_samples: int = 100, learning_rate: float = 1e-3,
        seed: int = 0) -> GaussianTrace:
    """Blackjax full-rank VI with SGD on ``logdensity(beta (d,)) -> scalar`` (`blackjax_vi.fit`).

    Returns a `GaussianTrace` of the num_iterations + 1 iterates (mean (T+1, d), cov
    (T+1, d, d)); ``loop_s`` is the compiled run, ``compile_s`` its compilation (0 when cached).
    A non-finite iterate is reported in ``info["error"]``."""
    return blackjax_vi.fit("fullrank_vi", _CHOL_PARAMS, _covariances, False, "mu = 0, L = I (Blackjax default)",
                           logdensity, d, num_iterations, num_samples, learning_rate, seed)


def fit_problem(problem, num_iterations: int, num_samples=None, seed: int = 0, learning_rate: float = 1e-3
                ) -> GaussianTrace:
    """`fit` on ``problem.logdensity`` with the signature of `lsvi.baselines.BASELINES`
    (``num_samples=None``: 100 draws per gradient)."""
    return fit(problem.logdensity, problem.d, num_iterations, 100 if num_samples is None else int(num_samples),
               learning_rate, seed)
