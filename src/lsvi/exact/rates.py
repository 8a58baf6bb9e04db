"""Helpers for the theory checks: Theorem 3.4 and Remark 3.7 (notebook 12), Theorems 4.1 / D.2 and the
cost statements of Section 4 (notebook 13).

Everything is exact (tensor Gauss–Hermite quadrature, `lsvi.core.quadrature`) or a small statistic;
the notebooks only orchestrate. Gaussian families only (full covariance with the minimal
statistic of `lsvi.core.families.gaussian`, or mean field), d ≤ 3 for the quadrature helpers.

Notation (Sections 2–3 of the paper). q_η = exp(ηᵀs) is unnormalised, Z_η = ∫q_η,
f = log π, and the objective is the unnormalised KL divergence (eq. 2)

    l(η) = uKL(q_η | π) = ∫ q_η (ηᵀs − f) + Z(π) − Z_η = Z_η (E_η[ηᵀs − f] − 1) + Z(π).

The moment parameter is ω(η) = ∇Z(η) = Z_η E_η[s] (Section 2.2). The exact LSVI map is
φ(η) = F_η⁻¹ z_η (eq. 3) and, by eqs. (5)–(7), ∇_ω l(ω) = η(ω) − φ(η(ω)).

Relative curvature. Differentiating ∇_ω l = η − φ(η) in ω gives ∇²_ω l = (I − J)∇²Z*(ω)
with J = Dφ(η) and ∇²Z* = ∂η/∂ω = (Z_η F_η)⁻¹. Hence the generalised eigenvalues of
∇²_ω l relative to the Bregman Hessian ∇²Z* (the local constants of relative smoothness L
and relative strong convexity μ of Assumption 2.5) are the eigenvalues of I − J
(`relative_curvature`). Near a fixed point the exact iteration (5) with constant ε
contracts the slowest mode by 1 − εμ per step, so l(η_t) − l* ∝ (1 − εμ)^{2t}
(`contraction_mu`).
"""
from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from scipy import stats

# All imports at module level: a library module first imported inside a jax trace would
# compute its module-level jnp constants (e.g. SQRT2) as leaked tracers.
from lsvi.core import algorithms, kernel
from lsvi.core import quadrature as exact
from lsvi.core.algorithms import lsvi_fc as fc
from lsvi.core.algorithms import lsvi_mf as mf
from lsvi.core.families import gaussian_fullcov as fc_family
from lsvi.core.families import gaussian_meanfield as mf_family
from lsvi.core.families.gaussian import (
    fullcov_from_natural,
    fullcov_precision_cholesky,
    fullcov_to_natural,
    meanfield_from_natural,
    meanfield_to_natural,
    num_params_fullcov,
)
from lsvi.core.algorithms.lsvi_fc import gamma_matrix, gamma_to_eta as fc_gamma_to_eta, whitened_statistic as fc_t
from lsvi.core.algorithms import lsvi_generic
from lsvi.exact.statistics import SlopeFit, bootstrap_loglog_slope, loglog_fit  # noqa: F401  (re-exported)
from lsvi.core import clock

_KEY = jax.random.PRNGKey(0)


# ------------------------------------------------------------------ targets
def as_f(log_target: Callable) -> Callable:
    """Deterministic f: X (N, d) -> (N,) from a ``log_target(key, X)`` (key ignored)."""
    return lambda X: log_target(_KEY, X)


def loggamma_target(kappa: float = 1.0) -> Callable:
    """log_target(key, X) = κx − eˣ, X (N, 1): the log-density of log G, G ~ Gamma(κ, 1).

    Z(π) = Γ(κ); κ = 1 is the standard Gumbel (minimum) distribution. Skewed, hence
    outside the Gaussian family, with a closed-form Gaussian VI optimum (`loggamma_optimum`).
    """

    def log_target(key, X):
        return kappa * X[:, 0] - jnp.exp(X[:, 0])

    return log_target


def sin_target(a: float = 1.0, b: float = 2.0) -> Callable:
    """log_target(key, X) = −x²/2 + a sin(bx), X (N, 1): a Gaussian perturbed by a bounded
    oscillation (skewed, bimodal for a = 1, b = 2), outside the Gaussian family."""

    def log_target(key, X):
        return -0.5 * X[:, 0] ** 2 + a * jnp.sin(b * X[:, 0])

    return log_target


def sin_target_mean(a: float, b: float, mean, var):
    """Closed form of E[f(X)], X ~ N(mean, var), for `sin_target`: E[sin bX] = e^{−b²v/2} sin(bm)."""
    return -0.5 * (mean**2 + var) + a * jnp.exp(-0.5 * b**2 * var) * jnp.sin(b * mean)


def log_normaliser_1d(f: Callable, lower: float = -40.0, upper: float = 40.0, num: int = 16001) -> float:
    """log Z(π) = log ∫exp f for a 1-D f: X (N, 1) -> (N,).

    Trapezoidal rule on a uniform grid, which converges geometrically for an analytic integrand
    that decays at both ends (here to machine precision); one vectorised call of f.
    """
    x = np.linspace(lower, upper, num)
    y = np.asarray(f(jnp.asarray(x)[:, None]))
    top = y.max()
    h = x[1] - x[0]
    return float(top + math.log(h * (np.sum(np.exp(y - top)) - 0.5 * (np.exp(y[0] - top) + np.exp(y[-1] - top)))))


def quadratic_sin_target(P, v, c: float = 0.0):
    """(f_single, log_target) for f(x) = −xᵀPx/2 + sin(vᵀx + c): an entire function, so
    Gauss–Hermite expectations of f, ∇f, ∇²f converge to rounding with few nodes. −E[∇²f] =
    P + E[sin(·)]vvᵀ ≻ 0 when P ≻ ‖v‖²I (the condition of Theorem 4.1's Stein form)."""
    P, v = jnp.asarray(P), jnp.asarray(v)

    def f_single(x):
        return -0.5 * x @ P @ x + jnp.sin(v @ x + c)

    return f_single, lambda key, X: jax.vmap(f_single)(X)


class LogGammaOptimum(NamedTuple):
    mean: float
    var: float
    kl: float  # KL(q̄* | π̄)
    log_z_target: float  # log Z(π) = log Γ(κ)
    ukl: float  # l* = uKL(q_{η*} | π) = Z(π)(1 − e^{−KL*})


def loggamma_optimum(kappa: float = 1.0) -> LogGammaOptimum:
    """Closed-form fixed point of LSVI (Gaussian family) for the log-Gamma target.

    The Stein form (eq. 19) of the fixed point, E[∇f] = 0 and Σ⁻¹ = −E[∇²f], reads
    κ = E[eˣ] = e^{m + v/2} = 1/v: v* = 1/κ, m* = log κ − 1/(2κ). At a fixed point
    (Prop. 2.3) Z_{η*} = Z(π)e^{−KL*}, so l* = uKL(q_{η*}|π) = Z(π)(1 − e^{−KL*}).
    """
    v = 1.0 / kappa
    m = math.log(kappa) - 0.5 / kappa
    log_z = math.lgamma(kappa)
    # KL = E[log q̄] − E[f] + log Z(π), E[f] = κm − e^{m+v/2} = κm − κ
    kl = -0.5 * math.log(2.0 * math.pi * math.e * v) - (kappa * m - kappa) + log_z
    return LogGammaOptimum(m, v, kl, log_z, math.exp(log_z) * (1.0 - math.exp(-kl)))


