"""Checks of the statements of Alquier's EcoSta 2019 slides: the ELBO slide, the EWA regret
theorem (with its online-to-batch corollary) and the SVA regret bound.

* ELBO slide. Conjugate model x_i ~ N(θ, I_d), prior π = N(0, s² I). The tempered posterior
  π_{n,α} ∝ L_n^α π is N(α Σx_i / (1/s² + αn), (1/s² + αn)⁻¹ I), so it is its own Gaussian
  argmin of K(ρ, π_{n,α}). `neg_elbo` is the slide's bracket −α c Σ_i ∫ log p_θ(x_i) ρ(dθ) + K(ρ, π)
  with c = 1/n (as printed) or c = 1 (K(ρ, π_{n,α}) up to a constant); `gaussian_argmin`
  minimises it numerically over (m, log σ).
* EWA regret (slide "A regret bound for EWA"): for a loss convex in θ with |ℓ| ≤ C,
      Σ_t ℓ_t(θ_t) ≤ inf_p [Σ_t E_p ℓ_t + αC²T/2 + K(p, π)/α].
  On a finite grid Θ_K the infimum is Donsker–Varadhan's: inf_p [E_p L + K(p, π)/α] =
  −(1/α) log Σ_k π_k e^{−α L_k}, L_k = Σ_t ℓ_t(θ_k) (`dv_infimum`). The model is Bernoulli,
  θ ∈ [δ, 1 − δ], ℓ_t(θ) = −x_t log θ − (1 − x_t) log(1 − θ), convex, |ℓ| ≤ C = −log δ.
* SVA regret (slide "A regret bound for SVA"), for a mean-field Gaussian q_{m,σ} and prior
  N(0, s² I) on logistic data:
      Σ_t ℓ_t(θ_t) ≤ inf_μ {Σ_t E_{q_μ} ℓ_t + αL²T/γ + K(q_μ, π)/α},
  with L and γ computed (`logistic_lipschitz`, `kl_strong_convexity`).

References
----------
P. Alquier (2019). Generalization bounds for variational inference. Slides, EcoSta 2019.
B.-E. Chérif-Abdellatif, P. Alquier, M. E. Khan (2019). A generalization bound for online
variational inference. ACML 2019 (arXiv:1904.03920).
N. Cesa-Bianchi, G. Lugosi (2006). Prediction, Learning, and Games, Section 2.2 (EWA).
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import logsumexp
from scipy.optimize import minimize

from lsvi.core import online
from lsvi.core.losses import kl_gaussian


# ---------------------------------------------------------------- ELBO slide (conjugate Gaussian)
def conjugate_tempered_posterior(x, alpha, prior_sd):
    """π_{n,α} for x (n, d) i.i.d. N(θ, I_d), prior N(0, s² I): (mean (d,), sd (d,))."""
    n, d = x.shape
    prec = 1.0 / prior_sd**2 + alpha * n
    return alpha * x.sum(0) / prec, jnp.full(d, 1.0 / jnp.sqrt(prec))


def neg_elbo(m, sigma, x, alpha, prior_sd, per_observation: bool):
    """−ELBO(ρ) of the slide for ρ = N(m, diag σ²): α c Σ_i E_ρ[−log p_θ(x_i)] + K(ρ, π), c = 1/n or 1."""
    n, d = x.shape
    nll = 0.5 * jnp.sum((x - m) ** 2) + 0.5 * n * jnp.sum(sigma**2) + 0.5 * n * d * jnp.log(2 * jnp.pi)
    kl = kl_gaussian(m, jnp.diag(sigma**2), jnp.zeros_like(m), jnp.diag(jnp.full_like(m, prior_sd**2)))
    return alpha * nll / (n if per_observation else 1.0) + kl


def gaussian_argmin(objective, m0, s0, gtol: float = 1e-13):
    """Numerical argmin of objective(m (d,), σ (d,)) over (m, log σ): trust region with exact
    derivatives (autodiff). Returns (m, σ, ‖gradient‖∞ at the end)."""
    d = m0.shape[0]
    f = lambda p: objective(p[:d], jnp.exp(p[d:]))
    g = jax.jit(jax.grad(f))
    H = jax.jit(jax.hessian(f))
    res = minimize(lambda p: float(f(jnp.asarray(p))), np.concatenate([m0, np.log(s0)]),
                   jac=lambda p: np.asarray(g(jnp.asarray(p))), hess=lambda p: np.asarray(H(jnp.asarray(p))),
                   method="trust-exact", options={"gtol": gtol, "maxiter": 500})
    return res.x[:d], np.exp(res.x[d:]), float(np.max(np.abs(g(jnp.asarray(res.x)))))


def elbo_argmin(x, alpha, prior_sd, per_observation: bool):
    """The Gaussian maximiser (m (d,), σ (d,), ‖gradient‖∞) of the slide's ELBO (`neg_elbo`) on data x (n, d),
    by `gaussian_argmin` from m = 0, σ = 1."""
    d = x.shape[1]
    objective = partial(_neg_elbo_at, x=x, alpha=alpha, prior_sd=prior_sd, per_observation=per_observation)
    return gaussian_argmin(objective, np.zeros(d), np.ones(d))


def _neg_elbo_at(m, sigma, *, x, alpha, prior_sd, per_observation):
    return neg_elbo(m, sigma, x, alpha, prior_sd, per_observation)


# ---------------------------------------------------------------- EWA on a Bernoulli grid
def bernoulli_loss(theta, x):
    """−log p_θ(x) = −x log θ − (1 − x) log(1 − θ); broadcasts."""
    return -(x * jnp.log(theta) + (1.0 - x) * jnp.log1p(-theta))


def ewa_bernoulli(key, grid, log_prior, alpha, T: int, q=None):
    """Run EWA (Algorithm 2) on the grid (K,) for T steps.

    q: if a float, x_t ~ Bernoulli(q) i.i.d.; if None, the adversarial sequence
    x_t = 1[θ_t < 1/2] (the outcome that costs the forecaster the most).
    Returns (incurred (T,) = ℓ_t(θ_t), θ_t (T,), x (T,), grid cumulative losses L (K,))."""
    return _ewa_run(key, grid, log_prior, alpha, 0.5 if q is None else q, int(T), q is None)


@partial(jax.jit, static_argnums=(5, 6))
def _ewa_run(key, grid, log_prior, alpha, q, T, adversarial):
    u = jax.random.uniform(key, (T,))

    def step(L, u_t):
        lw = log_prior - alpha * L
        theta = jnp.exp(lw - logsumexp(lw)) @ grid
        x = jnp.where(theta < 0.5, 1.0, 0.0) if adversarial else (u_t < q).astype(grid.dtype)
        return L + bernoulli_loss(grid, x), (bernoulli_loss(theta, x), theta, x)

    L, (incurred, thetas, xs) = jax.lax.scan(step, jnp.zeros_like(grid), u)
    return incurred, thetas, xs, L


def dv_infimum(log_prior, L, alpha):
    """inf_p [E_p L + K(p, π)/α] = −(1/α) log Σ_k π_k e^{−α L_k} (Donsker–Varadhan) on a grid."""
    return -logsumexp(log_prior - alpha * L) / alpha


def ewa_regret_bound(log_prior, L, alpha, C, T):
    """Right-hand side of the EWA theorem: inf_p[E_p L + K(p, π)/α] + αC²T/2."""
    return dv_infimum(log_prior, L, alpha) + alpha * C**2 * T / 2.0


def bernoulli_kl(q, theta):
    """K(Ber(q), Ber(θ)); broadcasts."""
    return q * jnp.log(q / theta) + (1 - q) * jnp.log((1 - q) / (1 - theta))


def online_to_batch_excess(thetas, grid, q):
    """K(Q, P_θ̂_T) − inf_{θ∈grid} K(Q, P_θ), θ̂_T = mean of the forecasts θ_1..θ_T."""
    return bernoulli_kl(q, jnp.mean(thetas)) - jnp.min(bernoulli_kl(q, grid))


# ---------------------------------------------------------------- SVA regret bound
def logistic_lipschitz(X):
    """L with |ℓ̄_t(μ) − ℓ̄_t(μ')| ≤ L‖μ − μ'‖ for μ = (m, σ), ℓ̄_t = E_{q_μ} log(1 + e^{−y x_tᵀθ}).

    ∇_m ℓ̄ = E[ℓ' x], ∇_σ ℓ̄ = E[ℓ' x ⊙ z] with |ℓ'| ≤ 1 and θ = m + σ ⊙ z, z ~ N(0, I):
    ‖∇_m‖ ≤ ‖x‖ and, by Jensen, ‖∇_σ‖² ≤ E Σ x_i² z_i² = ‖x‖², so L = √2 max_t ‖x_t‖."""
    return float(np.sqrt(2.0) * np.max(np.linalg.norm(np.asarray(X), axis=1)))


def kl_strong_convexity(prior_sd):
    """γ: μ = (m, σ) ↦ K(N(m, diag σ²), N(0, s² I)) = Σ_i [log(s/σ_i) + (σ_i² + m_i²)/(2s²) − ½] has
    Hessian diag(1/s², 1/σ² + 1/s²) ⪰ I/s², so γ = 1/s² (and no larger: 1/σ² → 0 as σ → ∞)."""
    return 1.0 / prior_sd**2


def sva_regret_bound(loss_name, X, y, alpha, prior_sd):
    """(bound, L, γ, the infimum's ‖gradient‖∞) of the SVA theorem's right-hand side on (X, y).

    The infimum over μ = (m, σ) of Σ_t E_{q_μ} ℓ_t + K(q_μ, π)/α is computed numerically
    (`gaussian_argmin`, a convex problem in (m, σ)); L is computed for the logistic loss only
    (the squared loss is not Lipschitz)."""
    if loss_name != "logistic":
        raise ValueError("the SVA bound needs a Lipschitz loss: logistic only")
    loss = online.logistic_loss
    d = X.shape[1]
    prior = lambda m, s: kl_gaussian(m, jnp.diag(s**2), jnp.zeros(d), jnp.diag(jnp.full(d, prior_sd**2)))
    total = lambda m, s: jnp.sum(jax.vmap(lambda x, yt: online.expected_loss(loss, m, s**2, x, yt))(X, y))
    objective = lambda m, s: total(m, s) + prior(m, s) / alpha
    m, s, grad = gaussian_argmin(objective, np.zeros(d), np.full(d, prior_sd), gtol=1e-9)
    L, gamma = logistic_lipschitz(X), kl_strong_convexity(prior_sd)
    T = X.shape[0]
    return float(objective(jnp.asarray(m), jnp.asarray(s))) + alpha * L**2 * T / gamma, L, gamma, grad


def ewa_study(key, horizons, c, grid, log_prior, C, q=None, repetitions: int = 1):
    """EWA with α = c/√T for each horizon T: one row per (T, repetition) with the cumulative loss,
    the theorem's bound, the regret R(T) = Σ ℓ_t(θ_t) − min_k L_k and (for i.i.d. data, q a float)
    the online-to-batch excess K(Q, P_θ̂_T) − inf_k K(Q, P_θk). Returns a list of dicts."""
    rows = []
    for T in horizons:
        alpha = c / np.sqrt(T)
        keys = jax.random.split(jax.random.fold_in(key, T), repetitions)
        run = jax.vmap(lambda k: _ewa_run(k, grid, log_prior, alpha, 0.5 if q is None else q, int(T), q is None))
        incurred, thetas, _, L = run(keys)
        for r in range(repetitions):
            row = {"T": int(T), "rep": r, "alpha": alpha, "cumulative_loss": float(incurred[r].sum()),
                   "bound": float(ewa_regret_bound(log_prior, L[r], alpha, C, T)),
                   "regret": float(incurred[r].sum() - L[r].min())}
            if q is not None:
                row["excess_kl"] = float(online_to_batch_excess(thetas[r], grid, q))
            rows.append(row)
    return rows


def tempered_posterior_grid(grid, log_prior, x, alpha):
    """π_{t,α} on the grid from the counts of x (t,) ∈ {0, 1}: log π + α (k log θ + (t − k) log(1 − θ)),
    normalised (K,) — the batch formula, independent of EWA's sequential update."""
    k, t = jnp.sum(x), x.shape[0]
    lw = log_prior + alpha * (k * jnp.log(grid) + (t - k) * jnp.log1p(-grid))
    return lw - logsumexp(lw)


def newton_distance(objective, m, s):
    """The optimiser's own error estimate at a numerical argmin (m, σ) of objective(m, σ) found in (m, log σ): the Newton step
    H⁻¹∇ there (autodiff, in (m, log σ)), mapped to (m, σ) (δσ = σ δlogσ); returns its max-abs size."""
    d = m.shape[0]
    f = lambda p: objective(p[:d], jnp.exp(p[d:]))  # noqa: E731
    p = jnp.concatenate([jnp.asarray(m), jnp.log(jnp.asarray(s))])
    step = jnp.linalg.solve(jax.hessian(f)(p), jax.grad(f)(p))
    return float(jnp.max(jnp.abs(jnp.concatenate([step[:d], jnp.asarray(s) * step[d:]]))))


def closed_form_discrepancies(seed: int, d: int, cases: int, prior_sd: float = 1.0):
    """Per update ("svb", "sva", "ngvi"): {"discrepancy": max |closed form − numerical argmin|, "optimiser": max Newton-step
    size at the numerical argmin (`newton_distance`, how far the optimiser may be from the exact argmin)}, over random
    cases (state, datum, α, β); SVB and NGVI on the logistic and the squared loss."""
    rng = np.random.default_rng(seed)
    out = {k: {"discrepancy": 0.0, "optimiser": 0.0} for k in ("svb", "sva", "ngvi")}
    for c in range(cases):
        m_t, s_t = jnp.asarray(rng.normal(size=d)), jnp.asarray(rng.uniform(0.2, 2.0, d))
        x, y = jnp.asarray(rng.normal(size=d)), float(rng.choice([-1.0, 1.0]))
        alpha, beta = float(10 ** rng.uniform(-2, 0.5)), float(10 ** rng.uniform(-2, 0.5))
        loss = online.logistic_loss if c % 2 else online.squared_loss
        g_m, g_s = online.grad_location_scale(loss, m_t, s_t, x, y)
        g1, g2 = online.grad_expectation(loss, m_t, s_t, x, y)
        G_m, G_s = g_m * (c + 1), g_s * (c + 1)
        candidates = {
            "svb": (online.svb_step(g_m, g_s, m_t, s_t, alpha),
                    lambda m, s: online.svb_objective(m, s, g_m, g_s, m_t, s_t, alpha)),
            "sva": (online.sva_step(G_m, G_s, alpha, prior_sd),
                    lambda m, s: online.sva_objective(m, s, G_m, G_s, alpha, prior_sd)),
            "ngvi": (online.ngvi_step(g1, g2, m_t, s_t, alpha, beta, prior_sd),
                     lambda m, s: online.ngvi_objective(m, s, g1, g2, m_t, s_t, alpha, beta, prior_sd)),
        }
        for name, ((m, s), objective) in candidates.items():
            m_num, s_num, _ = gaussian_argmin(objective, np.asarray(m_t), np.asarray(s_t))
            gap = float(np.max(np.abs(np.concatenate([m - m_num, s - s_num]))))
            out[name]["discrepancy"] = max(out[name]["discrepancy"], gap)
            out[name]["optimiser"] = max(out[name]["optimiser"], newton_distance(objective, m_num, s_num))
    return out


def ewa_weights_vs_tempered(grid, log_prior, x, alpha):
    """The EWA slide's claim about p_t, on the sequence x (n,) ∈ {0, 1}: returns
    (max_t max_k |log p_t − log π_{t−1,α}|, min_t max_k |p_t − π_{n,α}|) over t = 1..n, p_t from the
    sequential update (`online.ewa_log_weights`), π from the counts (`tempered_posterior_grid`)."""
    lw = online.ewa_log_weights(log_prior, bernoulli_loss(grid[None, :], x[:, None]), alpha)
    final = jnp.exp(tempered_posterior_grid(grid, log_prior, x, alpha))
    n = x.shape[0]
    vs_t = max(float(jnp.max(jnp.abs(lw[t] - tempered_posterior_grid(grid, log_prior, x[:t], alpha)))) for t in range(n))
    vs_n = min(float(jnp.max(jnp.abs(jnp.exp(lw[t]) - final))) for t in range(n))
    return vs_t, vs_n


def sva_bound_table(X, y, alphas, prior_sd):
    """For each α: SVA's cumulative loss on (X, y) (logistic) next to the theorem's bound (`sva_regret_bound`).
    Returns a list of dicts (alpha, L, gamma, cumulative_loss, bound, inf_grad)."""
    rows = []
    for a in alphas:
        bound, L, gamma, grad = sva_regret_bound("logistic", X, y, a, prior_sd)
        sva = online.build_sva(online.logistic_loss, alpha=a, prior_sd=prior_sd)
        cumulative = float(online.run(sva, X, y)[0].sum())
        rows.append({"alpha": a, "L": L, "gamma": gamma, "cumulative_loss": cumulative, "bound": bound, "inf_grad": grad})
    return rows
