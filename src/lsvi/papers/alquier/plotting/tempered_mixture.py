"""Figure of notebook 53, §2: consistency of the α-VB for a Gaussian mixture with hidden labels, and its spread
against the exact tempered posterior's (`lsvi.papers.alquier.tempered_mixture`)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lsvi.papers.alquier.tempered_mixture import seed_interval


def _mean_and_interval(da: pd.DataFrame, col: str):
    """(n (J,), mean (J,), lo (J,), hi (J,)) over repetitions: the 95 % bootstrap interval of the mean."""
    Y = da.pivot(index="rep", columns="n", values=col).dropna()
    lo, hi = seed_interval(Y.to_numpy(float))
    return Y.columns.to_numpy(float), Y.to_numpy(float).mean(axis=0), lo, hi


def tempered_mixture_consistency(df: pd.DataFrame, rho):
    """Two panels against n (log–log x), one colour per α.

    Left: ‖m_VB − μ*‖ up to label switching (circles, solid: mean over repetitions, bars: 95 % bootstrap interval
    of the mean), the error of the exact tempered posterior's mean (crosses, the repetitions with a reference),
    the VB spread √tr Cov_q (dashed, mean), an n^{-1/2} guide (black dotted) through the first mean error of the
    first α. The α's share their data sets, so their errors nearly coincide: markers are offset by ±2.5 % in n
    (both panels). Right: sd_VB,k / sd_exact,k per component (circles μ₁, squares μ₂; mean and 95 % bootstrap interval
    over the repetitions with a reference) and the BvM limits
    ρ_k (grey lines: solid μ₁, dashed μ₂)."""
    rho = np.asarray(rho, float)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    alphas = sorted(df["alpha"].unique())
    ymin = min(0.6, float(rho.min()))
    for j, (c, alpha) in enumerate(zip(colours, alphas)):
        da = df[df["alpha"] == alpha]
        shift = 1.0 + 0.05 * (j - (len(alphas) - 1) / 2)  # the α's share their data sets: offset to show both
        n, m, lo, hi = _mean_and_interval(da, "err")
        axes[0].errorbar(n * shift, m, yerr=[m - lo, hi - m], color=c, marker="o", ms=4, capsize=2,
                         label=f"α-VB mean error, α = {alpha:g}")
        if "err_exact" in da and da["err_exact"].notna().any():
            ne, me, _, _ = _mean_and_interval(da[da["err_exact"].notna()], "err_exact")
            axes[0].plot(ne * shift, me, "x", color=c, ms=8, label=rf"exact $\pi_{{n,\alpha}}$ mean error (reference), α = {alpha:g}")
        ns, ms, _, _ = _mean_and_interval(da, "spread")
        axes[0].plot(ns, ms, "--", color=c, lw=1.2, label=rf"α-VB spread $\sqrt{{\mathrm{{tr\,Cov}}_q}}$, α = {alpha:g}")
        if "ratio_1" in da and da["ratio_1"].notna().any():
            for k, mk in zip(range(rho.size), ("o", "s")):
                nr, mr, lr, hr = _mean_and_interval(da[da["ratio_1"].notna()], f"ratio_{k + 1}")
                ymin = min(ymin, float(lr.min()))
                axes[1].errorbar(nr * shift, mr, yerr=[mr - lr, hr - mr], color=c, marker=mk, ms=4, capsize=2,
                                 ls="-" if k == 0 else ":", label=rf"$\mu_{k + 1}$, α = {alpha:g}")
    n_all = np.asarray(sorted(df["n"].unique()), float)
    first = df[(df["alpha"] == alphas[0]) & (df["n"] == n_all[0])]["err"].mean()
    axes[0].plot(n_all, first * np.sqrt(n_all[0] / n_all), "k:", lw=1.2, label=r"$n^{-1/2}$ guide")
    for k, ls in zip(range(rho.size), ("-", "--")):
        axes[1].axhline(rho[k], color="grey", ls=ls, lw=1, label=rf"BvM limit $\rho_{k + 1}$ = {rho[k]:.3f}")
    axes[1].axhline(1.0, color="black", lw=0.6)
    axes[0].set(xscale="log", yscale="log", xlabel="n", ylabel=r"$\|m_{\rm VB}-\mu^*\|$ (up to labels);  $\sqrt{\mathrm{tr\,Cov}_q}$",
                title="α-VB for a mixture with hidden labels: consistency")
    axes[1].set(xscale="log", xlabel="n", ylabel=r"$\mathrm{sd}_{{\rm VB},k}\,/\,\mathrm{sd}_{{\rm exact},k}$",
                title="α-VB spread / exact tempered-posterior spread")
    axes[1].set_ylim(max(0.0, ymin - 0.05), 1.05)
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
