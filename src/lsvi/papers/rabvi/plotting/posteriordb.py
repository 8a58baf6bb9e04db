"""Figures of notebook 42_rabvi_posteriordb (RABVI paper, Welandawe et al., Section 7.2: Figs 2, 8, 9, C.14)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from lsvi.pipeline.figure_style import at_limit

COLORS = {"RABVI MF": "C0", "RABVI FR": "C1", "FASO": "C2", "Adam": "C3", "Adam-ED": "C4", "Adam-C": "C5",
          "SGD-ED": "C6"}
XI_COLORS = ("C0", "C9", "navy", "C7")  # RABVI at several ξ (Fig. 2), largest ξ first
CLIP = (1e-4, 1e3)  # errors drawn within these limits (a diverging baseline would hide the others)


def clipped_loglog(ax, x, err, clip=CLIP, **style) -> int:
    """Draw the error curve (x, err) on log–log axes within ``clip`` = (low, high): points in range as the curve,
    points at or above ``high`` (and non-finite ones: a diverged run, or a running estimate far off early on) not as
    curve values but as open ▲ at ``high``
    (`lsvi.pipeline.figure_style.at_limit`), points at or below ``low`` as open ▼ at ``low``. Returns the number of
    points drawn at the upper limit (for the legend)."""
    x, err = np.asarray(x, float), np.asarray(err, float)
    high = ~np.isfinite(err) | (err >= clip[1])
    low = np.isfinite(err) & (err <= clip[0])
    ax.loglog(x, np.where(high | low, np.nan, err), **style)
    color = style.get("color", "k")
    at_limit(ax, x, np.where(low, clip[0], np.nan), clip[0], color=color, marker="v", label="_nolegend_")
    return at_limit(ax, x, np.where(high, clip[1], np.nan), clip[1], color=color, label="_nolegend_")


def note_clipped(ax, count: int, clip=CLIP) -> None:
    """A legend entry (no artist drawn) counting the points of ``ax`` at the upper clip limit."""
    if count:
        ax.plot([], [], ls="none", marker="^", color="0.3", mfc="white", ms=7,
                label=f"at or above the clip $10^{{{np.log10(clip[1]):.0f}}}$ ({count} point{'s' if count > 1 else ''})")


def _style(label: str, xi_rank: int):
    if "ξ=" in label:
        return {"lw": 2, "marker": "o", "ms": 4, "color": XI_COLORS[xi_rank % len(XI_COLORS)]}
    color = next((c for k, c in sorted(COLORS.items(), key=lambda kv: -len(kv[0])) if label.startswith(k)), "k")
    if label.startswith("RABVI"):
        return {"lw": 2, "marker": "o", "ms": 4, "color": color}
    return {"lw": 1.5 if label.startswith("FASO") else 1, "ls": "-." if label.startswith("FASO") else "--",
            "color": color}


def accuracy_curves(studies: dict, title: str = "", methods=None, skip: str | None = None, mmd: bool = False):
    """Figs 2 / 8 / 9: per posterior (columns), the relative mean error ‖(μ − μ̂)/σ‖₂ (top) and relative sd error
    ‖(σ − σ̂)/σ‖₂ (bottom) vs iterations for every method (`rabvi_posteriordb.Curve`), log–log, one colour per
    method in every panel. RABVI: the average at the end of each learning rate (circles); a method's stopping
    point: dotted vertical line of its colour and a red dot (RABVI: where the rule RSKL·RI > τ fires; its curve
    continues with the rule off). Errors are drawn within [1e-4, 1e3] (`clipped_loglog`): values at or above 1e3
    (diverged) as open ▲ at 1e3, counted in the panel's legend, never as curve values. ``methods``: labels to draw (default
    all); ``skip``: leave out the labels starting with it. ``mmd``: a third row, Fig. C.14's MMD² (curves that
    carry one), with the study's "mmd_floor" (|MMD²| of held-out reference draws) as a grey line."""
    n = len(studies)
    nrows = 3 if mmd else 2
    fig, axes = plt.subplots(nrows, n, figsize=(4.0 * n + 0.5, 3.2 * nrows), squeeze=False)
    clipped = np.zeros((nrows, n), int)
    for j, s in enumerate(studies.values()):
        xi_rank = 0
        for lab, c in s["curves"].items():
            if (methods is not None and lab not in methods) or (skip and lab.startswith(skip)):
                continue
            st = _style(lab, xi_rank)
            xi_rank += "ξ=" in lab
            rows = [(0, c.mean_err, c.stop_mean_err), (1, c.sd_err, c.stop_sd_err)]
            if mmd and c.mmd is not None:
                rows.append((2, c.mmd, c.stop_mmd))
            for row, err, stop_err in rows:
                ax = axes[row, j]
                clipped[row, j] += clipped_loglog(ax, c.iterations, err, label=lab, **st)
                if c.stop is not None:
                    ax.axvline(c.stop, color=st["color"], lw=0.8, ls=":")
                    ax.loglog([c.stop], [np.clip(stop_err, *CLIP)], "o", color="red", ms=6, zorder=5)
        axes[0, j].set(title=f"{s['short']} (d = {s['dim']})", ylabel="relative mean error")
        axes[1, j].set(xlabel="" if mmd else "iterations", ylabel="relative sd error")
        if mmd:
            floor = s.get("mmd_floor", np.nan)
            if np.isfinite(floor):
                axes[2, j].axhline(np.clip(abs(floor), *CLIP), color="0.5", lw=1, ls="--",
                                   label="|MMD²| of held-out reference draws")
                axes[2, j].legend(fontsize=7)
            axes[2, j].set(xlabel="iterations", ylabel="MMD² (Fig. C.14)")
        for row, ax in enumerate(axes[:, j]):
            ax.xaxis.set_minor_formatter(NullFormatter())  # overlapping 3x10^3, 4x10^3 ... otherwise
            note_clipped(ax, clipped[row, j])
            if row == 0 or clipped[row, j]:
                ax.legend(fontsize=7)
    if title:
        fig.suptitle(title + "\nred dots: stopping points; △: error at or above 1e3 (a diverged run), drawn at 1e3",
                     fontsize=10)
    fig.tight_layout()
    return fig
