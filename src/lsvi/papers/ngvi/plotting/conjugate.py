"""Figures of notebook 50 (Wu & Gardner 2024): Figure 1 (Bayesian linear regression on Bike, stochastic NGD
vs SGD) and Theorem 1's bound."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

STYLE = {"ngd": ("tab:blue", "stochastic NGD (last iterate)"), "ngd_avg": ("tab:cyan", "stochastic NGD, average ω̄_t (Thm 1)"),
         "sgd": ("tab:red", "SGD in (μ, L)")}


def _band(ax, t, Y, colour, label):
    ax.loglog(t, Y.mean(axis=0), color=colour, label=label)
    if Y.shape[0] > 1:
        ax.fill_between(t, np.quantile(Y, 0.1, axis=0), np.quantile(Y, 0.9, axis=0), color=colour, alpha=0.2, lw=0)


def ngvi_fig01_bike(runs: dict, table, title: str = "Bike"):
    """Left: KL(q_t ‖ posterior) vs t; middle: training NLPD − NLPD of the exact posterior vs t (both log–log,
    mean and 10–90 % band over repetitions); right: Theorem 1, E KL(q_ω̄T ‖ posterior) vs its bound 4σ²/(T+1)."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    t = runs["t"][1:]
    for k, (colour, label) in STYLE.items():
        _band(axes[0], t, runs["kl"][k][:, 1:], colour, label)
        _band(axes[1], runs["nlpd_t"], np.maximum(runs["nlpd"][k] - runs["nlpd_exact"], 1e-12), colour, label)
    axes[0].set(xlabel="iteration t", ylabel="KL(q_t ‖ exact posterior)", title=f"{title}: KL gap")
    axes[1].set(xlabel="iteration t", ylabel="train NLPD − NLPD(exact posterior)", title=f"{title}: NLPD gap")
    axes[2].loglog(table["T"], table["kl_avg"], "o-", color="tab:cyan", label="E KL(q_ω̄T ‖ posterior), mean")
    axes[2].loglog(table["T"], table["bound"], "k--", label="bound 4σ²/(T+1)")
    axes[2].set(xlabel="T", ylabel="KL", title="Theorem 1")
    R = runs["kl"]["ngd"].shape[0]
    for ax in axes:
        ax.legend(fontsize=7)
    fig.suptitle(f"Bayesian linear regression, {R} repetitions (bands: 10–90 % over repetitions)", fontsize=9)
    fig.tight_layout()
    return fig
