"""α-variational Bayes for a Gaussian mixture with hidden labels (notebook 53, §2).

Alquier's slides (EcoSta 2019, "Consistency results", ②) cite Bhattacharya, Pati & Yang (2019)
for the "extension to models with hidden variables" of the consistency of the variational
approximation π̃_{n,α} of the tempered posterior π_{n,α}(dμ) ∝ exp(α Σ_i log p_μ(X_i)) π(dμ).
The slides state no theorem; this module computes what the notebook needs to *illustrate* it on
a model where the exact tempered posterior is computable by quadrature.

Model (K components in R^D, known weights w (K,), unit covariances, unknown means μ (K, D)):

    z_i ~ Cat(w),   x_i | z_i = k ~ N(μ_k, I_D),   μ_k ~ N(m₀, s₀² I_D) independently,

so that p_μ(x) = Σ_k w_k N(x; μ_k, I_D): the labels z_i are the hidden variables.

α-VB (reconstructed, after the α-VB objective of Yang, Pati & Bhattacharya for latent-variable
models; the slides give none): the mean-field family q(μ, z) = Π_k q(μ_k) Π_i q(z_i) and

    L_α(q) = α Σ_i E_q[log p(x_i, z_i | μ) − log q(z_i)] − K(q_μ, π)                   (α-ELBO)

to maximise. The tempering α multiplies the complete-data log-likelihood log p(x_i, z_i | μ) =
log w_{z_i} + log N(x_i; μ_{z_i}, I_D), and the entropy of q(z_i) with it, so that the inner term is
the ordinary lower bound of log p_μ(x_i) and L_α(q) ≤ α E_{q_μ} Σ_i log p_μ(x_i) − K(q_μ, π) (the
slides' ELBO of q_μ) ≤ log Z_{n,α}, Z_{n,α} = ∫ Π_i p_μ(x_i)^α π(dμ). Coordinate ascent (CAVI), each
block maximised exactly, so L_α never decreases (`cavi_step`):

    r_ik ∝ w_k exp(−½‖x_i − m_k‖² − ½ D v_k)        (q(z_i = k) = r_ik; α cancels)           (U1)
    v_k = 1 / (1/s₀² + α N_k),   N_k = Σ_i r_ik                                               (U2)
    m_k = v_k (m₀/s₀² + α Σ_i r_ik x_i)             (q(μ_k) = N(m_k, v_k I_D))               (U3)

Reference (independent of the VB): π_{n,α} itself restricted to the labelling μ_{1,1} < … < μ_{K,1}
(the one the VB's quantile initialisation selects), by importance-weighted Gauss–Hermite
quadrature in its Laplace coordinates (the rule of notebook 53's logistic reference,
`lsvi.papers.alquier.tempered_vi.reference_posterior`, with a closed-form Newton step), for K·D = 2 only; its
error is the change with 1.5× the nodes per axis.

Bernstein–von Mises (for the prediction the notebook compares with, not used by the VB):
Cov(π_{n,α}) ≈ (α n I_obs)⁻¹ with I_obs the observed-data Fisher information of p_μ at μ*
(`observed_information`), while (U2) gives v_k ≈ 1/(α n w_k): the mean-field VB uses the
complete-data information diag(w) ⪰ I_obs, so sd_VB,k / sd_exact,k → ρ_k = ((I_obs⁻¹)_kk w_k)^{-1/2} ≤ 1.

Shapes: x (n, D) data, a (n,) 0/1 mask of the rows in use (padding), r (n, K), m (K, D), v (K,),
θ = m.ravel() (K·D,).

References
----------
A. Bhattacharya, D. Pati, Y. Yang (2019). Bayesian fractional posteriors. Annals of Statistics 47(1), 39–66.
Y. Yang, D. Pati, A. Bhattacharya (2020). α-variational inference with statistical guarantees.
Annals of Statistics 48(2), 886–905.
P. Alquier (2019). Generalization bounds for variational inference. Slides, EcoSta 2019.
"""
from __future__ import annotations

import itertools
from functools import partial
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
from jax.scipy.special import logsumexp

from lsvi.core import quadrature

LOG_2PI = float(np.log(2.0 * np.pi))


# ---------------------------------------------------------------- data
def simulate(seed, n: int, means, weights) -> np.ndarray:
    """x (n, D): z_i ~ Cat(w), x_i ~ N(μ_{z_i}, I_D); ``seed`` an int or a tuple (NumPy SeedSequence entropy)."""
    rng = np.random.default_rng(seed)
    means = np.atleast_2d(np.asarray(means, float).T).T  # (K,) → (K, 1)
    z = rng.choice(len(weights), size=n, p=np.asarray(weights, float))
    return means[z] + rng.normal(size=(n, means.shape[1]))


