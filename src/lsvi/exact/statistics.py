"""Statistics for reading a claim off a run: log–log slopes with intervals, and whether a
cost curve is in the regime where its slope means anything.

* `loglog_fit`, `bootstrap_loglog_slope`: the slope b of log y = a + b log x with a 95 %
  interval (rates in N or T, costs in N or d);
* `cost_scaling`: the log–log slope of a cost-per-iteration curve (Figures 4 and 5, left)
  and whether the grid can show one (enough sizes, enough decades, a fixed cost that does
  not dominate): otherwise the claim is NOT ASSESSABLE.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats


class SlopeFit(NamedTuple):
    slope: float
    intercept: float
    se: float
    lo: float
    hi: float


def loglog_fit(x, y, level: float = 0.95, sigma=None) -> SlopeFit:
    """Fit log y = a + b log x; CI for b.

    Without ``sigma``: OLS with a Student-t interval on n − 2 degrees of freedom (residual
    scatter, so curvature widens it). With ``sigma`` (standard errors of log y): weighted
    LS, normal interval, inflated by the Birge ratio √(χ²/(n − 2)) when it exceeds 1.
    """
    lx, ly = np.log(np.asarray(x, float)), np.log(np.asarray(y, float))
    n = lx.size
    if sigma is None:
        b, a = np.polyfit(lx, ly, 1)
        if n > 2:
            s2 = np.sum((ly - a - b * lx) ** 2) / (n - 2)
            se = math.sqrt(s2 / np.sum((lx - lx.mean()) ** 2))
            q = stats.t.ppf(0.5 + level / 2, n - 2)
        else:
            se, q = float("nan"), float("nan")
    else:
        wts = 1.0 / np.asarray(sigma, float) ** 2
        xm = np.sum(wts * lx) / np.sum(wts)
        sxx = np.sum(wts * (lx - xm) ** 2)
        b = np.sum(wts * (lx - xm) * ly) / sxx
        a = np.sum(wts * ly) / np.sum(wts) - b * xm
        birge = math.sqrt(np.sum(wts * (ly - a - b * lx) ** 2) / (n - 2)) if n > 2 else 1.0
        se = math.sqrt(1.0 / sxx) * max(1.0, birge)
        q = stats.norm.ppf(0.5 + level / 2)
    return SlopeFit(float(b), float(a), se, float(b - q * se), float(b + q * se))


def bootstrap_loglog_slope(x, Y, num_boot: int = 2000, seed: int = 0, level: float = 0.95) -> SlopeFit:
    """Slope of log mean(Y[:, j]) on log x_j with a percentile bootstrap CI over repetitions.

    Y (R, n): R independent repetitions (rows) for each of the n design points; each column
    is resampled independently (the design points are independent runs).
    """
    Y = np.asarray(Y, float)
    R, n = Y.shape
    fit = loglog_fit(x, Y.mean(axis=0))
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, R, size=(num_boot, R, n))
    means = np.take_along_axis(np.broadcast_to(Y, (num_boot, R, n)), idx, axis=1).mean(axis=1)
    lx = np.log(np.asarray(x, float))
    lxc = lx - lx.mean()
    slopes = (np.log(means) @ lxc) / np.sum(lxc**2)
    lo, hi = np.quantile(slopes, [0.5 - level / 2, 0.5 + level / 2])
    return SlopeFit(fit.slope, fit.intercept, float(np.std(slopes)), float(lo), float(hi))



class CostScaling(NamedTuple):
    """Log–log fit of the cost per iteration against N and whether it can be read.

    slope, lo, hi: OLS slope of log(median cost) on log N and its 95 % t-interval
    (`loglog_fit`); fixed_share: fixed cost / median cost at the smallest N;
    decades: log10(N_max / N_min); assessable: False when the grid cannot show a slope in
    N (``reason`` says why); passed: ``band[0] <= slope <= band[1]``."""

    slope: float
    lo: float
    hi: float
    fixed_share: float
    decades: float
    assessable: bool
    reason: str
    passed: bool


def cost_scaling(sample_sizes, costs, fixed_cost, band=(0.8, 1.2), min_sizes: int = 4, min_decades: float = 1.0,
                 max_fixed_share: float = 0.2) -> CostScaling:
    """Is the cost per iteration linear in N over ``sample_sizes``?

    sample_sizes (K,); costs (K, R) seconds per iteration, R timed runs per N; fixed_cost:
    seconds per iteration at a tiny N (scalar or (R,)), the part of an iteration that does
    not grow with N (for a logistic target: one pass over the data, the dispatch of the
    step). Medians over runs, so that a run slowed by another process on a shared machine
    does not move the fit.

    A slope is only read where the N-proportional work dominates: the grid must hold at
    least ``min_sizes`` sizes spanning ``min_decades`` decades, with the fixed cost at most
    ``max_fixed_share`` of the cost at the smallest N (a fixed share f there biases a
    log–log slope down by up to about f). Otherwise ``assessable`` is False: an
    overhead-dominated grid gives a slope near 0 whatever the algorithm, and two points
    give no interval.
    """
    N = np.asarray(sample_sizes, dtype=float)
    med = np.median(np.asarray(costs, dtype=float).reshape(len(N), -1), axis=1)
    fixed = float(np.median(np.atleast_1d(np.asarray(fixed_cost, dtype=float))))
    order = np.argsort(N)
    N, med = N[order], med[order]
    decades = float(np.log10(N[-1] / N[0])) if len(N) > 1 else 0.0
    share = fixed / med[0]
    reasons = []
    if len(N) < min_sizes:
        reasons.append(f"{len(N)} sizes < {min_sizes}")
    if decades < min_decades - 1e-9:
        reasons.append(f"N spans {decades:.2g} decades < {min_decades:g}")
    if share > max_fixed_share:
        reasons.append(f"fixed cost is {share:.0%} of the cost at N = {N[0]:g} (> {max_fixed_share:.0%})")
    if len(N) >= 2:
        fit = loglog_fit(N, med)
        slope, lo, hi = fit.slope, fit.lo, fit.hi
    else:
        slope = lo = hi = float("nan")
    return CostScaling(slope, lo, hi, share, decades, not reasons, "; ".join(reasons),
                       bool(band[0] <= slope <= band[1]))
