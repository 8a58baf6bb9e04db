"""Log targets for the logistic-regression experiments (Section 5.1, Appendix C.2).

Convention (`lsvi.core.kernel`): a log target is ``log_target(key, B) -> (N,)`` for a batch of
parameters B (N, d); the key is used only by stochastic (subsampled) targets.

Posterior (Section 5.1), with the *flipped* design x̃_i = y_i x_i (rows of ``X_flipped``,
see `lsvi.data.datasets`) so that p(y_i | x_i, β) = σ(y_i x_iᵀβ) = σ(x̃_iᵀβ):

    f(β) = log N(β; 0, diag(v)) + Σ_{i=1}^n log σ(x̃_iᵀβ).

The prior term is the *normalised* Gaussian log density, so f is the log joint
log p(β, y) and Z(π) = ∫exp f = p(y) is the marginal likelihood; the "KL up to an
unknown constant" of the figures is then KL(q̄‖π̄) − log p(y) (`lsvi.core.losses`).
Prior variances v (Appendix C.2): 25 per coefficient and 400 for the intercept (first
column) for Pima, Sonar and Census; 25·I for MNIST (no intercept) — `paper_prior_variance`.

The likelihood of a batch is an (N × d)·(d × n) product. When N·n exceeds a memory
budget it is evaluated in chunks of draws (a `lax.scan` over a zero-padded, reshaped
batch; N is static): for MNIST (n = 11,774, d = 784) at N = 10⁵ draws the (N × n)
matrix would take 9.4 GB, the (N, d) draws 0.6 GB. Each chunk is rematerialised under
autodiff (`jax.checkpoint`), so reverse-mode gradients (NGD, ADVI) are chunked too.
"""
# Measured (MNIST, N = 10⁵, CPU): the chunked evaluation peaked at about 2 GB RSS.
from __future__ import annotations

from typing import Optional, Union

import jax
import jax.numpy as jnp

LOG_2PI = jnp.log(2.0 * jnp.pi)

# 2.5e7 float64 = 200 MB for the (chunk × n) matrix of linear predictors.
DEFAULT_MAX_ELEMENTS = 25_000_000


def paper_prior_variance(d: int, intercept: bool = True, variance: float = 25.0, intercept_variance: float = 400.0):
    """Prior variances (d,) of Appendix C.2: ``variance`` everywhere, ``intercept_variance``
    for the first coefficient when ``intercept`` (Pima, Sonar, Census); MNIST: intercept=False."""
    v = jnp.full((d,), variance, dtype=jnp.float64)
    return v.at[0].set(intercept_variance) if intercept else v


def gaussian_log_prior(B, prior_var):
    """log N(β; 0, diag(v)) (normalised) for B (..., d), v (d,) -> (...): (N,) for a batch
    (N, d), a scalar for one β (d,)."""
    return -0.5 * jnp.sum(B**2 / prior_var, axis=-1) - 0.5 * jnp.sum(jnp.log(prior_var) + LOG_2PI)


def gaussian_logdensity(precision, mean=None):
    """Unnormalised N(mean, precision⁻¹) log density ``logdensity(x (d,)) -> −½ (x − m)ᵀ P (x − m)``
    (mean 0 by default), for gradient-based users (BBVI, NUTS)."""
    precision = jnp.asarray(precision)
    mean = jnp.zeros(precision.shape[0]) if mean is None else jnp.asarray(mean)

    def logdensity(x):
        r = x - mean
        return -0.5 * r @ precision @ r

    return logdensity


def _as_float64(X_flipped, prior_var):
    """X̃ (n, d) and prior variances broadcast to (d,), both float64."""
    X_flipped = jnp.asarray(X_flipped, jnp.float64)
    return X_flipped, jnp.broadcast_to(jnp.asarray(prior_var, jnp.float64), (X_flipped.shape[1],))


