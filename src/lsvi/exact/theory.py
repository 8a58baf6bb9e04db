"""Exact (quadrature) objects of Section 2, for the theorem checks (notebooks 10, 11, 14).

Everything here works in low dimension (d ≤ 3) with a Gaussian family and computes
expectations under q̄_η by tensor Gauss–Hermite quadrature (`nodes`),
so that the statements of Section 2 — which assume exact expectations — can be checked
to near machine precision. Notation of the paper: q_η = exp(ηᵀs), Z_η = ∫q_η,
F_η = E_η[ssᵀ], z_η = E_η[fs], f = log π.

Objectives
    `ukl`        uKL(q_η | π) = Z_η E_η[ηᵀs − f] + Z(π) − Z_η                  (eq. 2, 23)
    `kl`         KL(q̄_η̄ ‖ π̄) = E_η[log q̄_η̄ − f] + log Z(π)
    `kl_grid`    the same KL by a fine Gauss–Legendre grid (independent of Gauss–Hermite);
                 `kl_grid_fd_gradient` its central finite-difference gradient in η̄
    `ukl_gradient`  ∇_η uKL = Z_η (F_η η − z_η)                                 (eq. 24, 33)
    `ukl_autodiff_gradient`, `kl_autodiff_gradient`  the same gradients by jax.grad of
                 the quadrature objectives (independent of eq. 33)

Dynamics (Proposition 2.4)
    `lsvi_step`  η_{t+1} = ε φ(η_t) + (1 − ε) η_t, φ = F⁻¹z                      (eq. 3, 5)
    `ngd_step`   η_{t+1} = η_t − ε F_η⁻¹ ∇_η l(η_t) / Z_η                         (eq. 6)
                 with ∇_η l by automatic differentiation of the quadrature uKL (eq. 2),
                 not the formula (33) that the proof of Prop. 2.4 substitutes.
    `ngd_moment_step`  η_{t+1} = η_t − ε ∇_ω l(ω(η_t))                          (eq. 7)
    `md_solver`  ω_{t+1} = argmin_ω {∇_ω l(ω_t)ᵀω + ε⁻¹ D_{Z*}(ω, ω_t)}         (eq. 8)
                 solved by a damped Newton method on the objective of eq. (8) itself
                 (not by the closed-form first-order condition (38)), then η_{t+1} = η(ω_{t+1}).
    `fisher_from_partition`  F_η = ∇²_η Z_η / Z_η (eq. 35), closed form, for cross-checks.

Moment parameters: ω(η) = ∇_η Z_η = Z_η E_η[s] (`moment`, by autodiff of the closed-form
Z_η) and its inverse η(ω) (`natural_from_moment`, closed form for Gaussians).
Z*(ω) = sup_η {ηᵀω − Z_η} = η(ω)ᵀω − ω⁽⁰⁾ (the paper's "argmin" in the definition of Z*
is the usual sup of the Legendre transform), ∇Z*(ω) = η(ω).

Also: the exact relaxed LSVI fixed-point iteration (`fixed_point`), KL minimisation in
(μ, Cholesky) coordinates (`minimise_kl`, for the converse of Prop. 2.2), Algorithms 2–3's
whitened regression with Monte Carlo or quadrature weights (`whitened_map`,
`whitened_map_quadrature`), the raw (unrelaxed) stochastic fixed-point iteration
(`raw_fixed_point_exit`), and a few one/two-dimensional test targets.

Independent reference, on purpose. The Gaussian parameter maps here (`gaussian_parameters`,
`natural_parameters`, `log_Z`, `nodes`) use explicit d ≤ 2 formulas for the Cholesky factor,
inverse and log-determinant (`_chol`, `_inv`, `_logdet`; LAPACK above d = 2) instead of
`lsvi.core.families.gaussian`: the checks of notebooks 10, 11 and 14 then do not share the
parameter maps of the code they check, and `tests/test_theory.py` compares the two.

Functions taking ``(family, ..., log_target, num_nodes)`` are jitted with those arguments
static: pass the *same* family object and log-target function to reuse compilations.
"""
from __future__ import annotations

from functools import lru_cache, partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.linalg import solve_triangular
from jax.scipy.special import log_ndtr
from jax.scipy.stats import norm

