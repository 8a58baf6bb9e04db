"""Algorithm 1 of the RABVI paper: Fixed-learning-rate Automated Stochastic Optimisation (FASO).

At a fixed learning rate γ the iterates λ^{(k)} form a Markov chain (Section 2.4). FASO

1. detects stationarity (Section 5.1): every `k_check` iterations, for windows W from W_min to
   0.95k (`num_windows` of them, evenly spaced), R̂_max(W) = max_i split-R̂(λ_i^{(k−W+1:k)}) (eq. 27);
   with W_opt the argmin, stationarity is declared when R̂_max(W_opt) ≤ 1.1 and k_conv = k − W_opt;
2. checks the accuracy of the iterate average (Section 5.2) on the window W = k − k_conv:
   e_i = MCSE_i (for the mean-field family the τ-errors are divided by σ̂_i = exp ψ̂_i, Prop. 5.1);
   success when mean_i e_i < ε and min_i ESS_i ≥ 50; otherwise the next check is at window χ·W,
   χ = χ(r) = 1 + (1 + r)^{-1/2} (Prop. 5.2), r = C_O/C_E the cost ratio of one optimisation step
   to one iterate's share of the check.

Estimators (ArviZ's, `lsvi.core.bbvi.chain_diagnostics`: equal to ArviZ, vectorised over the columns): split-R̂ is
`arviz.rhat(method="identity")` on the window cut in two halves (= the classic split-R̂ of one chain; `method="split"`
would split each half again); ESS is `arviz.ess(method="mean")` and MCSE `arviz.mcse(method="mean")` = sd/√ESS_mean.
The R̂ checks read each window's two halves from the moments of the k_check-iterate chunks, computed once as they
arrive (`chain_diagnostics.split_rhat_from_blocks`: the same split-R̂ to rounding, at O(k/k_check) per window).

Choices where the paper is silent: `k_check` = W_min/2 = 100 (checks happen at multiples of
`k_check`, so an accuracy check scheduled at k_conv + χW runs at the first multiple at or after
it and uses that whole window); `num_windows` = 5; r measured from the run's own timings as the
paper says (first optimisation chunk and first accuracy check), or fixed by `r=`.

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
"""
from __future__ import annotations

import warnings
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from lsvi.core import clock
from lsvi.core.bbvi.chain_diagnostics import Moments, block_moments, ess_mcse, split_rhat, split_rhat_from_blocks
from lsvi.core.bbvi.kernel import BBVI


class FasoResult(NamedTuple):
    iterations: int  # k: iterations run
    position: np.ndarray  # λ̄: average of the last W iterates (P,)
    success: bool
    k_conv: int | None  # iteration at which stationarity was declared (None: never)
    window: int  # W of the returned average
    error: float  # mean_i e_i at the last accuracy check (nan: none)
    ess_min: float
    trace: np.ndarray  # all iterates (k, P)


def chi(r: float) -> float:
    """χ(r) = 1 + (1 + r)^{-1/2} (Prop. 5.2)."""
    return 1.0 + (1.0 + r) ** -0.5


def rhat_max_windows(trace: np.ndarray, w_min: int, num_windows: int = 5, rhat=None,
                     blocks: tuple[Moments, int] | None = None):
    """(windows, R̂_max(W)) for W evenly spaced in [W_min, 0.95k] (eq. 27); empty when 0.95k < W_min.
    ``rhat``: the per-column R̂ of a window (W, P) -> (P,); default `split_rhat` (ArviZ's, vectorised).
    ``blocks``: (`Moments` of trace's blocks of B iterates, B): the same split-R̂ from them
    (`chain_diagnostics.split_rhat_from_blocks`, equal to rounding, O(k/B) per window instead of O(k))."""
    k = trace.shape[0]
    if 0.95 * k < w_min:
        return np.array([], int), np.array([])
    windows = np.unique(np.linspace(w_min, 0.95 * k, num_windows).astype(int))
    if blocks is not None:
        return windows, np.array([np.max(split_rhat_from_blocks(trace, *blocks, k - w, k)) for w in windows])
    rhat = split_rhat if rhat is None else rhat
    return windows, np.array([np.max(rhat(trace[k - w:])) for w in windows])


def accuracy(window: np.ndarray, meanfield_dim: int | None) -> tuple[float, float]:
    """(mean_i e_i, min_i ESS_i) of Algorithm 1 lines 16–19 on `window` (W, P)."""
    ess, mcse = ess_mcse(window)
    if meanfield_dim is not None:
        d = meanfield_dim
        mcse = np.concatenate([mcse[:d] / np.exp(window[:, d:].mean(0)), mcse[d:]])
    return float(np.mean(mcse)), float(np.min(ess))


