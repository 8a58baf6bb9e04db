"""SVGP regression as Bayesian linear regression (Wu & Gardner 2024, Section 4, "Application to Gaussian Process
Regression"; notebook 50).

With inducing inputs Z (M,) and the kernel's hyperparameters fixed, SVGP (Hensman et al. 2013) maximises over
q(u) = N(m, S) the ELBO (reconstructed: the paper's inline maths is lost in our copy)

    L(m, S) = Σ_i [log N(y_i; a_iᵀm, σ²) − (k̃_ii + a_iᵀ S a_i)/(2σ²)] − KL(N(m, S) ‖ N(0, K_zz)),
    a_i = K_zz⁻¹ k_zi,  k̃_ii = k(x_i, x_i) − k_izᵀ K_zz⁻¹ k_zi,

which, dropping the k̃ terms (independent of q), is Example 1's negative ELBO with features X = K_xz K_zz⁻¹, noise s = σ
and prior N(0, K_zz) (`reduced_problem`): stochastic NGD (eq. 15) and Theorem 1 then apply to q(u) as they stand.

Independent reference (`titsias_optimum`, `collapsed_bound`): the optimal q(u) in closed form (Titsias 2009; Hensman
et al. 2013, eq. 8 of the latter), m* = σ⁻² K_zz Σ⁻¹ K_zx y, S* = K_zz Σ⁻¹ K_zz with Σ = K_zz + σ⁻² K_zx K_xz, and
Titsias' collapsed bound log N(y; 0, Q_ff + σ²I) − tr(K_ff − Q_ff)/(2σ²), Q_ff = K_xz K_zz⁻¹ K_zx, which the SVGP
ELBO attains at the optimum. Neither uses the reduction: they come from the collapsed (marginal-likelihood) derivation.

References
----------
K. Wu, J. R. Gardner (2024). Understanding stochastic natural gradient variational inference. ICML 2024.
J. Hensman, N. Fusi, N. D. Lawrence (2013). Gaussian processes for big data. UAI 2013.
M. Titsias (2009). Variational learning of inducing variables in sparse Gaussian processes. AISTATS 2009.
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.papers.ngvi.checks import rates as nr
from lsvi.core.losses import kl_gaussian


class SVGP(NamedTuple):
    """Kxz (n, M), Kzz (M, M) (with jitter), kdiag (n,) = k(x_i, x_i), y (n,), noise sd s."""

    Kxz: jnp.ndarray
    Kzz: jnp.ndarray
    kdiag: jnp.ndarray
    y: jnp.ndarray
    s: float


def rbf(x1, x2, variance: float, lengthscale: float):
    """k(x, x') = v exp(−‖x − x'‖²/(2ℓ²)): x1 (n, p), x2 (M, p) -> (n, M)."""
    d2 = jnp.sum((x1[:, None, :] - x2[None, :, :]) ** 2, axis=-1)
    return variance * jnp.exp(-0.5 * d2 / lengthscale**2)


def build(x, y, z, variance: float, lengthscale: float, noise_sd: float, jitter: float = 1e-8) -> SVGP:
    """SVGP with RBF kernel at fixed hyperparameters: inputs x (n, p), targets y (n,), inducing inputs z (M, p)."""
    x, z = jnp.asarray(x, jnp.float64), jnp.asarray(z, jnp.float64)
    Kzz = rbf(z, z, variance, lengthscale) + jitter * variance * jnp.eye(z.shape[0])
    return SVGP(rbf(x, z, variance, lengthscale), Kzz, jnp.full(x.shape[0], variance), jnp.asarray(y, jnp.float64),
                float(noise_sd))


def reduced_problem(g: SVGP) -> nr.Problem:
    """Example 1 with X = K_xz K_zz⁻¹ (n, M), s = σ, prior N(0, K_zz) (the paper's reduction, reconstructed)."""
    X = jnp.linalg.solve(g.Kzz, g.Kxz.T).T
    return nr.Problem(X, g.y, g.s, jnp.zeros(g.Kzz.shape[0]), g.Kzz)


def titsias_optimum(g: SVGP):
    """(m* (M,), S* (M, M)): Σ = K_zz + σ⁻²K_zxK_xz, m* = σ⁻²K_zz Σ⁻¹ K_zx y, S* = K_zz Σ⁻¹ K_zz (collapsed derivation)."""
    Sig = g.Kzz + g.Kxz.T @ g.Kxz / g.s**2
    m = g.Kzz @ jnp.linalg.solve(Sig, g.Kxz.T @ g.y) / g.s**2
    S = g.Kzz @ jnp.linalg.solve(Sig, g.Kzz)
    return m, 0.5 * (S + S.T)


def collapsed_bound(g: SVGP):
    """Titsias' bound log N(y; 0, Q_ff + σ²I) − tr(K_ff − Q_ff)/(2σ²) (n × n Cholesky; small n only)."""
    n = g.y.shape[0]
    Q = g.Kxz @ jnp.linalg.solve(g.Kzz, g.Kxz.T)
    C = Q + g.s**2 * jnp.eye(n)
    Lc = jnp.linalg.cholesky(C)
    a = jax.scipy.linalg.solve_triangular(Lc, g.y, lower=True)
    logml = -0.5 * a @ a - jnp.sum(jnp.log(jnp.diag(Lc))) - 0.5 * n * jnp.log(2 * jnp.pi)
    return logml - jnp.sum(g.kdiag - jnp.diag(Q)) / (2 * g.s**2)


def elbo(g: SVGP, m, S):
    """The SVGP ELBO (Hensman et al. 2013) at q(u) = N(m (M,), S (M, M)), all n points."""
    A = jnp.linalg.solve(g.Kzz, g.Kxz.T).T  # rows a_i
    ktilde = g.kdiag - jnp.sum(A * g.Kxz, axis=1)
    quad = jnp.sum((A @ S) * A, axis=1)
    ll = -0.5 * jnp.log(2 * jnp.pi * g.s**2) - 0.5 * (g.y - A @ m) ** 2 / g.s**2 - (ktilde + quad) / (2 * g.s**2)
    return jnp.sum(ll) - kl_gaussian(m, S, jnp.zeros(m.shape[0]), g.Kzz)


def reduction_check(g: SVGP) -> dict:
    """The reduced problem's exact posterior (`ngvi_rates.posterior`) against the collapsed-derivation optimum:
    mean_err = ‖m_BLR − m*‖∞ / ‖m*‖∞, cov_err = ‖S_BLR − S*‖∞ / ‖S*‖∞, bound_err = |L(q_BLR) − collapsed| / |collapsed|,
    and the ELBO drop of a perturbed q (L(q*) − L(q_BLR + δ), > 0 if q_BLR is the maximiser)."""
    mb, Sb = nr.posterior(reduced_problem(g))
    mt, St = titsias_optimum(g)
    bound = collapsed_bound(g)
    e = elbo(g, mb, Sb)
    drop = e - elbo(g, mb + 1e-3 * jnp.sqrt(jnp.diag(Sb)), Sb)
    return dict(mean_err=float(jnp.max(jnp.abs(mb - mt)) / jnp.max(jnp.abs(mt))),
                cov_err=float(jnp.max(jnp.abs(Sb - St)) / jnp.max(jnp.abs(St))),
                bound_err=float(jnp.abs(e - bound) / jnp.abs(bound)), elbo=float(e), bound=float(bound), drop=float(drop))


def rate_runs(key, g: SVGP, num_reps: int, num_steps: int, batch_size: int, horizons):
    """Mini-batch stochastic NGD (eq. 15 on the reduced problem, ρ_t = 2/(t + 2), from the prior N(0, K_zz)), R = num_reps
    independent batch sequences. Returns KL(q_ω̄T ‖ q*) (R, len(horizons)) for Theorem 1's weighted average ω̄_T, q* the
    collapsed-derivation optimum (`titsias_optimum`), the same for the last iterate, and the first repetition's natural
    parameters (T + 1, m) (for `sigma2_along`)."""
    p = reduced_problem(g)
    ms, cs = titsias_optimum(g)
    eta0 = nr.natural(p.m0, p.S0)
    idx = np.asarray(horizons) - 1  # weighted_average's row T − 1 is ω̄_T
    avg, last, first = [], [], None
    for k in jax.random.split(key, num_reps):
        etas = nr.ngd_run(p, eta0, nr.batch_indices(k, p.X.shape[0], batch_size, num_steps), nr.theorem_rho(num_steps))
        first = etas if first is None else first
        m, c = nr.moments(etas)
        am, ac = nr.weighted_average(m, c)
        avg.append(np.asarray(nr.kl_to(am[idx], ac[idx], ms, cs)))
        last.append(np.asarray(nr.kl_to(m[np.asarray(horizons)], c[np.asarray(horizons)], ms, cs)))
    return np.stack(avg), np.stack(last), first


def sigma2_along(key, g: SVGP, etas, times, batch_size: int, num_draws: int) -> float:
    """Theorem 1's σ² on the reduced problem: the largest Monte-Carlo σ̂_t² of eq. (12) (`ngvi_rates.variance_along`) at the
    iterates η_t, t in ``times``, of one run ``etas`` (T + 1, m), as notebook 50 takes it for Bayesian linear regression."""
    variance = nr.variance_along(key, reduced_problem(g), etas, [t for t in times if t < etas.shape[0]], batch_size, num_draws)
    return max(v[0] for v in variance.values())


def bike_subset(X, y, num_points: int, num_inducing: int, variance: float, lengthscale: float, noise_sd: float,
                seed: int = 0) -> SVGP:
    """SVGP on ``num_points`` rows of the (standardised) Bike design X (N, p) (intercept column, if constant, dropped) and
    response y (N,), drawn without replacement with ``seed``; the M = ``num_inducing`` inducing inputs are further rows of
    the same draw (distinct from none of the data: Z ⊂ X's subsample, as is common)."""
    X, y = np.asarray(X, float), np.asarray(y, float)
    X = X[:, np.ptp(X, axis=0) > 0]
    rows = np.random.default_rng(seed).permutation(len(X))[:num_points]
    return build(X[rows], y[rows], X[rows[:num_inducing]], variance, lengthscale, noise_sd)
