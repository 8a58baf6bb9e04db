"""Gold-standard posterior by Blackjax NUTS, with ArviZ convergence diagnostics.

Beyond the paper: the figures of Section 5.1 plot the KL only up to the unknown constant
log Z(π), which ranks approximations but does not say how far any of them is from the
posterior. For the small data sets (Pima d = 9, Sonar d = 61) long NUTS chains give the
posterior mean and marginal standard deviations to Monte Carlo accuracy, against which
each Gaussian approximation is measured (`lsvi.papers.lsvi.logistic.gold_standard_distance`).

Blackjax does the sampling (``blackjax.window_adaptation`` — Stan's windowed step-size and
diagonal mass-matrix adaptation — then ``blackjax.nuts``); chains are vmapped and start
from overdispersed points N(0, 4 I) so that R̂ can detect non-mixing. ArviZ computes R̂
(rank-normalised split R̂) and bulk/tail ESS. ``target_accept`` is the dual-averaging target of the
step-size adaptation (Stan's ``adapt_delta``; Blackjax's default 0.8): posteriors with funnels or
GP length scales (posteriordb's mcycle_gp reference used 0.999) need a value close to 1. The number
of gradient evaluations of the sampling phase (leapfrog steps, Blackjax's ``num_integration_steps``)
is counted so that samplers and VI can be compared at equal cost (RABVI, Section 7.2, Fig. 10).
`path` runs one chain and returns every iteration, warmup included, with the cumulative number of
gradient evaluations after each (the per-step ``num_integration_steps`` of the warmup's and of the
sampling phase's infos), so that a running estimate can be read at any cost (Figs 10, C.15-C.18).

References
----------
M. D. Hoffman, A. Gelman (2014). The No-U-Turn sampler: adaptively setting path lengths in
Hamiltonian Monte Carlo. JMLR 15, 1593–1623.
A. Cabezas, A. Corenflos, J. Lao, R. Louf et al. (2024). BlackJAX: composable Bayesian inference
in JAX. arXiv:2402.10797.
"""
from __future__ import annotations

from functools import partial
from typing import NamedTuple

import arviz as az
import blackjax
import jax
import jax.numpy as jnp
import numpy as np
from lsvi.core import clock


class NUTSResult(NamedTuple):
    """positions (chains, draws, d); mean, sd (d,) over all draws; rhat_max, ess_bulk_min,
    ess_tail_min; acceptance (mean acceptance rate); divergences (count); seconds (cost of sampling on `lsvi.core.clock`); grad_evals."""

    positions: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    rhat_max: float
    ess_bulk_min: float
    ess_tail_min: float
    acceptance: float
    divergences: int
    seconds: float
    grad_evals: int = 0  # leapfrog steps (gradient evaluations) of the sampling phase, all chains, warmup excluded


@partial(jax.jit, static_argnames=("logdensity", "num_warmup", "num_draws"))
def _chain(key, logdensity, position, num_warmup: int, num_draws: int, target_accept: float = 0.8):
    """Stan's window adaptation, then ``num_draws`` NUTS steps: the draws (num_draws, d), their acceptance rates,
    divergences and leapfrog steps, and the warmup's positions and leapfrog steps and the adapted step size."""
    kw, ks = jax.random.split(key)
    warmup = blackjax.window_adaptation(blackjax.nuts, logdensity, target_acceptance_rate=target_accept)
    (state, params), winfo = warmup.run(kw, position, num_steps=num_warmup)
    kernel = blackjax.nuts(logdensity, **params).step

    def body(s, k):
        s, info = kernel(k, s)
        return s, (s.position, info.acceptance_rate, info.is_divergent, info.num_integration_steps)

    _, (pos, acc, div, steps) = jax.lax.scan(body, state, jax.random.split(ks, num_draws))
    return pos, acc, div, steps, winfo.state.position, winfo.info.num_integration_steps, params["step_size"]


def sample(logdensity, d: int, num_chains: int = 4, num_warmup: int = 1000, num_draws: int = 1000,
           seed: int = 0, target_accept: float = 0.8) -> NUTSResult:
    """``num_chains`` NUTS chains on ``logdensity(beta (d,)) -> scalar``; ``target_accept`` the
    step-size adaptation's target acceptance rate (Stan's adapt_delta)."""
    key = jax.random.PRNGKey(seed)
    k0, kc = jax.random.split(key)
    init = 2.0 * jax.random.normal(k0, (num_chains, d), jnp.float64)
    t0 = clock.seconds()
    pos, acc, div, steps, *_ = jax.vmap(lambda k, x: _chain(k, logdensity, x, num_warmup, num_draws, target_accept))(
        jax.random.split(kc, num_chains), init)
    pos = np.asarray(jax.block_until_ready(pos))
    wall = clock.seconds() - t0
    idata = az.convert_to_inference_data(pos)  # array (chain, draw, d)
    summ = az.summary(idata, kind="diagnostics")
    flat = pos.reshape(-1, d)
    return NUTSResult(pos, flat.mean(0), flat.std(0, ddof=1), float(summ["r_hat"].max()),
                      float(summ["ess_bulk"].min()), float(summ["ess_tail"].min()), float(np.mean(acc)),
                      int(np.sum(div)), wall, int(np.sum(steps)))


class ChainPath(NamedTuple):
    """One chain, every iteration: ``positions`` (num_warmup + num_draws, d), warmup first; ``cost`` (same length)
    the cumulative gradient evaluations (leapfrog steps) after each iteration, warmup included; ``num_warmup``;
    ``step_size`` adapted; ``acceptance`` (mean, sampling phase); ``divergences`` (sampling phase)."""

    positions: np.ndarray
    cost: np.ndarray
    num_warmup: int
    step_size: float
    acceptance: float
    divergences: int


def path(logdensity, d: int, num_warmup: int = 1000, num_draws: int = 1000, seed: int = 0,
         target_accept: float = 0.8) -> ChainPath:
    """One NUTS chain (the start and keys of ``sample(..., num_chains=1)``: its draws are ``sample``'s) with every
    warmup and sampling iteration and the cumulative gradient evaluations after each."""
    key = jax.random.PRNGKey(seed)
    k0, kc = jax.random.split(key)
    init = 2.0 * jax.random.normal(k0, (1, d), jnp.float64)[0]
    pos, acc, div, steps, wpos, wsteps, eps = _chain(jax.random.split(kc, 1)[0], logdensity, init,
                                                     num_warmup, num_draws, target_accept)
    positions = np.concatenate([np.asarray(wpos), np.asarray(pos)])
    cost = np.cumsum(np.concatenate([np.asarray(wsteps), np.asarray(steps)]).astype(np.int64))
    return ChainPath(positions, cost, num_warmup, float(eps), float(np.mean(acc)), int(np.sum(div)))
