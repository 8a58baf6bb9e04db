"""Tempered-posterior Gaussian VI on simulated logistic regression (notebook 53).

Beyond the slides (Alquier, EcoSta 2019), which only *cite* the concentration results of
Alquier & Ridgway (2020), Bhattacharya, Pati & Yang (2019) and Zhang & Gao (2020): for the
tempered posterior π_{n,α} ∝ L_n^α π (0 < α ≤ 1) and its Gaussian variational approximation
π̃_{n,α} = argmin_{q Gaussian} K(q, π_{n,α}), under regularity conditions
E_{q}‖θ − θ₀‖² → 0 at the parametric rate 1/n. No theorem is stated in the slides: the
notebook *illustrates* them on a model where everything else can be computed exactly.

Model (d features, no intercept): x_i ~ N(0, I_d), y_i ∈ {−1, +1}, P(y_i = 1) = σ(x_iᵀθ₀),
flipped rows x̃_i = y_i x_i (`lsvi.core.targets` convention), prior N(0, v I):

    f_α(θ) = log N(θ; 0, v I) + α Σ_i log σ(x̃_iᵀθ)                        (log π_{n,α} + const)

Three Gaussian summaries of π_{n,α}, per data set:

* Laplace: mode θ̂ (Newton, exact Hessian) and covariance −∇²f_α(θ̂)⁻¹.
* Tempered VI (full covariance): the fixed point of the *exact* LSVI map of Algorithm 3
  (Theorem 4.1: γ = E[t(Z) f_α(μ + CZ)], then eq. 18; `lsvi.core.algorithms.lsvi_fc`) with
  the expectation by tensor Gauss–Hermite quadrature instead of Monte Carlo, iterated with
  ε = 1 from the Laplace approximation. A fixed point of the exact map is a stationary point
  of K(q, π_{n,α}) over Gaussians (Proposition 2.4 of the LSVI paper; checked in the tests).
* Reference (the exact tempered posterior, not defined by VI): importance-weighted
  Gauss–Hermite quadrature in the Laplace coordinates, E_π g = Σ_k w_k r_k g(x_k) / Σ_k w_k r_k,
  r = exp(f_α − log q_Laplace); log Z = log Σ_k w_k r_k. Its error is estimated by the same
  rule with 1.5× the nodes per axis.

Bernstein–von Mises (α-scaled): with I(θ₀) = E[σ(xᵀθ₀)σ(−xᵀθ₀) x xᵀ] the Fisher information
per observation, n·Cov ≈ (α I(θ₀))⁻¹ for π_{n,α} and for its Gaussian approximations, and the
mean ≈ the MLE, so

    n · E_q‖θ − θ₀‖² ≈ n‖θ̂_MLE − θ₀‖² + tr(I⁻¹)/α  →  E: tr(I⁻¹)(1 + 1/α).         (BvM)

Shapes: d features, n observations; X_flipped (n, d); θ (d,); nodes (K^d, d).

References
----------
P. Alquier, J. Ridgway (2020). Concentration of tempered posteriors and of their variational
approximations. Annals of Statistics 48(3), 1475–1497.
P. Alquier (2019). Generalization bounds for variational inference. Slides, EcoSta 2019.
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
from jax.scipy.special import logsumexp

from lsvi.core import quadrature, targets
from lsvi.core.algorithms.lsvi_fc import estimate_gamma, gamma_to_eta
from lsvi.core.families.gaussian import (
    fullcov_from_natural,
    fullcov_precision_cholesky,
    fullcov_to_natural,
    fullcov_transform,
)

LOG_2PI = float(np.log(2.0 * np.pi))


# ---------------------------------------------------------------- data and target
def simulate(seed: int, n: int, theta0) -> np.ndarray:
    """Flipped design X̃ (n, d): x_i ~ N(0, I_d), y_i = ±1 with P(y_i = 1) = σ(x_iᵀθ₀)."""
    rng = np.random.default_rng(seed)
    theta0 = np.asarray(theta0, float)
    X = rng.normal(size=(n, theta0.size))
    p = 1.0 / (1.0 + np.exp(-X @ theta0))
    y = np.where(rng.random(n) < p, 1.0, -1.0)
    return X * y[:, None]


def tempered_log_density(X_flipped, prior_var, alpha):
    """θ (d,) -> f_α(θ) = log N(θ; 0, v I) + α Σ_i log σ(x̃_iᵀθ) (scalar)."""
    def f(theta):
        return targets.gaussian_log_prior(theta, prior_var) + alpha * targets.sum_log_sigmoid(X_flipped @ theta)

    return f


def tempered_log_target(X_flipped, prior_var, alpha):
    """B (N, d) -> f_α(B) (N,), the likelihood chunked over rows (`lsvi.core.targets.logistic_loglik`)."""
    loglik = targets.logistic_loglik(X_flipped)

    def f(B):
        return targets.gaussian_log_prior(B, prior_var) + alpha * loglik(B)

    return f


def fisher_information(theta0, num_nodes: int = 40):
    """I(θ₀) = E_{x∼N(0,I)}[σ(xᵀθ₀)σ(−xᵀθ₀) x xᵀ] (d, d), by tensor Gauss–Hermite quadrature."""
    theta0 = jnp.asarray(theta0, jnp.float64)
    Z, w = quadrature.gauss_hermite(theta0.size, num_nodes)
    s = jax.nn.sigmoid(Z @ theta0)
    return (Z * (w * s * (1.0 - s))[:, None]).T @ Z


# ---------------------------------------------------------------- Gaussian approximations
def laplace(f, theta_init, num_iter: int = 40):
    """Newton's method on f: (mode (d,), covariance −∇²f(mode)⁻¹ (d, d), ‖∇f(mode)‖)."""
    grad, hess = jax.grad(f), jax.hessian(f)

    def body(_, theta):
        return theta - jnp.linalg.solve(hess(theta), grad(theta))

    mode = jax.lax.fori_loop(0, num_iter, body, theta_init)
    cov = jnp.linalg.inv(-hess(mode))
    return mode, 0.5 * (cov + cov.T), jnp.linalg.norm(grad(mode))