def _append(buffer: np.ndarray | None, k: int, chunk: np.ndarray, k_max: int) -> np.ndarray:
    """`buffer` (≥ k, P) holding k iterates, with `chunk` (n, P) written at rows k..k+n−1; the capacity doubles
    (at most k_max rows), so keeping every iterate costs O(k) copies instead of one concatenation per check."""
    need = k + chunk.shape[0]
    capacity = 0 if buffer is None else buffer.shape[0]
    if need > capacity:
        grown = np.empty((max(need, min(max(2 * capacity, 8 * chunk.shape[0]), k_max)), chunk.shape[1]), chunk.dtype)
        if buffer is not None:
            grown[:k] = buffer[:k]
        buffer = grown
    buffer[k:need] = chunk
    return buffer


def faso(bbvi: BBVI, position, step_size: float, key, *, w_min: int = 200, eps: float = 0.1,
         k_max: int = 100_000, k_check: int | None = None, num_windows: int = 5, rhat_threshold: float = 1.1,
         ess_min: float = 50.0, r: float | None = None, meanfield_dim: int | None = None) -> FasoResult:
    """Algorithm 1 from λ^{(0)} = `position` at learning rate γ = `step_size`.

    The optimiser state is fresh (`bbvi.init`). `meanfield_dim` = d switches on the σ̂-scaling of
    the τ-errors (mean-field family). Returns after success or after `k_max` iterations.
    """
    k_check = k_check or max(w_min // 2, 1)
    run = bbvi.run
    state = bbvi.init(position)
    gamma = jnp.asarray(step_size, float)
    buffer, num_chunks, k, k_conv, w_check, chi_star = None, 0, 0, None, None, None
    block_mean, block_m2 = None, None  # moments of each chunk of k_check iterates, for the R̂ checks
    error, ess_low, t_opt = float("nan"), float("nan"), None
    while k < k_max:
        n = min(k_check, k_max - k)
        key, sub = jax.random.split(key)
        t0 = clock.seconds()
        state, trace_chunk, _ = run(sub, state, gamma, n)
        trace_chunk = np.asarray(trace_chunk)
        if num_chunks == 1 and n == k_check:  # time a compiled chunk: C_O per iteration
            t_opt = (clock.seconds() - t0) / n
        buffer = _append(buffer, k, trace_chunk, k_max)
        if n == k_check:  # every chunk before this one was whole: this is block k / k_check
            m = block_moments(trace_chunk, k_check)
            block_mean = _append(block_mean, num_chunks, m.mean, k_max // k_check)
            block_m2 = _append(block_m2, num_chunks, m.m2, k_max // k_check)
        num_chunks, k = num_chunks + 1, k + n
        trace = buffer[:k]  # the iterates so far (a view)
        if k_conv is None and k % k_check == 0:
            blocks = Moments(np.full(num_chunks, k_check), block_mean[:num_chunks], block_m2[:num_chunks])
            windows, rmax = rhat_max_windows(trace, w_min, num_windows, blocks=(blocks, k_check))
            if rmax.size and np.nanmin(rmax) <= rhat_threshold:
                w_opt = int(windows[np.nanargmin(rmax)])
                k_conv, w_check = k - w_opt, w_opt
        if k_conv is not None and k - k_conv >= w_check:
            w = k - k_conv
            t0 = clock.seconds()
            error, ess_low = accuracy(trace[k - w:], meanfield_dim)
            if chi_star is None:
                c_e = (clock.seconds() - t0) / w
                chi_star = chi(r if r is not None else (t_opt or c_e) / c_e)
            if error < eps and ess_low >= ess_min:
                return FasoResult(k, trace[k - w:].mean(0), True, k_conv, w, error, ess_low, trace)
            w_check = chi_star * w
    trace = buffer[:k]
    w = k - k_conv if k_conv is not None else min(w_min, k)
    warnings.warn(f"FASO: no {'accurate average' if k_conv is not None else 'stationarity'} within k_max = {k_max} "
                  f"iterations at γ = {float(step_size):.3g}; estimated error {error:.3g} (ε = {eps:.3g})",
                  RuntimeWarning, stacklevel=2)
    return FasoResult(k, trace[k - w:].mean(0), False, k_conv, w, error, ess_low, trace)