def init_means(x, K: int) -> np.ndarray:
    """m (K, D): the data points at the quantiles (k + ½)/K of the first coordinate (deterministic; orders the
    components by their first coordinate)."""
    x = np.asarray(x, float)
    order = np.argsort(x[:, 0])
    return x[order[((np.arange(K) + 0.5) / K * len(x)).astype(int)]]


# ---------------------------------------------------------------- α-VB
class CaviResult(NamedTuple):
    m: jax.Array       # (K, D) means of q(μ_k)
    v: jax.Array       # (K,) variances of q(μ_k) (per coordinate)
    r: jax.Array       # (n, K) q(z_i = k)
    elbo: jax.Array    # L_α at the returned q
    sweeps: jax.Array  # sweeps done
    change: jax.Array  # max |Δm| + max |Δ log v| of the last sweep


def _log_lik_terms(x, m, v):
    """E_{q(μ_k)} log N(x_i; μ_k, I_D) (n, K) for q(μ_k) = N(m_k, v_k I_D)."""
    D = x.shape[1]
    sq = jnp.sum((x[:, None, :] - m[None, :, :]) ** 2, axis=-1)
    return -0.5 * (sq + D * v[None, :]) - 0.5 * D * LOG_2PI


def update_labels(x, m, v, weights):
    """(U1): r (n, K), r_ik ∝ w_k exp(E_q log N(x_i; μ_k, I_D))."""
    s = jnp.log(weights)[None, :] + _log_lik_terms(x, m, v)
    return jnp.exp(s - logsumexp(s, axis=1, keepdims=True))


def update_means(x, a, r, alpha, prior_mean, prior_var):
    """(U2)–(U3): (m (K, D), v (K,)) from r (n, K), the rows weighted by the mask a (n,)."""
    ra = r * a[:, None]
    v = 1.0 / (1.0 / prior_var + alpha * ra.sum(axis=0))
    m = v[:, None] * (prior_mean / prior_var + alpha * ra.T @ x)
    return m, v


def cavi_step(x, a, m, v, weights, alpha, prior_mean, prior_var):
    """One CAVI sweep (U1 then U2–U3): (r (n, K), m (K, D), v (K,))."""
    r = update_labels(x, m, v, weights)
    return (r, *update_means(x, a, r, alpha, prior_mean, prior_var))


def elbo(x, a, r, m, v, weights, alpha, prior_mean, prior_var):
    """L_α(q) (α-ELBO) for q(z_i) = r_i, q(μ_k) = N(m_k, v_k I_D); rows with a_i = 0 are left out (scalar)."""
    D = x.shape[1]
    logr = jnp.log(jnp.clip(r, 1e-300))
    complete = jnp.sum(a[:, None] * r * (jnp.log(weights)[None, :] + _log_lik_terms(x, m, v) - logr))
    kl = 0.5 * jnp.sum(D * v / prior_var + jnp.sum((m - prior_mean) ** 2, axis=1) / prior_var - D
                       + D * jnp.log(prior_var / v))
    return alpha * complete - kl


def cavi(x, a, m_init, weights, alpha, prior_mean, prior_var, tol: float = 1e-10, max_sweeps: int = 2000) -> CaviResult:
    """CAVI from q(μ_k) = N(m_init_k, I_D) until max |Δm| + max |Δ log v| < tol (or max_sweeps)."""
    K = m_init.shape[0]

    def cond(c):
        return (c[3] < max_sweeps) & (c[4] >= tol)

    def body(c):
        m, v, _, it, _ = c
        r, m2, v2 = cavi_step(x, a, m, v, weights, alpha, prior_mean, prior_var)
        change = jnp.max(jnp.abs(m2 - m)) + jnp.max(jnp.abs(jnp.log(v2) - jnp.log(v)))
        return m2, v2, r, it + 1, change

    r0 = jnp.zeros((x.shape[0], K))
    m, v, r, it, change = jax.lax.while_loop(cond, body, (m_init, jnp.ones(K), r0, 0, jnp.inf))
    return CaviResult(m, v, r, elbo(x, a, r, m, v, weights, alpha, prior_mean, prior_var), it, change)


