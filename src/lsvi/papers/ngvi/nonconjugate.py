"""Stochastic NGVI with non-conjugate likelihoods (Wu & Gardner, Sections 3.2, 5, 6.2; Appendices B, E, F.2).

Bayesian logistic regression with a Gaussian prior N(0, V) and a full-covariance Gaussian q = N(m, Σ).
Flipped design x̃_i = y_i x_i (rows of ``Xf`` (n, d), `lsvi.data.datasets`), log-likelihood
f(β) = Σ_i log σ(x̃_iᵀβ), negative ELBO (eq. 1)

    ℓ(q) = −E_q f(β) + KL(q ‖ N(0, V)).

Parameterisations (reconstructed from §2.1, eq. 5–6 and §A.2; the inline maths of the text is lost):
  natural       θ = (Σ⁻¹m, −½Σ⁻¹)      (the project's ``gaussian_fullcov`` η̄: (Σ⁻¹m, quad-coefficients of −½Σ⁻¹))
  expectation   ω = (m, S), S = E[ββᵀ] = Σ + mmᵀ
  "square root" (m, L), Σ = LLᵀ, L lower triangular (the SGD parameterisation of Appendix F).

Exact expected log-likelihood: u_i = x̃_iᵀβ ~ N(x̃_iᵀm, x̃_iᵀΣx̃_i) is one-dimensional, so E_q f is a sum of
n one-dimensional Gauss–Hermite integrals (`lsvi.papers.ngvi.checks.landscape.expected_loglik`, with the parameter
maps and the gradient estimators below) — exact to quadrature precision.

Gradients (§3.2, eq. 11; Bonnet and Price theorems):
  ∇_m E f = E ∇f(β),   ∇_Σ E f = ½ E ∇²f(β);
  chain rule through m = ω₁, Σ = ω₂ − ω₁ω₁ᵀ:   ∇_{ω₁} = ∇_m − 2 ∇_Σ m,   ∇_{ω₂} = ∇_Σ;
  through Σ = LLᵀ:  ∇_L = 2 ∇_Σ L.
  ``price``: E replaced by S draws β_s = m + Lz_s (eq. 11). ``autodiff`` (Algorithm 1): autodiff of
  S⁻¹Σ_s f(m + chol(ω₂ − ω₁ω₁ᵀ) z_s) with respect to ω. ``exact``: the 1-D quadrature.

NGD (eq. 8) with ∇_ω KL(q‖p) = θ − θ_p (§3.1):  θ_{t+1} = (1 − ρ_t) θ_t + ρ_t (θ_p + ĝ_t), ĝ_t ≈ ∇_ω E_q f:
the library's `lsvi.core.ngvi` (Wu & Gardner's stochastic NGVI), with the closed-form Price averages below.
SGD (Appendix F): (m, L) ← (m, L) − γ ∇ℓ̂, L kept lower triangular, diag(L) clamped below at ``min_diag``.

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

from lsvi.papers.ngvi.checks.landscape import exact_moment_gradients, neg_elbo, pack_sqrt, price_gradients, unpack_sqrt
from lsvi.core import ngvi
from lsvi.core.families.gaussian import fullcov_from_natural
from lsvi.core.losses import kl_gaussian
from lsvi.core.targets import log_sigmoid


# ---------------------------------------------------------------- NGD and SGD kernels
class SGDState(NamedTuple):
    m: jnp.ndarray  # (d,)
    L: jnp.ndarray  # (d, d) lower triangular
    t: int


def ngd_init(m, Sigma) -> ngvi.NGVIState:
    return ngvi.init(m, Sigma)


def _prior(d: int, prior_var):
    return jnp.zeros(d), jnp.diag(prior_var * jnp.ones(d))


def build_ngd_kernel(Xf, prior_var, num_samples: int):
    """kernel(key, state, ρ) -> (state, info): θ ← (1−ρ)θ + ρ(θ_p + ĝ), ĝ the Price estimate (eq. 8, 11), by
    `lsvi.core.ngvi` with the logistic model's closed-form Price averages (`ngvi_landscape.price_gradients`)."""
    gradient = ngvi.price_gradient(None, num_samples, derivatives=lambda m, L, Z: price_gradients(Xf, m, L, Z))
    return ngvi.build_kernel(*_prior(Xf.shape[1], prior_var), gradient)


