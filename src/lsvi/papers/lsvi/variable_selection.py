"""Bayesian variable selection: the marginal posterior π(γ | D) of Appendix C.3.

Model (Schäfer & Chopin 2013; `particles.binary_smc.BayesianVS`):

    y = Zβ + noise,  noise ~ N(0, σ²I_n),  β | σ², γ ~ N(0, σ²v² diag(γ)),
    σ² ~ InvGamma(w/2, λw/2),  γ ~ U({0,1}^d),

with w = 4, λ = σ̂²₁ (residual variance of the saturated least-squares fit) and
v² = 10/λ. Integrating β and σ² out, with C_γ Cholesky of Z_γᵀZ_γ + v⁻²I and
b_γ = Z_γᵀy,

    log π(γ | D) = −Σ_i log c_ii − |γ| log v − (w + n)/2 · log(wλ + yᵀy − ‖C_γ⁻¹b_γ‖²) + const.

(The paper's display divides both terms inside the log by "d", the number of
observations n there; that only shifts the constant.)

Vectorised in JAX over many γ at once: each γ is handled as a *masked* d × d problem,
A_γ = G ∘ γγᵀ + diag(v⁻²γ + (1 − γ)), whose Cholesky factor has the selected block of
C_γ and ones elsewhere, so every γ has the same shapes (no recompilation) and the
unselected coordinates contribute log 1 = 0 and a zero right-hand side.

References
----------
Schäfer, C. and Chopin, N. (2013). Sequential Monte Carlo on large binary sampling spaces.
Statistics and Computing 23(2), 163–184 (the model and its hyper-parameters).
George, E. I. and McCulloch, R. E. (1997). Approaches for Bayesian variable selection.
Statistica Sinica 7(2), 339–373.
Yeh, I.-C. (1998). Modeling of strength of high-performance concrete using artificial neural
networks. Cement and Concrete Research 28(12), 1797–1808 (the Concrete data).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.linalg import solve_triangular

from lsvi.pipeline.paths import DATA_DIR


class VSPosterior(NamedTuple):
    """Sufficient statistics and hyper-parameters of the marginal posterior."""

    gram: jax.Array  # ZᵀZ (d, d)
    zty: jax.Array  # Zᵀy (d,)
    yty: float
    n: int
    w: float
    lamb: float
    v2: float


def saturated_residual_variance(Z, y) -> float:
    """σ̂²₁ = (yᵀy − ‖C⁻¹Zᵀy‖²)/n for the full model γ = (1, …, 1) without prior (λ of C.3)."""
    Z, y = np.asarray(Z, np.float64), np.asarray(y, np.float64)
    C = np.linalg.cholesky(Z.T @ Z)
    b = np.linalg.solve(C, Z.T @ y)
    return float((y @ y - b @ b) / Z.shape[0])


def vs_posterior(Z, y, w: float = 4.0, lamb: float | None = None, v2: float | None = None) -> VSPosterior:
    """The posterior of Appendix C.3 for design Z (n, d) and response y (n,); defaults λ = σ̂²₁, v² = 10/λ."""
    lamb = saturated_residual_variance(Z, y) if lamb is None else float(lamb)
    v2 = 10.0 / lamb if v2 is None else float(v2)
    Z, y = jnp.asarray(Z), jnp.asarray(y)
    return VSPosterior(Z.T @ Z, Z.T @ y, float(y @ y), int(Z.shape[0]), float(w), lamb, v2)


def _log_post_one(post: VSPosterior, gamma):
    g = gamma.astype(post.gram.dtype)
    A = post.gram * jnp.outer(g, g) + jnp.diag(g / post.v2 + (1.0 - g))
    C = jnp.linalg.cholesky(A)
    b = solve_triangular(C, post.zty * g, lower=True)
    ldet = jnp.sum(jnp.log(jnp.diag(C)))
    size = jnp.sum(g)
    return -ldet - 0.5 * size * jnp.log(post.v2) - 0.5 * (post.w + post.n) * jnp.log(post.w * post.lamb + post.yty - b @ b)


def log_posterior(post: VSPosterior, gammas, batch_size: int | None = None):
    """log π(γ | D) (N,) up to a constant for gammas (N, d) in {0,1}: ``lax.map`` one model at a
    time (``batch_size=None``) or over batches of vmapped models."""
    # batch_size=None on CPU: the batched map deadlocked the XLA CPU runtime (see log_pi)
    return jax.lax.map(lambda g: _log_post_one(post, g), gammas, batch_size=batch_size)


def log_target(post: VSPosterior, batch_size: int | None = None):
    """`log_target(key, gammas (N, d)) -> (N,)` for the LSVI kernels."""
    return lambda key, gammas: log_posterior(post, gammas, batch_size)


def log_pi(post: VSPosterior, gammas):
    """log π*(γ) (N,) for γ (N, d) in {0,1}, the evaluator shared by LSVI and the SMC benchmark:
    `log_posterior` one γ at a time on CPU, in batches of 4096 on an accelerator."""
    # On the CPU backend (jax/jaxlib 0.10.2, 2-core machine) the batched map (batch_size=512:
    # a loop over vmapped Cholesky factorisations) deadlocked intermittently inside XLA (every
    # thread idle in a futex wait, reproducible within a few calls), while the unbatched
    # lax.map never hung and was ~4x faster (one 92 x 92 LAPACK call at a time). On an
    # accelerator a sequential map would launch one kernel per γ, so there we keep batches
    # (untested: no GPU).
    batch = None if jax.default_backend() == "cpu" else 4096
    return log_posterior(post, gammas, batch)


def load_concrete(data_dir: str = DATA_DIR, subset: int | None = None):
    """Concrete design Z (1030, 92) (intercept last) and response y; with ``subset=k`` only
    the first k predictors and the intercept (d = k + 1)."""
    from lsvi.data import datasets

    ds = datasets.load("concrete", data_dir)
    Z = np.asarray(ds.X)
    if subset:
        Z = np.concatenate([Z[:, :subset], Z[:, -1:]], axis=1)
    return Z, np.asarray(ds.y)


def particles_agreement(post: VSPosterior, Z, y, num_models: int = 200, seed: int = 0) -> dict:
    """Our closed form against an independent implementation of the same model, `particles.binary_smc.BayesianVS`
    (Chopin's; the SMC benchmark itself evaluates `log_pi`, so it cannot check it): log π(γ | D) of both on
    ``num_models`` random models γ — half with inclusion probability 1/2, half 1/10 (the posterior's region has
    few predictors) — with the intercept (last column of the Concrete design) always in. Both are defined up to a
    constant: the differences to the first model are compared. Returns {"max_abs_diff", "num_models",
    "log_post_range"} (nats)."""
    from particles import binary_smc

    Z, y = np.asarray(Z, np.float64), np.asarray(y, np.float64)
    rng = np.random.default_rng(seed)
    d = Z.shape[1]
    G = np.concatenate([rng.random((num_models // 2, d)) < 0.5, rng.random((num_models - num_models // 2, d)) < 0.1])
    G[:, -1] = True
    ours = np.asarray(log_pi(post, jnp.asarray(G, jnp.float64)))
    ref = binary_smc.BayesianVS(data=(Z, y), lamb=float(post.lamb), iv2=float(1.0 / post.v2), nu=float(post.w)).loglik(G)
    diff = (ours - ours[0]) - (ref - ref[0])
    return {"max_abs_diff": float(np.max(np.abs(diff))), "num_models": int(num_models),
            "log_post_range": float(np.ptp(ours))}