def exact_lsvi_fc_map(f_batch, eta, Z, w):
    """One exact Algorithm 3 map η → η' (eq. 18 from γ = E[t(Z) f(μ + CZ)] by quadrature).

    Z (K, d), w (K,): a Gauss–Hermite rule for N(0, I_d). ``estimate_gamma`` averages over its
    K rows, so it is given K·w·(f − E f) (centring only moves γ⁽⁰⁾, which is dropped: the
    returned η' is normalised)."""
    d = Z.shape[1]
    mean, L = fullcov_precision_cholesky(eta, d)
    y = f_batch(fullcov_transform(eta, Z, d))
    y = Z.shape[0] * w * (y - w @ y)
    eta_new = gamma_to_eta(*estimate_gamma(Z, y), mean, L)
    return fullcov_to_natural(*fullcov_from_natural(eta_new, d))


def tempered_vi(f_batch, mean0, cov0, Z, w, num_iter: int = 20):
    """Exact LSVI iteration (ε = 1) from N(mean0, cov0): (mean, cov, max |Δη| / max |η| of the
    last step)."""
    def body(_, carry):
        eta, _ = carry
        new = exact_lsvi_fc_map(f_batch, eta, Z, w)
        return new, jnp.max(jnp.abs(new - eta)) / jnp.max(jnp.abs(new))

    eta, step = jax.lax.fori_loop(0, num_iter, body, (fullcov_to_natural(mean0, cov0), jnp.inf))
    mean, cov = fullcov_from_natural(eta, Z.shape[1])
    return mean, cov, step


def gaussian_log_density(X, mean, cov):
    """log N(x; mean, cov) for X (K, d) -> (K,)."""
    L = jnp.linalg.cholesky(cov)
    u = jax.scipy.linalg.solve_triangular(L, (X - mean).T, lower=True)
    return -0.5 * jnp.sum(u**2, axis=0) - jnp.sum(jnp.log(jnp.diag(L))) - 0.5 * mean.size * LOG_2PI


def reference_posterior(f_batch, mode, cov_laplace, Z, w):
    """The exact tempered posterior by importance-weighted quadrature in the Laplace
    coordinates: (log Z, mean (d,), covariance (d, d))."""
    X = mode + Z @ jnp.linalg.cholesky(cov_laplace).T
    logr = jnp.log(w) + f_batch(X) - gaussian_log_density(X, mode, cov_laplace)
    log_z = logsumexp(logr)
    p = jnp.exp(logr - log_z)
    mean = p @ X
    D = X - mean
    return log_z, mean, (D * p[:, None]).T @ D


def kl_to_target(f_batch, log_z, mean, cov, Z, w):
    """K(N(mean, cov), π) = E_q[log q − f] + log Z(π), E_q by the quadrature rule (Z, w)."""
    X = mean + Z @ jnp.linalg.cholesky(cov).T
    return w @ (gaussian_log_density(X, mean, cov) - f_batch(X)) + log_z