def sgd_init(m, Sigma) -> SGDState:
    return SGDState(m, jnp.linalg.cholesky(Sigma), 0)


def build_sgd_kernel(Xf, prior_var, num_samples: int, estimator: str = "reparam", min_diag: float = 1e-4):
    """kernel(key, state, γ) -> (state, None): projected SGD in (m, L) on ℓ̂ / n (Appendix F).

    estimator "reparam": autodiff of −S⁻¹Σ_s f(m + Lz_s) (reparameterisation trick); "price": ∇_m = −ĝ_m,
    ∇_L = −2Ĝ_Σ L (the "(p)" curves). The KL term is differentiated exactly in both. The objective is
    divided by n, so γ is on the per-datum scale."""
    n, d = Xf.shape
    prior_cov = jnp.diag(prior_var * jnp.ones(d))
    kl = lambda m, L: kl_gaussian(m, L @ L.T, jnp.zeros(d), prior_cov)  # noqa: E731

    def kernel(key, state, gamma):
        m, L = state.m, state.L
        Z = jax.random.normal(key, (num_samples, d), dtype=m.dtype)
        km, kL = jax.grad(kl, argnums=(0, 1))(m, L)
        if estimator == "reparam":
            em, eL = jax.grad(lambda m_, L_: -jnp.mean(jax.vmap(lambda z: jnp.sum(log_sigmoid(Xf @ (m_ + L_ @ z))))(Z)),
                              argnums=(0, 1))(m, L)
        else:
            g_m, G_S = price_gradients(Xf, m, L, Z)
            em, eL = -g_m, -2.0 * G_S @ L
        m = m - gamma * (em + km) / n
        L = jnp.tril(L - gamma * (eL + kL) / n)
        L = L - jnp.diag(jnp.diag(L)) + jnp.diag(jnp.maximum(jnp.diag(L), min_diag))
        return SGDState(m, L, state.t + 1), None

    return kernel


def moments(state, d: int):
    """(m, Σ) of an NGD or SGD state."""
    if isinstance(state, ngvi.NGVIState):
        return fullcov_from_natural(state.eta, d)
    return state.m, state.L @ state.L.T


def run_trace(step, value, state, key, step_size, record):
    """Run a compiled ``step(key, state, step_size) -> (state, info)`` up to ``record[-1]`` steps at a constant step size;
    ``value(state)`` (the exact negative ELBO / n) at the iterations ``record`` (sorted ints, 0 = the initial point).
    Returns −ELBO/n (k,), NaN from the first non-finite value on (a divergent run)."""
    out, t = [], 0
    for r in record:
        while t < r:
            key, sub = jax.random.split(key)
            state, _ = step(sub, state, step_size)
            t += 1
        v = float(value(state))
        out.append(v)
        if not np.isfinite(v):
            out += [np.nan] * (len(record) - len(out))
            break
    return np.asarray(out)


def log_record(num_steps: int, per_decade: int = 8):
    """Recording iterations 0, 1, … on a log grid up to num_steps (unique ints)."""
    r = np.unique(np.round(np.logspace(0, np.log10(max(num_steps, 1)), per_decade * 4)).astype(int))
    return np.concatenate([[0], r])


