"""The online-VI experiments of Alquier's EcoSta 2019 slides ("Test on ... dataset"): average
cumulative loss (1/t) Σ_{s≤t} ℓ_s(θ_s) vs t for OGA, SVA, SVB and NGVI (`lsvi.core.online`).

The slides give neither the data sizes, the prior, nor the learning rates. Choices (stated in
notebook 52): prior N(0, s² I); each method is run over a small grid of its learning rate(s) —
one `jax.vmap` over the grid, one compilation per method and data set — and shown at the value
with the smallest final average cumulative loss (each method at its best on the grid).

References
----------
P. Alquier (2019). Generalization bounds for variational inference. Slides, EcoSta 2019.
B.-E. Chérif-Abdellatif, P. Alquier, M. E. Khan (2019). A generalization bound for online
variational inference. ACML 2019 (arXiv:1904.03920).
"""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from lsvi.core import online

METHODS = ("oga", "sva", "svb", "ngvi")


def simulated_logistic(seed: int, n: int, d: int):
    """x_t = (1, z_t), z_t ~ N(0, I_{d−1}); θ₀ ~ N(0, I_d); y_t = ±1 with P(+1) = sigmoid(x_tᵀθ₀).
    Returns (X (n, d), y (n,), θ₀ (d,))."""
    rng = np.random.default_rng(seed)
    X = np.hstack([np.ones((n, 1)), rng.normal(size=(n, d - 1))])
    theta0 = rng.normal(size=d)
    y = np.where(rng.uniform(size=n) < 1.0 / (1.0 + np.exp(-X @ theta0)), 1.0, -1.0)
    return X, y, theta0


def shuffled(X, y, seed: int, T: int | None = None):
    """The data as a sequence: rows in a random order (seed), the first T (all if None)."""
    order = np.random.default_rng(seed).permutation(len(y))[:T]
    return jnp.asarray(X[order]), jnp.asarray(y[order])


def hyper_grid(method: str, rates, T: int):
    """The (α, β, λ) values tried for a method: OGA λ ∈ rates; SVA, SVB α ∈ rates; NGVI
    β ∈ rates × α ∈ {1, √T, T} (α weighs the prior pulled in at every step)."""
    if method == "ngvi":
        return [(a, b, 0.0) for a, b in itertools.product((1.0, float(np.sqrt(T)), float(T)), rates)]
    return [(0.0, 0.0, r) if method == "oga" else (r, 0.0, 0.0) for r in rates]


def average_cumulative_losses(method, loss_name, X, y, hypers, prior_sd):
    """(H, T) average cumulative losses (1/t) Σ_{s≤t} ℓ_s(θ_s), one row per (α, β, λ) in hypers."""
    a, b, lr = (jnp.asarray(v) for v in zip(*hypers))
    one = lambda a_, b_, lr_: online.run_online(method, loss_name, X, y, alpha=a_, beta=b_, lr=lr_,
                                                prior_sd=prior_sd)[0]
    losses = jax.jit(jax.vmap(one))(a, b, lr)
    return jnp.cumsum(losses, axis=1) / jnp.arange(1, X.shape[0] + 1)


def compare(loss_name, X, y, rates, prior_sd: float = 1.0, methods=METHODS):
    """Each method at its best hyperparameters on the grid. Returns (curves DataFrame with columns
    t and one per method, table DataFrame: method, alpha, beta, lr, final average loss)."""
    T = X.shape[0]
    curves, table = {"t": np.arange(1, T + 1)}, []
    for method in methods:
        hypers = hyper_grid(method, rates, T)
        acl = np.asarray(average_cumulative_losses(method, loss_name, X, y, hypers, prior_sd))
        final = np.where(np.isfinite(acl[:, -1]), acl[:, -1], np.inf)
        best = int(np.argmin(final))
        curves[method] = acl[best]
        table.append({"method": method, "alpha": hypers[best][0], "beta": hypers[best][1],
                      "lr": hypers[best][2], "final_average_loss": float(final[best])})
    return pd.DataFrame(curves), pd.DataFrame(table)