from lsvi.core.algorithms import lsvi_fc as alg3
from lsvi.core.algorithms import lsvi_mf as alg2
from lsvi.core.quadrature import fisher_and_z, gauss_hermite
from lsvi.core.families import ExponentialFamily
from lsvi.core.families.gaussian import (
    LOG_2PI,
    fullcov_precision_cholesky,
    meanfield_from_natural,
    quad_coefficients,
    quad_matrix,
)

# ----------------------------------------------------------------------------- small linear algebra
# Explicit formulas for d ≤ 2 (LAPACK calls otherwise): they make the many jax.grad /
# jax.hessian compilations of this module much cheaper on CPU, and they are an
# implementation independent of `lsvi.core.families.gaussian` (the tests compare the two).


def _chol(A):
    """Lower Cholesky factor of a symmetric positive-definite A (d, d); NaN if A is not PD."""
    d = A.shape[0]
    if d == 1:
        return jnp.sqrt(A)
    if d == 2:
        c11 = jnp.sqrt(A[0, 0])
        c21 = A[1, 0] / c11
        c22 = jnp.sqrt(A[1, 1] - c21**2)
        return jnp.array([[c11, 0.0], [c21, c22]], dtype=A.dtype)
    return jnp.linalg.cholesky(A)


def _inv(A):
    """Inverse of a symmetric (d, d) matrix."""
    d = A.shape[0]
    if d == 1:
        return 1.0 / A
    if d == 2:
        det = A[0, 0] * A[1, 1] - A[0, 1] * A[1, 0]
        return jnp.array([[A[1, 1], -A[0, 1]], [-A[1, 0], A[0, 0]]], dtype=A.dtype) / det
    return jnp.linalg.inv(A)


def _logdet(A):
    """log det of a symmetric positive-definite A."""
    return 2.0 * jnp.sum(jnp.log(jnp.diag(_chol(A))))


def _is_meanfield(family: ExponentialFamily) -> bool:
    if family.name == "gaussian_meanfield":
        return True
    if family.name == "gaussian_fullcov":
        return False
    raise ValueError(f"lsvi.exact.theory handles the Gaussian families only, not {family.name!r}")


def gaussian_parameters(family, eta):
    """(μ (d,), Σ (d, d)) of q̄_η for a Gaussian family (η⁽⁰⁾ ignored)."""
    d = family.dim
    if _is_meanfield(family):
        var = -0.5 / eta[d + 1 :]
        return var * eta[1 : d + 1], jnp.diag(var)
    cov = _inv(-2.0 * quad_matrix(eta[d + 1 :], d))
    return cov @ eta[1 : d + 1], cov


def natural_parameters(family, mean, cov, log_mass=0.0):
    """η of the unnormalised Gaussian e^{log_mass} N(mean, cov) (so log Z_η = log_mass)."""
    d = family.dim
    prec = _inv(cov)
    eta1 = prec @ mean
    log_norm = 0.5 * mean @ eta1 + 0.5 * _logdet(cov) + 0.5 * d * LOG_2PI
    if _is_meanfield(family):
        quad = -0.5 * jnp.diag(prec)
    else:
        quad = quad_coefficients(-0.5 * prec)
    return jnp.concatenate([jnp.array([log_mass - log_norm]), eta1, quad])


def log_Z(family, eta):
    """log Z_η = η⁽⁰⁾ + log ∫exp(η̄ᵀs̄) = η⁽⁰⁾ + ½μᵀΣ⁻¹μ + ½ log det(2πΣ) (closed form)."""
    mean, cov = gaussian_parameters(family, eta)
    return eta[0] + 0.5 * mean @ eta[1 : family.dim + 1] + 0.5 * _logdet(cov) + 0.5 * family.dim * LOG_2PI


def log_density(family, eta, X):
    """log q̄_η(X) = ηᵀs(X) − log Z_η, (N,)."""
    return family.dot(eta, X) - log_Z(family, eta)


@partial(jax.jit, static_argnames=("family",))
def is_valid(family, eta):
    """η ∈ V: Σ positive definite (checked through a finite Cholesky factor)."""
    mean, cov = gaussian_parameters(family, eta)
    C = _chol(cov)
    return jnp.all(jnp.isfinite(eta)) & jnp.all(jnp.isfinite(C)) & jnp.all(jnp.diag(C) > 0)


# ----------------------------------------------------------------------------- quadrature