# ------------------------------------------------------------------ exact (quadrature) objective
@functools.lru_cache(maxsize=None)
def _jit(fn, *static):
    """jax.jit of ``args -> fn(*static, *args)``, cached on the (hashable) static arguments
    (families, functions, integers): one compilation per static combination and array shape,
    instead of slow op-by-op dispatch when the helpers are called eagerly."""
    return jax.jit(lambda *args: fn(*static, *args))


def _meanfield(family) -> bool:
    return family.name == "gaussian_meanfield"


def nodes(family, eta, num_nodes: int = 40):
    """Gauss–Hermite nodes X (K^d, d) and weights w of the normalised q̄_η."""
    return exact.gaussian_nodes(eta, family.dim, _meanfield(family), num_nodes)


def log_mass(family, eta):
    """log Z_η = η⁽⁰⁾ + log ∫exp(η̄ᵀs̄)."""
    return eta[0] + family.log_partition(eta)


def _objective(family, f, num_nodes, eta):
    X, w = nodes(family, eta, num_nodes)
    return jnp.exp(log_mass(family, eta)) * (w @ (family.dot(eta, X) - f(X)) - 1.0)


def objective(family, f: Callable, eta, num_nodes: int = 40, log_z_target: float | None = None):
    """l(η) = uKL(q_η | π) (eq. 2) by quadrature: Z_η(E_η[ηᵀs − f] − 1) + Z(π).

    ``log_z_target=None`` drops the constant Z(π) (differences l(η) − l* are unaffected).
    """
    val = _jit(_objective, family, f, num_nodes)(eta)
    return val if log_z_target is None else val + jnp.exp(log_z_target)


@functools.lru_cache(maxsize=None)
def _batched_objective(family, f, num_nodes):
    return jax.jit(jax.vmap(lambda e: _objective(family, f, num_nodes, e)))


def excess(family, f: Callable, etas, l_star, num_nodes: int = 40):
    """l(η) − l* for a batch of natural parameters etas (..., m) (one compilation per shape)."""
    etas = jnp.asarray(etas)
    vals = _batched_objective(family, f, num_nodes)(etas.reshape(-1, etas.shape[-1]))
    return np.asarray(vals).reshape(etas.shape[:-1]) - float(l_star)


def _kl(family, f, num_nodes, eta):
    X, w = nodes(family, eta, num_nodes)
    return w @ (family.dot(eta, X) - log_mass(family, eta) - f(X))


def kl(family, f: Callable, eta, log_z_target: float, num_nodes: int = 40):
    """KL(q̄_η | π̄) = E_η[log q̄_η − f] + log Z(π) (eq. 1) by quadrature."""
    return _jit(_kl, family, f, num_nodes)(eta) + log_z_target


def _ukl_between(family, num_nodes, eta_a, eta_b):
    X, w = nodes(family, eta_a, num_nodes)
    za, zb = jnp.exp(log_mass(family, eta_a)), jnp.exp(log_mass(family, eta_b))
    return za * (w @ family.dot(eta_a - eta_b, X)) + zb - za


def ukl_between(family, eta_a, eta_b, num_nodes: int = 8):
    """uKL(q_a | q_b) = Z_a E_a[(η_a − η_b)ᵀs] + Z_b − Z_a = D_{Z*}(ω_a, ω_b) (exact: degree 2)."""
    return _jit(_ukl_between, family, num_nodes)(eta_a, eta_b)


def _exact_map(family, f, num_nodes, eta):
    X, w = nodes(family, eta, num_nodes)
    return exact.lsvi_map(family, f(X), X, w)


def exact_map(family, f: Callable, eta, num_nodes: int = 40):
    """φ(η) = F_η⁻¹ z_η (eq. 3) by quadrature (`lsvi.core.quadrature.lsvi_map`)."""
    return _jit(_exact_map, family, f, num_nodes)(eta)


def exact_iterations(family, f: Callable, eta0, eps, num_nodes: int = 40):
    """Exact LSVI iteration (5), η_{t+1} = ε_t φ(η_t) + (1 − ε_t)η_t, for the steps ε (K,)
    or for several schedules at once, ε (S, K) (one compilation).

    Returns the trace (K + 1, m), or (S, K + 1, m), starting with η_0.
    """

    def one(eps):
        def body(eta, e):
            new = e * exact_map(family, f, eta, num_nodes) + (1.0 - e) * eta
            return new, new

        _, trace = jax.lax.scan(body, eta0, eps)
        return jnp.concatenate([eta0[None], trace])

    eta0 = jnp.asarray(eta0)
    eps = jnp.asarray(eps, dtype=jnp.float64)
    return jax.jit(one if eps.ndim == 1 else jax.vmap(one))(eps)


def run_schedules(key, family, regression, eta0, eps, num_reps: int):
    """Stochastic LSVI (10) for several step-size schedules in one compiled call.

    The kernel of `lsvi.core.kernel` (Algorithm 4's backtracking into V with u² = ∞,
    rejection of an invalid step) run over each row of ``eps`` (S, K), so that all schedules
    (and ``num_reps`` repetitions each) share one XLA compilation. ``regression``:
    (key, η) -> (X, f(X), η') of `lsvi.core.algorithms` (e.g. ``lsvi_generic.regression``
    for Algorithm 1, ``lsvi_fc.regression`` for Algorithm 3). Repetition r uses the keys of
    `lsvi.core.kernel.run` from ``jax.random.split(key, num_reps)[r]``, the same for every row
    (common random numbers across schedules).

    Returns η traces (S, num_reps, K + 1, m), starting with η_0.
    """
    kern = kernel.build_kernel(family, regression)
    state = kernel.init(jnp.asarray(eta0))
    eps = jnp.asarray(eps, dtype=jnp.float64)
    rep_keys = jax.random.split(key, num_reps)

    def one(eps_row, rep_key):
        return kernel.run(rep_key, kern, state, eps_row)[1]

    go = jax.jit(jax.vmap(lambda row: jax.vmap(lambda k: one(row, k))(rep_keys)))
    return go(eps)


def fixed_point(family, f: Callable, eta0, eps: float = 0.5, num_iter: int = 500, num_nodes: int = 40):
    """Exact LSVI fixed point η* = φ(η*) by the relaxed iteration (5) with constant ε.

    Returns (η*, ‖φ(η*) − η*‖_∞).
    """
    eta = exact_iterations(family, f, eta0, jnp.full((num_iter,), eps), num_nodes)[-1]
    return eta, jnp.max(jnp.abs(exact_map(family, f, eta, num_nodes) - eta))


