"""Stationarity (convergence) detectors for fixed-learning-rate stochastic optimisation, as compared in
Section 5.1 / Fig. 6 / Fig. C.1 of the RABVI paper (Welandawe et al.), written as pure functions over a
recorded run: the iterates λ^{(0..K)} (K + 1, P) at one learning rate γ, or ELBO estimates on a grid.
Each returns a `Trigger` (the first iteration k at which it declares stationarity, and the window it used).

* `adaptive_rhat`  Section 5.1, eq. 27 (ours = FASO's rule, as `faso.rhat_max_windows`): every `k_check`
  iterations, R̂_max(W) = max_i split-R̂(λ_i^{(k−W+1:k)}) on 5 windows W_min..0.95k; trigger when
  min_W R̂_max(W) ≤ 1.1, window W_opt = argmin.
* `fixed_rhat`     Dhaka et al. (2020) with the paper's fixed window W = 800: max_i split-R̂ of the last 800
  iterates ≤ 1.1. Both R̂ rules use `chain_diagnostics.split_rhat` (FASO's: ArviZ's split-R̂, vectorised).
* `adaptive_sasa`  Appendix B.3 (adaptive SASA+ of Zhang et al. 2020): the invariant
  Δ^{(k)} = 2⟨d^{(k)}, λ^{(k)}⟩ − γ‖d^{(k)}‖², d^{(k)} = (λ^{(k)} − λ^{(k+1)})/γ (eq. 4), E_μγ[Δ] = 0 at
  stationarity; W_opt = argmax of ArviZ ESS(Δ^{(k−W+1:k)}) over 5 windows N_min..0.95k, require
  ESS(W_opt) ≥ N_min, and accept H₀: E[Δ] = 0 when |mean Δ| ≤ z_{1−α/2} sd(Δ)/√ESS (two-sided z-test,
  α = 0.05 — B.3 says α matters little; the choice is ours).
* `delta_elbo`     Kucukelbir et al. (2017), Stan's ADVI rule: ELBO evaluated every `eval_every` = 100
  iterations, relative change r_j = |(ELBO_{j−1} − ELBO_j)/ELBO_j| (ELBO_{−1} = 0) kept in a circular buffer of
  size max(0.1 · max_iterations/eval_every, 2) (Stan: max_iterations = 10⁴ → 10); trigger when the
  buffer's mean or median < tol_rel_obj = 0.01 (Stan's defaults and its "MEAN/MEDIAN ELBO CONVERGED").
* `distance_rule`  Appendix B.4 (Pesme, Dieuleveut & Flammarion 2020): Ω_k = ‖λ^{(k)} − λ^{(0)}‖²,
  slope S = (log Ω_{q^{n+1}} − log Ω_{q^n})/log q checked at k = ⌈q^{n+1}⌉, n ≥ n₀; trigger when
  S < thresh, thresh ∈ (0, 2]. Constants (not stated in B.4; our choice): q = 1.5, thresh = 0.6,
  n₀ = 6 (the first check compares k = ⌈1.5⁶⌉ = 12 with k = ⌈1.5⁷⌉ = 18).

References
----------
M. Welandawe, M. R. Andersen, A. Vehtari, J. H. Huggins (2024). A framework for improving the
reliability of black-box variational inference. arXiv:2203.15945.
A. K. Dhaka et al. (2020). Robust, accurate stochastic optimization for variational inference. NeurIPS 33.
P. Zhang, H. Lang, Q. Liu, L. Xiao (2020). Statistical adaptive stochastic gradient methods. arXiv:2002.10597.
A. Kucukelbir et al. (2017). Automatic differentiation variational inference. JMLR 18(14).
S. Pesme, A. Dieuleveut, N. Flammarion (2020). On convergence-diagnostic based step sizes for SGD. ICML.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats

from lsvi.core.bbvi import faso
from lsvi.core.bbvi.chain_diagnostics import Moments, block_moments, ess_mean, split_rhat


class Trigger(NamedTuple):
    k: int | None  # first iteration at which stationarity is declared (None: never within the run)
    window: int  # window of iterates the decision used (0 when the rule has none)


NEVER = Trigger(None, 0)


def adaptive_rhat(trace: np.ndarray, w_min: int = 200, k_check: int = 100, num_windows: int = 5,
                  threshold: float = 1.1) -> Trigger:
    """FASO's adaptive-window split-R̂ rule (eq. 27) on iterates `trace` (K, P) (row j = λ^{(j+1)}); the R̂ of each
    window from the moments of the k_check-iterate blocks, as FASO computes it."""
    trace = np.asarray(trace, float)
    blocks = block_moments(trace, k_check)
    for k in range(k_check, trace.shape[0] + 1, k_check):
        windows, rmax = faso.rhat_max_windows(trace[:k], w_min, num_windows,
                                              blocks=(Moments(*(a[:k // k_check] for a in blocks)), k_check))
        if rmax.size and np.nanmin(rmax) <= threshold:
            return Trigger(k, int(windows[np.nanargmin(rmax)]))
    return NEVER


def fixed_rhat(trace: np.ndarray, window: int = 800, k_check: int = 100, threshold: float = 1.1) -> Trigger:
    """Dhaka et al.'s rule with a fixed window: max_i split-R̂ of the last `window` iterates ≤ `threshold`."""
    for k in range(k_check, trace.shape[0] + 1, k_check):
        if k >= window and np.max(split_rhat(trace[k - window:k])) <= threshold:
            return Trigger(k, window)
    return NEVER