def nodes(family: ExponentialFamily, eta, num_nodes: int = 20):
    """Gauss–Hermite nodes X (K^d, d) and weights w (K^d,) for q̄_η (a Gaussian family).

    Σ_k w_k h(X_k) = E_η[h] exactly for polynomials h of degree ≤ 2K − 1 per coordinate;
    the nodes are a differentiable function of η (X = μ + CZ, CCᵀ = Σ), so autodiff through
    a quadrature expectation is the derivative of that quadrature approximation.
    """
    Z, w = gauss_hermite(family.dim, num_nodes)
    mean, cov = gaussian_parameters(family, eta)
    return mean + Z @ _chol(cov).T, w


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def expectations(family, eta, log_target, num_nodes: int = 20):
    """(F_η, z_η) of eq. (3) by quadrature: F = E_η[ssᵀ] (m, m), z = E_η[fs] (m,)."""
    X, w = nodes(family, eta, num_nodes)
    return fisher_and_z(family, log_target(None, X), X, w)


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def lsvi_map(family, eta, log_target, num_nodes: int = 20):
    """Exact LSVI map φ(η) = F_η⁻¹ z_η (eq. 3), the OLS (4) with exact expectations."""
    F, z = expectations(family, eta, log_target, num_nodes)
    return jnp.linalg.solve(F, z)


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def lsvi_step(family, eta, eps, log_target, num_nodes: int = 20):
    """Exact relaxed LSVI step η ← ε φ(η) + (1 − ε) η (eq. 5)."""
    return eps * lsvi_map(family, eta, log_target, num_nodes) + (1.0 - eps) * eta


# ----------------------------------------------------------------------------- objectives


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def ukl(family, eta, log_target, log_z_target=0.0, num_nodes: int = 20):
    """uKL(q_η | π) = ∫q_η(ηᵀs − f) + Z(π) − Z_η (eq. 2 / 23), by quadrature.

    ``log_z_target`` = log Z(π); it only shifts the value (not the gradient).
    """
    X, w = nodes(family, eta, num_nodes)
    Z = jnp.exp(log_Z(family, eta))
    return Z * jnp.sum(w * (family.dot(eta, X) - log_target(None, X))) + jnp.exp(log_z_target) - Z


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def kl(family, eta, log_target, log_z_target=0.0, num_nodes: int = 20):
    """KL(q̄_η̄ ‖ π̄) = E_η[log q̄_η̄ − f] + log Z(π), by quadrature. Independent of η⁽⁰⁾."""
    X, w = nodes(family, eta, num_nodes)
    return jnp.sum(w * (log_density(family, eta, X) - log_target(None, X))) + log_z_target


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def ukl_gradient(family, eta, log_target, num_nodes: int = 20):
    """∇_η uKL(q_η | π) = Z_η (F_η η − z_η) (eq. 24 divided out as in eq. 33)."""
    F, z = expectations(family, eta, log_target, num_nodes)
    return jnp.exp(log_Z(family, eta)) * (F @ eta - z)


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def ukl_autodiff_gradient(family, eta, log_target, num_nodes: int = 20):
    """∇_η uKL(q_η | π) (m,) by `jax.grad` of the quadrature `ukl` (eq. 2 differentiated, the
    nodes moving with η): no F_η, z_η or eq. (33) involved, so it is an independent check of
    `ukl_gradient`. Z(π) only shifts uKL, hence does not enter."""
    return jax.grad(lambda e: ukl(family, e, log_target, 0.0, num_nodes))(eta)


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def kl_autodiff_gradient(family, eta, log_target, num_nodes: int = 20):
    """∇_η̄ KL(q̄_η̄ ‖ π̄) (m − 1,) by `jax.grad` of the quadrature `kl` (the η⁽⁰⁾ component,
    identically zero, is dropped)."""
    return jax.grad(lambda e: kl(family, e, log_target, 0.0, num_nodes))(eta)[1:]


def legendre_nodes(lower, upper, num_nodes: int):
    """Tensor Gauss–Legendre nodes (K^d, d) and weights (K^d,) on the box Π[lower_i, upper_i] (cached)."""
    lower = tuple(float(v) for v in np.atleast_1d(lower))
    upper = tuple(float(v) for v in np.atleast_1d(upper))
    return _legendre_nodes(lower, upper, int(num_nodes))


