"""Intervals for a mean over independent repetitions (seeds), the form most claims rows read.

* `t_interval`: the mean of x_1..x_R with its two-sided Student-t interval, x̄ ± t_{R−1, (1+level)/2} s/√R.

Every claims module takes its t interval of a mean from here (the vectorised bands of
`papers.lsvi.checks.stochastic_lemmas` and the Welch / ratio intervals of `papers.lsvi.logistic_claims` are other
intervals).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import stats


class MeanInterval(NamedTuple):
    mean: float
    lo: float
    hi: float


def t_interval(x, level: float = 0.95) -> MeanInterval:
    """Mean of `x` (R,) with its two-sided Student-t `level` interval on R − 1 degrees of freedom.

    With R < 2 the interval is (−inf, inf): one repetition says nothing about the spread. Values that all agree give
    a point interval."""
    x = np.asarray(x, float).ravel()
    if x.size == 0:
        raise ValueError("t_interval needs at least one value")
    m = float(x.mean())
    if x.size < 2:
        return MeanInterval(m, float("-inf"), float("inf"))
    h = float(stats.t.ppf(0.5 + level / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return MeanInterval(m, m - h, m + h)
