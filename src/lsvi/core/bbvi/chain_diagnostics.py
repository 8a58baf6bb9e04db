"""MCMC diagnostics of one chain of iterates, vectorised over its columns: split-R̂, ESS and MCSE of the mean, the
statistics FASO (Algorithm 1 of the RABVI paper, Sections 5.1–5.2) evaluates at every check.

They are ArviZ's (`arviz.rhat(method="identity")` on the two halves of the window, `arviz.ess(method="mean")`,
`arviz.mcse(method="mean")`), computed here for all columns at once: ArviZ applies its estimator to one column at a
time in a Python loop, which made these checks about two thirds of a RABVI run's time at d = 100 (one run of 20,000
iterations at γ₀ = 0.01: 81,000 per-column R̂ calls, 15.8 s of 22.4 s, measured). The tests check equality with
ArviZ (relative 1e-10) on windows of 4 to 2,001 iterates, AR(1) columns with φ from −0.9 to 0.999, a trend and a
constant column; FASO's windows grow to ~10⁵ iterates, where equality is not tested (the same algorithm, longer FFTs).

* `split_rhat(window)`  (W, P) -> (P,): the window's two halves of n = ⌊W/2⌋ iterates (the last 2n) as two chains,
  R̂ = {(B/W_in + n − 1)/n}^{1/2}, B = n · var(half means, ddof 1), W_in = mean of the halves' variances (ddof 1).
* `ess_mean(window)`    (W, P) -> (P,): ESS of the mean (Vehtari et al. 2021, eq. 10–11 with Geyer's initial positive
  and monotone sequences), on the split chains (first n and last n iterates), autocovariances by FFT.
* `ess_mcse(window)`    (ESS, MCSE = sd(ddof 1 over the whole window)/√ESS) per column.

References
----------
A. Vehtari, A. Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner (2021). Rank-normalization, folding, and
localization: an improved R̂ for assessing convergence of MCMC. Bayesian Analysis 16(2), 667–718.
R. Kumar, C. Carroll, A. Hartikainen, O. Martin (2019). ArviZ a unified library for exploratory analysis of
Bayesian models in Python. JOSS 4(33), 1143.
"""
from __future__ import annotations

import numpy as np
from scipy.fft import next_fast_len

COLUMN_BLOCK = 64  # columns per FFT block (memory: 2 × next_fast_len(W) × 64 complex numbers)


def split_rhat(window: np.ndarray) -> np.ndarray:
    """Split-R̂ of each column of one chain `window` (W, P) -> (P,), W ≥ 8 (NaN below, as ArviZ)."""
    window = np.asarray(window, float)
    n = window.shape[0] // 2
    if n < 4:
        return np.full(window.shape[1], np.nan)
    halves = np.stack([window[-2 * n:-n], window[-n:]])  # (2, n, P)
    b = n * np.var(halves.mean(1), axis=0, ddof=1)
    w = np.mean(np.var(halves, axis=1, ddof=1), axis=0)
    return np.sqrt((b / w + n - 1) / n)


def _autocovariance(chains: np.ndarray) -> np.ndarray:
    """Autocovariances (C, n, P) -> (C, n, P) at lags 0..n−1 of each chain and column, biased (÷ n), by FFT."""
    n = chains.shape[1]
    m = next_fast_len(2 * n)
    centred = chains - chains.mean(1, keepdims=True)
    f = np.fft.rfft(centred, n=m, axis=1)
    f *= np.conjugate(f)
    return np.fft.irfft(f, n=m, axis=1)[:, :n] / n


def _ess_split(chains: np.ndarray) -> np.ndarray:
    """ESS (P,) of chains (2, n, P) with Geyer's initial positive and monotone sequences (ArviZ's `_ess`)."""
    _, n, p = chains.shape
    acov = _autocovariance(chains).mean(0)  # (n, P): mean over the chains
    mean_var = acov[0] * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n + np.var(chains.mean(1), axis=0, ddof=1)
    rho = 1.0 - (mean_var - acov) / var_plus  # (n, P)
    rho[0] = 1.0
    num_pairs = n // 2
    pairs = rho[:2 * num_pairs].reshape(num_pairs, 2, p).sum(1)  # P_j = ρ_2j + ρ_2j+1, j = 0..num_pairs−1
    # the positive sequence runs pair j = 1, 2, ... while 2j − 1 < n − 3 and P_{j−1} > 0: J pairs
    j_bound = max(-(-(n - 2) // 2) - 1, 0)  # #{j ≥ 1 : 2j − 1 < n − 3}
    positive = np.concatenate([pairs[:j_bound] > 0, np.zeros((1, p), bool)])  # P_0..P_{j_bound−1} > 0, then a stop
    num_run = np.argmin(positive, 0)  # J per column: the first j with P_j ≤ 0, at most j_bound
    # the monotone sequence over pairs 0..J−1 (all positive): the running minimum of the pair sums
    idx = np.arange(num_pairs)[:, None]
    inside = idx < num_run[None]
    running = np.minimum.accumulate(np.where(inside, pairs, np.inf), axis=0)
    sum_pairs = np.sum(np.where(inside, running, 0.0), axis=0)
    # ρ_2J: the last even autocorrelation computed (1 when J = 0), kept if its pair is ≥ 0 or itself > 0
    cols = np.arange(p)
    last_even = np.where(num_run > 0, rho[np.minimum(2 * num_run, n - 1), cols], 1.0)
    last_pair = pairs[np.minimum(num_run, num_pairs - 1), cols]
    keep = (num_run == 0) | (last_pair >= 0) | (last_even > 0)
    tau = -1.0 + 2.0 * sum_pairs + np.where(keep, last_even, 0.0)
    size = 2 * n
    tau = np.maximum(tau, 1.0 / np.log10(size))
    ess = size / tau
    ess[np.isnan(rho).any(0)] = np.nan
    constant = (chains.max((0, 1)) - chains.min((0, 1))) < np.finfo(float).resolution
    ess[constant] = size
    return ess


def ess_mean(window: np.ndarray) -> np.ndarray:
    """ESS of the mean of each column of one chain `window` (W, P) -> (P,), W ≥ 4 (NaN below, as ArviZ)."""
    window = np.asarray(window, float)
    n = window.shape[0] // 2
    if n < 2:
        return np.full(window.shape[1], np.nan)
    out = np.empty(window.shape[1])
    for lo in range(0, window.shape[1], COLUMN_BLOCK):
        block = window[:, lo:lo + COLUMN_BLOCK]
        out[lo:lo + COLUMN_BLOCK] = _ess_split(np.stack([block[:n], block[-n:]]))
    return out


def ess_mcse(window: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ESS of the mean, MCSE of the mean) per column of one chain `window` (W, P): MCSE = sd/√ESS."""
    window = np.asarray(window, float)
    ess = ess_mean(window)
    return ess, np.std(window, axis=0, ddof=1) / np.sqrt(ess)
