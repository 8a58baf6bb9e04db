"""Figures of notebook 50 (Wu & Gardner 2024): Figure 1 (Bayesian linear regression on Bike, stochastic NGD
vs SGD) and Theorem 1's bound."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from lsvi.pipeline import figure_style

STYLE = {"ngd": ("tab:blue", "stochastic NGD (last iterate)"), "ngd_avg": ("tab:cyan", "stochastic NGD, average ω̄_t (Thm 1)"),
         "sgd": ("tab:red", "SGD in (μ, L)")}


def _log_spaced(n: int, num: int = 300) -> np.ndarray:
    """About ``num`` log-spaced indices of 0..n−1 (a log–log curve of 10⁴ points drawn at all of them is ink, not
    information)."""
    return np.unique(np.geomspace(1, n, num).astype(int)) - 1


def _band(ax, t, Y, colour, label) -> str:
    idx = _log_spaced(len(t))
    phrase = figure_style.repetitions(ax, np.asarray(t)[idx], np.asarray(Y)[:, idx], color=colour, label=label)
    ax.set(xscale="log", yscale="log")
    return phrase


def ngvi_fig01_bike(runs: dict, table, title: str = "Bike"):
    """Left: KL(q_t ‖ posterior) vs t; middle: training NLPD − NLPD of the exact posterior vs t (both log–log, the
    mean over repetitions with its bootstrap 95 % interval, `lsvi.pipeline.figure_style.repetitions`); right:
    Theorem 1, E KL(q_ω̄T ‖ posterior) vs its bound 4σ²/(T+1)."""
    with figure_style.theme():
        fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
        t = runs["t"][1:]
        for k, (colour, label) in STYLE.items():
            phrase = _band(axes[0], t, runs["kl"][k][:, 1:], colour, label)
            _band(axes[1], runs["nlpd_t"], np.maximum(runs["nlpd"][k] - runs["nlpd_exact"], 1e-12), colour, label)
        axes[0].set(xlabel="iteration t", ylabel="KL(q_t ‖ exact posterior)", title=f"{title}: KL gap")
        axes[1].set(xlabel="iteration t", ylabel="train NLPD − NLPD(exact posterior)", title=f"{title}: NLPD gap")
        axes[2].loglog(table["T"], table["kl_avg"], "o-", color="tab:cyan", label="E KL(q_ω̄T ‖ posterior), mean")
        axes[2].loglog(table["T"], table["bound"], "k--", label="bound 4σ²/(T+1)")
        axes[2].set(xlabel="T", ylabel="KL", title="Theorem 1")
        for ax in axes:
            ax.legend(fontsize=7)
        fig.suptitle(f"Bayesian linear regression: {phrase}", fontsize=9)
        fig.tight_layout()
    return fig
