"""Figures of notebook 43_rabvi_detection_ablations (RABVI paper, Welandawe et al.): convergence detection compared
(Fig. 6a / C.1) and the tuning-parameter ablations (bottom rows of Figs C.19–C.24)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from lsvi.experiments.rabvi_ablations import ABLATIONS, DEFAULTS, SYMBOLS
from lsvi.experiments.rabvi_gaussian import LABELS

COLORS = ["C3", "C0", "C2", "C1", "C4"]  # adaptive R̂, SASA+, fixed R̂, ΔELBO, distance


def rabvi_fig06_detection(studies: list[dict], step_size: float):
    """Per target: ‖λ^{(k)} − λ̄‖ (λ̄ the mean of the run's second half) vs k, the reference point k_ref (black dashed,
    from q*), and each detector's trigger (vertical line); the windows of adaptive R̂ and SASA+ drawn as coloured bands."""
    n = len(studies)
    cols = min(n, 4)
    rows = int(np.ceil(n / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
    for ax, s in zip(axes.flat, studies):
        k = np.arange(len(s["distance"]))
        ax.semilogy(k, s["distance"], color="0.55", lw=0.6)
        ax.axvline(s["k_ref"], color="k", ls="--", lw=1.2, label=f"k_ref (√SKL to q* stationary) = {s['k_ref']}")
        for j, (name, t) in enumerate(s["triggers"].items()):
            if t.k is None:
                ax.plot([], [], color=COLORS[j], label=f"{name}: never")
                continue
            ax.axvline(t.k, color=COLORS[j], lw=1.5, ls="-" if j == 0 else (0, (4, 2)), label=f"{name}: {t.k}")
            if t.window:
                ax.axvspan(t.k - t.window, t.k, color=COLORS[j], alpha=0.08)
        last = [t.k for t in s["triggers"].values() if t.k is not None] + [s["k_ref"]]
        ax.set_xlim(0, min(len(k) - 1, 1.4 * max(last) + 200))
        ax.set(xlabel="iteration k", ylabel="‖λ⁽ᵏ⁾ − iterate average‖",
               title=f"{LABELS.get(s['name'], s['name'])}, d = {s['d']}")
        ax.legend(fontsize=6.5, loc="upper right")
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    fig.suptitle(f"Convergence detection on a fixed-rate avgAdam run (γ = {step_size:g}, M = 10; Fig. 6a / C.1)\n"
                 "shaded: the windows of adaptive R̂ and SASA+; dashed black: reference k_ref from q*", fontsize=9)
    fig.tight_layout()
    return fig


def rabvi_fig19_ablations(rows: list[dict], xi: float = 0.1, title: str = "RABVI ablations (Figs C.19–C.24, bottom row)"):
    """Per parameter: iterations at termination vs SKL(q̂, q*) at the trigger point, one marker per run, coloured by the
    parameter value (the default in black), marker shape per target; ξ² dotted."""
    present = {r["parameter"] for r in rows}
    params = [p for p in ABLATIONS if p in present]
    targets = list(dict.fromkeys(r["target"] for r in rows))
    markers = "os^Dv<>"
    cols = min(max(len(params), 1), 3)
    nrows = int(np.ceil(max(len(params), 1) / cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(4.6 * cols, 3.8 * nrows), squeeze=False)
    for ax in axes.flat[len(params):]:
        ax.set_visible(False)
    if not params:
        axes[0, 0].set_visible(True)
        axes[0, 0].text(0.5, 0.5, "not run at this scale", ha="center", va="center", transform=axes[0, 0].transAxes)
        axes[0, 0].set_axis_off()
    for ax, p in zip(axes.flat, params):
        sub = [r for r in rows if r["parameter"] == p]
        values = sorted(set(r["value"] for r in sub))
        cmap = plt.get_cmap("viridis", max(len(values), 2))
        for i, v in enumerate(values):
            for j, t in enumerate(targets):
                pts = [(r["iterations"], r["sqrt_skl"] ** 2) for r in sub if r["value"] == v and r["target"] == t]
                if pts:
                    x, y = np.array(pts).T
                    ax.scatter(x, y, marker=markers[j % len(markers)], s=28, alpha=0.8,
                               color="k" if v == DEFAULTS[p] else cmap(i),
                               label=f"{SYMBOLS[p]} = {v:g}" + (" (default)" if v == DEFAULTS[p] else "") if j == 0 else None)
        ax.axhline(xi ** 2, color="0.4", ls=":", lw=1, label="ξ² = 0.01")
        ax.set_yscale("log")
        ax.set_xlim(0, 1.08 * max(r["iterations"] for r in sub))
        ax.set(xlabel="iterations at termination (K_max: rule never fired)", ylabel="SKL(q̂, q*) at the trigger point",
               title=f"vary {SYMBOLS[p]}")
        ax.legend(fontsize=7)
    fig.suptitle(title + "\ntargets: " + ", ".join(
        f"{LABELS.get(t, t)} ({markers[j % len(markers)]})" for j, t in enumerate(targets)), fontsize=9)
    fig.tight_layout()
    return fig