@lru_cache(maxsize=16)
def _legendre_nodes(lower, upper, num_nodes):
    x, w = np.polynomial.legendre.leggauss(num_nodes)
    axes = [(0.5 * (b - a) * x + 0.5 * (b + a), 0.5 * (b - a) * w) for a, b in zip(lower, upper)]
    X = np.stack([g.ravel() for g in np.meshgrid(*[a[0] for a in axes], indexing="ij")], axis=1)
    W = np.prod(np.stack([g.ravel() for g in np.meshgrid(*[a[1] for a in axes], indexing="ij")], axis=1), axis=1)
    return jnp.asarray(X), jnp.asarray(W)


def log_normaliser_grid(log_target, lower, upper, num_nodes: int = 400):
    """log Z(π) = log ∫_box π by tensor Gauss–Legendre (d = 1, 2): an independent reference."""
    X, W = legendre_nodes(lower, upper, num_nodes)
    return _logsumexp_grid(log_target, X, W)


@partial(jax.jit, static_argnames=("log_target",))
def _logsumexp_grid(log_target, X, W):
    return jax.scipy.special.logsumexp(log_target(None, X) + jnp.log(W))


def kl_grid(family, eta, log_target, lower, upper, num_nodes: int = 400, log_z_target=None):
    """KL(q̄_η̄ ‖ π̄) = ∫ q̄ log(q̄ / π̄) on a Gauss–Legendre grid (no Gauss–Hermite involved).

    log Z(π) is computed on the same grid unless given.
    """
    X, W = legendre_nodes(lower, upper, num_nodes)
    return _kl_grid(family, eta, log_target, X, W, log_z_target)


def kl_grid_fd_gradient(family, eta, log_target, lower, upper, num_nodes: int = 400, step: float = 1e-5,
                        log_z_target=None):
    """∇_η̄ KL(q̄_η̄ ‖ π̄) (m − 1,) by central finite differences of `kl_grid` (step ``step`` along
    each coordinate of η̄): a reference for the KL gradient that shares no code with the
    Gauss–Hermite quadrature or the LSVI map. Error O(step²) + O(rounding / step)."""
    eta = jnp.asarray(eta)
    basis = np.eye(eta.shape[0])[1:] * step
    kl_at = lambda e: float(kl_grid(family, e, log_target, lower, upper, num_nodes, log_z_target))
    return np.array([(kl_at(eta + b) - kl_at(eta - b)) / (2.0 * step) for b in basis])


@partial(jax.jit, static_argnames=("family", "log_target"))
def _kl_grid(family, eta, log_target, X, W, log_z_target):
    f = log_target(None, X)
    if log_z_target is None:
        log_z_target = jax.scipy.special.logsumexp(f + jnp.log(W))
    lq = log_density(family, eta, X)
    return jnp.sum(W * jnp.exp(lq) * (lq - f + log_z_target))


# ----------------------------------------------------------------------------- NGD (eq. 6, 7)


@partial(jax.jit, static_argnames=("family",))
def fisher_from_partition(family, eta):
    """F_η = ∇²_η Z_η / Z_η (eq. 35), by autodiff of the closed-form Z_η (no quadrature)."""
    Zfun = lambda e: jnp.exp(log_Z(family, e))
    return jax.hessian(Zfun)(eta) / Zfun(eta)


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def ngd_step(family, eta, eps, log_target, num_nodes: int = 20):
    """Natural-gradient step η − ε F_η⁻¹ ∇_η l(η) / Z_η (eq. 6), l = uKL.

    ∇_η l is `jax.grad` of the quadrature `ukl` (eq. 2 differentiated, not the formula
    (33) that the proof of Prop. 2.4 substitutes); F_η = E_η[ssᵀ] by quadrature.
    """
    g = jax.grad(lambda e: ukl(family, e, log_target, 0.0, num_nodes))(eta)
    F, _ = expectations(family, eta, log_target, num_nodes)
    return eta - eps * jnp.linalg.solve(F, g) / jnp.exp(log_Z(family, eta))


# ----------------------------------------------------------------------------- moment space, MD (eq. 7, 8)


@partial(jax.jit, static_argnames=("family",))
def moment(family, eta):
    """ω(η) = ∇_η Z_η = ∫ s q_η = Z_η E_η[s] (Section 2.2), by autodiff of the closed-form Z_η."""
    return jax.grad(lambda e: jnp.exp(log_Z(family, e)))(eta)


