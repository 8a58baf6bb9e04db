"""Figure of notebook 41 for δ_t and κ̂ against the learning rate (RABVI paper, Welandawe et al.: Fig. 3a / C.2 left,
Figs C.6, C.7), from `lsvi.papers.rabvi.rate_exponent`."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter, NullLocator

from lsvi.papers.rabvi import rate_exponent as re_

RHO = re_.RHO
BANDS = {"rmsprop": ((0.4, 0.6), "RMSProp (Fig. C.6)", "caption: κ ≈ 0.5"),
         "adam": ((0.5, 0.7), "Adam (Fig. C.7)", "caption: κ ≈ 0.6, < 0.8")}


def rate_exponent_figure(runs, paths: dict, labels: dict):
    """(a) Fig. 3a / C.2 left: δ_t against γ_t for avgAdam, one colour per target, with the κ = 1 fit line
    Ĉ(1/ρ − 1)²γ² (weighted least squares on every point); (b, c) Figs C.6 / C.7: the posterior median of κ after
    each epoch against γ_t with its 95 % credible interval (error bars), RMSProp and Adam, the captions' values as a
    grey band (and 0.8 dashed). ``paths`` {(optimizer, target): `rate_exponent.kappa_path`}; ``labels``
    {target: name}."""
    targets = sorted({r.name for r in runs})
    colour = {t: f"C{i}" for i, t in enumerate(targets)}
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.3))
    for r in runs:
        if r.optimizer != "avg_adam" or not r.gamma.size:
            continue
        c = colour[r.name]
        ax[0].loglog(r.gamma, r.delta, "o", color=c, label=labels.get(r.name, r.name))
        if r.gamma.size >= 2:
            g = np.geomspace(r.gamma.min(), r.gamma.max(), 20)
            ax[0].loglog(g, re_.kappa_one_fit(r) * (1 / RHO - 1) ** 2 * g ** 2, "-", color=c, lw=1)
    ax[0].set(xlabel=r"learning rate $\gamma_t$", ylabel=r"$\delta_t$ = SKL($\bar\lambda_{t-1}, \bar\lambda_t$)",
              title="(a) Fig. 3a / C.2: avgAdam, κ = 1 fits (lines)")
    ax[0].legend(fontsize=7)
    for k, (opt, (band, title, said)) in enumerate(BANDS.items(), start=1):
        a = ax[k]
        a.axhspan(*band, color="0.85", label=said)
        a.axhline(0.8, color="0.4", ls="--", lw=0.8)
        a.axhline(1.0, color="0.4", ls=":", lw=0.8, label="κ = 1 (plain SGD)")
        for j, t in enumerate(targets):
            p = paths.get((opt, t))
            if p is None or not len(p):
                continue
            x = p[:, 0] * (1 + 0.03 * (j - (len(targets) - 1) / 2))  # small horizontal offset per target
            a.errorbar(x, p[:, 1], yerr=[p[:, 1] - p[:, 2], p[:, 3] - p[:, 1]], fmt="o-", ms=4, lw=1, capsize=2,
                       color=colour[t], label=labels.get(t, t))
        a.set_xscale("log")
        a.set(ylim=(0, 1.42), yticks=np.linspace(0, 1, 6), xlabel=r"learning rate $\gamma_t$ (fit on the epochs down to $\gamma_t$)",
              ylabel="κ: posterior median, 95 % CI", title=f"({'bc'[k - 1]}) {title}")
        a.legend(fontsize=7, loc="upper center", ncol=3)  # above κ = 1, where no interval reaches
    gammas = sorted({float(g) for r in runs for g in r.gamma})
    for a in ax:  # ticks at the learning rates themselves (a factor ρ apart), not at decades
        a.xaxis.set_minor_formatter(NullFormatter())
        a.set_xticks(gammas, [f"{g:.3g}" for g in gammas], fontsize=7, rotation=45)
        a.xaxis.set_minor_locator(NullLocator())
    fig.tight_layout()
    return fig