def tuned_runs(Xf, prior_var, num_samples, num_steps, grids, seed: int, nodes, init_sd: float = 1.0, record=None):
    """Figure 2: each method over its step-size grid from q₀ = N(0, init_sd² I), same seeds.
    grids: {"sgd": [...], "sgd_price": [...], "ngd": [...]}. Returns a long DataFrame
    (method, step_size, t, neg_elbo) and the tuned step size per method (lowest final −ELBO/n; divergent runs
    (non-finite) are dropped, as in the paper). ``record``: recording iterations (default `log_record`; `final_stage_record`
    adds every iteration of the last quarter, for the oscillation measure of Section 6.2)."""
    import pandas as pd

    n, d = Xf.shape
    m0, S0 = jnp.zeros(d), init_sd**2 * jnp.eye(d)
    record = log_record(num_steps) if record is None else np.asarray(record)
    rows, best = [], {}
    value_ms = jax.jit(lambda m, S: neg_elbo(Xf, m, S, prior_var, nodes) / n)  # one compilation for all methods
    for method, grid in grids.items():
        kernel = (build_ngd_kernel(Xf, prior_var, num_samples) if method == "ngd" else
                  build_sgd_kernel(Xf, prior_var, num_samples, "price" if method == "sgd_price" else "reparam"))
        state0 = ngd_init(m0, S0) if method == "ngd" else sgd_init(m0, S0)
        step = jax.jit(kernel)
        value = jax.jit(lambda s: value_ms(*moments(s, d)))  # moments compiled with the value (one call per recorded t)
        finals = {}
        for h in grid:
            v = run_trace(step, value, state0, jax.random.PRNGKey(seed), h, record)
            rows += [{"method": method, "step_size": h, "t": int(a), "neg_elbo": float(b)} for a, b in zip(record, v)]
            finals[h] = v[-1]
        ok = {h: f for h, f in finals.items() if np.isfinite(f)}
        best[method] = min(ok, key=ok.get) if ok else None
    return pd.DataFrame(rows), best


def held_out_runs(Xf, prior_var, num_samples, num_steps, best: dict, seeds, nodes, init_sd: float = 1.0):
    """Figure 2 on held-out seeds: each method at its tuned step size (``best``, chosen on another seed by `tuned_runs`),
    rerun with each seed of ``seeds``. Returns {method: (len(seeds), len(record)) −ELBO/n}, and the record (iterations)."""
    n, d = Xf.shape
    m0, S0 = jnp.zeros(d), init_sd**2 * jnp.eye(d)
    record = log_record(num_steps)
    value_ms = jax.jit(lambda m, S: neg_elbo(Xf, m, S, prior_var, nodes) / n)
    out = {}
    for method, h in best.items():
        if h is None:
            out[method] = np.full((len(seeds), len(record)), np.nan)
            continue
        kernel = (build_ngd_kernel(Xf, prior_var, num_samples) if method == "ngd" else
                  build_sgd_kernel(Xf, prior_var, num_samples, "price" if method == "sgd_price" else "reparam"))
        state0 = ngd_init(m0, S0) if method == "ngd" else sgd_init(m0, S0)
        step = jax.jit(kernel)
        value = jax.jit(lambda s: value_ms(*moments(s, d)))  # moments compiled with the value (one call per recorded t)
        out[method] = np.stack([run_trace(step, value, state0, jax.random.PRNGKey(int(k)), h, record) for k in seeds]) \
            if len(seeds) else np.empty((0, len(record)))
    return out, record


def exact_ngd(Xf, prior_var, m0, Sigma0, rho: float, num_steps: int, nodes):
    """Deterministic NGD (eq. 8) with the exact (quadrature) gradient: (m, Σ) after ``num_steps`` steps
    (`lsvi.core.ngvi` with a gradient that ignores its key)."""
    d = Xf.shape[1]
    exact = lambda key, m, S: ngvi.expectation_gradient(*exact_moment_gradients(Xf, m, S, nodes), m)  # noqa: E731
    kernel = ngvi.build_kernel(*_prior(d, prior_var), exact)
    state, _ = ngvi.run(jax.random.PRNGKey(0), kernel, ngvi.init(m0, Sigma0), jnp.full((num_steps,), rho))
    return ngvi.mean_cov(state)


def average_pool(X, side: int = 28, out: int = 7):
    """MNIST images (n, side²) -> (n, out²), block means over (side/out)² pixels (side divisible by out)."""
    k = side // out
    return np.asarray(X).reshape(-1, out, k, out, k).mean(axis=(2, 4)).reshape(-1, out * out)


def multistart_ngd(Xf, prior_var, key, num_starts: int, rho: float, num_steps: int, nodes, spread: float = 2.0):
    """Proposition 1: exact NGD from ``num_starts`` random q₀ = N(m₀, Σ₀) (m₀ ~ N(0, spread² I), Σ₀ = WWᵀ/d + 0.1 I,
    W standard normal). Returns (means (k, d), covariances (k, d, d))."""
    d = Xf.shape[1]
    k1, k2 = jax.random.split(key)
    M0 = spread * jax.random.normal(k1, (num_starts, d))
    W = jax.random.normal(k2, (num_starts, d, d))
    S0 = W @ jnp.swapaxes(W, 1, 2) / d + 0.1 * jnp.eye(d)
    return jax.vmap(lambda m0, s0: exact_ngd(Xf, prior_var, m0, s0, rho, num_steps, nodes))(M0, S0)