def natural_from_moment(family, omega):
    """η(ω), the inverse of `moment` (closed form for the Gaussian families).

    ω = Z·(1, E[x], E[s̄_quad(x)]): Z = ω⁽⁰⁾, μ = ω⁽¹⁾/Z, second moments → Σ = E[xxᵀ] − μμᵀ,
    then the natural parameter of Z·N(μ, Σ).
    """
    d = family.dim
    Zq = omega[0]
    mean = omega[1 : d + 1] / Zq
    if _is_meanfield(family):
        cov = jnp.diag(omega[d + 1 :] / Zq - mean**2)
    else:
        iu = jnp.triu_indices(d)
        upper = jnp.zeros((d, d), omega.dtype).at[iu].set(omega[d + 1 :] / Zq)
        cov = upper + jnp.triu(upper, 1).T - jnp.outer(mean, mean)
    return natural_parameters(family, mean, cov, jnp.log(Zq))


def conjugate_partition(family, omega):
    """Z*(ω) = sup_η {ηᵀω − Z_η} = η(ω)ᵀω − ω⁽⁰⁾ (Z_{η(ω)} = ω⁽⁰⁾ since s⁽⁰⁾ = 1)."""
    return natural_from_moment(family, omega) @ omega - omega[0]


def bregman_conjugate(family, omega, omega_ref):
    """D_{Z*}(ω, ω') = Z*(ω) − Z*(ω') − ∇Z*(ω')ᵀ(ω − ω'), with ∇Z*(ω') = η(ω')."""
    return (
        conjugate_partition(family, omega)
        - conjugate_partition(family, omega_ref)
        - natural_from_moment(family, omega_ref) @ (omega - omega_ref)
    )


def ukl_moment(family, omega, log_target, log_z_target=0.0, num_nodes: int = 20):
    """l(ω) = uKL(q_{η(ω)} | π), the objective in moment parameters."""
    return ukl(family, natural_from_moment(family, omega), log_target, log_z_target, num_nodes)


@partial(jax.jit, static_argnames=("family", "log_target", "num_nodes"))
def ukl_moment_gradient(family, omega, log_target, num_nodes: int = 20):
    """∇_ω l(ω) by autodiff through η(ω) and the quadrature uKL."""
    return jax.grad(lambda w: ukl_moment(family, w, log_target, 0.0, num_nodes))(omega)


def ngd_moment_step(family, eta, eps, log_target, num_nodes: int = 20):
    """η_{t+1} = η_t − ε ∇_ω l(ω(η_t)) (eq. 7)."""
    return eta - eps * ukl_moment_gradient(family, moment(family, eta), log_target, num_nodes)


def md_objective(family, omega, omega_t, grad_t, eps):
    """The mirror-descent objective of eq. (8): ∇_ω l(ω_t)ᵀω + ε⁻¹ D_{Z*}(ω, ω_t)."""
    return grad_t @ omega + bregman_conjugate(family, omega, omega_t) / eps


class MDInfo(NamedTuple):
    """Newton solve of eq. (8): iterations, final ‖∇ objective‖, backtracking halvings."""

    iterations: int
    grad_norm: float
    halvings: int