@jax.custom_jvp
def log_sigmoid(u):
    """log σ(u) = min(u, 0) − log1p(e^{−|u|}), elementwise, u (...) -> (...).

    Stable at both ends (≈ u for u → −∞, ≈ −e^{−u} for u → +∞; no overflow, no log 0);
    the same values as `jax.nn.log_sigmoid`. The custom JVP gives the exact derivative
    σ(−u) (autodiff of min/abs would give 1 instead of ½ at u = 0) and reuses e^{−|u|}."""
    # Not jax.nn.log_sigmoid (−softplus(−u) via logaddexp): that one was measured 3–4× slower
    # on CPU, and for small d this elementwise map, not the matrix product, dominates the
    # cost of the target.
    return jnp.minimum(u, 0.0) - jnp.log1p(jnp.exp(-jnp.abs(u)))


@log_sigmoid.defjvp
def _log_sigmoid_jvp(primals, tangents):
    (u,), (du,) = primals, tangents
    # t = e^{−|u|}, with −|u| written as where(u > 0, −u, u): the same value, but its derivative
    # at u = 0 is +1, that of the u ≤ 0 branch selected below. With jnp.abs (derivative +1 at 0,
    # the u > 0 side) the second derivative at u = 0 came out +¼ instead of −σ(0)σ(0) = −¼.
    t = jnp.exp(jnp.where(u > 0, -u, u))
    sigma_minus_u = jnp.where(u > 0, t, 1.0) / (1.0 + t)  # σ(−u), stable for both signs
    return jnp.minimum(u, 0.0) - jnp.log1p(t), sigma_minus_u * du


def sum_log_sigmoid(U):
    """Σ_i log σ(u_i) over the last axis: linear predictors U (..., n) -> (...). The
    log-likelihood of the batched target (U = B X̃ᵀ) and of the single-point one (U = X̃β)."""
    return jnp.sum(log_sigmoid(U), axis=-1)


def _loglik_dense(B, X_flipped):
    """Σ_i log σ(x̃_iᵀβ) (N,) for B (N, d) in one (N × n) product.

    The optimisation barrier keeps XLA from fusing the producer of B (e.g. μ + CZ inside
    an LSVI step) into the product, which would turn the matrix product into a loop."""
    # On CPU that fusion was measured to make the target 2–3× slower inside a jitted step
    # than alone.
    B = jax.lax.optimization_barrier(B)
    return sum_log_sigmoid(B @ X_flipped.T)


