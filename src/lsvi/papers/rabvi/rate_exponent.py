"""δ_t and κ̂ against the learning rate on the Section 7.1 Gaussian targets (RABVI paper, Welandawe et al.: Fig. 3a and
Fig. C.2 left for avgAdam with κ = 1, Figs C.6 / C.7 for RMSProp / Adam with κ estimated).

Eq. 20–21: between the iterate averages of consecutive learning rates γ_{t−1} = γ_t/ρ and γ_t,

    log δ_t = log C + 2 log(1/ρ^κ − 1) + 2κ log γ_t + η_t,   η_t ~ N(0, σ²)   (eq. 21),

with log C ~ Cauchy(0, 10), σ ~ Cauchy⁺(0, 10) (eq. 23), κ ~ Unif(0, 1) for an adaptive optimiser (eq. 24), and the
likelihood term of (δ_t, γ_t) raised to w_t = {1 + (T − t)²/9}^{-1/4} (eq. 25). The figures C.6 / C.7 draw the
posterior of κ with a 95 % credible interval against the learning rate, i.e. the fit after each epoch.

* `rule_off_run`: RABVI (mean field, paper defaults) with the termination rule off (τ = ∞, as
  `gaussian.prediction_study`) up to ``k_max``, for any optimiser; the epochs' (γ_t, δ_t) of the learning rates whose
  FASO call converged (the epoch cut by k_max is not one).
* `kappa_posterior`: the Bayesian regression above by quadrature on a (κ, log C, log σ) grid — the paper fits it in
  Stan; quadrature is exact up to the grid for three parameters. Returns the posterior median of κ and its 2.5 % and
  97.5 % quantiles. (The rule inside `lsvi.core.bbvi.rabvi` uses the weighted least-squares stand-in; these runs
  record both.)
* `kappa_path`: `kappa_posterior` after each epoch t ≥ 2 (the figures' x axis).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the reliability of
black-box variational inference. arXiv:2203.15945. (Section 4.3, eqs 20–25; Figs 3, C.2, C.6, C.7.)
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

from lsvi.core import targets
from lsvi.core.bbvi import families, kernel, optimizers, rabvi
from lsvi.papers.rabvi import gaussian as rg

RHO = 0.5


class RuleOffRun(NamedTuple):
    name: str  # target (`gaussian.COVARIANCES`)
    optimizer: str
    seed: int
    gamma: np.ndarray  # (T,) γ_t of the epochs t ≥ 1 whose FASO call converged
    delta: np.ndarray  # (T,) δ_t = SKL(λ̄_{t−1}, λ̄_t)
    wls_kappa: np.ndarray  # (T,) κ̂ of the library's weighted least squares after epoch t (1 when fixed)
    wls_c: np.ndarray  # (T,) its Ĉ
    iterations: int  # total iterations of the run


def rule_off_run(name: str, d: int, optimizer: str, *, k_max: int, seed: int = 0, num_samples: int = 10) -> RuleOffRun:
    """RABVI on N(0, V_name) in dimension d, mean field, from λ = 0 with PRNGKey(seed), `optimizer` (a key of
    `optimizers.OPTIMIZERS`; κ fixed at 1 for the averaged ones, estimated otherwise, as in `gaussian.study_target`),
    τ = ∞ until `k_max` iterations."""
    V = rg.covariance(name, d)
    fam = families.meanfield(d)
    bb = kernel.build(fam, targets.gaussian_logdensity(jnp.asarray(np.linalg.inv(V))), optimizers.get(optimizer),
                      num_samples)
    with warnings.catch_warnings():  # k_max ends this run by design
        warnings.simplefilter("ignore", RuntimeWarning)
        res = rabvi.rabvi(bb, fam, jnp.zeros(2 * d), jax.random.PRNGKey(seed), tau=np.inf, k_max=k_max, r=1.0,
                          fix_kappa=optimizer.startswith("avg"))
    ep = [e for e in res.epochs[1:] if e.success]
    arr = lambda f: np.array([getattr(e, f) for e in ep], float)  # noqa: E731
    return RuleOffRun(name, optimizer, seed, arr("gamma"), arr("delta"), arr("kappa_hat"), arr("C_hat"),
                      int(res.iterations))


def kappa_posterior(gammas, deltas, rho: float = RHO, num_kappa: int = 99, num_c: int = 240,
                    num_sigma: int = 120) -> tuple[float, float, float]:
    """Posterior of κ in eq. 21 with the priors of eqs 23–24 and the eq. 25 weights, by quadrature: (median, 2.5 %,
    97.5 % quantile). ``gammas``, ``deltas`` (T,), T ≥ 2 (one point cannot separate κ from C). Grid: κ on the
    midpoints of 99 cells of (0, 1); for each κ, log C on ±30 around the weighted mean of its residual (beyond
    that the likelihood is negligible for any σ of the grid); log σ on [log 10⁻³, log 10³]."""
    g, dl = np.log(np.asarray(gammas, float)), np.log(np.asarray(deltas, float))
    if g.size < 2:
        raise ValueError(f"kappa_posterior needs at least 2 points (δ_t, γ_t), got {g.size}")
    w = rabvi.weights(g.size)
    kappa = (np.arange(num_kappa) + 0.5) / num_kappa
    resid = dl[None, :] - 2 * np.log(1 / rho ** kappa[:, None] - 1) - 2 * kappa[:, None] * g[None, :]  # (K, T)
    centre = resid @ w / w.sum()
    offsets = np.linspace(-30, 30, num_c)
    log_c = centre[:, None] + offsets[None, :]  # (K, Nc)
    log_s = np.linspace(np.log(1e-3), np.log(1e3), num_sigma)
    sig = np.exp(log_s)[None, None, :]
    loglik = np.zeros((num_kappa, num_c, num_sigma))
    for t in range(g.size):
        loglik += w[t] * stats.norm.logpdf(resid[:, t, None, None], log_c[:, :, None], sig)
    logpost = (loglik + stats.cauchy.logpdf(log_c, 0, 10)[:, :, None] + stats.halfcauchy.logpdf(sig, 0, 10)
               + log_s[None, None, :])  # + log σ: the Jacobian of the log σ grid
    p = np.exp(logpost - logpost.max()).sum(axis=(1, 2))
    cdf = np.cumsum(p / p.sum())
    edges = np.arange(num_kappa + 1) / num_kappa
    lo, med, hi = np.interp([0.025, 0.5, 0.975], np.r_[0.0, cdf], edges)
    return float(med), float(lo), float(hi)


def kappa_path(run: RuleOffRun, rho: float = RHO) -> np.ndarray:
    """`kappa_posterior` on the first t points, t = 2..T: (T − 1, 4) rows (γ_t, median, 2.5 %, 97.5 %)."""
    return np.array([(run.gamma[t - 1], *kappa_posterior(run.gamma[:t], run.delta[:t], rho))
                     for t in range(2, run.gamma.size + 1)]).reshape(-1, 4)


def kappa_one_fit(run: RuleOffRun, rho: float = RHO) -> float:
    """Ĉ of eq. 21 with κ = 1 (weighted least squares, `rabvi.wls_skl_regression`) on every point of `run`: the fit
    line of Fig. 3a, log δ = log Ĉ + 2 log(1/ρ − 1) + 2 log γ."""
    c, _ = rabvi.wls_skl_regression(np.log(run.gamma), np.log(run.delta), rabvi.weights(run.gamma.size), rho, True)
    return c
