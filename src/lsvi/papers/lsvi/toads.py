"""Fowler's toads movement model and its Bayesian synthetic likelihood (Section 5.3, Appendix C.4).

Model (Marchand, Boenke & Green 2017, "model 1"; Appendix C.4 of the LSVI paper)
-------------------------------------------------------------------------------
M toads move along a line during D days; y_{i,t} is the day-time refuge of toad i on day t.
Each night the toad forages: its overnight displacement δy_{i,t} ~ S(α, β=0, scale δ) is a
symmetric Lévy α-stable draw. Then (eq. 22)

    y_{i,t+1} = B_{i,t} (y_{i,t} + δy_{i,t}) + (1 − B_{i,t}) y_{i,t'},
    B_{i,t} ~ Ber(p₀),  t' ~ U{1, …, t},

i.e. with probability p₀ the toad takes refuge where foraging ended, otherwise it returns
to one of its previous refuges (the current one included), chosen uniformly among days
1..t. The initial refuge is y_{i,1} = δy_i⁽⁰⁾ ~ S(α, 0, δ) (irrelevant for the summaries,
which only use differences). θ = (α, δ, p₀) ∈ Θ = [1, 2] × [0, 100] × [0, 0.9].

Convention for p₀. The text of C.4 and eq. (22) agree with each other (and with the
authors' script, which returns with probability 1 − p₀): p₀ is the probability of a NEW
refuge. Marchand et al. (2017), whose "model 1" this is, define p₀ as the probability of
RETURNING to a previous refuge (their simulator takes a new refuge with probability
1 − p₀). Since the data here are simulated at θ*, both conventions give a well-posed
experiment, with different posteriors. We follow the LSVI paper (``convention="paper"``,
default); ``convention="marchand"`` flips it. The return day t' is uniform on {1, …, t}
as in C.4 and Marchand et al. (the current refuge included; the authors' script draws it
from {1, …, t − 1}).

Summary statistic (48-dimensional)
----------------------------------
For each lag l ∈ {1, 2, 4, 8}, the displacements |y_{i,t+l} − y_{i,t}| for all toads and
1 ≤ t ≤ D − l (C.4 prints y_{i,t+1}, which must mean y_{i,t+l} since the lag would
otherwise play no role). A displacement ≤ 10 counts as "no move" (a return). The 12
statistics per lag are, in this order: the number of returns, the median of the other
displacements ("moves"), and the 10 log differences of adjacent deciles (quantiles at
0, 0.1, …, 1, numpy's default linear interpolation) of the moves. The moves form a ragged
set; we sort with +∞ in place of the returns and interpolate inside the first n entries,
so everything jit-compiles.

Synthetic likelihood
--------------------
s_obs ~ N(b̂(θ), Σ̂(θ)) with b̂ the mean of P simulated summaries and Warton's (2008)
shrinkage covariance, as in Priddle et al. (2022) / Frazier et al. (2023):

    Σ̂ = D̂^{1/2} (γ Ĉ + (1 − γ) I) D̂^{1/2} = γ Ĉov + (1 − γ) diag(Ĉov),   γ = 0.5,

D̂ the diagonal matrix of the sample variances, Ĉ the sample correlation matrix. (C.4
calls D̂ "the estimated correlation matrices", a slip: D̂^{1/2}ĈD̂^{1/2} must be the sample
covariance.) Each evaluation is a fresh random estimate: the log target takes a PRNG key.

Parametrisations of the posterior
---------------------------------
* on Θ (box), for the truncated mean-field Gaussian family (Algorithm 1): log π(θ) =
  log SL(θ) + log p(θ), p uniform on Θ;
* on ξ = g(θ) ∈ R³, g_i(θ_i) = logit((θ_i − a_i)/b_i), for the full-covariance Gaussian
  (Algorithm 3) and the random-walk MCMC: log π_ξ(ξ) = log π(g⁻¹(ξ)) + log|∇g⁻¹(ξ)|.

A summary, or the synthetic likelihood, that is not finite (e.g. no displacement above
10 at p₀ = 0, or tied deciles giving log 0) makes the log target −∞.

Stable draws: Chambers, Mallows & Stuck (1976), "A method for simulating stable random
variables", JASA 71(354):340–344 (formula as in Weron 1996 for β = 0).

Cost. The synthetic likelihood simulates P data sets of M·D = 4158 toad-days per
evaluation, i.e. 5·10⁵ data sets for one LSVI run at the paper's (N, T, P) = (100, 50,
100) and 10⁶ for a 10⁴-step MCMC chain. Three implementation choices keep this tractable
on CPU: the uniforms are drawn flat (1-d shapes), the nights are a ``lax.scan`` over the 62
nights vectorised over toads, and the per-lag sorts go to numpy through
``jax.pure_callback`` on CPU (`SORT_BACKEND`).

References
----------
Marchand, P., Boenke, M. and Green, D. M. (2017). A stochastic movement model reproduces
patterns of site fidelity and long-distance dispersal in a population of Fowler's toads
(Anaxyrus fowleri). Ecological Modelling 360, 63–69.
Price, L. F., Drovandi, C. C., Lee, A. and Nott, D. J. (2018). Bayesian synthetic likelihood.
Journal of Computational and Graphical Statistics 27(1), 1–11.
Frazier, D. T., Nott, D. J., Drovandi, C. and Kohn, R. (2023). Bayesian inference using
synthetic likelihood: asymptotics and adjustments. JASA 118(544), 2821–2832.
Priddle, J. W., Sisson, S. A., Frazier, D. T., Turner, I. and Drovandi, C. (2022). Efficient
Bayesian synthetic likelihood with whitening transformations. JCGS 31(1), 50–63.
Warton, D. I. (2008). Penalized normal likelihood and ridge regularization of correlation and
covariance matrices. JASA 103(481), 340–349.
Chambers, J. M., Mallows, C. L. and Stuck, B. W. (1976). A method for simulating stable random
variables. JASA 71(354), 340–344.
"""
from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core.families.gaussian import fullcov_transform

