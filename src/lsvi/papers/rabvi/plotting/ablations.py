"""Figures of notebook 43_rabvi_detection_ablations (RABVI paper, Welandawe et al.): convergence detection compared
(Fig. 6a / C.1) and the tuning-parameter ablations (bottom rows of Figs C.19–C.24)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from lsvi.papers.rabvi.ablations import ABLATIONS, DEFAULTS, SYMBOLS
from lsvi.papers.rabvi.gaussian import LABELS

COLORS = ["C3", "C0", "C2", "C1", "C4", "C5"]  # adaptive R̂, SASA+, fixed R̂ (800), ΔELBO, distance, fixed R̂ (100)


def rabvi_fig06_detection(studies: list[dict], step_size: float, title: str | None = None, ref_name: str = "q*"):
    """Per target: ‖λ^{(k)} − λ̄‖ (λ̄ the mean of the run's second half) vs k, the reference point k_ref (black dashed,
    from q*), and each detector's trigger (vertical line; the W = 100 window dotted); the window each detector examined
    at its trigger (adaptive R̂, SASA+, fixed-window R̂) drawn as a coloured band. `title` replaces the first line of
    the suptitle (default: Fig. 6a / C.1); `ref_name` names the reference k_ref is taken from (q*, or q_ref where
    q* is not known). A single panel is drawn wide (the run's whole length readable)."""
    n = len(studies)
    if not n:  # the figure is declared at every scale: a placeholder where the run is not made
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.text(0.5, 0.5, f"{title or 'Fig. 6'}: not run at this scale", ha="center", va="center", wrap=True,
                transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    cols = min(n, 4)
    rows = int(np.ceil(n / cols))
    size = (10.0, 4.4) if n == 1 else (4.6 * cols, 3.6 * rows)
    fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False)
    for ax, s in zip(axes.flat, studies):
        k = np.arange(len(s["distance"]))
        ax.semilogy(k, s["distance"], color="0.55", lw=0.6)
        ax.axvline(s["k_ref"], color="k", ls="--", lw=1.2, label=f"k_ref (√SKL to {ref_name} stationary) = {s['k_ref']}")
        for j, (name, t) in enumerate(s["triggers"].items()):
            if t.k is None:
                ax.plot([], [], color=COLORS[j], label=f"{name}: never")
                continue
            ax.axvline(t.k, color=COLORS[j], lw=1.5, ls="-" if j == 0 else (0, (1, 1.5)) if j == 5 else (0, (4, 2)),
                       label=f"{name}: {t.k}")
            if t.window:
                ax.axvspan(t.k - t.window, t.k, color=COLORS[j], alpha=0.08)
        last = [t.k for t in s["triggers"].values() if t.k is not None] + [s["k_ref"]]
        never = next(iter(s["triggers"].values())).k is None  # adaptive R̂ never fired: show the whole run
        ax.set_xlim(0, len(k) - 1 if never else min(len(k) - 1, 1.4 * max(last) + 200))
        ax.set(xlabel="iteration k", ylabel="‖λ⁽ᵏ⁾ − iterate average‖",
               title=f"{LABELS.get(s['name'], s['name'])}, d = {s['d']}")
        ax.legend(fontsize=6.5, loc="upper right")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    head = title or f"Convergence detection on a fixed-rate avgAdam run (γ = {step_size:g}, M = 10; Fig. 6a / C.1)"
    fig.suptitle(f"{head}\n"
                 f"shaded: the window each detector examined at its trigger; dashed black: reference k_ref from {ref_name}", fontsize=9)
    fig.tight_layout()
    return fig


def _identical_groups(sub: list[dict], values: list) -> list[list]:
    """Values of one ablated parameter whose runs are identical (same (target, rep) -> (iterations, √SKL)), grouped in
    order: each group is drawn once and labelled "v₁ = v₂ = …"."""
    runs = {v: sorted((r["target"], r["rep"], r["iterations"], round(r["sqrt_skl"], 12)) for r in sub if r["value"] == v)
            for v in values}
    groups: list[list] = []
    for v in values:
        for g in groups:
            if runs[g[0]] == runs[v]:
                g.append(v)
                break
        else:
            groups.append([v])
    return groups


def rabvi_fig19_ablations(rows: list[dict], xi: float = 0.1, title: str = "RABVI ablations (Figs C.19–C.24, bottom row)",
                          clip: float = 1e3):
    """Per parameter and target (one row of panels per target when there are several, as the paper's figures draw each
    target apart): iterations at termination vs SKL(q̂, q*) at the trigger point, one open marker per run; one marker
    shape and colour per parameter value (the default in black), so overlapping values stay visible; values whose runs
    are identical are drawn once and labelled together ("ε₀ = 0.05 = 0.1"). Runs whose rule never fired (at K_max)
    are filled red-edged; SKL above ``clip`` × ξ² is drawn at the clip as ▲ and counted in the legend; ξ² dotted.
    The iterations axis is logarithmic when they span more than a factor 20."""
    present = {r["parameter"] for r in rows}
    params = [p for p in ABLATIONS if p in present]
    targets = list(dict.fromkeys(r["target"] for r in rows))
    markers = "osD^vP*"
    if len(targets) > 1:
        panels = [(t, p) for t in targets for p in params]
        nrows, cols = len(targets), len(params)
    else:
        panels = [(targets[0] if targets else None, p) for p in params]
        cols = min(max(len(params), 1), 3)
        nrows = int(np.ceil(max(len(params), 1) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4.3 * cols, 3.6 * nrows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    if not params:
        axes[0, 0].set_visible(True)
        axes[0, 0].text(0.5, 0.5, "not run at this scale", ha="center", va="center", transform=axes[0, 0].transAxes)
        axes[0, 0].set_axis_off()
    top = clip * xi**2
    for ax, (t, p) in zip(axes.flat, panels):
        sub = [r for r in rows if r["parameter"] == p and r["target"] == t]
        values = sorted(set(r["value"] for r in sub))
        cmap = plt.get_cmap("viridis", max(len(values), 2))
        n_clipped = 0
        for i, group in enumerate(_identical_groups(sub, values)):
            v = group[0]
            default = DEFAULTS[p] in group
            color = "k" if default else cmap(values.index(v))
            label = f"{SYMBOLS[p]} = " + " = ".join(f"{u:g}" for u in group) + (" (default)" if default else "") \
                + (" (identical runs)" if len(group) > 1 else "")
            mine = [r for r in sub if r["value"] == v]
            x = np.array([r["iterations"] for r in mine], float)
            y = np.array([r["sqrt_skl"] ** 2 for r in mine])
            fired = np.array([bool(r.get("terminated", True)) for r in mine])
            over = ~(y <= top)
            n_clipped += int(over.sum())
            mk = markers[i % len(markers)]
            ax.scatter(x[fired & ~over], y[fired & ~over], marker=mk, s=40, facecolors="none", edgecolors=color,
                       linewidths=1.3, label=label)
            ax.scatter(x[~fired & ~over], y[~fired & ~over], marker=mk, s=40, color=color, edgecolors="r",
                       linewidths=1.0)
            ax.scatter(x[over], np.full(int(over.sum()), top), marker="^", s=40, color=color, edgecolors="r")
        if any(not r.get("terminated", True) for r in sub):
            ax.scatter([], [], marker="o", color="0.5", edgecolors="r", label="filled, red edge: rule never fired (K_max)")
        if n_clipped:
            ax.scatter([], [], marker="^", color="0.5", edgecolors="r", label=f"▲: {n_clipped} run(s) above {top:g}, at the clip")
        ax.axhline(xi ** 2, color="0.4", ls=":", lw=1, label=f"ξ² = {xi ** 2:g}")
        ax.set_yscale("log")
        its = [r["iterations"] for r in sub]
        if its and max(its) > 20 * max(min(its), 1):
            ax.set_xscale("log")
        else:
            ax.set_xlim(0, 1.08 * max(its or [1]))
        ax.set(xlabel="iterations at termination (K_max if never fired)", ylabel="SKL(q̂, q*) at the trigger point",
               title=f"vary {SYMBOLS[p]}" + (f" — {LABELS.get(t, t)}" if len(targets) > 1 else ""))
        ax.legend(fontsize=6.5)
    fig.suptitle(title + ("\ntarget: " + LABELS.get(targets[0], targets[0]) if len(targets) == 1 else ""), fontsize=9)
    fig.tight_layout()
    return fig


def rabvi_sec71_xi(rows: list[dict], d: int, title: str = "RABVI with the accuracy threshold ξ varied (Section 7.1)"):
    """Left: √SKL(q̂, q*) at termination against ξ (log–log), one open marker per run, one marker shape and colour per
    target, jittered in ξ so that targets do not hide one another; the line √SKL = ξ and the band [ξ/2, 2ξ] of the
    criterion. Right: iterations at termination against ξ. Runs whose rule never fired (at K_max) are filled and
    red-edged."""
    targets = list(dict.fromkeys(r["target"] for r in rows))
    xis = sorted({r["xi"] for r in rows})
    markers = "osD^vP*"
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    if not rows:
        for a in (ax, ax2):
            a.text(0.5, 0.5, "not run at this scale", ha="center", va="center", transform=a.transAxes)
            a.set_axis_off()
        return fig
    grid = np.geomspace(min(xis) / 1.5, max(xis) * 1.5, 50)
    ax.fill_between(grid, grid / 2, 2 * grid, color="0.85", label="[ξ/2, 2ξ] (the criterion)")
    ax.plot(grid, grid, color="0.3", ls="--", lw=1, label="√SKL = ξ")
    width = 0.05 * (len(targets) - 1)
    for j, t in enumerate(targets):
        shift = np.exp(-width / 2 + 0.05 * j)  # jitter in log ξ
        mine = [r for r in rows if r["target"] == t]
        x = np.array([r["xi"] for r in mine]) * shift
        fired = np.array([bool(r["terminated"]) for r in mine])
        for a, y in ((ax, np.array([r["sqrt_skl"] for r in mine])), (ax2, np.array([r["iterations"] for r in mine]))):
            a.scatter(x[fired], y[fired], marker=markers[j % len(markers)], facecolors="none",
                      edgecolors=f"C{j}", s=40, lw=1.3, label=LABELS.get(t, t) if a is ax else None)
            a.scatter(x[~fired], y[~fired], marker=markers[j % len(markers)], color=f"C{j}", edgecolors="r", s=40)
    if any(not r["terminated"] for r in rows):
        ax.scatter([], [], marker="o", color="0.5", edgecolors="r", label="filled, red edge: rule never fired (K_max)")
    ax.set(xscale="log", yscale="log", xlabel="accuracy threshold ξ (ε₀ = ξ)", ylabel="√SKL(q̂, q*) at termination",
           title=f"accuracy at the stop, d = {d}")
    ax2.set(xscale="log", yscale="log", xlabel="accuracy threshold ξ (ε₀ = ξ)",
            ylabel="iterations at termination", title="cost of the stop")
    for a in (ax, ax2):
        a.set_xticks(xis, [f"{x:g}" for x in xis])
        a.xaxis.set_minor_locator(plt.NullLocator())
    ax2.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax2.yaxis.set_minor_formatter(plt.FuncFormatter(lambda v, _: f"{v:,.0f}" if str(round(v))[0] in "125" else ""))
    ax.legend(fontsize=6.5)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
