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
* `block_moments(trace, block_len)` and `split_rhat_from_blocks(trace, blocks, start, stop)`: the same split-R̂ of the
  window trace[start:stop] from per-block means and sums of squared deviations (`Moments`) combined by Chan et al.'s
  pairwise rule, so that FASO's checks, which evaluate R̂ on windows of up to 0.95k iterates every 100 iterations,
  cost O(k/B · P) each instead of O(k · P) (the blocks are computed once, as the iterates arrive). Equal to
  `split_rhat` to rounding (tests: relative 1e-10). A column constant over a window (a frozen coordinate of a
  diverged run) has R̂ NaN in both, not a ratio of rounding errors that differs between the two ways of summing.

References
----------
A. Vehtari, A. Gelman, D. Simpson, B. Carpenter, P.-C. Bürkner (2021). Rank-normalization, folding, and
localization: an improved R̂ for assessing convergence of MCMC. Bayesian Analysis 16(2), 667–718.
R. Kumar, C. Carroll, A. Hartikainen, O. Martin (2019). ArviZ a unified library for exploratory analysis of
Bayesian models in Python. JOSS 4(33), 1143.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.fft import next_fast_len

COLUMN_BLOCK = 64  # columns per FFT block (memory: 2 × next_fast_len(W) × 64 complex numbers)


def split_rhat(window: np.ndarray) -> np.ndarray:
    """Split-R̂ of each column of one chain `window` (W, P) -> (P,), W ≥ 8 (NaN below, as ArviZ); a column constant
    over the window: NaN (+inf if its two halves are two different constants), see `_split_rhat`."""
    window = np.asarray(window, float)
    n = window.shape[0] // 2
    if n < 4:
        return np.full(window.shape[1], np.nan)
    first, second = window[-2 * n:-n], window[-n:]
    return _split_rhat(n, first.mean(0), second.mean(0), first.var(0, ddof=1), second.var(0, ddof=1))


CONSTANT_RTOL = 1e-12
"""A column whose within-half sd is at most this fraction of its magnitude is constant over the window (its
variances are rounding noise)."""


def _split_rhat(n: int, mean1, mean2, var1, var2) -> np.ndarray:
    """R̂ = {(B/W_in + n − 1)/n}^{1/2} from the halves' means and variances (ddof 1), B = n (mean1 − mean2)²/2,
    W_in = (var1 + var2)/2. A column constant within both halves (sd ≤ `CONSTANT_RTOL` × |mean|) has R̂ NaN when the
    halves agree (undefined, as ArviZ gives for an exactly constant chain) and +inf when they differ (a jump), instead
    of a ratio of rounding errors, which would differ between two ways of summing the same iterates."""
    b = n * (mean1 - mean2) ** 2 / 2.0
    w = (var1 + var2) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        rhat = np.sqrt((b / w + n - 1) / n)
    scale = CONSTANT_RTOL * np.maximum(np.abs(mean1), np.abs(mean2))
    constant = np.sqrt(w) <= scale
    return np.where(constant, np.where(np.abs(mean1 - mean2) <= scale, np.nan, np.inf), rhat)


class Moments(NamedTuple):
    """The first two moments of G blocks of iterates, per column."""
    count: np.ndarray  # (G,) iterates in each block
    mean: np.ndarray  # (G, P) block means
    m2: np.ndarray  # (G, P) sums of squared deviations from the block mean


def combine(m: Moments) -> tuple[int, np.ndarray, np.ndarray]:
    """(n, mean (P,), m2 (P,)) of the union of the blocks of `m` (Chan, Golub & LeVeque 1979, the pairwise rule
    applied to all blocks at once: m2 = Σ_g m2_g + Σ_g n_g (mean_g − mean)²)."""
    n = int(m.count.sum())
    w = m.count[:, None].astype(float)
    mean = (w * m.mean).sum(0) / n
    return n, mean, m.m2.sum(0) + (w * (m.mean - mean) ** 2).sum(0)


def block_moments(trace: np.ndarray, block_len: int) -> Moments:
    """`Moments` of the consecutive blocks trace[jB:(j+1)B], j = 0..⌊T/B⌋−1, of `trace` (T, P), B = `block_len`
    (a last partial block is left out); two passes per block: the mean, then the squared deviations."""
    trace = np.asarray(trace, float)
    g = trace.shape[0] // block_len
    blocks = trace[:g * block_len].reshape(g, block_len, -1)
    mean = blocks.mean(1)
    return Moments(np.full(g, block_len), mean, ((blocks - mean[:, None]) ** 2).sum(1))


def range_moments(trace: np.ndarray, blocks: Moments, block_len: int, start: int, stop: int):
    """(n, mean, m2) of trace[start:stop] (T, P) from `blocks` (the `Moments` of trace[jB:(j+1)B] for j < G, B =
    `block_len`): the whole blocks inside [start, stop) and the iterates at its two ends, combined."""
    g = blocks.count.shape[0]
    j0, j1 = -(-start // block_len), min(stop // block_len, g)
    if j1 <= j0:
        return combine(block_moments(trace[start:stop], stop - start))
    parts = [Moments(blocks.count[j0:j1], blocks.mean[j0:j1], blocks.m2[j0:j1])]
    for lo, hi in ((start, j0 * block_len), (j1 * block_len, stop)):
        if hi > lo:
            parts.append(block_moments(trace[lo:hi], hi - lo))
    return combine(Moments(*(np.concatenate(c) for c in zip(*parts))))


def split_rhat_from_blocks(trace: np.ndarray, blocks: Moments, block_len: int, start: int, stop: int) -> np.ndarray:
    """`split_rhat`(trace[start:stop]) (P,) from the block moments `blocks` of `trace` (see `range_moments`): the
    halves [stop − 2n, stop − n) and [stop − n, stop), n = ⌊(stop − start)/2⌋, B = n (mean_1 − mean_2)²/2,
    W_in = (s²_1 + s²_2)/2; NaN for n < 4 and for a constant column, as `split_rhat`."""
    n = (stop - start) // 2
    if n < 4:
        return np.full(trace.shape[1], np.nan)
    _, mean1, m2_1 = range_moments(trace, blocks, block_len, stop - 2 * n, stop - n)
    _, mean2, m2_2 = range_moments(trace, blocks, block_len, stop - n, stop)
    return _split_rhat(n, mean1, mean2, m2_1 / (n - 1), m2_2 / (n - 1))


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
