"""Algorithm 1: LSVI for any exponential family.

η' = F̂⁻¹ ẑ = OLS of f(X_i) on s(X_i), X_1..N ~ q_η (eq. 9–10). Cost O(m³ + m²N).
For N ≫ m we solve the normal equations F̂β = ẑ of eq. (9) by a Cholesky factorisation
of the column-equilibrated F̂ (no explicit inverse) refined once; equilibration (scaling
every column of s to unit norm) removes the bad conditioning due to the statistics'
different scales (x vs x²). For small N, or should the factorisation fail (F̂ numerically
singular), we use a thin QR of the (N, m) design: backward stable, but slower, which is
why it is not the default for the paper's sizes.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.scipy.linalg import cho_solve, solve_triangular


def ols_qr(S, y):
    """argmin_β ‖Sβ − y‖² by Householder QR, S (N, m) of full column rank (N ≥ m), y (N,). O(Nm²).

    The R factor of the augmented [S, y] (N, m + 1) is [[R, Qᵀy], [0, ρ]]: β = R⁻¹(Qᵀy) needs
    R only, so Q (N × m) is never formed (``mode="r"``; forming Q and then Qᵀy took 44 ms
    against 1.4 ms for N = 1000, m = 55 on CPU). Same reflections applied to y, same
    backward stability (`tests/test_perf_identities.py` compares with numpy's lstsq)."""
    m = S.shape[1]
    R = jnp.linalg.qr(jnp.concatenate([S, y[:, None].astype(S.dtype)], axis=1), mode="r")
    return solve_triangular(R[:m, :m], R[:m, m], lower=False)


def ols(S, y):
    """argmin_β ‖Sβ − y‖² for S (N, m) of full column rank, y (N,). O(Nm² + m³).

    For N ≫ m (every experiment of the paper): equilibrated normal equations solved by
    Cholesky plus one step of iterative refinement, with a QR fallback when F̂ is
    numerically singular. For N < 20m (small problems, where the normal equations' squared
    condition number would cost digits, e.g. the exactness check at N = m): QR directly.

    Equilibration D = diag(‖S_{·k}‖) is applied to the m × m Gram matrix, not to the design:
    with A = SᵀS, D² = diag(A) and D⁻¹SᵀSD⁻¹ = D⁻¹AD⁻¹, so the scaled design SD⁻¹ (N × m) is
    never formed and S is read three times (Gram, SᵀR for the refinement, Sβ), not six.
    Equal to equilibrating S first up to rounding (`tests/test_perf_identities.py`).
    """
    n, m = S.shape
    if n < 20 * m:
        return ols_qr(S, y)
    A = S.T @ S
    scale = jnp.sqrt(jnp.diag(A))
    scale = jnp.where(scale > 0, scale, 1.0)
    L = jnp.linalg.cholesky(A / scale[:, None] / scale[None, :])

    def chol():
        b = cho_solve((L, True), (S.T @ y) / scale)
        b = b + cho_solve((L, True), (S.T @ (y - S @ (b / scale))) / scale)  # iterative refinement
        return b / scale

    return jax.lax.cond(jnp.all(jnp.isfinite(L)), chol, lambda: ols_qr(S, y))


def ols_equilibrated_design(S, y):
    """The previous `ols` (before the Gram-first equilibration), kept as the reference of
    `tests/test_perf_identities.py`: equilibrate the design S → SD⁻¹, then the same Cholesky +
    one refinement (N ≥ 20m only)."""
    scale = jnp.sqrt(jnp.sum(S**2, axis=0))
    scale = jnp.where(scale > 0, scale, 1.0)
    Ss = S / scale
    L = jnp.linalg.cholesky(Ss.T @ Ss)
    b = cho_solve((L, True), Ss.T @ y)
    b = b + cho_solve((L, True), Ss.T @ (y - Ss @ b))
    return b / scale


def regression(family, log_target, num_samples: int):
    """(key, η) -> (X (N, d), f(X) (N,), OLS η' (m,)); ``log_target(key, X (N, d)) -> (N,)``."""

    def regress(key, eta):
        kx, kf = jax.random.split(key)
        X = family.sample(kx, eta, num_samples)
        y = log_target(kf, X)
        return X, y, ols(family.statistic(X), y)

    return regress
