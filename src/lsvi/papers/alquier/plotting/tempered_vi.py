"""Figure of notebook 53: concentration of the tempered-posterior Gaussian VI and its gap to
the exact tempered posterior (simulated logistic regression)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from lsvi.papers.alquier.tempered_vi import acov_matrix
from lsvi.pipeline import figure_style


def tempered_vi_concentration(df: pd.DataFrame, fisher_inv):
    """Three panels against n (log–log), one colour per α.

    Left: E‖θ − θ₀‖² under the tempered VI (mean over repetitions with its bootstrap 95 % interval as bars,
    `lsvi.pipeline.figure_style.repetitions`; the sd bars drawn before fell below zero on the log axis), the exact
    tempered posterior (reference, crosses) and the BvM prediction tr(I⁻¹)(1 + 1/α)/n (dashed).
    Middle: K(q, π_{n,α}) for the VI (solid) and Laplace (dotted) approximations, mean over the
    repetitions with a reference, with a 1/n guide and the reference's error estimate (grey).
    Right: ‖n·α·Cov_q − I(θ₀)⁻¹‖_F / ‖I(θ₀)⁻¹‖_F (BvM with the α scaling): its mean over the data
    sets (solid) and that of the mean n·α·Cov_q over data sets (dotted, the claim's measure)."""
    fisher_inv = np.asarray(fisher_inv)
    d, tr = fisher_inv.shape[0], float(np.trace(fisher_inv))
    with figure_style.theme():
        return _draw(df, fisher_inv, d, tr)


def _draw(df, fisher_inv, d, tr):
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for c, (alpha, da) in zip(colours, df.groupby("alpha")):
        g = da.groupby("n")
        n = np.asarray(sorted(da["n"].unique()), float)
        Y = da.pivot(index="rep", columns="n", values="sq_err_vi").reindex(columns=n).to_numpy()
        phrase = figure_style.repetitions(axes[0], n, Y, color=c, label=f"VI, α = {alpha:g}", err_style="bars",
                                          marker="o", ms=4)
        if da["sq_err_exact"].notna().any():
            axes[0].plot(n, g["sq_err_exact"].mean(), "x", color=c, ms=8, label=f"exact π_(n,α) (reference), α = {alpha:g}")
        axes[0].plot(n, tr * (1 + 1 / alpha) / n, "--", color=c, lw=1, label=f"BvM: tr(I⁻¹)(1+1/α)/n, α = {alpha:g}")
        if da["kl_vi"].notna().any():
            kl = g[["kl_vi", "kl_laplace"]].mean()
            axes[1].loglog(kl.index, kl["kl_vi"], "-o", color=c, ms=4, label=f"Gaussian VI, α = {alpha:g}")
            axes[1].loglog(kl.index, kl["kl_laplace"], ":s", color=c, ms=4, label=f"Laplace, α = {alpha:g}")
        per_rep = da.assign(err=[np.linalg.norm(acov_matrix(r, d) - fisher_inv) for _, r in da.iterrows()])
        axes[2].loglog(n, per_rep.groupby("n")["err"].mean() / np.linalg.norm(fisher_inv), "-o", color=c, ms=4,
                       label=f"mean over data sets, α = {alpha:g}")
        acov = g[[k for k in da if k.startswith("acov_")]].mean()
        err = [np.linalg.norm(acov_matrix(acov.loc[k], d) - fisher_inv) / np.linalg.norm(fisher_inv) for k in acov.index]
        axes[2].loglog(acov.index, err, ":s", color=c, ms=4, label=f"of the mean n·α·Cov_q (claim), α = {alpha:g}")
    n_all = np.asarray(sorted(df["n"].unique()), float)
    if df["kl_vi"].notna().any():
        k0 = df[df["n"] == n_all[0]]["kl_laplace"].mean()
        axes[1].loglog(n_all, k0 * n_all[0] / n_all, "k--", lw=1, label="slope −1")
        axes[1].axhline(max(df["ref_err"].max(), 1e-300), color="grey", lw=1, label="reference error (max)")
    axes[2].loglog(n_all, 1 / np.sqrt(n_all / n_all[0]) * axes[2].get_lines()[0].get_ydata()[0], "k--", lw=1,
                   label="slope −1/2")
    axes[0].set(xscale="log", yscale="log", xlabel="n", ylabel="E‖θ − θ₀‖²", title="concentration at θ₀")
    axes[1].set(xlabel="n", ylabel="K(q, π_(n,α))", title="gap to the exact tempered posterior")
    axes[2].set(xlabel="n", ylabel="‖nα Cov_q − I(θ₀)⁻¹‖_F / ‖I(θ₀)⁻¹‖_F", title="BvM: n Cov_q → (α I(θ₀))⁻¹")
    for ax in axes:
        ax.legend(fontsize=6.5)
    fig.suptitle(f"Left, VI: {phrase}", fontsize=9)
    fig.tight_layout()
    return fig
