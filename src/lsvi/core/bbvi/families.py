"""Gaussian variational families for black-box VI (RABVI paper, Section 4.3).

A variational parameter λ is one flat vector so that FASO's diagnostics (R̂, ESS, MCSE per
component) apply to it as to a Markov chain:

* mean field, λ = (τ, ψ) ∈ R^{2d}: q_λ = N(τ, diag e^{2ψ}) (the paper's parameterisation);
* full rank, λ = (m, vec of the lower triangle of L) ∈ R^{d + d(d+1)/2} with the diagonal of L
  stored as its logarithm: q_λ = N(m, L Lᵀ).

`sample(λ, z)` is the reparameterisation θ = μ + L z (z (M, d) -> (M, d)); `entropy(λ)` is exact.
A family without a closed-form entropy (a normalising flow, `lsvi.baselines.flowjax_realnvp`) sets ``entropy``,
``mean_cov`` and ``init`` to None and gives ``sample_and_log_density(λ, z) -> (θ (M, d), log q_λ(θ) (M,))`` instead:
the ELBO is then estimated by −M⁻¹ Σ_m [log π(θ_m) − log q_λ(θ_m)] (`lsvi.core.bbvi.kernel`).
`skl` is the closed-form symmetrised KL, SKL(η, ζ) = KL(η|ζ) + KL(ζ|η) (`lsvi.core.losses`).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax.numpy as jnp

from lsvi.core.losses import kl_gaussian_symmetric


class Family(NamedTuple):
    """A reparameterisable family on R^d with flat parameter of size `num_params` (Gaussian: exact entropy)."""

    name: str
    dim: int
    num_params: int
    sample: Callable  # (λ (P,), z (M, d)) -> θ (M, d)
    entropy: Callable | None  # λ (P,) -> scalar; None: no closed form (use sample_and_log_density)
    mean_cov: Callable | None  # λ (P,) -> (m (d,), Σ (d, d))
    init: Callable | None  # (m (d,), Σ (d, d)) -> λ (P,): the member with these moments (Σ diagonal used for MF)
    sample_and_log_density: Callable | None = None  # (λ (P,), z (M, d)) -> (θ (M, d), log q_λ(θ) (M,))


def meanfield(d: int) -> Family:
    """N(τ, diag e^{2ψ}), λ = (τ, ψ) (P = 2d)."""

    def sample(lam, z):
        return lam[:d] + jnp.exp(lam[d:]) * z

    def entropy(lam):
        return jnp.sum(lam[d:]) + 0.5 * d * (1.0 + jnp.log(2 * jnp.pi))

    def mean_cov(lam):
        return lam[:d], jnp.diag(jnp.exp(2 * lam[d:]))

    def init(m, cov):
        return jnp.concatenate([jnp.asarray(m, float), 0.5 * jnp.log(jnp.diag(jnp.asarray(cov, float)))])

    return Family("meanfield", d, 2 * d, sample, entropy, mean_cov, init)


def fullrank(d: int) -> Family:
    """N(m, L Lᵀ), λ = (m, lower triangle of L with log-diagonal) (P = d + d(d+1)/2)."""
    rows, cols = jnp.tril_indices(d)
    diag = rows == cols

    def chol(lam):
        v = lam[d:]
        v = jnp.where(diag, jnp.exp(v), v)
        return jnp.zeros((d, d)).at[rows, cols].set(v)

    def sample(lam, z):
        return lam[:d] + z @ chol(lam).T

    def entropy(lam):
        return jnp.sum(jnp.where(diag, lam[d:], 0.0)) + 0.5 * d * (1.0 + jnp.log(2 * jnp.pi))

    def mean_cov(lam):
        L = chol(lam)
        return lam[:d], L @ L.T

    def init(m, cov):
        L = jnp.linalg.cholesky(jnp.asarray(cov, float))
        v = L[rows, cols]
        return jnp.concatenate([jnp.asarray(m, float), jnp.where(diag, jnp.log(v), v)])

    return Family("fullrank", d, d + d * (d + 1) // 2, sample, entropy, mean_cov, init)


def skl(family: Family, lam0, lam1):
    """SKL(q_{λ0}, q_{λ1}) for two parameters of `family`."""
    return kl_gaussian_symmetric(*family.mean_cov(lam0), *family.mean_cov(lam1))
