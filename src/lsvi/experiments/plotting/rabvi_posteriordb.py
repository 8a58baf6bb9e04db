"""Figures of notebook 42_rabvi_posteriordb (RABVI paper, Welandawe et al., Section 7.2: Figs 2, 8, 9)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def _style(label: str, i: int):
    if label.startswith("RABVI"):
        return {"lw": 2, "marker": "o", "ms": 4, "color": f"C{i}"}
    if label.startswith("FASO"):
        return {"lw": 1.5, "ls": "-.", "color": f"C{i}"}
    return {"lw": 1, "ls": "--", "color": f"C{i}"}


def accuracy_curves(studies: dict, title: str = "", methods=None, skip: str | None = None):
    """Figs 2 / 8 / 9: per posterior (columns), the relative mean error ‖(μ − μ̂)/σ‖₂ (top) and relative sd error
    ‖(σ − σ̂)/σ‖₂ (bottom) vs iterations for every method (`rabvi_posteriordb.Curve`), log–log. RABVI: the average at
    the end of each learning rate (circles); a method's stopping point: vertical line of its colour and a red dot
    (RABVI: where the rule RSKL·RI > τ fires; its curve continues with the rule off). ``methods``: labels to draw
    (default all); ``skip``: leave out the labels starting with it."""
    n = len(studies)
    fig, axes = plt.subplots(2, n, figsize=(4.0 * n + 0.5, 6.4), squeeze=False)
    for j, s in enumerate(studies.values()):
        for i, (lab, c) in enumerate(s["curves"].items()):
            if (methods is not None and lab not in methods) or (skip and lab.startswith(skip)):
                continue
            st = _style(lab, i)
            for row, err, stop_err in ((0, c.mean_err, c.stop_mean_err), (1, c.sd_err, c.stop_sd_err)):
                ax = axes[row, j]
                ax.loglog(c.iterations, np.maximum(err, 1e-4), label=lab, **st)
                if c.stop is not None:
                    ax.axvline(c.stop, color=st["color"], lw=0.8, ls=":")
                    ax.loglog([c.stop], [max(stop_err, 1e-4)], "o", color="red", ms=6, zorder=5)
        axes[0, j].set(title=f"{s['short']} (d = {s['dim']})", ylabel="relative mean error")
        axes[1, j].set(xlabel="iterations", ylabel="relative sd error")
    axes[0, 0].legend(fontsize=7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