# ---------------------------------------------------------------- one data set, one α
@partial(jax.jit, static_argnames=("vi_nodes", "ref_nodes", "reference"))
def analyse(X_flipped, alpha, prior_var, theta0, vi_nodes: int = 12, ref_nodes: int = 20, reference: bool = True):
    """Laplace, tempered VI and (if ``reference``) the exact tempered posterior for one data set.

    Rows of zeros in X_flipped add the constant α log σ(0) to f_α and change nothing else
    (`study` pads data sets with them to compile once). Returns a dict of scalars / arrays: squared errors E‖θ − θ₀‖² of each, their covariances,
    and (with the reference) K(q, π_{n,α}) of VI and Laplace with an error estimate of the
    reference (the same quantities with 1.5× the nodes per axis)."""
    d = X_flipped.shape[1]
    f1 = tempered_log_density(X_flipped, prior_var, alpha)
    fb = tempered_log_target(X_flipped, prior_var, alpha)
    mode, cov_l, grad_norm = laplace(f1, jnp.zeros(d))
    Zv, wv = quadrature.gauss_hermite(d, vi_nodes)
    mean_q, cov_q, step = tempered_vi(fb, mode, cov_l, Zv, wv)
    out = dict(laplace_grad=grad_norm, vi_step=step, mean_q=mean_q, cov_q=cov_q, cov_laplace=cov_l,
               sq_err_vi=jnp.sum((mean_q - theta0) ** 2) + jnp.trace(cov_q),
               sq_err_laplace=jnp.sum((mode - theta0) ** 2) + jnp.trace(cov_l))
    if reference:
        kl, gaps = {}, {}
        for k in (ref_nodes, (3 * ref_nodes) // 2):
            Zr, wr = quadrature.gauss_hermite(d, k)
            log_z, mean_p, cov_p = reference_posterior(fb, mode, cov_l, Zr, wr)
            kl[k] = (kl_to_target(fb, log_z, mean_q, cov_q, Zr, wr), kl_to_target(fb, log_z, mode, cov_l, Zr, wr))
            Lp = jnp.linalg.cholesky(cov_p)
            gaps[k] = (jnp.linalg.norm(jax.scipy.linalg.solve_triangular(Lp, mean_q - mean_p, lower=True)),
                       jnp.linalg.norm(cov_q - cov_p) / jnp.linalg.norm(cov_p))
        out.update(kl_vi=kl[k][0], kl_laplace=kl[k][1],
                   ref_err=jnp.maximum(jnp.abs(kl[k][0] - kl[ref_nodes][0]), jnp.abs(kl[k][1] - kl[ref_nodes][1])),
                   sq_err_exact=jnp.sum((mean_p - theta0) ** 2) + jnp.trace(cov_p),
                   mean_gap_sd=gaps[k][0], cov_gap_rel=gaps[k][1],
                   mean_gap_err=jnp.abs(gaps[k][0] - gaps[ref_nodes][0]), cov_gap_err=jnp.abs(gaps[k][1] - gaps[ref_nodes][1]))
    return out


def study(seed: int, n_grid, alphas, reps: int, ref_reps: int, theta0, prior_var: float = 25.0,
          vi_nodes: int = 12, ref_nodes: int = 20, pad: bool = False) -> pd.DataFrame:
    """One row per (repetition, n, α): data set r is simulated once at n_max = max(n_grid)
    (seed + r) and its first n rows are used for each n (nested data sets). The reference
    (exact tempered posterior) is computed for the first ``ref_reps`` repetitions. ``pad``: each
    X[:n] is padded with zero rows to n_max (one compilation for all n, n_max rows of work each;
    for small n_max).

    Columns: rep, n, alpha, sq_err_vi, sq_err_laplace, n·α·Cov_q (c00, c01, c11 for d = 2:
    ``acov_ij``), vi_step, laplace_grad and, where computed, kl_vi, kl_laplace, ref_err,
    sq_err_exact, mean_gap_sd (‖Cov_π^{-1/2}(m_q − m_π)‖), cov_gap_rel (‖Cov_q − Cov_π‖_F/‖Cov_π‖_F) and the
    reference's error on these two (mean_gap_err, cov_gap_err: the change with 1.5× the nodes)."""
    theta0 = jnp.asarray(theta0, jnp.float64)
    n_grid = sorted(int(n) for n in n_grid)
    rows = []
    for r in range(reps):
        X_all = jnp.asarray(simulate(seed + r, n_grid[-1], np.asarray(theta0)))
        for n in n_grid:
            for alpha in alphas:
                X = jnp.concatenate([X_all[:n], jnp.zeros_like(X_all[n:])]) if pad else X_all[:n]
                out = analyse(X, jnp.float64(alpha), jnp.float64(prior_var), theta0, vi_nodes, ref_nodes,
                              r < ref_reps)
                out = jax.tree_util.tree_map(np.asarray, out)
                row = dict(rep=r, n=n, alpha=float(alpha))
                acov = n * alpha * out.pop("cov_q")
                iu = np.triu_indices(theta0.size)
                row.update({f"acov_{i}{j}": acov[i, j] for i, j in zip(*iu)})
                out.pop("mean_q"), out.pop("cov_laplace")
                row.update({k: float(v) for k, v in out.items()})
                rows.append(row)
    return pd.DataFrame(rows)


def acov_matrix(row_or_means, d: int) -> np.ndarray:
    """The symmetric (d, d) matrix n·α·Cov_q from the ``acov_ij`` columns of `study`."""
    A = np.zeros((d, d))
    for i, j in zip(*np.triu_indices(d)):
        A[i, j] = A[j, i] = row_or_means[f"acov_{i}{j}"]
    return A
