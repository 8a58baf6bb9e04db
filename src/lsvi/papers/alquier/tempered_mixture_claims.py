"""The claims of notebook 53, §2 (α-VB for a Gaussian mixture with hidden labels), as rows for `Run.claim`.

`claims(df, rho)` reads the table of `lsvi.papers.alquier.tempered_mixture.study` and the BvM prediction
ρ (K,) of the spread ratio (`tempered_mixture.spread_ratio_prediction`) and returns one dict per claim
(id, source, paper, measured, criterion, passed, note, assessable, kind). The slides only *cite*
Bhattacharya, Pati & Yang (2019) ("extension to models with hidden variables"): the rows are of kind
"illustration". Criteria (fixed before the runs, stated in the notebook's markdown):

* ``mixture_avb_rate_alpha<α>``: consistency of the α-VB at a rate near n^{-1/2}: the 95 % bootstrap interval
  (over repetitions, `lsvi.exact.statistics.bootstrap_loglog_slope`) of the log–log slope of the mean over
  repetitions of ‖m_VB − μ*‖ (up to label switching) vs n lies below −0.25 (PASS), above it (FAIL), across it
  (undecided: NOT ASSESSABLE); NOT ASSESSABLE also if n spans < 1 decade or < 5 repetitions.
* ``mixture_avb_spread_alpha<α>``: the α-VB's spread shrinks at the rate of the exact tempered posterior's: for
  every component k, the 95 % bootstrap interval of the log–log slope of the mean ratio sd_VB,k / sd_exact,k vs n
  lies inside [−0.1, 0.1] (PASS); one disjoint from it FAILs; otherwise undecided (NOT ASSESSABLE), as when the
  reference's n span < 1 decade, it has < 5 repetitions, or its error on an sd (change with 1.5× the nodes)
  exceeds 1 %. The ratio at the largest n and the BvM limit ρ_k are reported, not tested.

References
----------
A. Bhattacharya, D. Pati, Y. Yang (2019). Bayesian fractional posteriors. Annals of Statistics 47(1), 39–66.
P. Alquier (2019). Generalization bounds for variational inference. Slides, EcoSta 2019.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lsvi.exact.statistics import bootstrap_loglog_slope

SOURCE = ("cited in the slides (\"Consistency results\" ②: Bhattacharya–Pati–Yang 2019, models with hidden variables): "
          "illustration")
RATE_MAX = -0.25  # consistency at a rate near n^(-1/2): the slope's interval lies below −1/4
SPREAD_BAND = (-0.1, 0.1)  # sd_VB / sd_exact neither vanishes nor grows: the same rate n^(-1/2)
MIN_REPS, MIN_DECADES = 5, 1.0
REF_TOL = 0.01  # the reference's relative error on an sd must be below 1 %


def _row(id, paper, measured, criterion, passed, note="", assessable=True) -> dict:
    return dict(id=id, source=SOURCE, paper=paper, measured=measured, criterion=criterion, passed=bool(passed),
                note=note, assessable=bool(assessable), kind="illustration")


def _tag(alpha: float) -> str:
    return f"alpha{alpha:g}"


def _wide(da: pd.DataFrame, col: str):
    """(n (J,), Y (R, J)): the column ``col`` per repetition (rows) and n (columns), repetitions complete in n."""
    Y = da.pivot(index="rep", columns="n", values=col).dropna()
    return Y.columns.to_numpy(float), Y.to_numpy(float)


def claims(df: pd.DataFrame, rho) -> list[dict]:
    """The rows of §2 of notebook 53 from the `study` table ``df`` and ρ (K,)."""
    rho = np.asarray(rho, float)
    out = []
    for alpha, da in df.groupby("alpha"):
        tag = _tag(alpha)
        n, Y = _wide(da, "err")
        reps, decades = Y.shape[0], float(np.log10(n.max() / n.min()))
        enough = reps >= MIN_REPS and decades >= MIN_DECADES and n.size >= 3
        fit = bootstrap_loglog_slope(n, Y)
        _, S = _wide(da, "spread")
        sfit = bootstrap_loglog_slope(n, S)
        decided = fit.hi < RATE_MAX or fit.lo > RATE_MAX
        sweeps, change = int(da["sweeps"].max()), float(da["change"].max())
        note = ("" if enough else f"needs ≥ {MIN_REPS} repetitions and n spanning ≥ {MIN_DECADES:g} decade (≥ 3 sizes)")
        if enough and not decided:
            note = f"the interval contains {RATE_MAX}: undecided"
        if not da["ordered"].all():
            note = (note + "; " if note else "") + f"{int((~da['ordered']).sum())} fits with swapped labels"
        out.append(_row(
            f"mixture_avb_rate_{tag}",
            f"the α-VB of π_(n,α) in a model with hidden variables is consistent (cited: Bhattacharya–Pati–Yang 2019); "
            f"α = {alpha:g}, two-component Gaussian mixture, hidden labels",
            f"slope of mean ‖m_VB − μ*‖ {fit.slope:.3f} [{fit.lo:.3f}, {fit.hi:.3f}] over n ∈ [{n.min():.0f}, {n.max():.0f}], "
            f"{reps} reps; mean error {Y[:, 0].mean():.3g} → {Y[:, -1].mean():.3g}; VB spread √tr Cov_q {S[:, 0].mean():.3g} → "
            f"{S[:, -1].mean():.3g} (slope {sfit.slope:.3f}); CAVI ≤ {sweeps} sweeps, last change ≤ {change:.1e}",
            f"95 % bootstrap interval of the slope below {RATE_MAX} (PASS), above it (FAIL), else undecided",
            fit.hi < RATE_MAX, note=note, assessable=enough and decided))
        if "ratio_1" not in da or da["ratio_1"].notna().sum() == 0:
            out.append(_row(f"mixture_avb_spread_{tag}", "the α-VB's spread shrinks at the rate of the exact π_(n,α)'s",
                            "no reference at this scale", "—", False, note="no reference computed", assessable=False))
            continue
        dr = da[da["ratio_1"].notna()]
        K = rho.size
        fits, last = [], []
        for k in range(K):
            nr, R = _wide(dr, f"ratio_{k + 1}")
            fits.append(bootstrap_loglog_slope(nr, R))
            last.append(R[:, -1].mean())
        ref_reps, ref_dec = R.shape[0], float(np.log10(nr.max() / nr.min()))
        ref_err = float(dr["ref_err_sd"].max())
        ok_ref = ref_reps >= MIN_REPS and ref_dec >= MIN_DECADES and nr.size >= 3 and ref_err <= REF_TOL
        inside = [SPREAD_BAND[0] <= f.lo and f.hi <= SPREAD_BAND[1] for f in fits]
        outside = [f.hi < SPREAD_BAND[0] or f.lo > SPREAD_BAND[1] for f in fits]
        decided = all(inside) or any(outside)
        if not ok_ref:
            note = (f"needs ≥ {MIN_REPS} repetitions with a reference, n spanning ≥ {MIN_DECADES:g} decade (≥ 3 sizes) "
                    f"and a reference error ≤ {REF_TOL:g}")
        else:
            note = "" if decided else "an interval overlaps the band's edge: undecided"
        out.append(_row(
            f"mixture_avb_spread_{tag}",
            "the α-VB's spread shrinks at the rate of the exact tempered posterior π_(n,α)'s (its sd stays a fixed "
            "fraction of the exact sd)",
            "; ".join(f"μ_{k + 1}: slope of sd_VB/sd_exact {f.slope:.3f} [{f.lo:.3f}, {f.hi:.3f}], ratio at n = "
                      f"{nr.max():.0f} {r:.3f} (BvM limit ρ = {p:.3f})" for k, (f, r, p) in enumerate(zip(fits, last, rho)))
            + f"; {ref_reps} reps, n ∈ [{nr.min():.0f}, {nr.max():.0f}], reference error ≤ {ref_err:.1e}",
            f"every 95 % bootstrap interval of the slope inside [{SPREAD_BAND[0]}, {SPREAD_BAND[1]}] (PASS), one disjoint "
            "from it (FAIL), else undecided",
            all(inside), note=note, assessable=ok_ref and decided))
    return out