def resolve_chunk_size(num_draws: int, n: int, chunk_size: Optional[int], max_elements: float) -> Optional[int]:
    """The chunk size to use for N = ``num_draws`` draws, or None for a single dense product.

    Under the budget, the N draws are split into k = ⌈N·n / max_elements⌉ chunks of equal
    size ⌈N / k⌉ (at most k − 1 rows of zero padding), not into chunks of the largest size
    the budget allows: that would pad N = 2500 MNIST draws (n = 11,774) to 2 × 2123 rows,
    70 % more work than the draws need, and make the cost per iteration jump with N."""
    if chunk_size is None:
        if num_draws * n <= max_elements:
            return None
        largest = max(1, int(max_elements) // n)
        num_chunks = -(-num_draws // largest)
        chunk_size = -(-num_draws // num_chunks)
    return None if chunk_size >= num_draws else int(chunk_size)


def chunked_rows(fn, B, chunk_size: Optional[int]):
    """Apply a row-wise ``fn: (k, d) -> (k,)`` to B (N, d) in chunks of ``chunk_size`` rows.

    The batch is zero-padded to a multiple of the chunk size (zeros are valid parameters,
    their values are sliced off), reshaped to (num_chunks, chunk, d) and scanned, so the
    peak memory of ``fn`` is that of one chunk. ``jax.checkpoint`` keeps reverse-mode
    autodiff from storing every chunk's intermediates.
    """
    N, d = B.shape
    if chunk_size is None or chunk_size >= N:
        return fn(B)
    num_chunks = -(-N // chunk_size)
    pad = num_chunks * chunk_size - N
    Bp = jnp.concatenate([B, jnp.zeros((pad, d), B.dtype)]) if pad else B
    body = jax.checkpoint(fn)
    out = jax.lax.map(body, Bp.reshape(num_chunks, chunk_size, d))
    return out.reshape(-1)[:N]


def logistic_loglik(X_flipped, chunk_size: Optional[int] = None, max_elements: float = DEFAULT_MAX_ELEMENTS):
    """B (N, d) -> Σ_i log σ(x̃_iᵀβ) (N,), chunked over draws when N·n > ``max_elements``."""
    X_flipped = jnp.asarray(X_flipped)
    n = X_flipped.shape[0]

    def loglik(B):
        cs = resolve_chunk_size(B.shape[0], n, chunk_size, max_elements)
        return chunked_rows(lambda b: _loglik_dense(b, X_flipped), B, cs)

    return loglik


def logistic_regression(X_flipped, prior_var, chunk_size: Optional[int] = None, max_elements: float = DEFAULT_MAX_ELEMENTS):
    """Logistic-regression log posterior (log joint) ``log_target(key, B) -> (N,)``.

    X_flipped (n, d): rows y_i x_i. prior_var (d,) or scalar: prior variances.
    chunk_size: draws per chunk (default: chosen so that chunk·n ≤ ``max_elements``;
    no chunking when N·n ≤ ``max_elements``). The key is ignored (deterministic target).
    """
    X_flipped, prior_var = _as_float64(X_flipped, prior_var)
    loglik = logistic_loglik(X_flipped, chunk_size, max_elements)

    def log_target(key, B):
        del key
        return gaussian_log_prior(B, prior_var) + loglik(B)

    return log_target


def logistic_logdensity(X_flipped, prior_var):
    """Single-point version ``logdensity(beta (d,)) -> scalar`` for autodiff users
    (Blackjax VI and NUTS): the log joint of `logistic_regression` at B = beta[None], from
    the same prior and log-likelihood functions, with one matrix–vector product X̃β (equal
    values up to the rounding of the product; no chunking, no optimisation barrier)."""
    # Not log_target(None, beta[None])[0]: its (1 × d)·(d × n) product rounds differently
    # from X̃β (≈ 1e-13 relative), which is enough to move NUTS chains (chaotic in floating
    # point) and the smoke claims' NUTS-derived values at the printed digits.
    X_flipped, prior_var = _as_float64(X_flipped, prior_var)

    def logdensity(beta):
        return gaussian_log_prior(beta, prior_var) + sum_log_sigmoid(X_flipped @ beta)

    return logdensity


def subsampled_logistic_regression(
    X_flipped,
    prior_var,
    batch_size: int,
    scale: Union[str, float] = "paper",
    chunk_size: Optional[int] = None,
    max_elements: float = DEFAULT_MAX_ELEMENTS,
):
    """Subsampled log target of eq. (21) (Census experiment), ``log_target(key, B) -> (N,)``.

    At each call a batch U_1, …, U_P (P = ``batch_size``) is drawn uniformly *with
    replacement* from {1, …, n} using ``key``, and the *same* batch is used for all N
    draws of the call (one batch per LSVI iteration, as in Appendix C.2):

        f̂(β) = log p(β) + c · Σ_{k=1}^P log σ(x̃_{U_k}ᵀβ).

    The term Σ_k log p(x_{U_k}) of eq. (21) does not depend on β and is dropped.

    scale (c):
      "paper" (default): c = 1, eq. (21) as printed. Then E_U[f̂(β)] = log p(β) +
          (P/n) Σ_i log σ(x̃_iᵀβ): the scheme targets a *tempered* posterior whose
          likelihood is raised to the power P/n (≈ 0.02 for Census with P = 10³), i.e. a
          much wider approximation than the full posterior.
      "unbiased": c = n/P, so E_U[f̂(β)] = f(β) (the full log posterior of
          `logistic_regression`), at the price of a larger variance.
      a float: c as given.
    (Table 2 gives P = 1000 for Census, the text of Appendix C.2 says P = 10⁴.)
    """
    X_flipped, prior_var = _as_float64(X_flipped, prior_var)
    n = X_flipped.shape[0]
    if scale == "paper":
        c = 1.0
    elif scale == "unbiased":
        c = n / batch_size
    elif isinstance(scale, (int, float)):
        c = float(scale)
    else:
        raise ValueError(f"scale must be 'paper', 'unbiased' or a float, not {scale!r}")

    def log_target(key, B):
        idx = jax.random.randint(key, (batch_size,), 0, n)
        loglik = logistic_loglik(X_flipped[idx], chunk_size, max_elements)
        return gaussian_log_prior(B, prior_var) + c * loglik(B)

    return log_target
