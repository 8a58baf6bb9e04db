"""Figures of notebook 45_rabvi_hmc_flows (RABVI paper, Welandawe et al., Section 7.2: Figs 10, C.15-C.18)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from lsvi.papers.rabvi.plotting.posteriordb import CLIP, clipped_loglog, note_clipped

COLORS = {"RABVI MF": "C0", "RABVI FR": "C2", "FASO flow": "C4", "HMC": "C1"}  # C.15's blue / green / orange
ROWS = (("mean_err", "relative mean error", "log"), ("sd_err", "relative sd error", "log"),
        ("mmd2", "MMD² (unbiased)", "symlog"), ("undercoverage", "95 % under-coverage\n(mean over coordinates)", "linear"))


def equal_cost_bars(table, title: str = ""):
    """Fig. 10 (relative mean error, relative sd error) with C.17's MMD² and C.18's under-coverage as the two lower
    rows, over every seed of `table` (`comparison_table`): per posterior (x) and method, one small dot per valid seed
    (jittered) and a large marker at their geometric mean (log rows) or a bar at their mean (MMD², under-coverage),
    the statistics the rows decide on. Seeds the rows leave out are drawn apart (`run_status`): diverged runs as red x
    at the top of the panel, runs with no point by C* not at all (counted in the legend). MMD² (symlog): values within
    the estimator's noise level (|MMD²| ≤ the posterior's ``mmd_noise``, grey segment) are open dots. HMC points still
    in warmup at C* are triangles."""
    from lsvi.papers.rabvi.hmc_flows_claims import run_status

    posts = list(dict.fromkeys(table["posterior"]))
    methods = [m for m in COLORS if m in set(table["method"])]
    seeds = list(dict.fromkeys(table["seed"])) if "seed" in table else [0]
    fig, axes = plt.subplots(len(ROWS), 1, figsize=(max(5.5, 1.4 * len(posts) + 3.0), 11.5), sharex=True)
    w = 0.8 / len(methods)
    x = np.arange(len(posts))
    counts = {"diverged": 0, "missing": 0}
    for r_i, (ax, (col, ylabel, yscale)) in enumerate(zip(axes, ROWS)):
        for i, m in enumerate(methods):
            xc = x + (i - (len(methods) - 1) / 2) * w
            for k, post in enumerate(posts):
                t = table[(table["posterior"] == post) & (table["method"] == m)]
                vals, jit = [], []
                for j, (_, row) in enumerate(t.iterrows()):
                    st = run_status(row, col)
                    dx = xc[k] + (j - (len(t) - 1) / 2) * w * 0.6 / max(len(t), 1)
                    if st == "diverged":
                        if r_i == 0:
                            counts["diverged"] += 1
                        ax.plot([dx], [1.0], "x", color="r", ms=6, mew=1.5, transform=ax.get_xaxis_transform(),
                                clip_on=False)
                        continue
                    if st == "missing":
                        if r_i == 0:
                            counts["missing"] += 1
                        continue
                    v = float(row[col])
                    noise = float(row.get("mmd_noise", np.nan)) if col == "mmd2" else np.nan
                    warm = bool(row.get("in_warmup", False))
                    open_ = np.isfinite(noise) and abs(v) <= noise
                    ax.plot([dx], [v], "^" if warm else "o", ms=3.5, color=COLORS[m], alpha=0.8,
                            mfc="none" if open_ else COLORS[m])
                    vals.append(v)
                    jit.append(dx)
                if not vals:
                    continue
                if yscale == "log":
                    ax.plot([xc[k]], [float(np.exp(np.mean(np.log(vals))))], "o", ms=9, mfc="none", mew=2,
                            color=COLORS[m], label=m if k == 0 else None)
                else:
                    ax.bar([xc[k]], [float(np.mean(vals))], w * 0.9, color=COLORS[m], alpha=0.35,
                           label=m if k == 0 else None)
            if col == "mmd2" and i == 0 and "mmd_noise" in table:
                for k, post in enumerate(posts):
                    nz = float(np.nanmax(table[table["posterior"] == post]["mmd_noise"]))
                    if np.isfinite(nz):
                        ax.plot([x[k] - 0.45, x[k] + 0.45], [nz, nz], color="0.5", lw=1, ls="--")
                        ax.plot([x[k] - 0.45, x[k] + 0.45], [-nz, -nz], color="0.5", lw=1, ls="--")
        if yscale == "symlog":
            ax.set_yscale("symlog", linthresh=1e-4)
            ax.axhline(0.0, color="k", lw=0.6)
        else:
            ax.set_yscale(yscale)
        ax.set_ylabel(ylabel)
        ax.grid(axis="y", alpha=0.3)
        for xb in x[:-1] + 0.5:
            ax.axvline(xb, color="0.85", lw=0.8)
    costs = table[table["seed"] == seeds[0]] if "seed" in table else table
    costs = costs.groupby("posterior", sort=False)["cost"].first().reindex(posts)
    axes[-1].set_xticks(x, [f"{p}\nC* = {c:,.0f} (seed {seeds[0]})" for p, c in zip(posts, costs)], fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    extra = [plt.Line2D([], [], ls="", marker="x", color="r", mew=1.5,
                        label=f"diverged (left out by the rows): {counts['diverged']} run(s)"),
             plt.Line2D([], [], ls="", marker="o", mfc="none", color="0.4", label="MMD² within its noise level (dashed)"),
             plt.Line2D([], [], ls="", marker="^", color="C1", label="HMC still in warmup at C*")]
    fig.suptitle(title or (f"Fig. 10 / C.17 / C.18: errors at equal cost C* (likelihood evaluations), {len(seeds)} seed(s)\n"
                           "dots = seeds, large marker = geometric mean, bar = mean over valid seeds"
                           + (f"; {counts['missing']} run(s) with no point by C* not drawn" if counts["missing"] else "")),
                 fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.legend(handles + extra, labels + [h.get_label() for h in extra], loc="upper center", ncol=4, fontsize=8,
               bbox_to_anchor=(0.5, 0.955))
    return fig


def cost_curves(studies: dict, title: str = "", columns: int = 4):
    """C.15-C.16: per posterior, relative mean error (upper panel) and sd error (the panel below it) vs likelihood
    evaluations, log-log: RABVI MF / FR (one point per learning-rate epoch), FASO-flow (iterate averages) and HMC's
    running estimate; vertical lines: RABVI's trigger points (its colour, dotted) and HMC's end of warmup (orange,
    dashed). HMC's running estimate during its warmup (its draws are not yet posterior draws) is drawn faint and thin,
    after it in full. Posteriors fill a grid of ``columns`` columns, each posterior a (mean, sd) pair of rows, so
    eight posteriors make a 4 × 4 grid instead of a 2 × 8 strip unreadable at page width.
    Errors within [1e-4, 1e3] (`posteriordb.clipped_loglog`): at or above 1e3 open ▲ at 1e3, counted in the legend."""
    n = len(studies)
    cols = max(1, min(columns, n))
    blocks = -(-n // cols)  # rows of posteriors, each two rows of panels
    fig, axes = plt.subplots(2 * blocks, cols, figsize=(4.0 * cols + 0.5, 3.2 * 2 * blocks), squeeze=False)
    for j in range(n, blocks * cols):  # unused cells of the last block
        for row in (0, 1):
            axes[2 * (j // cols) + row, j % cols].set_visible(False)
    for j, s in enumerate(studies.values()):
        pair = (axes[2 * (j // cols), j % cols], axes[2 * (j // cols) + 1, j % cols])
        clipped = [0, 0]
        for lab, p in s["paths"].items():
            st = {"color": COLORS.get(lab, "k"), "lw": 1.8 if lab.startswith("RABVI") else 1.3,
                  "marker": "o" if lab.startswith("RABVI") else ("s" if lab == "FASO flow" else None), "ms": 3}
            cost = np.asarray(p.cost, float)
            for row, err in ((0, p.mean_err), (1, p.sd_err)):
                ax, err = pair[row], np.asarray(err, float)
                if lab == "HMC" and p.stop is not None:  # warmup faint (its running estimate is not of posterior draws)
                    k = int(np.sum(cost <= p.stop))  # the faint part runs on to the first point after warmup
                    clipped[row] += clipped_loglog(ax, cost[:k + 1], err[:k + 1], label="_nolegend_",
                                                   **{**st, "lw": 0.8, "alpha": 0.35})
                    clipped[row] += clipped_loglog(ax, cost[k:], err[k:], label=lab, **st)
                    if k < len(err) and not (np.isfinite(err[k]) and err[k] < CLIP[1]):
                        clipped[row] -= 1  # the shared point, counted by both parts
                else:
                    clipped[row] += clipped_loglog(ax, cost, err, label=lab, **st)
                if p.stop is not None and lab != "FASO flow":
                    ax.axvline(p.stop, color=st["color"], lw=0.9, ls="--" if lab == "HMC" else ":")
        pair[0].set(title=f"{s['short']} (d = {s['dim']})", ylabel="relative mean error")
        pair[1].set(xlabel="likelihood (gradient) evaluations", ylabel="relative sd error")
        for row, ax in enumerate(pair):  # decade labels only: minor labels overlap when the range spans < 2 decades
            ax.xaxis.set_minor_formatter(NullFormatter())
            note_clipped(ax, clipped[row])
            if (row == 0 and j == 0) or clipped[row]:
                ax.legend(fontsize=7)
    fig.suptitle(title or "C.15-C.16: error vs cost (each posterior: mean error above, sd error below)\n"
                 "dotted: RABVI trigger; dashed: end of HMC warmup, HMC faint before it", fontsize=10)
    fig.tight_layout()
    return fig
