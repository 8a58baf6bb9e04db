"""Theorem-check helpers for Wu & Gardner (2024), Section 4 (notebook 50): Lemma 1 (NGD = MD, shared
with LSVI's Proposition 2.4 through `lsvi.exact.equivalences`), Lemma 2 (relative smoothness and
strong convexity), the gradient variance (12) of Lemma 3, Lemma 5 and Theorem 1's weighted average.

Reconstructions (the paper's inline maths was lost in extraction; standard results):
  A*(ω) = −½ log det(ω₂ − ω₁ω₁ᵀ) − (d/2) log(2πe)                                      (18)
  D_{A*}(ω, ω') = A*(ω) − A*(ω') − ⟨∇A*(ω'), ω − ω'⟩ = KL(q_ω ‖ q_ω')                   (Lemma 4)
  F(ω) = KL(q_ω ‖ p(·|y)) + const = D_{A*}(ω, ω*) for a conjugate likelihood, hence
  F(ω) − F(ω') − ⟨∇F(ω'), ω − ω'⟩ = D_{A*}(ω, ω'): 1-smooth and 1-strongly convex relative to A*.
  σ_t² = ρ_t⁻¹ E_t⟨∇F(ω_t) − ĝ_t, ω_{t+1} − ω̃_{t+1}⟩ (12), ω̃_{t+1} the exact-gradient MD step;
  since θ_{t+1} − θ̃_{t+1} = −ρ_t(ĝ_t − ∇F), this is
  σ_t² = ρ_t⁻² E_t[KL(q_{t+1} ‖ q̃_{t+1}) + KL(q̃_{t+1} ‖ q_{t+1})] ≥ 0 (a Jeffreys divergence).
  Theorem 1 (ρ_t = 2/(t+2), from Hanzely & Richtárik's descent lemma with μ = L = 1):
  E KL(q_{ω̄_T} ‖ p(·|y)) ≤ 4σ²/(T + 1), σ² = sup_t σ_t², ω̄_T = Σ_{t≤T} t ω_t / (T(T+1)/2).

References
----------
K. Wu, J. R. Gardner (2024). Understanding stochastic natural gradient variational inference.
ICML 2024 (arXiv:2406.01870).
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.exact import equivalences
from lsvi.core import ngvi
from lsvi.core.families import gaussian_fullcov
from lsvi.core.families.gaussian import fullcov_from_natural, fullcov_to_natural
from lsvi.core.losses import kl_gaussian, kl_gaussian_symmetric


# ----------------------------------------------------------------------------- the model and eq. (15)
class Problem(NamedTuple):
    """Bayesian linear regression: X (n, d), y (n,), noise sd s, prior N(m0 (d,), S0 (d, d))."""

    X: jnp.ndarray
    y: jnp.ndarray
    s: float
    m0: jnp.ndarray
    S0: jnp.ndarray


def problem(X, y, s: float = 1.0, prior_sd: float = 1.0) -> Problem:
    """Problem with prior N(0, prior_sd² I) (the paper's standard normal prior: prior_sd = 1)."""
    X = jnp.asarray(X, jnp.float64)
    d = X.shape[1]
    return Problem(X, jnp.asarray(y, jnp.float64), float(s), jnp.zeros(d), prior_sd**2 * jnp.eye(d))


def simulated(seed: int, n: int, d: int, s: float = 1.0) -> Problem:
    """A small synthetic problem: x_i ~ N(0, I), w ~ N(0, I), y = Xw + s·noise (tests and Lemma checks)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return problem(X, X @ rng.normal(size=d) + s * rng.normal(size=n), s)


@jax.jit
def posterior(p: Problem):
    """Exact posterior (mean (d,), cov (d, d)): Λ = S₀⁻¹ + XᵀX/s², mean = Λ⁻¹(S₀⁻¹m₀ + Xᵀy/s²)."""
    P0 = jnp.linalg.inv(p.S0)
    prec = P0 + p.X.T @ p.X / p.s**2
    cov = jnp.linalg.inv(prec)
    cov = 0.5 * (cov + cov.T)
    return cov @ (P0 @ p.m0 + p.X.T @ p.y / p.s**2), cov


@jax.jit
def natural(mean, cov):
    """Normalised η (m,) of N(mean, cov) (project convention, `gaussian.fullcov_to_natural`)."""
    return fullcov_to_natural(mean, cov)


@jax.jit
def moments(eta):
    """(mean (d,), cov (d, d)) of η (m,) or of a stack η (..., m) (vectorised)."""
    d = int(round((-3 + np.sqrt(9 + 8 * (eta.shape[-1] - 1))) / 2))
    f = lambda e: fullcov_from_natural(e, d)
    for _ in range(eta.ndim - 1):
        f = jax.vmap(f)
    return f(eta)


def likelihood_natural(p: Problem, idx):
    """η̄-part (m − 1,) of (n/B) Σ_b (y_b x_b/s², −x_b x_bᵀ/(2s²)) for indices idx (B,) (eq. 15)."""
    return ngvi.likelihood_natural(p.X, p.y, p.s, idx)


@jax.jit
def ngd_step(p: Problem, eta, idx, rho):
    """One stochastic NGD step (15) on η (m,), normalised; idx (B,) the mini-batch (`lsvi.core.ngvi.step`)."""
    return ngvi.step(eta, natural(p.m0, p.S0), likelihood_natural(p, idx), rho)


def batch_indices(key, n: int, batch_size: int, num_steps: int):
    """(T, B) i.i.d. uniform indices in {0..n−1} (with replacement, as in Example 1)."""
    return jax.random.randint(key, (num_steps, batch_size), 0, n)


def theorem_rho(num_steps: int):
    """ρ_t = 2/(t + 2), t = 0..T−1 (Theorem 1; ρ₀ = 1)."""
    return ngvi.theorem_step_sizes(num_steps)


@jax.jit
def ngd_run(p: Problem, eta0, batches, rhos):
    """Stochastic NGD from η₀ (m,) with batches (T, B) and steps ρ (T,): η_0..η_T (T + 1, m)."""
    step = lambda eta, xs: (ngd_step(p, eta, xs[0], xs[1]),) * 2
    _, etas = jax.lax.scan(step, eta0, (batches, rhos))
    return jnp.concatenate([eta0[None], etas])


def expectation(mean, cov):
    """ω = (μ, Σ + μμᵀ) (eq. 6), stacked: mean (..., d), cov (..., d, d)."""
    return mean, cov + mean[..., :, None] * mean[..., None, :]


@jax.jit
def weighted_average(means, covs):
    """(t+1)-weighted averages in expectation parameters for every horizon T = 1..len − 1:
    ω̄_T = Σ_{t=1}^{T} t ω_t / (T(T+1)/2) from (μ_t, Σ_t), t = 0..T (ω₀ gets weight 0).
    Returns (mean (T, d), cov (T, d, d)) of q_{ω̄_T}, T = 1..len − 1."""
    w1, w2 = expectation(means, covs)
    t = jnp.arange(means.shape[0], dtype=jnp.float64)
    norm = jnp.cumsum(t)[1:]
    a1 = jnp.cumsum(t[:, None] * w1, axis=0)[1:] / norm[:, None]
    a2 = jnp.cumsum(t[:, None, None] * w2, axis=0)[1:] / norm[:, None, None]
    return a1, a2 - a1[:, :, None] * a1[:, None, :]


@jax.jit
def kl_to(means, covs, mean_star, cov_star):
    """KL(N(means_t, covs_t) ‖ N(mean*, cov*)) for stacks (T, d), (T, d, d) -> (T,) (exact)."""
    return jax.vmap(lambda m, c: kl_gaussian(m, c, mean_star, cov_star))(means, covs)


# ----------------------------------------------------------------------------- Lemma 1
def log_joint(p: Problem):
    """log p(y | w) + log p(w) as a log target (key, W (N, d)) -> (N,) for `lsvi.exact.theory`."""
    P0 = jnp.linalg.inv(p.S0)

    def f(key, W):
        r = p.y[None, :] - W @ p.X.T
        return -0.5 * jnp.sum(r**2, axis=1) / p.s**2 - 0.5 * jnp.sum(((W - p.m0) @ P0) * (W - p.m0), axis=1)
    return f


def lemma1(p: Problem, step_sizes, num_steps: int, num_nodes: int = 4):
    """NGD (eq. 7/8) vs mirror descent (eq. 9–10) with exact gradients, from the prior.

    The NGD and MD trajectories are those of `equivalences.trajectories` (Proposition 2.4 of the LSVI
    paper: the same identity; MD there is a Newton solve of the argmin (9)); they are also compared
    with the closed-form conjugate update (15) with the full batch (`ngd_step`). Returns
    {ε: {"ngd_vs_md": rel. error, "eq15_vs_md": rel. error, "travelled": ‖η̄_T − η̄_0‖∞}} on η̄."""
    fam = gaussian_fullcov(p.X.shape[1])
    eta0 = natural(p.m0, p.S0)
    traj, _ = equivalences.trajectories(fam, log_joint(p), eta0, num_nodes, step_sizes, num_steps)
    full = jnp.arange(p.X.shape[0])
    out = {}
    for eps, s in traj.items():
        ours = [eta0]
        for _ in range(num_steps):
            ours.append(ngd_step(p, ours[-1], full, eps))
        ours = np.asarray(jnp.stack(ours))[:, 1:]
        md, ngd = s["md8"][:, 1:], s["ngd6"][:, 1:]
        scale = np.abs(md).max()
        out[eps] = dict(ngd_vs_md=float(np.abs(ngd - md).max() / scale), eq15_vs_md=float(np.abs(ours - md).max() / scale),
                        travelled=float(np.abs(md[-1] - md[0]).max()))
    return out


# ----------------------------------------------------------------------------- Lemma 2
def conjugate_dual(w1, w2):
    """A*(ω) for ω = (ω₁ (d,), ω₂ (d, d)) (eq. 18): −½ log det(ω₂ − ω₁ω₁ᵀ) − (d/2) log(2πe)."""
    d = w1.shape[0]
    return -0.5 * jnp.linalg.slogdet(w2 - jnp.outer(w1, w1))[1] - 0.5 * d * jnp.log(2 * jnp.pi * jnp.e)


def bregman_dual(w, wp):
    """D_{A*}(ω, ω') by its definition, ∇A* by autodiff (no KL formula involved)."""
    g1, g2 = jax.grad(conjugate_dual, argnums=(0, 1))(*wp)
    return conjugate_dual(*w) - conjugate_dual(*wp) - jnp.dot(g1, w[0] - wp[0]) - jnp.sum(g2 * (w[1] - wp[1]))


def neg_elbo_gap(p: Problem, w, wp):
    """F(ω) − F(ω') − ⟨∇F(ω'), ω − ω'⟩ with F(ω) = KL(q_ω ‖ posterior) (exact Gaussian KL), ∇F by autodiff."""
    ms, cs = posterior(p)
    F = lambda a, b: kl_gaussian(a, b - jnp.outer(a, a), ms, cs)
    g1, g2 = jax.grad(F, argnums=(0, 1))(*wp)
    return F(*w) - F(*wp) - jnp.dot(g1, w[0] - wp[0]) - jnp.sum(g2 * (w[1] - wp[1]))


def random_gaussian(rng, d: int, scale: float = 1.0):
    """(mean, cov): mean ~ N(0, scale² I), cov = AAᵀ/d + 0.1 I with A standard normal."""
    A = rng.normal(size=(d, d))
    return jnp.asarray(scale * rng.normal(size=d)), jnp.asarray(A @ A.T / d + 0.1 * np.eye(d))


def lemma2(p: Problem, seed: int, num_pairs: int):
    """For random pairs (ω, ω'): the ratio [F(ω) − F(ω') − ⟨∇F(ω'), ω − ω'⟩] / D_{A*}(ω, ω') (1-smooth:
    ≤ 1, 1-strongly convex: ≥ 1) and the largest |KL(q_ω ‖ q_ω') / D_{A*}(ω, ω') − 1| (Lemma 4).
    Returns (ratios (num_pairs,), max Lemma-4 error)."""
    rng = np.random.default_rng(seed)
    d = p.X.shape[1]
    pairs = [(random_gaussian(rng, d), random_gaussian(rng, d)) for _ in range(num_pairs)]
    m, c, mp, cp = (jnp.stack([q[i][j] for q in pairs]) for i in (0, 1) for j in (0, 1))
    D, gap, kl = jax.jit(jax.vmap(lambda *a: _lemma2_one(p, *a), in_axes=(0, 0, 0, 0)))(m, c, mp, cp)
    return np.asarray(gap / D), float(np.max(np.abs(np.asarray(kl / D) - 1.0)))


def _lemma2_one(p, m, c, mp, cp):
    w, wp = expectation(m, c), expectation(mp, cp)
    return bregman_dual(w, wp), neg_elbo_gap(p, w, wp), kl_gaussian(m, c, mp, cp)


# ----------------------------------------------------------------------------- Lemma 3 / eq. (12)
def gradient_variance(key, p: Problem, eta, rho: float, batch_size: int, num_draws: int):
    """σ_t² of eq. (12) at η_t (m,) with step ρ_t: ρ⁻² E[Jeffreys(q_{t+1}, q̃_{t+1})] over num_draws
    mini-batches (Monte Carlo; returns mean and its standard error)."""
    batches = batch_indices(key, p.X.shape[0], batch_size, num_draws)
    v = np.asarray(_variance_draws(p, eta, rho, batches))
    return float(v.mean()), float(v.std(ddof=1) / np.sqrt(num_draws))


@jax.jit
def _variance_draws(p, eta, rho, batches):
    me, ce = moments(ngd_step(p, eta, jnp.arange(p.X.shape[0]), rho))

    def one(idx):
        m, c = moments(ngd_step(p, eta, idx, rho))
        return kl_gaussian_symmetric(m, c, me, ce) / rho**2
    return jax.lax.map(one, batches)


def variance_along(key, p: Problem, etas, times, batch_size: int, num_draws: int):
    """σ_t² (mean, s.e.) at the iterates η_t, t in times, of a run with ρ_t = 2/(t + 2)."""
    keys = jax.random.split(key, len(times))
    return {int(t): gradient_variance(k, p, etas[t], 2.0 / (t + 2.0), batch_size, num_draws) for k, t in zip(keys, times)}


# ----------------------------------------------------------------------------- Lemma 5
def max_cov_excess(covs, S0):
    """max_t λ_max(Σ_t − S₀) over a stack covs (..., d, d) (Lemma 5: ≤ 0)."""
    return float(jnp.max(jnp.linalg.eigvalsh(covs - S0)))