def md_solver(family, log_target, num_nodes: int = 20, max_iter: int = 100, tol: float = 1e-14):
    """Returns ``step(eta, eps) -> (η_{t+1}, MDInfo)``: one mirror-descent step (eq. 8).

    The argmin of eq. (8) over ω ∈ W is found by a damped Newton method on the objective
    of eq. (8) itself (autodiff gradient and Hessian of `md_objective`), started at ω_t =
    ω(η_t), the step halved until ω stays in W (ω⁽⁰⁾ > 0, Σ ≻ 0) and the objective does
    not increase; it stops when the Newton step is below ``tol`` relative to ‖ω‖.
    The first-order condition (38) is *not* used. Returns η_{t+1} = η(ω_{t+1}).
    """
    obj = lambda w, wt, g, e: md_objective(family, w, wt, g, e)

    def setup(eta):  # the jitted `moment` and `ukl_moment_gradient` are shared with eq. (7)
        wt = moment(family, eta)
        return wt, ukl_moment_gradient(family, wt, log_target, num_nodes)

    @jax.jit
    def newton_direction(w, wt, g, e):
        # ∇²(objective) = ε⁻¹ ∇²Z*(ω) = ε⁻¹ ∂η(ω)/∂ω (Legendre duality): a forward-mode
        # Jacobian of η(ω), cheaper to compile than jax.hessian. It only steers Newton;
        # the solution is where the autodiff gradient of eq. (8) vanishes.
        H = jax.jacfwd(lambda u: natural_from_moment(family, u))(w) / e
        grad = jax.grad(obj)(w, wt, g, e)
        return -jnp.linalg.solve(0.5 * (H + H.T), grad), jnp.linalg.norm(grad)

    @jax.jit
    def trial(w, wt, g, e):
        return (w[0] > 0) & is_valid(family, natural_from_moment(family, w)), obj(w, wt, g, e)

    to_eta = jax.jit(lambda w: natural_from_moment(family, w))

    def step(eta, eps):
        wt, g = setup(eta)
        w, halvings, it = wt, 0, 0
        jw = float(trial(w, wt, g, eps)[1])
        for it in range(1, max_iter + 1):
            delta, _ = newton_direction(w, wt, g, eps)
            t = 1.0
            while True:
                cand = w + t * delta
                ok, jc = trial(cand, wt, g, eps)
                if bool(ok) and np.isfinite(float(jc)) and float(jc) <= jw + 1e-12 * (1.0 + abs(jw)):
                    break
                t, halvings = t / 2.0, halvings + 1
                if t < 1e-12:
                    cand, jc = w, jw
                    break
            w, jw = cand, float(jc)
            if float(jnp.linalg.norm(t * delta)) <= tol * (1.0 + float(jnp.linalg.norm(w))):
                break
        _, gn = newton_direction(w, wt, g, eps)
        return to_eta(w), MDInfo(it, float(gn), halvings)

    return step


# ----------------------------------------------------------------------------- fixed point, KL minimiser


class FixedPoint(NamedTuple):
    """eta: the fixed point; iterations; residual ‖φ(η) − η‖_∞ at eta; history of residuals."""

    eta: jax.Array
    iterations: int
    residual: float
    history: np.ndarray


def fixed_point(family, eta0, log_target, num_nodes: int = 20, eps: float = 1.0, tol: float = 1e-13, max_iter: int = 1000):
    """Iterate the exact relaxed LSVI map (eq. 5) until ‖φ(η) − η‖_∞ ≤ tol (1 + ‖η‖_∞).

    ε is halved (for that step only) while the relaxed iterate leaves V, as in Algorithm 4.
    """
    phi = jax.jit(lambda e: lsvi_map(family, e, log_target, num_nodes))
    valid = jax.jit(lambda e: is_valid(family, e))
    eta, hist = jnp.asarray(eta0), []
    for it in range(max_iter + 1):
        p = phi(eta)
        r = float(jnp.max(jnp.abs(p - eta)))
        hist.append(r)
        if r <= tol * (1.0 + float(jnp.max(jnp.abs(eta)))):
            break
        e = eps
        while not bool(valid(e * p + (1.0 - e) * eta)):
            e /= 2.0
        eta = e * p + (1.0 - e) * eta
    return FixedPoint(eta, it, r, np.array(hist))