NUM_TOADS = 66
NUM_DAYS = 63
LAGS = (1, 2, 4, 8)
RETURN_THRESHOLD = 10.0
NUM_QUANTILES = 11  # 0, 0.1, ..., 1
STATS_PER_LAG = 2 + NUM_QUANTILES - 1  # count, median, 10 log-differences = 12
SUMMARY_DIM = len(LAGS) * STATS_PER_LAG  # 48
SHRINKAGE = 0.5
NUM_SIMS = 100

# The paper's settings (Appendix C.4) and its Table 1 rows for this experiment.
PAPER_SETTINGS = dict(num_samples=100, num_iterations=50, num_sims=100, mcmc_steps=10_000, mcmc_burn_in=1_000,
                      mcmc_chains=1, mcmc_acceptance=0.31)
PAPER_TABLE1_SOURCE = ("Le Fay, Chopin & Barthelmé, Least Squares Variational Inference (NeurIPS 2025), Table 1 "
                       "(App. C.1): run time over 5 repetitions, mean (sd) min max in seconds, and max resident set "
                       "size printed in 'gigabytes'; JAX 0.5, float64, AMD EPYC 7702 + NVIDIA A100-PCIE-40GB")
PAPER_TABLE1 = {  # name -> (algorithm as printed, mean_s, sd_s, min_s, max_s, max_rss_gb)
    "LSVI Gaussian": ("Alg. 1, (N, T) = (100, 50)", 72.9, 2.8, 71.5, 77.8, 1.07),
    "LSVI truncated MF": ("Alg. 1, (100, 50)", 137.5, 0.6, 137.3, 138.7, 1.05),
    "MCMC": ("Blackjax", 268.1, 3.4, 266.5, 274.3, 1.16),
}

THETA_STAR = np.array([1.7, 35.0, 0.6])
LOWER = np.array([1.0, 0.0, 0.0])
UPPER = np.array([2.0, 100.0, 0.9])
PARAM_NAMES = ("alpha", "delta", "p0")
OBSERVED_SEED = 20250531  # explicit seed of the observed data set


