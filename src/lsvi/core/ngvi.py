"""Stochastic natural-gradient VI with a full-covariance Gaussian (Wu & Gardner 2024, Sections 2–4).

The family q = N(m, Σ) with natural parameter θ = (Σ⁻¹m, −½Σ⁻¹) and expectation parameter ω = (m, S = Σ + mmᵀ)
(the project's ``gaussian_fullcov(d)`` stores θ as η̄ = (Σ⁻¹m, quad-coefficients of −½Σ⁻¹), with η⁽⁰⁾ = −log Z).
For a prior p(β) = N(m_p, Σ_p) with natural parameter θ_p and a log-likelihood f(β) = log p(y | β), the
natural-gradient step on the negative ELBO ℓ(q) = −E_q f + KL(q ‖ p) is, since ∇_ω KL(q ‖ p) = θ − θ_p,

    θ_{t+1} = (1 − ρ_t) θ_t + ρ_t (θ_p + ĝ_t),     ĝ_t ≈ ∇_ω E_q f                             (eq. 8)

(reconstructed: the paper's inline maths is lost in the extraction; standard results). Two estimators of ĝ:

* `linear_regression_gradient`, the conjugate case (eq. 15): for f(β) = −Σ_i (y_i − x_iᵀβ)² / (2s²) the gradient
  ∇_ω E_q f = (Xᵀy/s², −XᵀX/(2s²)) does not depend on q; a mini-batch of B indices drawn uniformly with
  replacement scales it by n/B (Example 1).
* `price_gradient`, any twice-differentiable f: Bonnet's and Price's theorems (eq. 11) give
  ∇_m E f = E ∇f(β) and ∇_Σ E f = ½ E ∇²f(β), estimated from S draws β_s = m + L z_s, Σ = LLᵀ, and carried to
  ω = (m, S) by the chain rule ∇_{ω₁} = ∇_m − 2(∇_Σ)m, ∇_{ω₂} = ∇_Σ. Autodiff of f by default; a closed form
  of the two averages can be passed instead (``derivatives``).

Theorem 1 (conjugate f, ρ_t = 2/(t + 2), `theorem_step_sizes`) bounds E KL(q_{ω̄_T} ‖ p(·|y)) ≤ 4σ²/(T + 1) for the
weighted average ω̄_T = Σ_t t ω_t / Σ_t t of the iterates in expectation coordinates (`weighted_average`), not for
the last iterate.

The kernel has the library's shape: ``state = init(mean, cov)``, ``kernel = build_kernel(prior_mean, prior_cov,
gradient)``, ``state, info = kernel(key, state, rho)``, ``run(key, kernel, state, step_sizes)`` scans it. A step
whose Σ⁻¹ leaves the positive-definite cone (possible with a noisy Price estimate, Remark 2) gives a non-finite
state: ``info.valid`` says so and the caller decides.

References
----------
K. Wu, J. R. Gardner (2024). Understanding stochastic natural gradient variational inference.
ICML 2024 (arXiv:2406.01870).
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp

from lsvi.core.families import gaussian_fullcov, normalise
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural, quad_coefficients

__all__ = ["NGVIState", "NGVIInfo", "init", "step", "build_kernel", "run", "mean_cov", "linear_regression_gradient",
           "likelihood_natural", "price_gradient", "expectation_gradient", "theorem_step_sizes", "weighted_average"]

Gradient = Callable  # (key, mean (d,), cov (d, d)) -> ĝ (m − 1,): the estimate of ∇_ω E_q f in η̄ coordinates


class NGVIState(NamedTuple):
    """eta: (m,) normalised natural parameter of ``gaussian_fullcov(d)``, m = 1 + d + d(d+1)/2; t: steps taken."""

    eta: jnp.ndarray
    t: jnp.ndarray


class NGVIInfo(NamedTuple):
    """gradient: (m − 1,) the estimate ĝ_t used; valid: the new Σ is positive definite (finite state)."""

    gradient: jnp.ndarray
    valid: jnp.ndarray


def _dim(eta) -> int:
    m = eta.shape[-1]
    d = 0
    while 1 + d + d * (d + 1) // 2 < m:
        d += 1
    if 1 + d + d * (d + 1) // 2 != m:
        raise ValueError(f"a gaussian_fullcov natural parameter has 1 + d + d(d+1)/2 entries; got {m}")
    return d


def init(mean, cov) -> NGVIState:
    """The state at q₀ = N(mean (d,), cov (d, d))."""
    mean, cov = jnp.asarray(mean), jnp.asarray(cov)
    if mean.ndim != 1 or cov.shape != (mean.shape[0],) * 2:
        raise ValueError(f"init needs mean (d,) and cov (d, d); got {mean.shape} and {cov.shape}")
    return NGVIState(fullcov_to_natural(mean, cov), jnp.asarray(0))


def mean_cov(state: NGVIState):
    """(mean (d,), cov (d, d)) of the state's q."""
    return fullcov_from_natural(state.eta, _dim(state.eta))


def step(eta, prior_eta, gradient, rho):
    """Eq. 8 on η (m,): η̄' = (1 − ρ) η̄ + ρ (η̄_p + ĝ), then η⁽⁰⁾ = −log Z(η̄'). prior_eta (m,), gradient (m − 1,)."""
    new = jnp.concatenate([eta[:1], (1.0 - rho) * eta[1:] + rho * (prior_eta[1:] + gradient)])
    return normalise(gaussian_fullcov(_dim(eta)), new)


