"""Figures of notebook 52 (Alquier's EcoSta 2019 slides): the EWA regret theorem and the
average cumulative losses of the online variational algorithms."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

# The slides' colours: OGA yellow, SVA blue, SVB purple, NGVI green (OGA-EL, red, is not run).
COLOURS = {"oga": "goldenrod", "sva": "tab:blue", "svb": "tab:purple", "ngvi": "tab:green"}
# Line styles so that methods whose curves coincide stay visible (SVB often lies on NGVI, OGA on SVA).
STYLES = {"oga": (0, (6, 2)), "sva": "-", "svb": (0, (1, 1.5)), "ngvi": (0, (4, 1.5, 1, 1.5))}


def thm_ewa_regret(studies: dict[str, pd.DataFrame], constant: float | None = None):
    """Left: cumulative loss / bound vs T per sequence, mean over repetitions (≤ 1 = the theorem holds). Middle:
    R(T)/√T, the maximum over repetitions (markers, what the `ewa_sqrt_t_*` rows test) and the mean (dotted), with the
    theorem's constant cC²/2 + log K / c (black dashed) when given. Right: online-to-batch excess KL vs T (log–log,
    the i.i.d. sequence), with a T^{-1/2} guide."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for i, (name, df) in enumerate(studies.items()):
        g = df.groupby("T").mean(numeric_only=True)
        worst = (df.assign(r=df["regret"] / np.sqrt(df["T"])).groupby("T")["r"].max())
        axes[0].semilogx(g.index, g["cumulative_loss"] / g["bound"], marker="o", color=f"C{i}", label=name)
        axes[1].loglog(worst.index, worst, marker="o", color=f"C{i}", label=f"{name}: max over repetitions")
        axes[1].loglog(g.index, g["regret"] / np.sqrt(g.index), ":", color=f"C{i}", label=f"{name}: mean")
        if "excess_kl" in g:
            axes[2].loglog(g.index, g["excess_kl"], marker="o", color=f"C{i}", label=f"{name}: mean over repetitions")
            T = g.index.to_numpy(dtype=float)
            axes[2].loglog(T, g["excess_kl"].iloc[0] * np.sqrt(T[0] / T), "k--", lw=1, label="slope −1/2")
    if constant is not None:
        axes[1].axhline(constant, color="k", ls="--", lw=1, label=f"theorem's constant cC²/2 + log K/c = {constant:.3g}")
    axes[0].axhline(1.0, color="k", lw=1)
    axes[0].set(xlabel="T", ylabel="EWA cumulative loss / bound", title="EWA theorem: loss / bound (≤ 1: holds)")
    axes[1].set(xlabel="T", ylabel=r"$R(T)/\sqrt{T}$", title=r"regret, $\alpha = c/\sqrt{T}$")
    axes[2].set(xlabel="T", ylabel=r"$\mathrm{E}\,K(Q, P_{\hat\theta_T}) - \inf_\theta K(Q, P_\theta)$",
                title="online-to-batch")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def alquier_fig01_online_losses(curves: dict[str, pd.DataFrame], skip: int = 10):
    """One panel per data set: average cumulative loss vs t, one line per method (from t = skip), each with its own
    colour and line style (coinciding curves stay visible); the legend in every panel."""
    fig, axes = plt.subplots(1, len(curves), figsize=(3.4 * len(curves), 3.2), squeeze=False)
    for ax, (name, df) in zip(axes[0], curves.items()):
        for method, colour in COLOURS.items():
            if method in df:
                ax.plot(df["t"][skip:], df[method][skip:], color=colour, ls=STYLES[method], lw=1.6, label=method.upper())
        ax.set(title=name, xlabel="t", ylabel="average cumulative loss")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