# --------------------------------------------------------------------------- stable draws
def cms_transform(u, w, alpha):
    """Chambers–Mallows–Stuck map of U ~ U(−π/2, π/2), W ~ Exp(1) to a standard S(α, 0, 1) draw.

        X = sin(αU) / cos(U)^{1/α} · (cos((1 − α)U) / W)^{(1 − α)/α}        (α ≠ 1)
        X = tan(U)                                                          (α = 1)

    evaluated in log form for the powers (fewer transcendental calls). At α = 2 it gives
    N(0, 2). The α = 1 branch is selected with ``jnp.where`` (the formula is continuous in
    α at 1 for β = 0, but 1/α·log and the power would need a limit).
    """
    alpha = jnp.asarray(alpha, u.dtype)
    is_one = alpha == 1.0
    a = jnp.where(is_one, 1.5, alpha)  # any value ≠ 1 keeps the unused branch finite
    log_pow = (-jnp.log(jnp.cos(u)) + (1.0 - a) * (jnp.log(jnp.cos((1.0 - a) * u)) - jnp.log(w))) / a
    return jnp.where(is_one, jnp.tan(u), jnp.sin(a * u) * jnp.exp(log_pow))


def _uniform(key, shape, dtype, minval=0.0, maxval=1.0):
    """``jax.random.uniform`` drawn flat and reshaped: same law, but XLA compiles the threefry
    counters of a 1-d shape several times faster than those of a 3-d or 4-d one."""
    n = int(np.prod(shape))
    return jax.random.uniform(key, (n,), dtype, minval=minval, maxval=maxval).reshape(shape)


def _uniform_open(key, shape, dtype):
    """U(0, 1) draws bounded away from 0 and 1 (so that log and tan stay finite)."""
    tiny = jnp.finfo(dtype).eps
    return _uniform(key, shape, dtype, minval=tiny, maxval=1.0 - tiny)


def stable_symmetric(key, alpha, scale, shape=(), dtype=jnp.float64):
    """Draws of S(α, β = 0, scale), characteristic function exp(−|scale · u|^α).

    Chambers, Mallows & Stuck (1976); see `cms_transform`. ``alpha`` and ``scale``
    broadcast against ``shape``. Same parametrisation as
    ``scipy.stats.levy_stable(alpha, 0, scale=scale)`` (S0 and S1 coincide for β = 0).
    """
    ku, kw = jax.random.split(key)
    u = jnp.pi * (_uniform_open(ku, shape, dtype) - 0.5)
    w = -jnp.log(_uniform_open(kw, shape, dtype))
    return scale * cms_transform(u, w, alpha)


# --------------------------------------------------------------------------- simulator
def positions_from_draws(moves, new_refuge, back):
    """Refuge positions y (M, D) from the draws of eq. (22).

    moves (M, D): δy_{i,0..D-1} (δy_{i,0} is the initial position y_{i,1});
    new_refuge (M, D-1): B_{i,t}, t = 1..D-1 (does the toad take a new refuge on day t+1);
    back (M, D-1): the 0-based day t' − 1 ∈ {0, …, t−1} it returns to otherwise.

    A ``lax.scan`` over the D − 1 nights, vectorised over toads:
    y_{t+1} = B_t (y_t + δy_t) + (1 − B_t) y_{t'}. A return copies a position exactly, so
    revisits tie exactly.
    """
    # A pointer-jumping formulation in O(log D) vectorised rounds is possible, but XLA's CPU
    # gathers made it ~7x slower than this scan (measured on the 2-core CI machine).
    M, D = moves.shape
    lanes = jnp.arange(M)
    Y = jnp.zeros((D, M), moves.dtype).at[0].set(moves[:, 0])

    def night(Y, inputs):
        t, move, new, b = inputs
        return Y.at[t].set(jnp.where(new, Y[t - 1] + move, Y[b, lanes])), None

    Y, _ = jax.lax.scan(night, Y, (jnp.arange(1, D), moves[:, :-1].T, new_refuge.T, back.T))
    return Y.T


def draws_from_uniforms(U, V, theta, convention: str = "paper"):
    """(moves (M, D), new_refuge (M, D-1), back (M, D-1)) of eq. (22) from uniforms in (0, 1).

    U (2, M, D): the two uniforms of each Chambers–Mallows–Stuck draw (float64);
    V (2, M, D): the uniforms of B_{i,t} and of t' (float32 suffices: only compared with
    p₀ and scaled by t ≤ D).
    """
    if convention not in ("paper", "marchand"):
        raise ValueError(f"convention must be 'paper' or 'marchand', not {convention!r}")
    alpha, delta, p0 = theta[0], theta[1], theta[2]
    p_new = p0 if convention == "paper" else 1.0 - p0
    D = U.shape[-1]
    moves = delta * cms_transform(jnp.pi * (U[0] - 0.5), -jnp.log(U[1]), alpha)
    new_refuge = V[0, :, 1:] < p_new  # B_{i,t} ~ Ber(p_new)
    t = jnp.arange(1, D)  # 0-based index of the new day
    # t' uniform on {1, ..., t} (1-based) = {0, ..., t-1} (0-based)
    back = jnp.minimum(jnp.floor(V[1, :, 1:] * t), t - 1).astype(jnp.int32)
    return moves, new_refuge, back


