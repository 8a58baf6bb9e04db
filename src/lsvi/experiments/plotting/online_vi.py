"""Figures of notebook 52 (Alquier's EcoSta 2019 slides): the EWA regret theorem and the
average cumulative losses of the online variational algorithms."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

# The slides' colours: OGA yellow, SVA blue, SVB purple, NGVI green (OGA-EL, red, is not run).
COLOURS = {"oga": "goldenrod", "sva": "tab:blue", "svb": "tab:purple", "ngvi": "tab:green"}


def thm_ewa_regret(studies: dict[str, pd.DataFrame]):
    """Left: cumulative loss / bound vs T per sequence (≤ 1 = the theorem holds). Middle: R(T)/√T.
    Right: online-to-batch excess KL vs T (log–log, the i.i.d. sequence), with a T^{-1/2} guide."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for name, df in studies.items():
        g = df.groupby("T").mean(numeric_only=True)
        axes[0].semilogx(g.index, g["cumulative_loss"] / g["bound"], marker="o", label=name)
        axes[1].semilogx(g.index, g["regret"] / np.sqrt(g.index), marker="o", label=name)
        if "excess_kl" in g:
            axes[2].loglog(g.index, g["excess_kl"], marker="o", label=f"{name}: mean over repetitions")
            T = g.index.to_numpy(dtype=float)
            axes[2].loglog(T, g["excess_kl"].iloc[0] * np.sqrt(T[0] / T), "k--", lw=1, label="slope −1/2")
    axes[0].axhline(1.0, color="k", lw=1)
    axes[0].set(xlabel="T", ylabel="EWA cumulative loss / bound", title="EWA theorem (≤ 1 holds)")
    axes[1].set(xlabel="T", ylabel="R(T) / √T", title="regret, α = c/√T")
    axes[2].set(xlabel="T", ylabel="E K(Q, P_θ̂T) − inf K(Q, P_θ)", title="online-to-batch")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def alquier_fig01_online_losses(curves: dict[str, pd.DataFrame], skip: int = 10):
    """One panel per data set: average cumulative loss vs t, one line per method (from t = skip)."""
    fig, axes = plt.subplots(1, len(curves), figsize=(3.4 * len(curves), 3.2), squeeze=False)
    for ax, (name, df) in zip(axes[0], curves.items()):
        for method, colour in COLOURS.items():
            if method in df:
                ax.plot(df["t"][skip:], df[method][skip:], color=colour, label=method.upper())
        ax.set(title=name, xlabel="t", ylabel="average cumulative loss")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig
