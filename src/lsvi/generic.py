"""Algorithm 1: generic LSVI for any exponential family.

η̂' = F̂⁻¹ ẑ = OLS of f(X_i) on s(X_i), X_1..N ~ q_η̂ (eq. 9–10). Cost O(m³ + m²N).
The normal equations are never formed: we solve the least-squares problem by a thin QR
of the (N, m) design, which is backward stable where F̂ = SᵀS/N would square the
condition number.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.scipy.linalg import solve_triangular

from lsvi import base
from lsvi.step_size_control import Schedule


def ols(S, y):
    """argmin_β ‖Sβ − y‖² for S (N, m) of full column rank, y (N,). O(Nm²)."""
    Q, R = jnp.linalg.qr(S, mode="reduced")
    return solve_triangular(R, Q.T @ y, lower=False)


def regression(family, log_target, num_samples: int):
    """(key, η) -> (X, f(X), OLS η'). ``log_target(key, X (N, d)) -> (N,)``."""

    def regress(key, eta):
        kx, kf = jax.random.split(key)
        X = family.sample(kx, eta, num_samples)
        y = log_target(kf, X)
        return X, y, ols(family.statistic(X), y)

    return regress


def build_kernel(family, log_target, num_samples: int, schedule: Schedule, max_halvings: int = 60):
    """Algorithm 1 step ``(key, LSVIState) -> (LSVIState, LSVIInfo)``."""
    return base.build_kernel(family, regression(family, log_target, num_samples), schedule, max_halvings)


init = base.init