def simulate(key, theta, num_toads: int = NUM_TOADS, num_days: int = NUM_DAYS, convention: str = "paper"):
    """One data set Y (num_toads, num_days) of refuge positions at θ = (α, δ, p₀).

    Draws the uniforms, maps them to the stable moves (CMS), the Bernoulli(p₀) choices and
    the return days (`draws_from_uniforms`), then applies eq. (22) (`positions_from_draws`).
    Pure, threefry keys; vmap it over keys and θ.
    """
    theta = jnp.asarray(theta)
    ku, kv = jax.random.split(key)
    U = _uniform_open(ku, (2, num_toads, num_days), theta.dtype)
    V = _uniform(kv, (2, num_toads, num_days), jnp.float32)
    return positions_from_draws(*draws_from_uniforms(U, V, theta, convention))


# --------------------------------------------------------------------------- summaries
# On the 2-core CPU machine: ≈ 1 ms per simulated data set, summaries included; XLA compiles
# threefry on 1-d shapes much faster (hence flat uniforms), and its CPU sort of floats was ~10x
# slower than numpy's (hence the callback).
SORT_BACKEND = "numpy" if jax.default_backend() == "cpu" else "xla"


def _numpy_sort(x):
    return jax.pure_callback(lambda a: np.sort(np.asarray(a), axis=-1), jax.ShapeDtypeStruct(x.shape, x.dtype), x,
                             vmap_method="broadcast_all")


def sort_nonnegative(x, backend: str | None = None):
    """Sort non-negative floats (+∞ allowed) along the last axis; the summaries' bottleneck.

    backend="xla": the IEEE bit patterns of non-negative floats, read as signed integers of
    the same width, are order-preserving, so an integer sort (no NaN-aware comparator) sorts
    them. backend="numpy": a ``jax.pure_callback`` to ``np.sort``; still jit/vmap-compatible
    (a batch is sorted in one host call). Default `SORT_BACKEND`: numpy on CPU, xla elsewhere.
    Both give identical results (tested). Negative zero is mapped to +0 first.
    """
    # Measured on CPU: XLA sorts the integers ~4x faster than the floats, and np.sort (SIMD) is
    # ~2x faster again, hence the CPU default.
    backend = backend or SORT_BACKEND
    x = jnp.where(x > 0, x, jnp.zeros_like(x))
    if backend == "numpy":
        return _numpy_sort(x)
    if backend != "xla":
        raise ValueError(f"backend must be 'numpy' or 'xla', not {backend!r}")
    itype = {8: jnp.int64, 4: jnp.int32}[x.dtype.itemsize]
    s = jnp.sort(jax.lax.bitcast_convert_type(x, itype), axis=-1)
    return jax.lax.bitcast_convert_type(s, x.dtype)


def masked_quantiles(x, mask, qs):
    """Quantiles ``qs`` (numpy's default 'linear' rule) of the entries of the 1-d, non-negative
    ``x`` where ``mask``; the ragged subset is handled by sorting with +∞ in place of the
    masked-out entries and interpolating inside the first n sorted values.

    Returns (quantiles (len(qs),), n); the quantiles are NaN where n = 0.
    """
    n = jnp.sum(mask)
    s = sort_nonnegative(jnp.where(mask, x, jnp.inf))
    h = (n - 1) * qs
    lo = jnp.clip(jnp.floor(h).astype(jnp.int32), 0, x.shape[0] - 1)
    hi = jnp.clip(lo + 1, 0, jnp.maximum(n - 1, 0))
    frac = h - lo
    s_lo, s_hi = s[lo], s[hi]
    q = s_lo + frac * jnp.where(frac > 0, s_hi - s_lo, 0.0)
    return jnp.where(n > 0, q, jnp.nan), n