# ---------------------------------------------------------------- the exact tempered posterior
def mixture_loglik(x, a, weights):
    """B (M, K·D) -> Σ_i a_i log p_μ(x_i) (M,), μ = B reshaped (M, K, D); one row of B at a time (`lax.map`:
    memory O(n K), not O(M n K))."""
    K, D = weights.shape[0], x.shape[1]

    def one(mu):
        s = jnp.log(weights)[None, :] - 0.5 * jnp.sum((x[:, None, :] - mu[None, :, :]) ** 2, axis=-1)
        return (logsumexp(s, axis=1) - 0.5 * D * LOG_2PI) @ a

    return lambda B: jax.lax.map(one, B.reshape(B.shape[0], K, D))


def tempered_log_target(x, a, weights, alpha, prior_mean, prior_var, ordered: bool = False):
    """B (M, K·D) -> log π(μ) + α Σ_i a_i log p_μ(x_i) (M,) (log π_{n,α} + const); with ``ordered``, −∞ unless
    μ_{1,1} < … < μ_{K,1} (the labelling the VB selects)."""
    K, D = weights.shape[0], x.shape[1]
    loglik = mixture_loglik(x, a, weights)

    def f(B):
        prior = -0.5 * jnp.sum((B - prior_mean) ** 2, axis=1) / prior_var - 0.5 * B.shape[1] * (LOG_2PI + jnp.log(prior_var))
        out = prior + alpha * loglik(B)
        if ordered:
            first = B.reshape(B.shape[0], K, D)[:, :, 0]
            out = jnp.where(jnp.all(jnp.diff(first, axis=1) > 0, axis=1), out, -jnp.inf)
        return out

    return f


def grad_hess(x, a, weights, alpha, prior_mean, prior_var):
    """θ (K·D,) -> (∇, ∇²) (K·D,), (K·D, K·D) of log π(μ) + α Σ_i a_i log p_μ(x_i), in closed form: with
    γ_ik = q(z_i = k | x_i, μ) and d_ik = x_i − μ_k, ∇_k = −(μ_k − m₀)/s₀² + α Σ_i a_i γ_ik d_ik and
    ∇²_kl = −δ_kl I/s₀² + α Σ_i a_i [δ_kl γ_ik (d_ik d_ikᵀ − I) − γ_ik γ_il d_ik d_ilᵀ]."""
    K, D = weights.shape[0], x.shape[1]

    def f(theta):
        mu = theta.reshape(K, D)
        d = x[:, None, :] - mu[None, :, :]  # (n, K, D)
        s = jnp.log(weights)[None, :] - 0.5 * jnp.sum(d**2, axis=-1)
        g = jnp.exp(s - logsumexp(s, axis=1, keepdims=True)) * a[:, None]  # a_i γ_ik (n, K)
        grad = -(mu - prior_mean) / prior_var + alpha * jnp.einsum("nk,nkd->kd", g, d)
        gd = g[:, :, None] * d  # (n, K, D)
        outer = jnp.einsum("nkd,nle->kdle", gd, gd)  # Σ_i γ_ik γ_il d_ik d_ilᵀ
        diag = jnp.einsum("nkd,nke->kde", gd, d) - jnp.sum(g, axis=0)[:, None, None] * jnp.eye(D)
        eye_k = jnp.eye(K)[:, None, :, None]
        hess = -eye_k * jnp.eye(D)[None, :, None, :] / prior_var + alpha * (
            eye_k * diag[:, :, None, :] - outer)
        return grad.ravel(), hess.reshape(K * D, K * D)

    return f


def laplace_mode(x, a, weights, alpha, prior_mean, prior_var, theta_init, num_iter: int = 30):
    """Newton's method on log π_{n,α} from θ_init (K·D,): (mode (K·D,), −∇²⁻¹ there (K·D, K·D), ‖∇‖ there)."""
    gh = grad_hess(x, a, weights, alpha, prior_mean, prior_var)

    def body(_, theta):
        g, H = gh(theta)
        return theta - jnp.linalg.solve(H, g)

    mode = jax.lax.fori_loop(0, num_iter, body, theta_init)
    g, H = gh(mode)
    cov = jnp.linalg.inv(-H)
    return mode, 0.5 * (cov + cov.T), jnp.linalg.norm(g)