def build_kernel(prior_mean, prior_cov, gradient: Gradient):
    """kernel(key, state, ρ) -> (state, info): one step of eq. 8 towards the prior N(prior_mean (d,), prior_cov
    (d, d)) with ĝ = gradient(key, mean, cov) (`linear_regression_gradient`, `price_gradient`, or your own)."""
    prior_eta = fullcov_to_natural(jnp.asarray(prior_mean), jnp.asarray(prior_cov))
    d = _dim(prior_eta)

    def kernel(key, state: NGVIState, rho):
        mean, cov = fullcov_from_natural(state.eta, d)
        g = gradient(key, mean, cov)
        eta = step(state.eta, prior_eta, g, rho)
        return NGVIState(eta, state.t + 1), NGVIInfo(g, jnp.all(jnp.isfinite(eta)))

    return kernel


def run(key, kernel, state: NGVIState, step_sizes):
    """Scan `kernel` over step_sizes (T,): (final state, infos stacked over T)."""
    keys = jax.random.split(key, step_sizes.shape[0])
    return jax.lax.scan(lambda s, x: kernel(x[0], s, x[1]), state, (keys, step_sizes))


def theorem_step_sizes(num_steps: int):
    """ρ_t = 2/(t + 2), t = 0..T−1 (Theorem 1; ρ₀ = 1)."""
    return 2.0 / (jnp.arange(num_steps, dtype=jnp.float64) + 2.0)


def linear_regression_gradient(X, y, noise_sd: float, batch_size: int | None = None) -> Gradient:
    """ĝ for f(β) = −Σ_i (y_i − x_iᵀβ)²/(2s²), X (n, d), y (n,) (eq. 15): (n/B) Σ_b (y_b x_b/s², −x_b x_bᵀ/(2s²)) over
    B indices drawn with replacement from the key, or every row when ``batch_size`` is None (exact gradient)."""
    X, y = jnp.asarray(X), jnp.asarray(y)
    n = X.shape[0]

    def gradient(key, mean, cov):
        idx = jnp.arange(n) if batch_size is None else jax.random.randint(key, (batch_size,), 0, n)
        return likelihood_natural(X, y, noise_sd, idx)

    return gradient


def likelihood_natural(X, y, noise_sd: float, idx):
    """(n/B) Σ_{b ∈ idx} (y_b x_b/s², quad-coefficients of −x_b x_bᵀ/(2s²)): (m − 1,), idx (B,) row indices."""
    Xb, yb = X[idx], y[idx]
    scale = X.shape[0] / idx.shape[0] / noise_sd**2
    return jnp.concatenate([scale * Xb.T @ yb, quad_coefficients(-0.5 * scale * Xb.T @ Xb)])


def price_gradient(log_likelihood: Callable | None, num_samples: int, derivatives: Callable | None = None) -> Gradient:
    """ĝ by Bonnet's and Price's theorems (eq. 11) from S = num_samples draws β_s = m + L z_s, Σ = LLᵀ.

    log_likelihood: β (d,) -> () (autodiff gives ∇f and ∇²f), or None with ``derivatives(m (d,), L (d, d),
    Z (S, d)) -> (S⁻¹Σ∇f(β_s) (d,), ½S⁻¹Σ∇²f(β_s) (d, d))``, a closed form of the two averages."""
    if (log_likelihood is None) == (derivatives is None):
        raise ValueError("price_gradient needs exactly one of log_likelihood and derivatives")
    if num_samples < 1:
        raise ValueError(f"price_gradient needs num_samples >= 1; got {num_samples}")
    if derivatives is None:
        grad, hess = jax.grad(log_likelihood), jax.hessian(log_likelihood)

        def derivatives(m, L, Z):
            B = m + Z @ L.T
            return jax.vmap(grad)(B).mean(0), 0.5 * jax.vmap(hess)(B).mean(0)

    def gradient(key, mean, cov):
        L = jnp.linalg.cholesky(cov)
        Z = jax.random.normal(key, (num_samples, mean.shape[0]), dtype=mean.dtype)
        return expectation_gradient(*derivatives(mean, L, Z), mean)

    return gradient


def expectation_gradient(g_m, G_S, mean):
    """ĝ (m − 1,) in η̄ coordinates from (∇_m E f (d,), ∇_Σ E f (d, d)) at q's mean (d,), by the chain rule
    (m, Σ) -> ω = (m, S): ∇_{ω₁} = ∇_m − 2(∇_Σ)m, ∇_{ω₂} = ∇_Σ. Exact moment gradients (quadrature, closed
    forms) give the deterministic NGD of eq. 8 through a ``gradient`` that ignores its key."""
    return jnp.concatenate([g_m - 2.0 * G_S @ mean, quad_coefficients(G_S)])


def weighted_average(means, covs, weights=None):
    """Theorem 1's ω̄ = Σ_t w_t ω_t / Σ_t w_t in expectation coordinates ω = (m, Σ + mmᵀ), w_t = t by default
    (t = 0..T): means (T + 1, d), covs (T + 1, d, d) -> (mean (d,), cov (d, d)) of q_{ω̄}."""
    w = jnp.arange(means.shape[0], dtype=means.dtype) if weights is None else jnp.asarray(weights, means.dtype)
    w = w / jnp.sum(w)
    m = jnp.tensordot(w, means, 1)
    S = jnp.tensordot(w, covs + jnp.einsum("ti,tj->tij", means, means), 1)
    return m, S - jnp.outer(m, m)