def minimise_kl(family, log_target, mean0, cov0, num_nodes: int = 20, gtol: float = 1e-12):
    """Minimise KL(q̄ ‖ π̄) over N(μ, Σ) directly (full-covariance `family` on R^d).

    Parameterised by θ = (μ, C) with Σ = CCᵀ, C lower-triangular with log-diagonal, so the
    optimiser never leaves V; KL − log Z(π) = −entropy − E[f(μ + CZ)] by Gauss–Hermite
    quadrature; scipy's trust-region Newton ("trust-exact") with autodiff gradient and
    Hessian. This path shares nothing with the LSVI map φ (no F, no z, no natural
    parameters during the optimisation). Returns a `KLMinimiser`.
    """
    from scipy.optimize import minimize

    d = family.dim
    Z, w = gauss_hermite(d, num_nodes)
    il = np.tril_indices(d)
    diag = np.array([i == j for i, j in zip(*il)])

    def unpack(theta):
        c = theta[d:]
        c = jnp.where(diag, jnp.exp(c), c)
        return theta[:d], jnp.zeros((d, d), theta.dtype).at[il].set(c)

    def objective(theta):
        mean, C = unpack(theta)
        entropy = 0.5 * d * (1.0 + LOG_2PI) + jnp.sum(theta[d:][diag])
        return -entropy - jnp.sum(w * log_target(None, mean + Z @ C.T))

    C0 = np.linalg.cholesky(np.asarray(cov0, float))
    c0 = C0[il]
    c0[diag] = np.log(c0[diag])
    theta0 = np.concatenate([np.asarray(mean0, float), c0])
    fun = jax.jit(objective)
    jac = jax.jit(jax.grad(objective))
    hess = jax.jit(jax.hessian(objective))
    res = minimize(
        lambda t: float(fun(t)), theta0, jac=lambda t: np.asarray(jac(t)), hess=lambda t: np.asarray(hess(t)),
        method="trust-exact", options={"gtol": gtol, "maxiter": 500},
    )
    # trust-exact stops at ‖∇‖ ~ 1e-8 when rounding hides the predicted decrease: polish
    # with plain Newton steps while the gradient norm keeps decreasing.
    theta, gn = jnp.asarray(res.x), float(jnp.linalg.norm(jac(res.x)))
    for _ in range(20):
        cand = theta - jnp.linalg.solve(hess(theta), jac(theta))
        gc = float(jnp.linalg.norm(jac(cand)))
        if not gc < gn:
            break
        theta, gn = cand, gc
    mean, C = unpack(theta)
    return KLMinimiser(natural_parameters(family, mean, C @ C.T), gn, int(res.nit), res.message)


class KLMinimiser(NamedTuple):
    """eta: normalised natural parameter of the minimiser; grad_norm: ‖∇_θ KL‖ at the end
    (θ = (μ, log-Cholesky)); iterations of the trust-region solver; its message."""

    eta: jax.Array
    grad_norm: float
    iterations: int
    message: str


# ----------------------------------------------------------------------------- Algorithms 2–3 with quadrature


def whitened_map(family, eta, log_target, Z, w):
    """φ(η) as Algorithms 2–3 compute it: the whitened regression γ = Σ_i w_i t(Z_i) f(μ + CZ_i)
    (eq. 17 / 42, E[t tᵀ] = I so no matrix is inverted) mapped to η by eq. (18) / (43).

    Z (N, d), w (N,): standard-normal draws with w = 1/N give the Monte Carlo estimator γ̂ of
    eq. (20) (as in `lsvi.core.algorithms.lsvi_mf` / `lsvi.core.algorithms.lsvi_fc`); Gauss–Hermite nodes
    and weights give the exact γ (`whitened_map_quadrature`).
    """
    d = family.dim
    y = log_target(None, family.reparameterise(eta, Z))
    if _is_meanfield(family):
        gamma = alg2.whitened_statistic(Z).T @ (w * y)
        return alg2.gamma_to_eta(gamma[0], gamma[1 : d + 1], gamma[d + 1 :], *meanfield_from_natural(eta, d))
    gamma = alg3.whitened_statistic(Z).T @ (w * y)
    return alg3.gamma_to_eta(gamma[0], gamma[1 : d + 1], alg3.gamma_matrix(gamma[d + 1 :], d),
                             *fullcov_precision_cholesky(eta, d))


def whitened_map_quadrature(family, eta, log_target, num_nodes: int = 5):
    """`whitened_map` with γ by Gauss–Hermite quadrature instead of the average γ̂ of eq. (20)."""
    Z, w = gauss_hermite(family.dim, num_nodes)
    return whitened_map(family, eta, log_target, Z, w)


def raw_fixed_point_exit(key, family, regression, eta0, num_steps: int):
    """The unrelaxed stochastic fixed-point iteration η ← η̂' (OLS, ε = 1, no backtracking).

    ``regression(key, η) -> (X, f(X), η̂')`` as in `lsvi.core.algorithms.lsvi_generic.regression`. Returns the
    first t ≥ 1 at which η_t ∉ V, or ``num_steps + 1`` if the iterates stay in V for
    ``num_steps`` steps (the iteration stops at the first exit: q_η cannot be sampled there).
    """

    def body(carry, k):
        eta, exit_t, t = carry
        _, _, eta_new = regression(k, eta)
        alive = exit_t > num_steps
        ok = family.is_valid(eta_new)
        exit_t = jnp.where(alive & ~ok, t, exit_t)
        eta = jnp.where(alive & ok, eta_new, eta)
        return (eta, exit_t, t + 1), None

    (_, exit_t, _), _ = jax.lax.scan(body, (eta0, num_steps + 1, 1), jax.random.split(key, num_steps))
    return exit_t