def lag_summary(Y, lag: int, threshold: float = RETURN_THRESHOLD):
    """The 12 statistics of one lag: (#returns, median of moves, 10 log decile gaps)."""
    d = jnp.abs(Y[:, lag:] - Y[:, :-lag]).reshape(-1)
    moved = d > threshold
    qs = jnp.concatenate([jnp.linspace(0.0, 1.0, NUM_QUANTILES), jnp.array([0.5])])
    q, _ = masked_quantiles(d, moved, qs)
    count = jnp.sum(~moved).astype(Y.dtype)
    return jnp.concatenate([count[None], q[-1:], jnp.log(jnp.diff(q[:-1]))])


def summary(Y, lags=LAGS, threshold: float = RETURN_THRESHOLD):
    """48-dim summary of a data set Y (num_toads, num_days): 12 statistics per lag."""
    return jnp.concatenate([lag_summary(Y, l, threshold) for l in lags])


def simulate_summaries(key, theta, num_sims: int = NUM_SIMS, convention: str = "paper",
                       num_toads: int = NUM_TOADS, num_days: int = NUM_DAYS):
    """(num_sims, 48) summaries of independent data sets at θ.

    The uniforms of all ``num_sims`` data sets are drawn in one flat call from ``key``
    (not by vmapping `simulate` over split keys: same law, much cheaper to compile), then
    the deterministic part is vmapped.
    """
    theta = jnp.asarray(theta)
    ku, kv = jax.random.split(key)
    U = _uniform_open(ku, (num_sims, 2, num_toads, num_days), theta.dtype)
    V = _uniform(kv, (num_sims, 2, num_toads, num_days), jnp.float32)
    one = lambda u, v: summary(positions_from_draws(*draws_from_uniforms(u, v, theta, convention)))
    return jax.vmap(one)(U, V)


# --------------------------------------------------------------------------- synthetic likelihood
def shrinkage_covariance(S, gamma: float = SHRINKAGE):
    """Σ̂ = D̂^{1/2}(γĈ + (1−γ)I)D̂^{1/2} = γĈov + (1−γ)diag(Ĉov) from samples S (P, k)."""
    cov = jnp.cov(S, rowvar=False)
    return gamma * cov + (1.0 - gamma) * jnp.diag(jnp.diag(cov))


def gaussian_synthetic_loglik(S, observed_summary, gamma: float = SHRINKAGE):
    """log N(s_obs; mean(S), Σ̂) from simulated summaries S (P, k). −∞ if not finite."""
    k = S.shape[1]
    mu = jnp.mean(S, axis=0)
    cov = shrinkage_covariance(S, gamma)
    L = jnp.linalg.cholesky(cov)
    r = jax.scipy.linalg.solve_triangular(L, observed_summary - mu, lower=True)
    ll = -0.5 * r @ r - jnp.sum(jnp.log(jnp.diag(L))) - 0.5 * k * jnp.log(2.0 * jnp.pi)
    return jnp.where(jnp.isfinite(ll), ll, -jnp.inf)


def synthetic_loglik(key, theta, observed_summary, num_sims: int = NUM_SIMS, gamma: float = SHRINKAGE,
                     convention: str = "paper"):
    """One noisy estimate of the synthetic log-likelihood at θ (3,), from ``num_sims`` simulations.

    Pure and vmappable over (key, θ).
    """
    S = simulate_summaries(key, theta, num_sims, convention)
    return gaussian_synthetic_loglik(S, observed_summary, gamma)


# --------------------------------------------------------------------------- prior and transforms
def log_prior(theta):
    """Uniform prior on Θ: −log vol(Θ) inside, −∞ outside. θ (..., 3)."""
    lo, up = jnp.asarray(LOWER), jnp.asarray(UPPER)
    inside = jnp.all((theta >= lo) & (theta <= up), axis=-1)
    return jnp.where(inside, -jnp.sum(jnp.log(up - lo)), -jnp.inf)


def to_unconstrained(theta):
    """ξ = g(θ) = logit((θ − a)/b), a = lower, b = upper − lower."""
    lo, up = jnp.asarray(LOWER), jnp.asarray(UPPER)
    return jax.scipy.special.logit((theta - lo) / (up - lo))


def from_unconstrained(xi):
    """θ = g⁻¹(ξ) = a + b·expit(ξ)."""
    lo, up = jnp.asarray(LOWER), jnp.asarray(UPPER)
    return lo + (up - lo) * jax.scipy.special.expit(xi)


