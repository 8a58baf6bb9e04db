"""The regression shared by Algorithms 2 and 3: draw X = μ + CZ, average t(Z) f(X), map γ → η.

Both algorithms regress f on the whitened statistic t(Z) of standard-normal draws Z
(E[t tᵀ] = I, so the OLS is the average γ̂ = N⁻¹ Σ t(Z_i) f(X_i), eq. 20) and map γ to the
natural parameter in closed form (eq. 43 for the mean field, eq. 18 for the full
covariance). They differ only in the estimate of γ and its map, which `regression` takes.
"""
from __future__ import annotations

import jax

RESIDUALS = ("X", "Z")


def regression(family, log_target, num_samples: int, estimate_gamma, gamma_to_eta, centre: bool = False,
               residual: str = "X"):
    """(key, η) -> (P (N, d), f(X) (N,), η' (m,)).

    estimate_gamma: ``(Z (N, d), f (N,), centre) -> γ̂`` (a tuple); gamma_to_eta:
    ``(η, *γ̂) -> η'``. ``residual`` chooses the points P at which Algorithm 4 evaluates
    η̃ᵀs(·) for its residual variance: ``"X"`` the draws X (the paper), ``"Z"`` the
    standard-normal Z (the authors' code; see `lsvi.core.step_size`)."""
    if residual not in RESIDUALS:
        raise ValueError(f"residual must be one of {RESIDUALS}, not {residual!r}")
    d = family.dim

    def regress(key, eta):
        kz, kf = jax.random.split(key)
        Z = jax.random.normal(kz, (num_samples, d), dtype=eta.dtype)
        X = family.reparameterise(eta, Z)
        y = log_target(kf, X)
        return (Z if residual == "Z" else X), y, gamma_to_eta(eta, *estimate_gamma(Z, y, centre))

    return regress
