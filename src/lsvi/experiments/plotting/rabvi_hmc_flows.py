"""Figures of notebook 45_rabvi_hmc_flows (RABVI paper, Welandawe et al., Section 7.2: Figs 10, C.15-C.18)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

COLORS = {"RABVI MF": "C0", "RABVI FR": "C2", "FASO flow": "C4", "HMC": "C1"}  # C.15's blue / green / orange
ROWS = (("mean_err", "relative mean error", "log"), ("sd_err", "relative sd error", "log"),
        ("mmd2", "MMD² (unbiased)", "symlog"), ("undercoverage", "95 % under-coverage\n(mean over coordinates)", "linear"))


def equal_cost_bars(table, title: str = ""):
    """Fig. 10 (top: relative mean error, then relative sd error) with C.17's MMD² and C.18's under-coverage as
    the two lower rows: per posterior (x), one marker (log rows) or bar (MMD², under-coverage, from 0) per method at
    the common cost C* (`comparison_table`). A method with no point by C* shows its first point: open marker /
    hatched bar."""
    posts = list(dict.fromkeys(table["posterior"]))
    methods = [m for m in COLORS if m in set(table["method"])]
    fig, axes = plt.subplots(len(ROWS), 1, figsize=(max(5.5, 1.4 * len(posts) + 3.0), 10.5), sharex=True)
    w = 0.8 / len(methods)
    x = np.arange(len(posts))
    for ax, (col, ylabel, yscale) in zip(axes, ROWS):
        for i, m in enumerate(methods):
            t = table[table["method"] == m].set_index("posterior").reindex(posts)
            v, early = t[col].to_numpy(float), t["before_first"].fillna(False).to_numpy(bool)
            xi = x + (i - (len(methods) - 1) / 2) * w
            if yscale == "log":
                ax.plot(xi[~early], v[~early], "o", ms=8, color=COLORS[m], label=m)
                ax.plot(xi[early], v[early], "o", ms=8, mfc="none", color=COLORS[m])
            else:
                bars = ax.bar(xi, v, w, color=COLORS[m], label=m)
                for b, e in zip(bars, early):
                    if e:
                        b.set_hatch("//")
                        b.set_alpha(0.5)
        if yscale == "symlog":
            ax.set_yscale("symlog", linthresh=1e-4)
            ax.axhline(0.0, color="k", lw=0.6)
        else:
            ax.set_yscale(yscale)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        for xb in x[:-1] + 0.5:
            ax.axvline(xb, color="0.85", lw=0.8)
    costs = table.groupby("posterior", sort=False)["cost"].first().reindex(posts)
    axes[-1].set_xticks(x, [f"{p}\nC* = {c:,.0f}" for p, c in zip(posts, costs)], fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.suptitle(title or "Fig. 10 / C.17 / C.18: errors at equal cost C* (likelihood evaluations)\n"
                 "open marker / hatched bar: the method's first point, made after C*", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.legend(handles, labels, loc="upper center", ncol=len(methods), fontsize=8, bbox_to_anchor=(0.5, 0.945))
    return fig


def cost_curves(studies: dict, title: str = ""):
    """C.15-C.16: per posterior (columns), relative mean (top) and sd (bottom) error vs likelihood evaluations,
    log-log: RABVI MF / FR (one point per learning-rate epoch), FASO-flow (iterate averages) and HMC's running
    estimate; vertical lines: RABVI's trigger points (its colour, dotted) and HMC's end of warmup (orange, dashed)."""
    n = len(studies)
    fig, axes = plt.subplots(2, n, figsize=(4.0 * n + 0.5, 6.4), squeeze=False)
    for j, s in enumerate(studies.values()):
        for lab, p in s["paths"].items():
            st = {"color": COLORS.get(lab, "k"), "lw": 1.8 if lab.startswith("RABVI") else 1.3,
                  "marker": "o" if lab.startswith("RABVI") else ("s" if lab == "FASO flow" else None), "ms": 3}
            for row, err in ((0, p.mean_err), (1, p.sd_err)):
                ax = axes[row, j]
                ax.loglog(p.cost, np.clip(err, 1e-4, 1e3), label=lab, **st)
                if p.stop is not None and lab != "FASO flow":
                    ax.axvline(p.stop, color=st["color"], lw=0.9, ls="--" if lab == "HMC" else ":")
        axes[0, j].set(title=f"{s['short']} (d = {s['dim']})", ylabel="relative mean error")
        axes[1, j].set(xlabel="likelihood (gradient) evaluations", ylabel="relative sd error")
        axes[0, j].legend(fontsize=7)
        for ax in axes[:, j]:  # decade labels only: minor labels overlap when the range spans < 2 decades
            ax.xaxis.set_minor_formatter(NullFormatter())
    fig.suptitle(title or "C.15-C.16: error vs cost\ndotted: RABVI trigger, dashed: end of HMC warmup", fontsize=10)
    fig.tight_layout()
    return fig