# ----------------------------------------------------------------------------- test targets
# Log targets follow the package convention log_target(key, X (N, d)) -> (N,); the key is unused.


def skew_normal_log_target(alpha: float, loc: float = 0.0, scale: float = 1.0, log_mass: float = 0.0):
    """1-D skew-normal π(x) = e^{log_mass} (2/ω) φ((x−ξ)/ω) Φ(α(x−ξ)/ω): Z(π) = e^{log_mass}.

    log π is concave (log Φ is), so the Gaussian LSVI map stays in V (Theorem 4.1).
    """

    def log_target(key, X):
        u = (X[:, 0] - loc) / scale
        return log_mass + jnp.log(2.0 / scale) + norm.logpdf(u) + log_ndtr(alpha * u)

    return log_target


def skew_normal_moments(alpha: float, loc: float = 0.0, scale: float = 1.0):
    """Mean and variance of the skew-normal law."""
    delta = alpha / np.sqrt(1.0 + alpha**2)
    mean = loc + scale * delta * np.sqrt(2.0 / np.pi)
    var = scale**2 * (1.0 - 2.0 * delta**2 / np.pi)
    return mean, var


def polynomial_log_target(coefficients):
    """1-D log π(x) = Σ_k c_k x^k (c_0 first; even degree with negative leading coefficient).

    With a polynomial log target, Gauss–Hermite quadrature with K > (deg + 2)/2 nodes
    computes F_η, z_η, uKL and their η-derivatives exactly (up to rounding).
    """
    c = jnp.asarray(coefficients, dtype=jnp.float64)

    def log_target(key, X):
        return jnp.polyval(c[::-1], X[:, 0])

    return log_target


def banana_log_target(a: float = 1.0, b: float = 0.5, log_mass: float = 0.0):
    """2-D banana: x₁ ~ N(0, a²), x₂ | x₁ ~ N(b(x₁² − a²), 1); Z(π) = e^{log_mass}.

    log π is a degree-4 polynomial, so Gauss–Hermite with K ≥ 4 nodes per axis computes
    every expectation of Section 2 exactly (up to rounding). Not log-concave.
    """

    def log_target(key, X):
        x1, x2 = X[:, 0], X[:, 1]
        return log_mass + norm.logpdf(x1, 0.0, a) + norm.logpdf(x2 - b * (x1**2 - a**2))

    return log_target


def student_t_log_target(df: float, scale: float = 1.0):
    """Unnormalised 1-D Student-t: −(ν+1)/2 log(1 + x²/(νσ²)). Heavy tails: log π is convex for |x| > σ√ν."""

    def log_target(key, X):
        return -0.5 * (df + 1.0) * jnp.log1p(X[:, 0] ** 2 / (df * scale**2))

    return log_target


def mixture_log_target(means, sds, weights):
    """1-D Gaussian mixture Σ_j w_j N(μ_j, σ_j²) (normalised; bimodal for separated means)."""
    means, sds, logw = jnp.asarray(means), jnp.asarray(sds), jnp.log(jnp.asarray(weights))

    def log_target(key, X):
        return jax.scipy.special.logsumexp(norm.logpdf(X[:, :1], means, sds) + logw, axis=1)

    return log_target


def random_fullcov_natural(key, d: int, mean_scale: float = 2.0, jitter: float = 0.3):
    """η (normalised) of a random Gaussian N(μ, Σ) on R^d: μ = mean_scale · N(0, I_d),
    Σ = BBᵀ + jitter·I with B (d, d) standard normal — random starting points for the
    exactness checks (Section 2.1). Uses `lsvi.core.families.gaussian.fullcov_to_natural`."""
    from lsvi.core.families.gaussian import fullcov_to_natural

    k1, k2 = jax.random.split(key)
    B = jax.random.normal(k1, (d, d))
    return fullcov_to_natural(mean_scale * jax.random.normal(k2, (d,)), B @ B.T + jitter * jnp.eye(d))
