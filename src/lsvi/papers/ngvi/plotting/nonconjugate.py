"""Figures of notebook 51 (Wu & Gardner, Section 5 and Figure 2): the ELBO landscape in the expectation parameter,
Remark 2's domain exits, and stochastic NGD vs SGD on logistic regression."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

COLOURS = {"sgd": "tab:blue", "sgd_price": "tab:orange", "ngd": "tab:green"}
LABELS = {"sgd": "SGD", "sgd_price": "SGD (p)", "ngd": "NGD"}


def thm_ngvi_landscape(logistic: dict, poisson: dict, exits: dict, num_steps: int):
    """Left: λ_min of the Hessian of the negative ELBO in ω at m = 0, Σ = s·I vs s (logistic). Middle: the same on
    the scaled Poisson data c·X vs c. Right: NGD steps (ρ = 1) leaving the domain, autodiff vs Price estimates.
    logistic = `logistic_landscape(...)` plus "scales"; poisson = `poisson_landscape(...)` plus "scales"."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    for ax, res, key, xlabel, title in ((axes[0], logistic, "lam_by_s", "s (Σ = s·I, m = 0)", "logistic regression"),
                                        (axes[1], poisson, "lam_by_c", "data scale c (Σ = s·I, m = 0)",
                                         "Poisson regression")):
        lam = np.asarray(res[key])
        ax.semilogx(res["scales"], np.sign(lam) * np.log10(1.0 + np.abs(lam)), "o-", label="in ω = (m, S)")
        ax.axhline(0.0, color="k", lw=1)
        ax.set_xticks(res["scales"], [f"{v:g}" for v in res["scales"]], fontsize=7)
        ax.minorticks_off()
        ax.set(xlabel=xlabel, ylabel="sign(λ_min)·log10(1 + |λ_min|)", title=f"{title}: Hessian of −ELBO")
        ax.annotate(f"(m, L) at the marked point: λ_min = {res['lam_sqrt']:.3g}", (0.03, 0.05), xycoords="axes fraction",
                    fontsize=7)
        best = res["scales"][int(np.argmin(lam))]
        ax.plot([best], [np.sign(lam.min()) * np.log10(1.0 + abs(lam.min()))], "r*", ms=12, label="point checked by FD")
        ax.legend(fontsize=7)
    names = list(exits)
    axes[2].bar(names, [exits[k][0] / num_steps for k in names], color=["tab:red", "tab:green"])
    for i, k in enumerate(names):
        axes[2].text(i, exits[k][0] / num_steps, f"{exits[k][0]} / {num_steps}", ha="center", va="bottom", fontsize=8)
    axes[2].set(ylabel="fraction of NGD steps leaving {θ₂ ≺ 0}", title="Remark 2: one step, ρ = 1", ylim=(0, 1.05))
    fig.tight_layout()
    return fig


def ngvi_fig02_logistic(runs: dict[str, pd.DataFrame], best: dict[str, dict]):
    """Figure 2: one panel per data set, negative ELBO / n (exact, 1-D quadrature) vs iteration, SGD, SGD (p) and
    NGD; the tuned step size of each method bold, the rest of its grid thin; divergent runs are not drawn."""
    fig, axes = plt.subplots(1, len(runs), figsize=(5.2 * len(runs), 3.8), squeeze=False)
    for ax, (name, df) in zip(axes[0], runs.items()):
        for method, colour in COLOURS.items():
            sub = df[(df["method"] == method) & (df["t"] > 0)]
            for h, g in sub.groupby("step_size"):
                tuned = h == best[name].get(method)
                ax.loglog(g["t"], g["neg_elbo"], color=colour, lw=2.0 if tuned else 0.6, alpha=1.0 if tuned else 0.4,
                          label=f"{LABELS[method]} ({'ρ' if method == 'ngd' else 'γ'} = {h:g})" if tuned else None)
        ax.set(xlabel="iteration t", ylabel="negative ELBO / n", title=name)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
