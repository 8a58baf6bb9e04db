"""The online-VI experiments of Alquier's EcoSta 2019 slides ("Test on ... dataset"): average
cumulative loss (1/t) Σ_{s≤t} ℓ_s(θ_s) vs t for OGA, SVA, SVB and NGVI (`lsvi.core.online`; `algorithm` maps the
notebook's method and loss names to the library's builders and loss functions).

The slides give neither the data sizes, the prior, nor the learning rates. Choices (stated in
notebook 52): prior N(0, s² I); each method is run over a grid of its learning rate(s) with the
same number of configurations for every method (`hyper_grid`: NGVI's 3 × |rates| (α, β) pairs,
the others' single rate on a 3× denser grid over the same range) — one `jax.vmap` over the grid,
one compilation per method and data set. `compare` picks each method's configuration with the
smallest final average cumulative loss on one order of the data; `held_out_finals` reruns each
method at its pick on other orders (held-out permutations), on which the methods are compared.

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

LOSSES = {"logistic": online.logistic_loss, "squared": online.squared_loss}  # the notebook's loss names
BUILDERS = {"oga": online.build_oga, "sva": online.build_sva, "svb": online.build_svb, "ngvi": online.build_ngvi}
HYPERPARAMETERS = {"oga": ("lr",), "sva": ("alpha", "prior_sd"), "svb": ("alpha", "prior_sd"),
                   "ngvi": ("alpha", "beta", "prior_sd")}  # the keywords each builder takes
METHODS = tuple(BUILDERS)  # ("oga", "sva", "svb", "ngvi")


def algorithm(method: str, loss_name: str, alpha=None, beta=None, lr=None, prior_sd: float = 1.0):
    """The library's online algorithm for a method and loss named in the notebook's parameters, at one (α, β, λ)
    of `hyper_grid`: each builder of `BUILDERS` gets the hyperparameters it has (`HYPERPARAMETERS`: OGA λ; SVA and
    SVB α and s; NGVI α, β and s), the others are ignored. Returns a `lsvi.core.online.OnlineAlgorithm`."""
    given = {"alpha": alpha, "beta": beta, "lr": lr, "prior_sd": prior_sd}
    missing = [k for k in HYPERPARAMETERS[method] if given[k] is None]
    if missing:
        raise ValueError(f"{method} needs {missing}")
    return BUILDERS[method](LOSSES[loss_name], **{k: given[k] for k in HYPERPARAMETERS[method]})


def shuffled(X, y, seed: int, T: int | None = None):
    """The data as a sequence: rows in a random order (seed), the first T (all if None)."""
    order = np.random.default_rng(seed).permutation(len(y))[:T]
    return jnp.asarray(X[order]), jnp.asarray(y[order])


def hyper_grid(method: str, rates, T: int):
    """The (α, β, λ) values tried for a method, 3 × len(rates) for every method (equal tuning budgets): NGVI
    β ∈ rates × α ∈ {1, √T, T} (α weighs the prior pulled in at every step); OGA λ, SVA and SVB α on
    `dense_rates` (3 × len(rates) log-spaced values over [min(rates), max(rates)])."""
    if method == "ngvi":
        return [(a, b, 0.0) for a, b in itertools.product((1.0, float(np.sqrt(T)), float(T)), rates)]
    return [(0.0, 0.0, r) if method == "oga" else (r, 0.0, 0.0) for r in dense_rates(rates)]


def dense_rates(rates) -> list[float]:
    """3 × len(rates) log-spaced values over [min(rates), max(rates)] (the single-rate methods' grid)."""
    rates = [float(r) for r in rates]
    if len(rates) == 1:
        return [rates[0] / 3, rates[0], rates[0] * 3]
    return [float(v) for v in np.geomspace(min(rates), max(rates), 3 * len(rates))]


def average_cumulative_losses(method, loss_name, X, y, hypers, prior_sd):
    """(H, T) average cumulative losses (1/t) Σ_{s≤t} ℓ_s(θ_s), one row per (α, β, λ) in hypers."""
    a, b, lr = (jnp.asarray(v) for v in zip(*hypers))
    one = lambda a_, b_, lr_: online.run(algorithm(method, loss_name, a_, b_, lr_, prior_sd), X, y)[0]  # noqa: E731
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


def held_out_finals(loss_name, X, y, table: pd.DataFrame, seeds, T: int | None = None, prior_sd: float = 1.0):
    """Each method at the configuration chosen by `compare` (rows of ``table``: method, alpha, beta, lr) rerun on the
    permutations ``seeds`` of (X, y) (`shuffled`, first T rows). Returns a DataFrame (seed, method, final_average_loss)."""
    if not len(seeds):
        return pd.DataFrame(columns=["seed", "method", "final_average_loss"])
    perms = [shuffled(X, y, int(seed), T) for seed in seeds]
    Xs, ys = jnp.stack([p[0] for p in perms]), jnp.stack([p[1] for p in perms])
    rows = []
    for r in table.itertuples():
        one = lambda X_, y_, a, b, lr, m=r.method: online.run(algorithm(m, loss_name, a, b, lr, prior_sd),  # noqa: E731
                                                              X_, y_)[0].mean()
        finals = np.asarray(jax.jit(jax.vmap(one, in_axes=(0, 0, None, None, None)))(Xs, ys, r.alpha, r.beta, r.lr))
        rows += [{"seed": int(seed), "method": r.method, "final_average_loss": float(f) if np.isfinite(f) else np.inf}
                 for seed, f in zip(seeds, finals)]
    return pd.DataFrame(rows)
