"""Algorithm 2 of the RABVI paper: Robust and Automated Black-box VI (Sections 4.3 and 6).

Epoch t runs FASO (Algorithm 1) at γ_t = γ_0 ρ^t from the previous iterate average (a fresh
optimiser state) with accuracy threshold ε_t = ε_0 ρ^t. From the second epoch on:

* δ_t = SKL(q_{λ̄_{t−1}}, q_{λ̄_t}) (closed form, `families.skl`);
* eq. 21, log δ_t = log C + 2 log(1/ρ^κ − 1) + 2κ log γ_t + η_t, fitted with weights
  w_t = {1 + (T − t)²/3²}^{-1/4} (eq. 25) by `regression` (a callable, below), κ fixed at 1
  (`fix_kappa`, the paper's setting for avgRMSProp/avgAdam with the mean-field family) or
  estimated (prior U(0, 1) of eq. 24 — which clashes with Prop. 4.5's κ ∈ [1/2, 1]);
* RSKL^ = ρ^κ̂ + ξ/(Ĉ^{1/2} γ_t^κ̂) (eq. 22);
* from the third epoch on, eq. 26, log K_{γ_t} = α log γ_t + β + ν_t, by weighted least squares
  over epochs 1..t (epoch 0, which started from λ^{(0)}, is left out: "remove the converged
  iterations of the initial variational parameter"); K^_{ργ} = (ργ)^α̂ e^β̂ if α̂ < 0 (Algorithm 2
  prints "β̂ < 0", which we read as α̂ < 0: only a negative slope predicts more iterations at a
  smaller γ), else K^_{ργ} = K_γ; RI^ = K^_{ργ}/(K_γ + N_0) (eq. 14);
* terminate when RSKL^·RI^ > τ (never before the third learning rate).

`regression(log_gamma (T,), log_delta (T,), weights (T,), rho, fix_kappa) -> (Ĉ, κ̂)`. The paper
fits eq. 21 as a Bayesian regression in Stan (priors eq. 23–24); the project's PyMC version is
`lsvi.baselines.pymc_skl_regression.fit` (core must not import baselines: pass it in). The default
here, `wls_skl_regression`, is the weighted least-squares fit of the same model (κ profiled on a
grid when estimated), used by fast tests.

Choices where the paper is silent: K_γ in eq. 26 is the epoch's own iteration count k_new^{(t)}
(Algorithm 2 line 11 prints k_new^{(t)} − k_new^{(t−1)}); eq. 26 uses the eq. 25 weights; the
optimiser state is reset at every learning-rate decrease; FASO failure stops RABVI with a warning.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import warnings
from typing import Callable, NamedTuple

import jax
import numpy as np

from lsvi.core.bbvi.faso import faso
from lsvi.core.bbvi.families import Family, skl
from lsvi.core.bbvi.kernel import BBVI


class Epoch(NamedTuple):
    gamma: float
    eps: float
    iterations: int  # k_new of this epoch
    k_conv: int | None
    success: bool
    delta: float  # SKL to the previous epoch's average (nan at t = 0)
    C_hat: float
    kappa_hat: float
    rskl: float
    ri: float
    position: np.ndarray  # λ̄_t


class RabviResult(NamedTuple):
    position: np.ndarray  # λ̄ returned
    terminated: bool  # the inefficiency rule fired
    success: bool  # every FASO call succeeded
    iterations: int  # total k
    epochs: list  # Epoch per learning rate


def weights(T: int) -> np.ndarray:
    """w_t = {1 + (T − t)²/9}^{-1/4}, t = 1..T (eq. 25)."""
    t = np.arange(1, T + 1)
    return (1.0 + (T - t) ** 2 / 9.0) ** -0.25


def wls_skl_regression(log_gamma, log_delta, w, rho, fix_kappa, kappa_grid=np.linspace(0.01, 1.0, 100)):
    """Weighted least squares of eq. 21: (Ĉ, κ̂); κ profiled over `kappa_grid` unless fixed at 1."""
    log_gamma, log_delta, w = (np.asarray(a, float) for a in (log_gamma, log_delta, w))
    best = None
    for kappa in ([1.0] if fix_kappa else kappa_grid):
        resid0 = log_delta - 2 * np.log(1 / rho ** kappa - 1) - 2 * kappa * log_gamma
        log_c = np.sum(w * resid0) / np.sum(w)
        rss = np.sum(w * (resid0 - log_c) ** 2)
        if best is None or rss < best[0]:
            best = (rss, float(np.exp(log_c)), float(kappa))
    return best[1], best[2]


def wls_line(x, y, w) -> tuple[float, float]:
    """Weighted least squares y = a x + b: (a, b) (eq. 26's α̂, β̂)."""
    x, y, w = (np.asarray(a, float) for a in (x, y, w))
    xm, ym = np.sum(w * x) / np.sum(w), np.sum(w * y) / np.sum(w)
    a = np.sum(w * (x - xm) * (y - ym)) / np.sum(w * (x - xm) ** 2)
    return float(a), float(ym - a * xm)


def stop_epoch(epochs, tau: float = 1.0) -> int | None:
    """Algorithm 2's termination rule on recorded `Epoch`s: the first t ≥ 2 whose FASO call succeeded and
    RSKL^_t·RI^_t > τ (None if none; a failed FASO call ends RABVI). RSKL^_t and RI^_t depend only on epochs ≤ t,
    so replaying it with another τ on a run made with τ = ∞ gives where `rabvi` with that τ stops."""
    for t, e in enumerate(epochs):
        if not e.success:
            return None
        if t >= 2 and e.rskl * e.ri > tau:
            return t
    return None


def rabvi(bbvi: BBVI, family: Family, position, key, *, gamma0: float = 0.3, w_min: int = 200, xi: float = 0.1,
          tau: float = 1.0, eps0: float | None = None, rho: float = 0.5, n0: int | None = None, k_max: int = 100_000,
          fix_kappa: bool = True, regression: Callable = wls_skl_regression, **faso_kwargs) -> RabviResult:
    """Algorithm 2 (defaults: the paper's Section 6; ε_0 = ξ, N_0 = 5 W_min, M is `bbvi`'s)."""
    eps = xi if eps0 is None else eps0
    n0 = 5 * w_min if n0 is None else n0
    meanfield_dim = family.dim if family.name == "meanfield" else None
    gamma, k, t = gamma0, 0, 0
    lam_curr = np.asarray(position, float)
    epochs: list[Epoch] = []
    terminated = False
    while k < k_max:
        lam_prev = lam_curr
        key, sub = jax.random.split(key)
        res = faso(bbvi, lam_curr, gamma, sub, w_min=w_min, eps=eps, k_max=k_max - k,
                   meanfield_dim=meanfield_dim, **faso_kwargs)
        lam_curr = res.position
        k += res.iterations
        delta = C_hat = kappa_hat = rskl = ri = float("nan")
        if not res.success:
            warnings.warn(f"RABVI: FASO failed to converge at γ = {gamma:.3g} (epoch {t}); estimated error "
                          f"{res.error:.3g}; returning the current iterate average", RuntimeWarning, stacklevel=2)
            epochs.append(Epoch(gamma, eps, res.iterations, res.k_conv, False, delta, C_hat, kappa_hat, rskl, ri,
                                lam_curr))
            return RabviResult(lam_curr, False, False, k, epochs)
        if t >= 1:
            delta = float(skl(family, lam_prev, lam_curr))
            deltas = np.array([e.delta for e in epochs[1:]] + [delta])
            gammas = np.array([e.gamma for e in epochs[1:]] + [gamma])
            C_hat, kappa_hat = regression(np.log(gammas), np.log(deltas), weights(len(deltas)), rho, fix_kappa)
            rskl = rho ** kappa_hat + xi / (np.sqrt(C_hat) * gamma ** kappa_hat)
            if t >= 2:
                iters = np.array([e.iterations for e in epochs[1:]] + [res.iterations], float)
                alpha, beta = wls_line(np.log(gammas), np.log(iters), weights(len(iters)))
                k_next = (rho * gamma) ** alpha * np.exp(beta) if alpha < 0 else res.iterations
                ri = k_next / (res.iterations + n0)
        epochs.append(Epoch(gamma, eps, res.iterations, res.k_conv, True, delta, C_hat, kappa_hat, rskl, ri,
                            lam_curr))
        if stop_epoch(epochs, tau) is not None:
            terminated = True
            break
        gamma, eps, t = rho * gamma, rho * eps, t + 1
    if not terminated:
        warnings.warn(f"RABVI: k_max = {k_max} reached before the termination rule fired", RuntimeWarning,
                      stacklevel=2)
    return RabviResult(lam_curr, terminated, True, k, epochs)