def exact_posterior(x, a, weights, alpha, prior_mean, prior_var, theta_init, num_nodes: int = 20):
    """π_{n,α} restricted to the ordered labelling, by importance-weighted Gauss–Hermite quadrature in its
    Laplace coordinates (Newton from θ_init (K·D,)): E_π g ≈ Σ_j w_j ρ_j g(θ_j) / Σ_j w_j ρ_j, θ_j = mode + L z_j,
    ρ = exp(log π_{n,α} − log N(mode, LLᵀ)). Returns (mean (K·D,), cov (K·D, K·D)) with ``num_nodes`` and with
    ⌊1.5·num_nodes⌋ nodes per axis (both rules in one evaluation of the target), and ‖∇ log π_{n,α}‖ at the
    Laplace mode. For K·D ≤ 2 (tensor rule)."""
    d = theta_init.shape[0]
    f_batch = tempered_log_target(x, a, weights, alpha, prior_mean, prior_var, ordered=True)
    mode, cov_l, grad_norm = laplace_mode(x, a, weights, alpha, prior_mean, prior_var, theta_init)
    L = jnp.linalg.cholesky(cov_l)
    rules = [quadrature.gauss_hermite(d, k) for k in (num_nodes, (3 * num_nodes) // 2)]
    Z = jnp.concatenate([r[0] for r in rules])
    X = mode + Z @ L.T
    logf = f_batch(X) + 0.5 * jnp.sum(Z**2, axis=1)  # log π_{n,α} − log q_Laplace + const
    out, start = [], 0
    for _, w in rules:
        sl = slice(start, start + w.shape[0])
        start += w.shape[0]
        logr = jnp.log(w) + logf[sl]
        p = jnp.exp(logr - logsumexp(logr))
        mean = p @ X[sl]
        C = X[sl] - mean
        out += [mean, (C * p[:, None]).T @ C]
    return (*out, grad_norm)


def observed_information(means, weights, num_nodes: int = 60) -> np.ndarray:
    """I_obs(μ) (K·D, K·D) = E_x[s sᵀ] with the score s_k(x) = γ_k(x)(x − μ_k), x ~ p_μ (γ_k(x) = w_k N(x; μ_k, I) /
    p_μ(x)): per component, tensor Gauss–Hermite nodes around μ_k."""
    means = np.atleast_2d(np.asarray(means, float).T).T
    weights = np.asarray(weights, float)
    K, D = means.shape
    Z, w = (np.asarray(v) for v in quadrature.gauss_hermite(D, num_nodes))
    I = np.zeros((K * D, K * D))
    for k in range(K):
        xk = means[k] + Z  # (J, D)
        d = xk[:, None, :] - means[None, :, :]  # (J, K, D)
        s = np.log(weights)[None, :] - 0.5 * np.sum(d**2, axis=-1)
        g = np.exp(s - s.max(axis=1, keepdims=True))
        g /= g.sum(axis=1, keepdims=True)
        S = (g[:, :, None] * d).reshape(len(xk), K * D)
        I += weights[k] * (S * w[:, None]).T @ S
    return I


def spread_ratio_prediction(means, weights, num_nodes: int = 60) -> np.ndarray:
    """ρ (K,): the BvM limit of sd_VB,k / sd_exact,k for the first coordinate of μ_k, ((I_obs⁻¹)_kk w_k)^{-1/2}."""
    weights = np.asarray(weights, float)
    Iinv = np.linalg.inv(observed_information(means, weights, num_nodes))
    D = Iinv.shape[0] // weights.size
    return 1.0 / np.sqrt(np.diag(Iinv)[::D] * weights)


# ---------------------------------------------------------------- one data set, and the study
def label_distance(m, truth):
    """min over permutations σ of ‖m − truth[σ]‖_F, m and truth (K, D) (the error up to label switching)."""
    return jnp.min(jnp.stack([jnp.linalg.norm(m - truth[jnp.asarray(p)]) for p in itertools.permutations(range(m.shape[0]))]))


@partial(jax.jit, static_argnames=("ref_nodes", "reference", "max_sweeps"))
def analyse(x, a, alpha, m_init, weights, prior_mean, prior_var, truth, ref_nodes: int = 20, reference: bool = True,
            tol: float = 1e-10, max_sweeps: int = 2000):
    """α-VB (CAVI) and, with ``reference`` (K·D = 2), the exact ordered π_{n,α} for one data set x (n, D) with mask
    a (n,). Returns a dict of scalars and arrays (see `study` for the columns)."""
    res = cavi(x, a, m_init, weights, alpha, prior_mean, prior_var, tol, max_sweeps)
    D = x.shape[1]
    out = dict(err=label_distance(res.m, truth), spread=jnp.sqrt(D * jnp.sum(res.v)), sd_vb=jnp.sqrt(res.v),
               m=res.m, elbo=res.elbo, sweeps=res.sweeps, change=res.change,
               ordered=jnp.all(jnp.diff(res.m[:, 0]) > 0))
    if reference:
        mean, cov, mean2, cov2, grad_norm = exact_posterior(x, a, weights, alpha, prior_mean, prior_var, res.m.ravel(),
                                                            ref_nodes)
        sd, sd2 = jnp.sqrt(jnp.diag(cov)[::D]), jnp.sqrt(jnp.diag(cov2)[::D])
        out.update(sd_exact=sd2, err_exact=label_distance(mean2.reshape(-1, D), truth),
                   mean_gap_sd=jnp.max(jnp.abs(res.m[:, 0] - mean2[::D]) / sd2),
                   ref_err_sd=jnp.max(jnp.abs(sd2 - sd) / sd2), ref_err_mean=jnp.max(jnp.abs(mean2 - mean)[::D] / sd2),
                   laplace_grad=grad_norm)
    return out


def study(seed: int, n_grid, alphas, reps: int, means, weights, prior_var: float = 25.0, prior_mean: float = 0.0,
          ref_reps: int = 0, ref_nodes: int = 20, tol: float = 1e-10, max_sweeps: int = 2000) -> pd.DataFrame:
    """One row per (repetition, n, α). Data set (r, n) is simulated afresh with seed (seed, r, n) (independent
    across n: the intervals over repetitions of `lsvi.exact.statistics.bootstrap_loglog_slope` resample each n
    on its own) and shared by the α's; padded with masked rows to max(n_grid) (one compilation). The exact
    π_{n,α} is computed for the first ``ref_reps`` repetitions (K·D = 2 only).

    Columns: rep, n, alpha, err (‖m − μ*‖_F up to labels), spread (√(D Σ_k v_k) = √tr Cov_q), sd_vb_<k> (√v_k),
    elbo, sweeps, change, ordered (m_{1,1} < … < m_{K,1}) and, with the reference, sd_exact_<k> (sd of the first
    coordinate of μ_k under π_{n,α}), ratio_<k> = sd_vb_<k> / sd_exact_<k>, err_exact (its mean's error up to
    labels), mean_gap_sd (max_k |m_k − E_π μ_k| / sd_exact_k), ref_err_sd / ref_err_mean (the change of the
    reference's sd (relative) and mean (in sd) with 1.5× the nodes), laplace_grad; k = 1..K."""
    means = np.atleast_2d(np.asarray(means, float).T).T
    weights_j = jnp.asarray(weights, jnp.float64)
    K, D = means.shape
    if ref_reps and K * D != 2:
        raise ValueError("the quadrature reference needs K·D = 2")
    n_grid = sorted(int(n) for n in n_grid)
    n_max, rows = n_grid[-1], []
    for r in range(reps):
        for n in n_grid:
            x = simulate((seed, r, n), n, means, weights)
            m_init = jnp.asarray(init_means(x, K))
            xp = jnp.asarray(np.concatenate([x, np.zeros((n_max - n, D))]))
            a = jnp.asarray(np.r_[np.ones(n), np.zeros(n_max - n)])
            for alpha in alphas:
                out = analyse(xp, a, jnp.float64(alpha), m_init, weights_j, jnp.float64(prior_mean),
                              jnp.float64(prior_var), jnp.asarray(means), ref_nodes, r < ref_reps, tol, max_sweeps)
                out = jax.tree_util.tree_map(np.asarray, out)
                row = dict(rep=r, n=n, alpha=float(alpha))
                out.pop("m")
                for key in ("sd_vb", "sd_exact"):
                    if key in out:
                        row.update({f"{key}_{k + 1}": float(s) for k, s in enumerate(out.pop(key))})
                if "sd_exact_1" in row:
                    row.update({f"ratio_{k + 1}": row[f"sd_vb_{k + 1}"] / row[f"sd_exact_{k + 1}"] for k in range(K)})
                row.update({k: (bool(v) if k == "ordered" else float(v)) for k, v in out.items()})
                rows.append(row)
    return pd.DataFrame(rows)


def seed_interval(Y, level: float = 0.95, num_boot: int = 2000, seed: int = 0):
    """Percentile bootstrap interval of the mean over repetitions, per column: Y (R, J) -> (lo (J,), hi (J,))."""
    Y = np.asarray(Y, float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, Y.shape[0], size=(num_boot, Y.shape[0]))
    means = Y[idx].mean(axis=1)
    return np.quantile(means, 0.5 - level / 2, axis=0), np.quantile(means, 0.5 + level / 2, axis=0)