def sasa_statistic(positions: np.ndarray, step_size: float) -> np.ndarray:
    """Δ^{(k)} = 2⟨d^{(k)}, λ^{(k)}⟩ − γ‖d^{(k)}‖², k = 0..K−1, from λ^{(0..K)} `positions` (K + 1, P) (B.3)."""
    lam = np.asarray(positions, float)
    d = (lam[:-1] - lam[1:]) / step_size
    return 2 * np.sum(d * lam[:-1], axis=1) - step_size * np.sum(d * d, axis=1)


def _ess(x: np.ndarray) -> float:
    return float(ess_mean(np.asarray(x, float)[:, None])[0])


def adaptive_sasa(delta: np.ndarray, n_min: int = 100, k_check: int = 100, num_windows: int = 5,
                  alpha: float = 0.05) -> Trigger:
    """Adaptive SASA+ (B.3) on the invariant statistic `delta` (K,) (`sasa_statistic`)."""
    z = stats.norm.ppf(1 - alpha / 2)
    for k in range(k_check, delta.shape[0] + 1, k_check):
        if 0.95 * k < n_min:
            continue
        windows = np.unique(np.linspace(n_min, 0.95 * k, num_windows).astype(int))
        ess = np.array([_ess(delta[k - w:k]) for w in windows])
        j = int(np.nanargmax(ess))
        w, e = int(windows[j]), ess[j]
        if e < n_min:
            continue
        x = delta[k - w:k]
        if abs(x.mean()) <= z * x.std(ddof=1) / np.sqrt(e):
            return Trigger(k, w)
    return NEVER


def delta_elbo(elbo: np.ndarray, eval_every: int = 100, tol: float = 0.01, max_iterations: int = 10_000) -> Trigger:
    """Stan ADVI's relative-ELBO rule on `elbo` (J,): ELBO after eval_every·(j+1) iterations, j = 0..J−1.

    As Stan's `advi::stochastic_gradient_ascent`: r_j = |(L_{j−1} − L_j)/L_j| (its `rel_difference(elbo, elbo_prev)`,
    relative to the *current* ELBO) with L_{−1} = 0, so that the buffer starts with r_0 = 1."""
    size = int(max(0.1 * max_iterations / eval_every, 2.0))
    buf: list[float] = []
    prev = 0.0
    for j, cur in enumerate(elbo):
        buf = (buf + [abs((prev - cur) / cur)])[-size:]
        prev = cur
        if np.mean(buf) < tol or np.median(buf) < tol:
            return Trigger(eval_every * (j + 1), 0)
    return NEVER


def distance_rule(positions: np.ndarray, q: float = 1.5, thresh: float = 0.6, n0: int = 6) -> Trigger:
    """Pesme et al.'s slope test (B.4) on λ^{(0..K)} `positions` (K + 1, P): S over [q^n, q^{n+1}] < thresh."""
    lam = np.asarray(positions, float)
    omega = np.sum((lam - lam[0]) ** 2, axis=1)
    n = n0
    while int(np.ceil(q ** (n + 1))) < lam.shape[0]:
        k0, k1 = int(np.ceil(q ** n)), int(np.ceil(q ** (n + 1)))
        s = (np.log(omega[k1]) - np.log(omega[k0])) / (np.log(k1) - np.log(k0))
        if s < thresh:
            return Trigger(k1, 0)
        n += 1
    return NEVER
