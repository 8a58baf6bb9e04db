"""The Bayesian SKL regression of RABVI (Welandawe et al., eq. 21 with priors eq. 23–24 and the
weights of eq. 25) in PyMC; the paper fits it in Stan. Passed into `lsvi.core.bbvi.rabvi.rabvi`
as its `regression` argument (core does not import baselines).

    log δ_t ~ N(log C + 2 log(1/ρ^κ − 1) + 2κ log γ_t, σ²), weight w_t on each log-likelihood term,
    log C ~ Cauchy(0, 10), σ ~ Cauchy⁺(0, 10), κ ~ U(0, 1) (or κ = 1 fixed).

The weighted likelihood is a `pm.Potential` Σ_t w_t log N(log δ_t | μ_t, σ). Estimates: Ĉ = exp of
the posterior mean of log C (the posterior of C itself has Cauchy-like tails with few epochs, so
its mean is unstable; the paper says "posterior mean" without saying of which scale), κ̂ = the
posterior mean of κ. Sampler: NUTS, `chains` × `draws` after `tune` (defaults 2 × 1000 after 1000).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import numpy as np


def fit(log_gamma, log_delta, w, rho, fix_kappa, *, draws: int = 1000, tune: int = 1000, chains: int = 2,
        seed: int = 0) -> tuple[float, float]:
    """(Ĉ, κ̂) of eq. 21 by PyMC NUTS (arrays (T,))."""
    import logging

    import pymc as pm
    import pytensor.tensor as pt

    logging.getLogger("pymc").setLevel(logging.ERROR)
    log_gamma, log_delta, w = (np.asarray(a, float) for a in (log_gamma, log_delta, w))
    with pm.Model():
        log_c = pm.Cauchy("log_C", 0.0, 10.0)
        sigma = pm.HalfCauchy("sigma", 10.0)
        kappa = 1.0 if fix_kappa else pm.Uniform("kappa", 0.0, 1.0)
        mu = log_c + 2 * pt.log(1 / rho ** kappa - 1) + 2 * kappa * log_gamma
        pm.Potential("weighted_likelihood", pt.sum(w * pm.logp(pm.Normal.dist(mu, sigma), log_delta)))
        idata = pm.sample(draws=draws, tune=tune, chains=chains, cores=1, random_seed=seed, progressbar=False,
                          compute_convergence_checks=False)
    post = idata.posterior
    kappa_hat = 1.0 if fix_kappa else float(post["kappa"].mean())
    return float(np.exp(post["log_C"].mean())), kappa_hat