def log_abs_det_jacobian(xi):
    """log|∇g⁻¹(ξ)| = Σ_i log b_i + log σ(ξ_i) + log σ(−ξ_i). ξ (..., 3)."""
    lo, up = jnp.asarray(LOWER), jnp.asarray(UPPER)
    return jnp.sum(jnp.log(up - lo) - jax.nn.softplus(-xi) - jax.nn.softplus(xi), axis=-1)


def gaussian_xi_to_theta(eta, z):
    """Draws in θ-space of the full-covariance Gaussian N(μ, Σ) on ξ with natural parameter
    ``eta`` (d = 3): g⁻¹(μ + L⁻ᵀz) for standard normal ``z`` (n, 3), by the family's own
    sampling transform (`lsvi.core.families.gaussian.fullcov_transform`, L Lᵀ = Σ⁻¹). Reuse
    ``z`` across iterates for common random numbers. Returns (n, 3)."""
    return from_unconstrained(fullcov_transform(eta, z, 3))


def simulator_calls(num_evaluations: int, num_sims: int) -> int:
    """Simulated data sets behind ``num_evaluations`` synthetic-likelihood evaluations."""
    return int(num_evaluations) * int(num_sims)


# --------------------------------------------------------------------------- log targets
def _batched(fn, batch_size):
    """Map ``fn(key, x) -> scalar`` over (keys (N,), X (N, d)).

    batch_size=1: ``lax.map``, one point at a time (each point's P simulations are already
    vectorised; least memory, fastest to compile); None: ``vmap`` over all points; k > 1:
    ``lax.map`` over chunks of k vmapped points.
    """

    def apply(keys, X):
        if batch_size is None:
            return jax.vmap(fn)(keys, X)
        if batch_size == 1:
            return jax.lax.map(lambda a: fn(*a), (keys, X))
        return jax.lax.map(lambda a: fn(*a), (keys, X), batch_size=batch_size)

    return apply


def make_log_target(observed_summary, num_sims: int = NUM_SIMS, space: str = "box", gamma: float = SHRINKAGE,
                    common_random_numbers: bool = False, batch_size: int | None = 1, convention: str = "paper"):
    """Noisy log posterior ``log_target(key, X (N, 3)) -> (N,)`` for LSVI.

    space="box":   X = θ ∈ Θ, log SL(θ) + log p(θ) (truncated mean-field family, Alg. 1).
    space="logit": X = ξ ∈ R³, log SL(g⁻¹ξ) + log p(g⁻¹ξ) + log|∇g⁻¹(ξ)| (Alg. 3, MCMC).

    Each of the N points gets its own P fresh simulations (independent noise), unless
    ``common_random_numbers`` (then the N points share one key, as the authors' code does).
    ``batch_size``: see `_batched` (default 1: the points one after the other).
    """
    if space not in ("box", "logit"):
        raise ValueError(f"space must be 'box' or 'logit', not {space!r}")
    obs = jnp.asarray(observed_summary)

    def one(key, x):
        theta = from_unconstrained(x) if space == "logit" else x
        lp = log_prior(theta)
        if space == "logit":
            lp = lp + log_abs_det_jacobian(x)
        # outside Θ (box space only) the simulator is not called on a meaningless θ
        safe = jnp.where(jnp.isfinite(lp), theta, jnp.asarray(THETA_STAR))
        return synthetic_loglik(key, safe, obs, num_sims, gamma, convention) + lp

    batched = _batched(one, batch_size)

    def log_target(key, X):
        X = jnp.atleast_2d(X)
        keys = (jnp.broadcast_to(key, (X.shape[0],) + key.shape) if common_random_numbers
                else jax.random.split(key, X.shape[0]))
        return batched(keys, X)

    return log_target


def pointwise(log_target):
    """``log_target(key, x (3,)) -> scalar`` from a batched ``log_target(key, X (N, 3)) -> (N,)``
    (`make_log_target`), for the random-walk MCMC of `lsvi.baselines.rwmh`."""
    return lambda key, x: log_target(key, x[None])[0]


# --------------------------------------------------------------------------- observed data
@partial(jax.jit, static_argnames=("convention",))
def observed_data(seed: int = OBSERVED_SEED, theta=THETA_STAR, convention: str = "paper"):
    """The observed data set Y (66, 63) simulated at θ* = (1.7, 35, 0.6) and its summary (48,)."""
    Y = simulate(jax.random.PRNGKey(seed), jnp.asarray(theta), convention=convention)
    return Y, summary(Y)