def _map_jacobian(family, f, num_nodes, eta):
    return jax.jacfwd(lambda e: exact_map(family, f, e, num_nodes))(eta)


def map_jacobian(family, f: Callable, eta, num_nodes: int = 40):
    """J = Dφ(η) (m, m), forward-mode autodiff through the quadrature map."""
    return _jit(_map_jacobian, family, f, num_nodes)(eta)


def _hessian_at_fixed_point(family, num_nodes, eta, J):
    X, w = nodes(family, eta, num_nodes)
    F, S = exact.fisher(family, X, w)
    return jnp.exp(log_mass(family, eta)) * F @ (jnp.eye(J.shape[0]) - J)


def hessian_at_fixed_point(family, eta, J, num_nodes: int = 8):
    """∇²_η l(η*) = Z_η F_η (I − J) at a fixed point η* = φ(η*).

    From ∇_η l = Z_η F_η (η − φ(η)) (eq. 33); the terms that multiply η − φ(η) vanish.
    """
    return _jit(_hessian_at_fixed_point, family, num_nodes)(eta, jnp.asarray(J))


def relative_curvature(J):
    """Sorted real eigenvalues of I − J: the local constants of Assumption 2.5.

    ∇²_ω l = (I − J)∇²Z*(ω) (module docstring), so λ_min(I − J) is the local relative
    strong-convexity constant μ and λ_max(I − J) the local relative smoothness L.
    (The η⁽⁰⁾ direction always contributes the eigenvalue 1: φ ignores η⁽⁰⁾.)
    """
    ev = np.linalg.eigvals(np.eye(J.shape[0]) - np.asarray(J))
    if np.max(np.abs(ev.imag)) > 1e-8 * max(1.0, np.max(np.abs(ev.real))):
        raise ValueError(f"I − J has complex eigenvalues {ev}")
    return np.sort(ev.real)


def curvature_map(family, f: Callable, means, log_vars, num_nodes: int = 40):
    """Eigenvalues of I − J(η) (sorted, real) on a grid of 1-D Gaussians N(m, e^{log v}).

    Returns (len(means), len(log_vars), m). Where the smallest is ≤ 0, l is not (even
    locally) relatively strongly convex: Assumption 2.5 can only hold locally.
    """
    if family.dim != 1:
        raise ValueError("curvature_map is for 1-D families")

    def lam(m, lv):
        eta = fullcov_to_natural(jnp.array([m]), jnp.exp(lv) * jnp.eye(1))
        return jnp.linalg.eigvals(jnp.eye(family.num_params) - map_jacobian(family, f, eta, num_nodes))

    ev = jax.jit(jax.vmap(jax.vmap(lam, (None, 0)), (0, None)))(jnp.asarray(means), jnp.asarray(log_vars))
    ev = np.asarray(ev)
    if np.max(np.abs(ev.imag)) > 1e-8:
        raise ValueError("I − J has complex eigenvalues on the grid")
    return np.sort(ev.real, axis=-1)


def contraction_mu(t, excess, eps: float):
    """μ from the geometric decay l(η_t) − l* ≈ c(1 − εμ)^{2t} of the exact iteration.

    Fits log(excess) = a + b t by least squares; 1 − εμ = e^{b/2}. Returns (μ̂, b).
    """
    b = np.polyfit(np.asarray(t, float), np.log(np.asarray(excess, float)), 1)[0]
    return (1.0 - math.exp(b / 2.0)) / eps, b


# ------------------------------------------------------------------ Monte Carlo estimates of φ(η)
def paired_estimates(family, f: Callable, eta, Z):
    """Two estimates of φ(η) from the same draws X = μ + CZ, Z (N, d) standard normal.

    Returns (Algorithm 1's OLS of f(X) on s(X) (`lsvi.core.algorithms.lsvi_generic.ols`), the whitened estimate
    of Algorithm 3 (eq. 20 + eq. 18, `lsvi.core.algorithms.lsvi_fc`) or, for the mean-field family,
    of Algorithm 2 (eq. 20 + eq. 43, `lsvi.core.algorithms.lsvi_mf`)).
    """

    d = family.dim
    X = family.reparameterise(eta, Z)
    y = f(X)
    if _meanfield(family):
        whitened = mf.gamma_to_eta(*mf.estimate_gamma(Z, y), *meanfield_from_natural(eta, d))
    else:
        whitened = fc.gamma_to_eta(*fc.estimate_gamma(Z, y), *fullcov_precision_cholesky(eta, d))
    return lsvi_generic.ols(family.statistic(X), y), whitened


class EstimatorStats(NamedTuple):
    """Over R independent draws of size N: mean error E[η̂'] − φ(η) and its standard error
    for Algorithm 1 (ols_*) and the whitened Algorithm 2/3 (wht_*), and the mean Euclidean
    distance between the two estimates computed from the same draws (dist, dist_se)."""

    ols_bias: np.ndarray
    ols_se: np.ndarray
    wht_bias: np.ndarray
    wht_se: np.ndarray
    dist: float
    dist_se: float