def sqrt_optimum(Xf, prior_var, nodes, m0=None):
    """Independent reference for Proposition 1: minimise the exact negative ELBO over (m, tril L) with
    scipy's BFGS (autodiff gradients), from q₀ = N(0, I). Returns (m*, Σ*, gradient norm)."""
    from scipy.optimize import minimize

    d = Xf.shape[1]
    fg = jax.jit(jax.value_and_grad(lambda x: neg_elbo(Xf, *unpack_sqrt(x, d), prior_var, nodes)))
    x0 = pack_sqrt(jnp.zeros(d) if m0 is None else m0, jnp.eye(d))
    res = minimize(lambda x: tuple(np.asarray(v) for v in fg(jnp.asarray(x))), np.asarray(x0), jac=True,
                   method="BFGS", options={"gtol": 1e-10, "maxiter": 5000})
    m, Sigma = unpack_sqrt(jnp.asarray(res.x), d)
    return m, Sigma, float(jnp.linalg.norm(fg(jnp.asarray(res.x))[1]))


def final_stage_record(num_steps: int):
    """`log_record` plus every iteration of the last quarter, t ∈ [⌈3T/4⌉, T]."""
    return np.union1d(log_record(num_steps), np.arange(int(np.ceil(0.75 * num_steps)), num_steps + 1))


# ---------------------------------------------------------------- the conjugate comparison of Section 6.2 ("less drastic")
def build_linreg_ngd_kernel(X, y, noise_sd: float, prior_var, num_samples: int):
    """NGD kernel (eq. 8, Price estimate eq. 11) for Gaussian linear regression f(β) = −Σ(y_i − x_iᵀβ)²/(2s²), X (n, d):
    the same estimator as the logistic runs (S draws, full data), closed form ∇f(β) = Xᵀ(y − Xβ)/s², ∇²f = −XᵀX/s²."""
    XtX, Xty = X.T @ X / noise_sd**2, X.T @ y / noise_sd**2

    def derivatives(m, L, Z):
        return Xty - XtX @ (m + Z.mean(0) @ L.T), -0.5 * XtX

    return ngvi.build_kernel(*_prior(X.shape[1], prior_var), ngvi.price_gradient(None, num_samples, derivatives=derivatives))


def build_linreg_sgd_kernel(X, y, noise_sd: float, prior_var, num_samples: int, min_diag: float = 1e-4):
    """Projected SGD in (m, L) on ℓ̂/n with the reparameterisation estimate (as ``build_sgd_kernel(..., "reparam")``) for
    Gaussian linear regression: ∇_m = −S⁻¹Σ∇f(β_s), ∇_L = −S⁻¹Σ∇f(β_s)z_sᵀ, β_s = m + Lz_s; KL term exact."""
    n, d = X.shape
    XtX, Xty = X.T @ X / noise_sd**2, X.T @ y / noise_sd**2
    prior_cov = jnp.diag(prior_var * jnp.ones(d))
    kl = lambda m, L: kl_gaussian(m, L @ L.T, jnp.zeros(d), prior_cov)  # noqa: E731

    def kernel(key, state, gamma):
        m, L = state.m, state.L
        Z = jax.random.normal(key, (num_samples, d), dtype=m.dtype)
        G = Xty[None, :] - (m + Z @ L.T) @ XtX  # (S, d) ∇f(β_s)
        km, kL = jax.grad(kl, argnums=(0, 1))(m, L)
        m = m - gamma * (-G.mean(0) + km) / n
        L = jnp.tril(L - gamma * (-(G.T @ Z) / num_samples + kL) / n)
        L = L - jnp.diag(jnp.diag(L)) + jnp.diag(jnp.maximum(jnp.diag(L), min_diag))
        return SGDState(m, L, state.t + 1), None

    return kernel


