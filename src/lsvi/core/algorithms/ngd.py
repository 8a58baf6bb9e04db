"""Natural gradient descent (NGD) baseline for Gaussian families, as run in Section 5.1.

"For NGD, the gradients are obtained via JAX autodifferentiation and the FIM is
estimated via Monte Carlo" (Section 5.1). We descend KL(q̄_η̄ ‖ π̄) in the non-constant
natural parameter η̄ (η = (η⁽⁰⁾, η̄), `lsvi.core.families` conventions):

    η̄_{t+1} = η̄_t − ε_t F̂⁻¹ ĝ,
    ĝ ≈ ∇_η̄ KL(q̄_η̄‖π̄) = Cov_η̄(s̄, η̄ᵀs̄ − f)                          (eq. 29)
    F̂ ≈ F̄_η̄ = Cov_η̄(s̄(X)) = ∇²_η̄ log ∫exp(η̄ᵀs̄)               (Fisher information of q̄_η̄)

F̄ is the Fisher information of the *normalised* family; it is the Schur complement of
the constant (1 × 1) block of F_η = E[ssᵀ] (eq. 3), so with exact expectations this step is the η̄
part of eq. (6) and therefore of the exact LSVI step (Proposition 2.4):
η̄_{t+1} = (1−ε)η̄_t + ε φ̄(η_t), with φ̄(η) = Cov(s̄)⁻¹Cov(s̄, f) the OLS slope. η⁽⁰⁾
plays no role in q̄_η̄; NGD iterates are returned normalised (η⁽⁰⁾ = −log Z(η̄)).

Gradient estimators (``gradient=``):
  "reparam" (default, as in the paper and the authors' code): autodiff of the Monte
      Carlo objective N⁻¹ Σ_i [log q̄_η̄(X_i) − f(X_i)] with X_i = μ(η̄) + C(η̄) Z_i,
      Z_i ~ N(0, I), through the Cholesky factor and the sample path (needs ∇f).
  "score": the score-function identity (29) with the empirical covariance on the same
      draws (gradient-free). With F̂ = Cov̂(s̄) on those draws, F̂⁻¹ĝ = η̄ − (OLS slope),
      so this NGD step *is* the η̄ part of the Algorithm 1 step on the same draws:
      the two estimators differ only in ĝ.

FIM (``fim=``): "mc" (default, faithful): F̂ = empirical covariance of s̄(X_i) on the same
N draws, O(N m² + m³) per step with m − 1 = d + d(d+1)/2 (full covariance) or 2d (mean
field) — the O(m³) cost of Table 1. "exact" (mean field only): the closed-form F̄, block
diagonal per coordinate (Var x = σ², Cov(x, x²) = 2μσ², Var x² = 2σ⁴ + 4μ²σ²), solved
coordinate-wise in O(d); not what the paper ran.

As a step of `lsvi.core.kernel`: NGD is one more regression, whose target is the ε = 1
end of its step, η' = η − (0, F̂⁻¹ĝ); the LSVI kernel then relaxes η + ε(η' − η) =
η − ε(0, F̂⁻¹ĝ), halves ε until the iterate is valid (Algorithm 4's backtracking, as the
authors' NGD does), applies the u² cap of Algorithm 4 to the same residual variance as for
LSVI when u² < ∞ (the paper's NGD runs, Table 3, all use u² = ∞: backtracking only), and
normalises (η⁽⁰⁾ = −log Z(η̄)). Build it with ``lsvi.core.algorithms.build_kernel("ngd", …)``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.scipy.linalg import solve

from lsvi.core.families import log_density, normalise
from lsvi.core.families.gaussian import meanfield_from_natural

SUPPORTED = ("gaussian_fullcov", "gaussian_meanfield")


def _check_family(family):
    if family.name not in SUPPORTED:
        raise ValueError(f"NGD is implemented for {SUPPORTED}, not {family.name!r}")


def kl_objective(family, eta, Z, w, log_target, key):
    """Σ_i w_i [log q̄_η(X_i) − f(X_i)], X = ``family.reparameterise(η, Z)``; aux (X, f(X)).

    With w_i = 1/N and Z_i ~ N(0, I) this is the Monte Carlo KL up to log Z(π); with
    Gauss–Hermite nodes and weights (`lsvi.core.quadrature.gauss_hermite`) it is a quadrature."""
    X = family.reparameterise(eta, Z)
    y = log_target(key, X)
    return jnp.sum(w * (log_density(family, eta, X) - y)), (X, y)


def reparam_gradient(family, eta, Z, w, log_target, key):
    """ĝ (m−1,) = ∇_η̄ `kl_objective` by autodiff (reparameterisation trick); also X, f(X)."""
    g, (X, y) = jax.grad(lambda e: kl_objective(family, e, Z, w, log_target, key), has_aux=True)(eta)
    return g[1:], X, y  # ∂/∂η⁽⁰⁾ = 0: log q̄ does not depend on η⁽⁰⁾


def _centre(A, w):
    return A - w @ A


def score_gradient(family, eta, X, y, w):
    """ĝ (m−1,) = Cov_w(s̄(X), log q̄_η(X) − f(X)), eq. (29) with weighted moments (Σw = 1)."""
    Sc = _centre(family.statistic(X)[:, 1:], w)
    r = log_density(family, eta, X) - y
    return Sc.T @ (w * (r - w @ r))


def fisher_mc(family, X, w):
    """F̂ (m−1, m−1) = Cov_w(s̄(X)), the Monte Carlo (or quadrature) FIM of q̄_η̄. O(N m²)."""
    Sc = _centre(family.statistic(X)[:, 1:], w)
    return (Sc * w[:, None]).T @ Sc


def fisher_meanfield_exact(eta, d: int):
    """Exact F̄ (2d, 2d) of the mean-field family in the order s̄ = (x, x²)."""
    a, b, c = _meanfield_blocks(eta, d)
    return jnp.block([[jnp.diag(a), jnp.diag(b)], [jnp.diag(b), jnp.diag(c)]])


def _meanfield_blocks(eta, d):
    mean, var = meanfield_from_natural(eta, d)
    return var, 2.0 * mean * var, 2.0 * var**2 + 4.0 * mean**2 * var


def solve_meanfield_exact(eta, d: int, g):
    """F̄⁻¹ g in O(d): per coordinate a 2×2 solve, determinant ac − b² = 2σ⁶."""
    a, b, c = _meanfield_blocks(eta, d)
    g1, g2 = g[:d], g[d:]
    det = a * c - b**2
    return jnp.concatenate([(c * g1 - b * g2) / det, (a * g2 - b * g1) / det])


def natural_gradient(family, eta, Z, w, log_target, key, gradient: str = "reparam", fim: str = "mc"):
    """(F̂⁻¹ĝ (m−1,), X (N, d), f(X) (N,)) at η from base normals Z (N, d) with weights w (N,).

    F̂ is symmetric positive definite when N > m − 1 (the draws are a.s. in general
    position); we solve by Cholesky (``assume_a="pos"``), never form F̂⁻¹."""
    _check_family(family)
    if gradient == "reparam":
        g, X, y = reparam_gradient(family, eta, Z, w, log_target, key)
    elif gradient == "score":
        X = family.reparameterise(eta, Z)
        y = log_target(key, X)
        g = score_gradient(family, eta, X, y, w)
    else:
        raise ValueError(f"gradient must be 'reparam' or 'score', not {gradient!r}")
    if fim == "mc":
        direction = solve(fisher_mc(family, X, w), g, assume_a="pos")
    elif fim == "exact" and family.name == "gaussian_meanfield":
        direction = solve_meanfield_exact(eta, family.dim, g)
    else:
        raise ValueError(f"fim must be 'mc' (or 'exact' for the mean-field family), not {fim!r}")
    return direction, X, y


def ngd_update(family, eta, direction, eps):
    """normalise(η − ε (0, F̂⁻¹ĝ)): the NGD step (6) on η̄, η⁽⁰⁾ reset to −log Z(η̄)."""
    return normalise(family, eta - eps * jnp.concatenate([jnp.zeros(1, eta.dtype), direction]))


def regression(family, log_target, num_samples: int, gradient: str = "reparam", fim: str = "mc"):
    """(key, η) -> (X (N, d), f(X) (N,), η' = η − (0, F̂⁻¹ĝ) (m,)): NGD as a regression of
    `lsvi.core.kernel` (one set of N draws serves the gradient, the FIM and Algorithm 4).

    family: `gaussian_fullcov(d)` or `gaussian_meanfield(d)`; ``gradient``, ``fim`` as in
    `natural_gradient`."""
    _check_family(family)
    d = family.dim

    def regress(key, eta):
        kz, kf = jax.random.split(key)
        Z = jax.random.normal(kz, (num_samples, d), dtype=eta.dtype)
        w = jnp.full((num_samples,), 1.0 / num_samples, dtype=eta.dtype)
        direction, X, y = natural_gradient(family, eta, Z, w, log_target, kf, gradient, fim)
        return X, y, eta - jnp.concatenate([jnp.zeros(1, eta.dtype), direction])

    return regress