def estimator_stats(key, family, f: Callable, eta, phi, num_samples: int, num_reps: int, batch: int = 1000):
    """`EstimatorStats` of the paired estimates (`paired_estimates`) at η, φ = φ(η) exact.

    Lemma D.9: Algorithm 1's OLS has bias O(1/N); Algorithm 2/3's estimate is linear in the
    unbiased γ̂, hence unbiased. Repetitions are processed in batches of ``batch``.

    Within a batch the repetitions run one after the other (``lax.map``), not ``vmap``: under
    ``vmap`` the OLS's ``lax.cond`` (Cholesky, QR fallback) becomes a select that computes the
    batched QR of every repetition, and that batched LAPACK call intermittently deadlocks XLA's
    CPU runtime (jax 0.10.2, 2 cores: 3 of 4 runs at N = 3000, 1000 repetitions hung with every
    thread idle); the sequential map takes the QR branch only where Cholesky fails.
    """
    d = family.dim
    batch = int(max(1, min(batch, num_reps, 2 * 10**7 // (num_samples * d))))  # ≤ ~160 MB of draws

    @jax.jit
    def one_batch(k):
        Z = jax.random.normal(k, (batch, num_samples, d))
        e1, e3 = jax.lax.map(lambda z: paired_estimates(family, f, eta, z), Z)
        return e1, e3

    nb = -(-num_reps // batch)
    e1, e3 = zip(*(one_batch(k) for k in jax.random.split(key, nb)))
    e1, e3 = np.concatenate(e1)[:num_reps], np.concatenate(e3)[:num_reps]
    phi = np.asarray(phi)
    dist = np.linalg.norm(e1 - e3, axis=1)
    rt = math.sqrt(num_reps)
    return EstimatorStats(
        e1.mean(0) - phi, e1.std(0, ddof=1) / rt, e3.mean(0) - phi, e3.std(0, ddof=1) / rt,
        float(dist.mean()), float(dist.std(ddof=1) / rt),
    )


def well_conditioned_probability(key, family, eta, num_samples: int, num_reps: int, num_nodes: int = 40,
                                 batch: int = 1000) -> float:
    """Monte Carlo estimate of P(A(ω)), A(ω) = [‖F_ω − F̂_ω‖ < ‖F_ω⁻¹‖⁻¹] (spectral norms), the event
    that Theorem 3.4 conditions on (item 1), for F̂ from ``num_samples`` draws of q_η."""
    X, w = nodes(family, eta, num_nodes)
    F, S = exact.fisher(family, X, w)
    r = 1.0 / jnp.linalg.norm(jnp.linalg.inv(F), 2)
    batch = int(max(1, min(batch, num_reps, 2 * 10**7 // (num_samples * family.num_params))))

    @jax.jit
    def one_batch(k):
        Xs = jax.vmap(lambda kk: family.sample(kk, eta, num_samples))(jax.random.split(k, batch))
        Fh = jax.vmap(lambda x: family.statistic(x).T @ family.statistic(x) / num_samples)(Xs)
        return jnp.linalg.norm(Fh - F, 2, axis=(1, 2)) < r

    nb = -(-num_reps // batch)
    ok = np.concatenate([np.asarray(one_batch(k)) for k in jax.random.split(key, nb)])[:num_reps]
    return float(ok.mean())


# ------------------------------------------------------------------ Remark 3.7: three estimators of φ(η)
def three_estimates(family, f: Callable, X, X2, F):
    """Three Monte Carlo estimates of φ(η) = F_η⁻¹z_η (eq. 3) from draws X, X2 (N, d) of q_η.

    * ``ols``: F̂(X)⁻¹ẑ(X), the OLS of Algorithm 1 (one sample for F̂ and ẑ, eq. 9);
    * ``two_sample``: F̂(X)⁻¹ẑ(X2), F̂ and ẑ from two independent samples, the estimator
      Theorem 3.4 assumes;
    * ``exact_fim``: F⁻¹ẑ(X) with the exact F = F_η (m, m). For the Gaussian families this is
      also Algorithms 2–3's estimator: t(Z) = A s(X) with A F Aᵀ = E[ttᵀ] = I, so eq. (18) applied
      to γ̂ = Aẑ returns Aᵀγ̂ = F⁻¹ẑ.

    Remark 3.7: the OLS has the lowest variance of the three. Returns (ols, two_sample,
    exact_fim), each (m,). f: X (N, d) -> (N,).
    """
    S, S2 = family.statistic(X), family.statistic(X2)
    n = X.shape[0]
    y, y2 = f(X), f(X2)
    z = S.T @ y / n
    return lsvi_generic.ols(S, y), jnp.linalg.solve(S.T @ S / n, S2.T @ y2 / n), jnp.linalg.solve(F, z)


class EstimatorErrors(NamedTuple):
    """Squared errors ‖η̂ − φ(η)‖² (R,) of the three estimators of `three_estimates` over R
    independent repetitions (Remark 3.7)."""

    ols: np.ndarray
    two_sample: np.ndarray
    exact_fim: np.ndarray


def estimator_errors(key, family, f: Callable, eta, phi, num_samples: int, num_reps: int, num_nodes: int = 40,
                     batch: int = 1000) -> EstimatorErrors:
    """`EstimatorErrors` at η (φ = φ(η) exact, (m,)) for N = ``num_samples`` draws per estimate.

    Each repetition draws X and an independent X2 (N, d) from q_η; the exact F_η is computed by
    Gauss–Hermite quadrature (``num_nodes`` per axis). Repetitions run in batches of ``batch``.
    """
    Xq, wq = nodes(family, eta, num_nodes)
    F, _ = exact.fisher(family, Xq, wq)
    eta, phi = jnp.asarray(eta), jnp.asarray(phi)
    batch = int(max(1, min(batch, num_reps, 10**7 // (num_samples * family.num_params))))
    one_batch = _estimator_errors_batch(family, f, num_samples, batch)
    nb = -(-num_reps // batch)
    sq = np.concatenate([np.asarray(one_batch(k, eta, phi, F)) for k in jax.random.split(key, nb)])[:num_reps]
    return EstimatorErrors(sq[:, 0], sq[:, 1], sq[:, 2])


@functools.lru_cache(maxsize=None)
def _estimator_errors_batch(family, f, num_samples, batch):
    def one(kk, eta, phi, F):
        k1, k2 = jax.random.split(kk)
        est = three_estimates(family, f, family.sample(k1, eta, num_samples), family.sample(k2, eta, num_samples), F)
        return jnp.stack([jnp.sum((e - phi) ** 2) for e in est])

    return jax.jit(lambda k, eta, phi, F: jax.vmap(lambda kk: one(kk, eta, phi, F))(jax.random.split(k, batch)))


# ------------------------------------------------------------------ Theorem 3.4 as stated: two sample sets, the event A_k
def two_sample_moments(family, log_target: Callable, key, eta, num_samples: int):
    """(X′ (N, d), f(X′) (N,), F̂ (m, m), ẑ (m,)) of the estimator Theorem 3.4 assumes.

    With ``k_F, k_z, k_f = jax.random.split(key, 3)``: F̂ = N⁻¹ Σ s(X_i)s(X_i)ᵀ from X ~ q̄_η drawn
    with k_F, and ẑ = N⁻¹ Σ s(X′_i) f(X′_i) from an independent X′ ~ q̄_η drawn with k_z
    (``log_target(k_f, X′)``): "F̂ and ẑ are computed using two independent sets of samples"
    (Theorem 3.4). `two_sample_regression` and `trajectory_event` both call it, so the event is
    evaluated on the F̂ each step used."""
    k_F, k_z, k_f = jax.random.split(key, 3)
    S = family.statistic(family.sample(k_F, eta, num_samples))
    X2 = family.sample(k_z, eta, num_samples)
    y2 = log_target(k_f, X2)
    return X2, y2, S.T @ S / num_samples, family.statistic(X2).T @ y2 / num_samples


def two_sample_regression(family, log_target: Callable, num_samples: int):
    """A regression ``(key, η) -> (X′, f(X′), η' = F̂⁻¹ẑ)`` of `lsvi.core.kernel` (the step of eq. 10
    with Algorithm 4's backtracking) whose F̂ and ẑ come from two independent sets of N draws
    (`two_sample_moments`). Algorithm 1 uses one set (Remark 3.7); this is the theorem's variant,
    an analysis device, so it lives here and not in `lsvi.core.algorithms`. Algorithm 4 checks
    the step at X′, where f was evaluated."""

    def regression(key, eta):
        X2, y2, F_hat, z_hat = two_sample_moments(family, log_target, key, eta, num_samples)
        return X2, y2, jnp.linalg.solve(F_hat, z_hat)

    return regression


def trajectory_event(key, family, log_target: Callable, etas, num_samples: int, num_nodes: int = 40):
    """A(ω̂_t) = [‖F_t − F̂_t‖ < ‖F_t⁻¹‖⁻¹] (spectral norms) at every step t = 0..T−1 of the runs of
    `run_schedules` (one row, ``key`` its key) with `two_sample_regression`.

    etas (R, T + 1, m): the traces of that row. Step t of run r used the key
    ``jax.random.split(jax.random.split(key, R)[r], T)[t]`` at η̂_t (`lsvi.core.kernel.run`), so F̂_t
    is recomputed exactly (`two_sample_moments`); F_t = F_{η̂_t} by Gauss–Hermite quadrature.
    Theorem 3.4's 𝒜_k = ∩_{t≤k} A(ω̂_t) is the running product along t. Returns (R, T) booleans."""
    etas = jnp.asarray(etas)
    R, T = etas.shape[0], etas.shape[1] - 1
    rep_keys = jax.random.split(key, R)

    def step(k, eta):
        F_hat = two_sample_moments(family, log_target, k, eta, num_samples)[2]
        X, w = nodes(family, eta, num_nodes)
        F, _ = exact.fisher(family, X, w)
        return jnp.linalg.norm(F - F_hat, 2) < jnp.linalg.eigvalsh(F)[0]  # ‖F⁻¹‖⁻¹ = λ_min(F)

    def one_run(rep_key, trace):
        return jax.lax.map(lambda a: step(*a), (jax.random.split(rep_key, T), trace[:-1]))

    return np.asarray(jax.jit(jax.vmap(one_run))(rep_keys, etas))


def ratio_of_means(num, den, num_boot: int = 2000, seed: int = 0, level: float = 0.95):
    """mean(num) / mean(den) with a paired percentile-bootstrap interval.

    num, den (R,): paired per-repetition values (e.g. squared errors of two estimators computed
    from the same repetitions); repetitions are resampled jointly. Returns (ratio, lo, hi).
    """
    num, den = np.asarray(num, float), np.asarray(den, float)
    if num.shape != den.shape or num.ndim != 1:
        raise ValueError("num and den must be paired 1-D arrays of the same length")
    idx = np.random.default_rng(seed).integers(0, num.size, size=(num_boot, num.size))
    boot = num[idx].mean(axis=1) / den[idx].mean(axis=1)
    lo, hi = np.quantile(boot, [0.5 - level / 2, 0.5 + level / 2])
    return float(num.mean() / den.mean()), float(lo), float(hi)


# ------------------------------------------------------------------ moment parameters (full covariance)
def natural_to_moments(family, eta):
    """ω = ∇Z(η) = Z_η E_η[s(X)] for the full-covariance family (minimal statistic)."""
    return _jit(_natural_to_moments, family)(eta)


def _natural_to_moments(family, eta):
    d = family.dim
    mean, cov = fullcov_from_natural(eta, d)
    iu = jnp.triu_indices(d)
    es = jnp.concatenate([jnp.ones(1), mean, (cov + jnp.outer(mean, mean))[iu]])
    return jnp.exp(log_mass(family, eta)) * es


def moments_to_natural(family, omega):
    """Inverse of `natural_to_moments`: η(ω) (Section 2.2), via (Z, μ, Σ)."""
    return _jit(_moments_to_natural, family)(omega)


def _moments_to_natural(family, omega):
    d = family.dim
    z = omega[0]
    mean = omega[1 : d + 1] / z
    iu = jnp.triu_indices(d)
    second = jnp.zeros((d, d)).at[iu].set(omega[d + 1 :] / z)
    second = second + jnp.triu(second, 1).T
    eta = fullcov_to_natural(mean, second - jnp.outer(mean, mean))
    return eta.at[0].add(jnp.log(z))


# ------------------------------------------------------------------ Theorem 3.4 weights
def linear_steps(L: float, alpha: float, num_steps: int):
    """ε_t = 1/(L + αt), t = 0..num_steps−1 (Theorem 3.4, item 3)."""
    return 1.0 / (L + alpha * np.arange(num_steps, dtype=float))


def theorem_weights(eps, mu: float):
    """c_t of Theorem 3.4: c_0 = 1, c_t = c_{t−1} ε_{t−1}⁻¹ (ε_t⁻¹ − μ)⁻¹ (computed in logs).

    Requires ε_t < 1/μ. Returns c (len(eps),).
    """
    eps = np.asarray(eps, float)
    if np.any(1.0 / eps <= mu):
        raise ValueError("Theorem 3.4 needs ε_t⁻¹ > μ")
    logc = np.concatenate([[0.0], np.cumsum(-np.log(eps[:-1]) - np.log(1.0 / eps[1:] - mu))])
    return np.exp(logc)


def cumulative_weights(c):
    """C_k = Σ_{t=1}^k c_{t−1}, k = 1..len(c) (Theorem 3.4)."""
    return np.cumsum(np.asarray(c, float))


def weighted_average(omegas, c):
    """ω̄_k = C_k⁻¹ Σ_{t=1}^k c_{t−1} ω̂_t for k = 1..K (Theorem 3.4; moment space).

    omegas (..., K + 1, m) holds ω̂_0..ω̂_K (ω̂_0 gets no weight); c (≥ K,) the weights.
    Returns (..., K, m).
    """
    omegas = jnp.asarray(omegas)
    K = omegas.shape[-2] - 1
    c = jnp.asarray(c[:K])
    num = jnp.cumsum(c[:, None] * omegas[..., 1:, :], axis=-2)
    return num / jnp.cumsum(c)[:, None]


@functools.lru_cache(maxsize=None)
def _moment_maps(family):
    to_w = jax.jit(jax.vmap(lambda e: natural_to_moments(family, e)))
    to_e = jax.jit(jax.vmap(lambda o: moments_to_natural(family, o)))
    return to_w, to_e


def average_excess(family, f: Callable, etas, c, l_star, num_nodes: int = 40):
    """l(ω̄_k) − l*, k = 1..K, for traces etas (..., K + 1, m) of natural parameters.

    ω̄_k is the weighted average of Theorem 3.4, taken in moment space (`weighted_average`)
    and mapped back to η(ω̄_k) (`moments_to_natural`). Returns (..., K).
    """
    to_w, to_e = _moment_maps(family)
    etas = jnp.asarray(etas)
    m = etas.shape[-1]
    om = to_w(etas.reshape(-1, m)).reshape(etas.shape)
    bar = weighted_average(om, c)
    return excess(family, f, to_e(bar.reshape(-1, m)).reshape(bar.shape), l_star, num_nodes)


def descent_bound(eps0: float, mu: float, d0: float, C):
    """First term of eq. (12): (ε_0⁻¹ − μ) uKL(q_{ω*} | q_{ω_0}) / C_k."""
    return (1.0 / eps0 - mu) * d0 / np.asarray(C, float)


def monotonicity(c, rtol: float = 1e-12) -> str:
    """'decreasing', 'constant' or 'increasing' (strictly, up to rtol) or 'mixed'."""
    dc = np.diff(np.asarray(c, float)) / np.abs(np.asarray(c, float)[:-1])
    if np.all(np.abs(dc) <= rtol):
        return "constant"
    if np.all(dc < -rtol):
        return "decreasing"
    if np.all(dc > rtol):
        return "increasing"
    return "mixed"


def last_decade_slope(k, y, floor: float = 0.0, min_points: int = 10) -> float:
    """Log–log slope of y (K,) against k (K,) over the last decade of k in which y is finite and
    above ``floor`` (the tail, where an asymptotic rate k^{−p} shows; values at or below the
    rounding floor are excluded). NaN when that decade holds ``min_points`` points or fewer.
    """
    k, y = np.asarray(k, float), np.asarray(y, float)
    ok = np.isfinite(y) & (y > floor)
    if ok.sum() < min_points:
        return float("nan")
    sel = ok & (k >= k[ok].max() / 10.0)
    return loglog_fit(k[sel], y[sel]).slope if sel.sum() > min_points else float("nan")


def rate_exponents(alpha: float, mu: float):
    """(bound, local) decay exponents of the descent term for ε_t⁻¹ = L + αt.

    bound: μ/α, the exponent of the first term of eq. (12) (C_k ≍ k^{μ/α}; Thm 3.4 item 3
    states k^{−μ/α}, k⁻¹, k^{−μ/α} for α >, =, < μ). local: 2μ/α, the exact exponent of
    l(η_k) − l* for a locally quadratic l with exact gradients: the slowest mode contracts by
    Π_t(1 − μ/(L + αt)) ≍ k^{−μ/α} and the excess loss is quadratic in it.
    """
    return mu / alpha, 2.0 * mu / alpha


# ------------------------------------------------------------------ stationary Monte Carlo floor
def ols_asymptotic_cov(family, f: Callable, eta, num_nodes: int = 40):
    """V with √N(η̂' − φ(η)) → N(0, V) for the OLS of Algorithm 1: V = F⁻¹E[ssᵀr²]F⁻¹, r = f − φᵀs."""
    return _jit(_ols_asymptotic_cov, family, f, num_nodes)(eta)


def _ols_asymptotic_cov(family, f, num_nodes, eta):
    X, w = nodes(family, eta, num_nodes)
    F, S = exact.fisher(family, X, w)
    beta = jnp.linalg.solve(F, S.T @ (w * f(X)))
    r = f(X) - S @ beta
    Finv = jnp.linalg.inv(F)
    return Finv @ ((S * (w * r**2)[:, None]).T @ S) @ Finv


def alg3_asymptotic_cov(family, f: Callable, eta, num_nodes: int = 40, centre: bool = False):
    """V for Algorithm 3's η̂' (eq. 20 plugged into eq. 18): η̂' = Mγ̂ is linear in γ̂, so
    V = M Cov(t(Z)f(μ + CZ)) Mᵀ (uncentred, as in the paper, unless ``centre``).
    N·Cov(η̂') = V holds exactly for every N (γ̂ is a mean of i.i.d. terms)."""
    return _jit(_alg3_asymptotic_cov, family, f, num_nodes, centre)(eta)


def _alg3_asymptotic_cov(family, f, num_nodes, centre, eta):
    d = family.dim
    Z, w = exact.gauss_hermite(d, num_nodes)
    X = family.reparameterise(eta, Z)
    y = f(X)
    T = fc_t(Z)
    g = T.T @ (w * y)
    # per-draw contributions u_i with γ̂ = mean(u_i); centring uses y − γ⁽⁰⁾ for k ≥ 1
    U = T * (y - g[0] if centre else y)[:, None]
    U = U.at[:, 0].set(y)
    ubar = U.T @ w
    cov_g = (U * w[:, None]).T @ U - jnp.outer(ubar, ubar)

    mean, L = fullcov_precision_cholesky(eta, d)

    def to_eta(gam):
        return fc_gamma_to_eta(gam[0], gam[1 : d + 1], gamma_matrix(gam[d + 1 :], d), mean, L)

    M = jax.jacfwd(to_eta)(g)
    return M @ cov_g @ M.T


def stationary_floor_constant(H, J, V, eps: float):
    """lim_N N·(E[l(η̂_∞)] − l*) for the iteration (10) with constant ε, linearised at η*.

    e_{t+1} = A e_t + ε ξ_t with A = I − ε(I − J) and Cov(ξ) = V/N has stationary covariance
    Σ/N, Σ = AΣAᵀ + ε²V; then E[l] − l* ≈ ½ tr(HΣ)/N with H = ∇²_η l(η*). (The O(1/N)
    bias of η̂' moves the mean by O(1/N), i.e. the loss by O(1/N²) only.)
    """
    H, J, V = (np.asarray(a, float) for a in (H, J, V))
    m = J.shape[0]
    A = np.eye(m) - eps * (np.eye(m) - J)
    sigma = np.linalg.solve(np.eye(m * m) - np.kron(A, A), eps**2 * V.reshape(-1)).reshape(m, m)
    return 0.5 * np.trace(H @ sigma)


# ------------------------------------------------------------------ log–log fits
class RegimeFit(NamedTuple):
    """A log–log slope restricted to the asymptotic regime (`regime_fit`).

    fit: `SlopeFit` on the sizes in the regime, or None when fewer than ``min_points`` are;
    in_regime: bool per size; assessable: whether a slope claim can be judged from this fit.
    """

    fit: SlopeFit | None
    in_regime: np.ndarray
    assessable: bool


def regime_fit(sizes, times, reference_time: float, factor: float = 10.0, min_points: int = 4) -> RegimeFit:
    """Log–log slope of ``times`` against ``sizes`` over the sizes in the asymptotic regime.

    A cost statement O(n^k) is about large n; a timing that is mostly fixed cost (dispatch,
    random-number set-up, control flow, everything that does not grow with n) has slope near 0
    whatever k is. ``reference_time`` is the time of the same call at the smallest problem
    (d = 1), an upper bound on that fixed cost. A size is *in the regime* when its time is at least
    ``factor`` × ``reference_time``: the fixed cost is then at most 1/``factor`` of it. The slope is
    fitted on those sizes only and is assessable only if there are at least ``min_points`` of
    them (a slope from two or three points is not a rate). sizes, times (n,).
    """
    sizes, times = np.asarray(sizes, float), np.asarray(times, float)
    mask = np.isfinite(times) & (times >= factor * float(reference_time))
    if mask.sum() < max(2, min_points):
        return RegimeFit(None, mask, False)
    return RegimeFit(loglog_fit(sizes[mask], times[mask]), mask, True)


# ------------------------------------------------------------------ notebook 13: Gaussian maps
def stein_fullcov(f_single: Callable, mean, cov, num_nodes: int = 20):
    """Eq. (19): (μ', Σ') = (μ − E[∇²f]⁻¹E[∇f], −E[∇²f]⁻¹), X ~ N(μ, Σ), by quadrature.

    ``f_single``: x (d,) -> scalar, differentiated with jax (grad, hessian).
    """
    return _jit(_stein_fullcov, f_single, num_nodes)(jnp.asarray(mean), jnp.asarray(cov))


def _stein_fullcov(f_single, num_nodes, mean, cov):
    d = mean.shape[0]
    Z, w = exact.gauss_hermite(d, num_nodes)
    X = mean + Z @ jnp.linalg.cholesky(cov).T
    g = w @ jax.vmap(jax.grad(f_single))(X)
    H = jnp.einsum("k,kij->ij", w, jax.vmap(jax.hessian(f_single))(X))
    Hinv = jnp.linalg.inv(H)
    return mean - Hinv @ g, -Hinv


def stein_meanfield(f_single: Callable, mean, var, num_nodes: int = 20):
    """Eq. (44): (μ', σ'²) = (μ − E[diag ∇²f]⁻¹ ⊙ E[∇f], −E[diag ∇²f]⁻¹), X ~ N(μ, diag σ²)."""
    return _jit(_stein_meanfield, f_single, num_nodes)(jnp.asarray(mean), jnp.asarray(var))


def _stein_meanfield(f_single, num_nodes, mean, var):
    d = mean.shape[0]
    Z, w = exact.gauss_hermite(d, num_nodes)
    X = mean + jnp.sqrt(var) * Z
    g = w @ jax.vmap(jax.grad(f_single))(X)
    h = w @ jax.vmap(lambda x: jnp.diag(jax.hessian(f_single)(x)))(X)
    return mean - g / h, -1.0 / h


def stein_discrepancy(f_single: Callable, mean, cov, num_nodes: int = 20):
    """Largest differences between the LSVI map φ(η) (OLS on quadrature nodes, read as moments
    via eq. 15) and its Stein forms, for N(mean, cov) (eq. 19) and N(mean, diag cov) (eq. 44).

    Returns {"fc mean", "fc cov", "mf mean", "mf var"}: max |Δμ'|, max |ΔΣ'|, and the mean-field
    counterparts; zero up to quadrature error (exactly zero for polynomial f).
    """

    d = mean.shape[0]
    f = jax.vmap(f_single)

    @jax.jit
    def diffs(mean, cov):
        X, w = exact.gaussian_nodes(fullcov_to_natural(mean, cov), d, False, num_nodes)
        m1, S1 = fullcov_from_natural(exact.lsvi_map(fc_family(d), f(X), X, w), d)
        m2, S2 = stein_fullcov(f_single, mean, cov, num_nodes)
        var = jnp.diag(cov)
        X, w = exact.gaussian_nodes(meanfield_to_natural(mean, var), d, True, num_nodes)
        m3, v3 = meanfield_from_natural(exact.lsvi_map(mf_family(d), f(X), X, w), d)
        m4, v4 = stein_meanfield(f_single, mean, var, num_nodes)
        return jnp.stack([jnp.max(jnp.abs(a - b)) for a, b in ((m1, m2), (S1, S2), (m3, m4), (v3, v4))])

    vals = np.asarray(diffs(jnp.asarray(mean), jnp.asarray(cov)))
    return dict(zip(("fc mean", "fc cov", "mf mean", "mf var"), map(float, vals)))


def fullcov_map_variants(Z, w, y, mean, cov):
    """β = φ(η) from γ = Σ_i w_i t(Z_i) y_i with C = Chol(Σ) (lower, as in Theorem 4.1), twice:

    'printed': eq. (18) as printed, B = C⁻¹ΓC⁻ᵀ;  'corrected': B = C⁻ᵀΓC⁻¹ (Lemma D.3,
    eq. 52: Γ = CᵀBC). In both, β⁽¹⁾ = C⁻ᵀγ⁽¹⁾ − 2Bμ and β⁽⁰⁾ = γ⁽⁰⁾ − tr Γ − β⁽¹⁾ᵀμ − μᵀBμ.
    Z (K, d) are standard-normal draws or nodes, y = f(μ + CZ), w their weights (1/N for
    Monte Carlo). Returns {name: β (m,)} in the minimal statistic of `gaussian_fullcov`.
    """
    d = mean.shape[0]
    C = jnp.linalg.cholesky(cov)
    Cinv = jax.scipy.linalg.solve_triangular(C, jnp.eye(d), lower=True)
    g = fc_t(Z).T @ (w * y)
    Gam = gamma_matrix(g[d + 1 :], d)
    iu = jnp.triu_indices(d)
    out = {}
    for name, B in (("printed", Cinv @ Gam @ Cinv.T), ("corrected", Cinv.T @ Gam @ Cinv)):
        b1 = Cinv.T @ g[1 : d + 1] - 2.0 * B @ mean
        b0 = g[0] - jnp.trace(Gam) - b1 @ mean - mean @ B @ mean
        theta = (2.0 * B - jnp.diag(jnp.diag(B)))[iu]
        out[name] = jnp.concatenate([jnp.array([b0]), b1, theta])
    return out


def time_call(fn: Callable, *args, repeats: int = 5, warmup: int = 1, statistic: str = "min") -> float:
    """Time (`lsvi.core.clock`) (s) of ``fn(*args)`` over ``repeats`` calls after ``warmup`` calls (jit
    compilation), each call synchronised with ``jax.block_until_ready``.

    ``statistic="min"`` (default) returns the fastest call: other processes on a shared
    machine can only add time, so the minimum is the least biased estimate of the call's own
    cost (the advice of Python's ``timeit``); ``"median"`` returns the median.
    """
    if statistic not in ("min", "median"):
        raise ValueError(f"statistic must be 'min' or 'median', not {statistic!r}")
    for _ in range(warmup):
        jax.block_until_ready(fn(*args))
    times = []
    for _ in range(repeats):
        t0 = clock.seconds()
        jax.block_until_ready(fn(*args))
        times.append(clock.seconds() - t0)
    return float(np.min(times) if statistic == "min" else np.median(times))


def median_time(fn: Callable, *args, repeats: int = 5, warmup: int = 1) -> float:
    """Median time (`lsvi.core.clock`) (s) of ``fn(*args)`` (`time_call` with ``statistic="median"``)."""
    return time_call(fn, *args, repeats=repeats, warmup=warmup, statistic="median")



def quadrature_map_pair(family, f: Callable, eta, num_nodes: int = 20):
    """φ(η) twice on the same Gauss–Hermite nodes X = μ + CZ (C = L⁻ᵀ, resp. σ ⊙ ·):

    (Algorithm 1's regression F⁻¹z on s(X) (`lsvi.core.quadrature.lsvi_map`), the whitened map of
    Algorithm 3 (eq. 18, `lsvi.core.algorithms.lsvi_fc.gamma_to_eta`) or 2 (eq. 43,
    `lsvi.core.algorithms.lsvi_mf.gamma_to_eta`) applied to γ = Σ_i w_i t(Z_i) f(X_i)).
    The tensor rule integrates t tᵀ exactly (E[ttᵀ] = I), so the two agree to rounding for
    any f: Theorems 4.1 and D.2 are identities of least squares, not approximations.
    """

    d = family.dim
    Z, w = exact.gauss_hermite(d, num_nodes)

    @jax.jit
    def pair(eta):
        X = family.reparameterise(eta, Z)
        if _meanfield(family):
            g = mf.whitened_statistic(Z).T @ (w * f(X))
            whitened = mf.gamma_to_eta(g[0], g[1 : d + 1], g[d + 1 :], *meanfield_from_natural(eta, d))
        else:
            g = fc.whitened_statistic(Z).T @ (w * f(X))
            whitened = fc.gamma_to_eta(g[0], g[1 : d + 1], gamma_matrix(g[d + 1 :], d),
                                       *fullcov_precision_cholesky(eta, d))
        return exact.lsvi_map(family, f(X), X, w), whitened

    return pair(jnp.asarray(eta))


def step_call(algorithm: str, d: int, num_samples: int, seed: int = 0, meanfield: bool = False):
    """(fn, args): one jit-compiled LSVI iteration at dimension d, ready to be timed as ``fn(*args)``.

    algorithm: "alg1" (Algorithm 1 with the full-covariance statistic, m = 1 + d + d(d+1)/2, or with
    ``meanfield`` the mean-field statistic, m = 2d + 1: generic LSVI on the mean-field family,
    `lsvi.core.algorithms.lsvi_generic`), "alg2" (`lsvi.core.algorithms.lsvi_mf`) or "alg3" (`lsvi.core.algorithms.lsvi_fc`).
    Cheap target f(x) = −‖x‖²/2 (O(Nd)) from q = N(0, 2I) with ε = 1, so the step is always
    valid and the algorithm's own cost dominates.
    """

    log_target = lambda key, X: -0.5 * jnp.sum(X**2, axis=1)
    zeros = jnp.zeros(d)
    if meanfield and algorithm != "alg1":
        raise ValueError("meanfield selects the family of Algorithm 1 only (Algorithm 2 is mean-field already)")
    if algorithm == "alg2" or meanfield:
        fam, eta = mf_family(d), meanfield_to_natural(zeros, 2.0 * jnp.ones(d))
    else:
        fam, eta = fc_family(d), fullcov_to_natural(zeros, 2.0 * jnp.eye(d))
    if algorithm == "alg1" and num_samples <= fam.num_params:
        raise ValueError(f"Algorithm 1 needs N > m = {fam.num_params}")
    kern = algorithms.build_kernel(algorithm, fam, log_target, num_samples)
    return jax.jit(kern), (jax.random.PRNGKey(seed), kernel.init(eta), jnp.float64(1.0))


def map_call(algorithm: str, d: int, seed: int = 0):
    """(fn, args): the regression-to-η step alone, given the sufficient averages, jit-compiled.

    "alg1": η' = F̂⁻¹ẑ with F̂ (m, m) symmetric positive definite, m = 1 + d + d(d+1)/2:
    O(m³) = O(d⁶). "alg3": the γ → η map of eq. (18) (`lsvi.core.algorithms.lsvi_fc.gamma_to_eta`),
    matrix products with the d × d Cholesky factor: O(d³).
    """

    k1, k2 = jax.random.split(jax.random.PRNGKey(seed))
    if algorithm == "alg1":
        m = num_params_fullcov(d)
        A = jax.random.normal(k1, (m, m))
        return jax.jit(jnp.linalg.solve), (A @ A.T / m + jnp.eye(m), jax.random.normal(k2, (m,)))
    if algorithm == "alg3":
        A = jax.random.normal(k1, (d, d))
        L = jnp.linalg.cholesky(A @ A.T / d + jnp.eye(d))
        G = jax.random.normal(k2, (d, d))
        return jax.jit(fc.gamma_to_eta), (jnp.array(0.1), jnp.ones(d), 0.5 * (G + G.T), jnp.zeros(d), L)
    raise ValueError(algorithm)


def cost_call(kind: str, d: int, num_samples: int, seed: int = 0):
    """(fn, args) of a timed call of notebook 13: ``kind`` "alg1" / "alg2" / "alg3" (one
    iteration at N = ``num_samples``, `step_call`), "map alg1" / "map alg3" (the
    regression-to-η step, `map_call`; ``num_samples`` unused), or "normals" (drawing the
    (N, d) standard normals alone: a pure O(Nd) operation, the hardware's reference for what
    an O(Nd) iteration can achieve at these sizes)."""
    if kind.startswith("map "):
        return map_call(kind[4:], d, seed)
    if kind == "normals":
        return jax.jit(lambda k: jax.random.normal(k, (num_samples, d))), (jax.random.PRNGKey(seed),)
    return step_call(kind, d, num_samples, seed)


def step_time(algorithm: str, d: int, num_samples: int, repeats: int = 5, seed: int = 0) -> float:
    """Time (`lsvi.core.clock`) (s) of one warm LSVI iteration (`step_call`): the fastest of ``repeats`` calls."""
    fn, args = step_call(algorithm, d, num_samples, seed)
    return time_call(fn, *args, repeats=repeats)


def map_time(algorithm: str, d: int, repeats: int = 5, seed: int = 0) -> float:
    """Time (`lsvi.core.clock`) (s) of the regression-to-η step (`map_call`): the fastest of ``repeats`` calls."""
    fn, args = map_call(algorithm, d, seed)
    return time_call(fn, *args, repeats=repeats)


def interleaved_times(calls, repeats: int = 5, warmup: int = 1) -> np.ndarray:
    """Fastest time (`lsvi.core.clock`) (s) of each ``(fn, args)`` in ``calls``, measured in interleaved rounds.

    After ``warmup`` calls of each (compilation), every round times each call once, in order;
    the result is the minimum over the ``repeats`` rounds. On a shared machine the load drifts
    over a measurement: timing one size after the other would let the drift bias a log–log
    slope, whereas interleaving exposes every size to the same load. Returns (len(calls),).
    """
    calls = list(calls)
    for fn, args in calls:
        for _ in range(warmup):
            jax.block_until_ready(fn(*args))
    times = np.full((repeats, len(calls)), np.inf)
    for r in range(repeats):
        for j, (fn, args) in enumerate(calls):
            t0 = clock.seconds()
            jax.block_until_ready(fn(*args))
            times[r, j] = clock.seconds() - t0
    return times.min(axis=0)