def linreg_neg_elbo(X, y, noise_sd: float, prior_var, m, Sigma):
    """Exact −ELBO of Gaussian linear regression at N(m, Σ): Σ_i[(y_i − x_iᵀm)² + x_iᵀΣx_i]/(2s²) + (n/2)log 2πs² + KL."""
    n, d = X.shape
    r = y - X @ m
    ell = (r @ r + jnp.sum((X @ Sigma) * X)) / (2 * noise_sd**2) + 0.5 * n * jnp.log(2 * jnp.pi * noise_sd**2)
    return ell + kl_gaussian(m, Sigma, jnp.zeros(d), jnp.diag(prior_var * jnp.ones(d)))


def linreg_runs(X, y, noise_sd: float, prior_var, num_samples: int, num_steps: int, grids: dict, seed: int, eval_seeds,
                init_sd: float = 1.0):
    """The Figure-2 protocol on a conjugate problem: NGD ("ngd") and SGD ("sgd", reparameterisation) over their grids on
    the tuning ``seed`` (lowest final −ELBO/n; non-finite dropped), then each at its tuned step on ``eval_seeds``.
    Returns (tuned {method: step}, {method: (k, len(record)) −ELBO/n on the held-out seeds}, record)."""
    X, y = jnp.asarray(X), jnp.asarray(y)
    n, d = X.shape
    m0, S0 = jnp.zeros(d), init_sd**2 * jnp.eye(d)
    record = log_record(num_steps)
    value_ms = jax.jit(lambda m, S: linreg_neg_elbo(X, y, noise_sd, prior_var, m, S) / n)
    best, out = {}, {}
    for method in ("sgd", "ngd"):
        kernel = (build_linreg_ngd_kernel(X, y, noise_sd, prior_var, num_samples) if method == "ngd" else
                  build_linreg_sgd_kernel(X, y, noise_sd, prior_var, num_samples))
        state0 = ngd_init(m0, S0) if method == "ngd" else sgd_init(m0, S0)
        step = jax.jit(kernel)
        value = jax.jit(lambda s: value_ms(*moments(s, d)))  # moments compiled with the value (one call per recorded t)
        finals = {h: run_trace(step, value, state0, jax.random.PRNGKey(seed), h, record)[-1] for h in grids[method]}
        ok = {h: f for h, f in finals.items() if np.isfinite(f)}
        best[method] = min(ok, key=ok.get) if ok else None
        out[method] = (np.stack([run_trace(step, value, state0, jax.random.PRNGKey(int(k)), best[method], record)
                                 for k in eval_seeds]) if best[method] is not None and len(eval_seeds)
                       else np.full((len(eval_seeds), len(record)), np.nan))
    return best, out, record


def speedups(held_out: dict, record, t_ref: int):
    """NGD's speed-up over SGD per held-out seed: S_k = t_SGD,k / t_ref, t_SGD,k the first recorded iteration at which
    SGD's −ELBO/n ≤ NGD's at t_ref on the same seed. held_out: {"ngd": (k, r), "sgd": (k, r)} at ``record`` (r,).
    Returns (S (k,), censored (k,) bool): a censored S (SGD never reaches the target by T) is set to T / t_ref (a lower bound)."""
    record = np.asarray(record)
    j = int(np.searchsorted(record, t_ref))
    target = held_out["ngd"][:, j]
    S, cens = [], []
    for k in range(target.size):
        v = held_out["sgd"][k]
        hit = np.nonzero(np.isfinite(v) & (v <= target[k]))[0]
        S.append(record[hit[0]] / t_ref if hit.size else record[-1] / t_ref)
        cens.append(not hit.size)
    return np.asarray(S, float), np.asarray(cens)


def final_stage(values, record, v0=None):
    """Oscillation index of one trace ``values`` (r,) at ``record`` (r,): over t ≥ 3T/4, the excess variation
    E = Σ|Δv| − |v_T − v_{3T/4}| (0 for a monotone trace), relative to the progress v_0 − v_T. NaN if not finite."""
    values, record = np.asarray(values, float), np.asarray(record)
    tail = values[record >= 0.75 * record[-1]]
    if not np.all(np.isfinite(values)) or tail.size < 3:
        return float("nan")
    excess = np.sum(np.abs(np.diff(tail))) - abs(tail[-1] - tail[0])
    return float(excess / max((values[0] if v0 is None else v0) - values[-1], 1e-300))
