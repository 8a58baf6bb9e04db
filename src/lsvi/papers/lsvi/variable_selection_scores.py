"""Variable selection (Figure 8, Appendix C.3): the scores log π*(γ) − log q(γ) for γ ~ q.

For a Bernoulli product q(· | p) the scores of i.i.d. draws (`bernoulli_scores`); for the SMC
empirical measure π̂* = Σ_n W_n δ_{θ_n} the scores of its distinct particles with their masses
(`smc_scores`). Their mean is the ELBO of q, log Z* − KL(q ‖ π) (`score_summary`). Also the
distance between two vectors of inclusion probabilities used by the claims (`marginal_gap`).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.papers.lsvi.variable_selection import VSPosterior, log_pi


def bernoulli_log_q(gammas, p):
    """log q(γ | p) (N,) for γ (N, d) in {0,1}, with 0·log 0 = 0 (p may hold exact 0s and 1s)."""
    gammas = jnp.asarray(gammas, jnp.float64)
    p = jnp.asarray(p, jnp.float64)
    on = jnp.where(gammas > 0, jnp.log(jnp.where(p > 0, p, 1.0)) + jnp.where(p > 0, 0.0, -jnp.inf), 0.0)
    off = jnp.where(gammas > 0, 0.0, jnp.log(jnp.where(p < 1, 1.0 - p, 1.0)) + jnp.where(p < 1, 0.0, -jnp.inf))
    return jnp.sum(on + off, axis=-1)


def bernoulli_scores(post: VSPosterior, p, num_draws: int, seed: int = 0):
    """log π*(γ) − log q(γ | p) for γ_1..num_draws i.i.d. ~ q(· | p) (Bernoulli product)."""
    p = jnp.asarray(p, jnp.float64)
    g = jax.random.bernoulli(jax.random.PRNGKey(seed), p, (num_draws, p.shape[0])).astype(jnp.float64)
    return np.asarray(log_pi(post, g) - bernoulli_log_q(g, p))


def empirical_measure(theta, W):
    """The SMC empirical measure π̂* = Σ_n W_n δ_{θ_n}: distinct γ's (K, d) and masses (K,)."""
    theta = np.asarray(theta, bool)
    uniq, inverse = np.unique(theta, axis=0, return_inverse=True)
    mass = np.bincount(inverse.ravel(), weights=np.asarray(W), minlength=uniq.shape[0])
    return uniq, mass


def smc_scores(post: VSPosterior, theta, W):
    """Scores log π*(γ) − log π̂*(γ) of the SMC empirical measure (Appendix C.3, Figure 8).

    Returns (scores (K,), masses (K,)) over the K distinct particles; the distribution of the
    score under γ ~ π̂* is the weighted histogram of ``scores`` with weights ``masses``.
    The authors (ylefay/LSVI, output/read.ipynb) use the unweighted frequencies of the
    pooled particles of 3 runs; we use the weights W of one run (the final particle system
    of adaptive tempering is weighted)."""
    uniq, mass = empirical_measure(theta, W)
    keep = mass > 0
    uniq, mass = uniq[keep], mass[keep]
    lp = np.asarray(log_pi(post, jnp.asarray(uniq, jnp.float64)))
    return lp - np.log(mass), mass


def weighted_mean(x, w):
    return float(np.sum(np.asarray(x) * np.asarray(w)) / np.sum(w))


class ScoreSummary(NamedTuple):
    """Summary of the scores s(γ) = log π*(γ) − log q(γ), γ ~ q (Figure 8).

    elbo: their mean, E_q[log π*] + H(q) = log Z* − KL(q ‖ π), the ELBO of q;
    sd: their standard deviation; se: standard error of ``elbo`` (sd/√n for i.i.d. draws,
    NaN for a weighted empirical measure, whose mean is exact over its support);
    log_evidence_is: log((1/n) Σ exp s_i), the importance-sampling estimate of log Z* with
    proposal q (NaN with weights). exp(log_evidence_is) is unbiased for Z*, so
    P(log_evidence_is ≥ log Z* + c) ≤ e^{−c} (Markov), and log_evidence_is ≥ elbo (Jensen);
    n: number of points."""

    elbo: float
    sd: float
    se: float
    log_evidence_is: float
    n: int


def score_summary(scores, weights=None) -> ScoreSummary:
    """`ScoreSummary` of scores (n,) of i.i.d. draws from q, or of the K distinct points of
    an empirical measure with masses ``weights`` (K,) (`smc_scores`)."""
    s = np.asarray(scores, np.float64)
    if weights is None:
        mu, sd = float(s.mean()), float(s.std(ddof=1)) if s.size > 1 else float("nan")
        lse = float(np.log(np.mean(np.exp(s - s.max()))) + s.max())
        return ScoreSummary(mu, sd, sd / np.sqrt(s.size), lse, int(s.size))
    w = np.asarray(weights, np.float64)
    mu = weighted_mean(s, w)
    return ScoreSummary(mu, float(np.sqrt(weighted_mean((s - mu) ** 2, w))), float("nan"), float("nan"), int(s.size))


def marginal_gap(p, q) -> tuple[float, float, int]:
    """|p_i − q_i| over the coordinates of two vectors of inclusion probabilities (d,):
    (mean, max, index of the max)."""
    a = np.abs(np.asarray(p, np.float64) - np.asarray(q, np.float64))
    return float(a.mean()), float(a.max()), int(a.argmax())
