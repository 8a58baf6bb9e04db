"""Figures of notebook 40_rabvi_theory (RABVI paper, Welandawe et al.)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

COLORS = {"sgd": "k", "avg_rmsprop": "C0", "avg_adam": "C1", "rmsprop": "C2", "adam": "C3"}
LABELS = {"sgd": "SGD", "avg_rmsprop": "avgRMSProp", "avg_adam": "avgAdam", "rmsprop": "RMSProp", "adam": "Adam"}


def thm_rabvi_theory(summaries: dict, floors: dict, bounds: dict, prop52: dict):
    """(a) Thm 2.1: |ψ̄_γ − ψ*| and sd(ψ) vs γ (SGD); (b) Props 4.4/4.5: δ_t vs γ_t per optimiser (faint open
    markers: left out of the slope fit; plain RMSProp/Adam dashed with squares), Monte Carlo scale dotted; (c) Props 4.1/4.3/5.1: lhs/rhs of each bound over the
    random pairs (≤ 1: holds); (d) Prop 5.2: worst-case cost ratio of the χ-schedule vs g(r)."""
    fig, ax = plt.subplots(1, 4, figsize=(18, 4.2))
    s = summaries["sgd"]
    gam = summaries["sgd"]["gamma"]
    ax[0].loglog(gam, s["bias"], "o-", label=f"|mean ψ − ψ*| (slope {s['bias_fit'].slope:.2f})")
    ax[0].loglog(gam, s["spread"], "s-", label=f"sd of ψ iterates (slope {s['spread_fit'].slope:.2f})")
    ax[0].loglog(gam, s["bias"][0] * (gam / gam[0]), "k:", lw=1, label="slopes 1 and 1/2")
    ax[0].loglog(gam, s["spread"][0] * (gam / gam[0]) ** 0.5, "k:", lw=1)
    ax[0].set(xlabel="learning rate γ", ylabel="bias and sd of the log-scale ψ", title="(a) Thm 2.1, SGD, stationary ψ")
    ax[0].legend(fontsize=8)
    for name, s in summaries.items():
        g1 = s["gamma"][1:]
        fit = s["delta_fit"]
        lab = f"{LABELS[name]} (slope {fit.slope:.2f})" if fit is not None else LABELS[name]
        plain = name in ("rmsprop", "adam")  # dashed, squares: Adam lies on avgAdam at these run lengths
        mk, ms = ("s", 8) if plain else ("o", 5)
        ax[1].loglog(g1, s["delta"], "--" if plain else "-", color=COLORS[name], lw=1)
        ax[1].loglog(g1[s["mask"]], s["delta"][s["mask"]], mk, ms=ms, color=COLORS[name], label=lab,
                     **({"mfc": "none", "mew": 1.5} if plain else {}))
        ax[1].loglog(g1[~s["mask"]], s["delta"][~s["mask"]], mk, ms=ms, mfc="none", color=COLORS[name], alpha=0.5)
        ax[1].loglog(g1, floors[name][1:], ":", color=COLORS[name], lw=0.7)
    ref = summaries["avg_adam"] if "avg_adam" in summaries else s
    gr = ref["gamma"][1:]
    ax[1].loglog(gr, ref["delta"][-1] * (gr / gr[-1]) ** 2, color="grey", lw=3, alpha=0.3, label="slope 2 (κ = 1)")
    ax[1].set(xlabel="learning rate γ_t", ylabel="δ_t: SKL between averages at γ_t and γ_t/ρ",
              title="(b) Props 4.4/4.5: slope 2κ")
    ax[1].legend(fontsize=7)
    names = list(bounds)
    for i, nm in enumerate(names):
        r = np.asarray(bounds[nm])
        ax[2].plot(np.full(r.size, i) + np.random.default_rng(i).uniform(-0.3, 0.3, r.size), r, ".", ms=2, alpha=0.5)
    ax[2].axhline(1.0, color="r", lw=1)
    ax[2].set_yscale("log")
    ax[2].set_xticks(range(len(names)), names, rotation=30, fontsize=7, ha="right")
    ax[2].set(ylabel="lhs / rhs of the bound", title="(c) Props 4.1, 4.3, 5.1: ≤ 1 holds")
    r = prop52["r"]
    ax[3].semilogx(r, prop52["g"], "k-", label="g(r) (Prop. 5.2)")
    ax[3].semilogx(r, prop52["worst_chi"], "C0o", ms=3, label="simulated worst case, χ = χ(r)")
    ax[3].semilogx(r, prop52["worst_two"], "C3s", ms=3, label="simulated worst case, χ = 2 (doubling)")
    ax[3].axhline(4.0, color="grey", ls=":")
    ax[3].set(xlabel="cost ratio r = C_O/C_E", ylabel="check-schedule cost / OPT", title="(d) Prop. 5.2")
    ax[3].legend(fontsize=8)
    for a in ax[:2]:
        a.xaxis.set_minor_formatter(NullFormatter())
    fig.tight_layout()
    return fig


def rabvi_gaussian_run(epochs, sqrt_skl_true, xi: float, rho: float):
    """RABVI on a Gaussian target: (a) √SKL(λ̄_t, q*) and the estimate √(Ĉ) γ_t^κ̂ vs γ_t (cf. Figs 3b, 5a);
    (b) √SKL(λ̄_t, q*) vs cumulative iterations, ξ dashed (cf. Fig. 5b)."""
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    gam = np.array([e.gamma for e in epochs])
    est = np.array([np.sqrt(e.C_hat) * e.gamma ** e.kappa_hat for e in epochs])
    ax[0].loglog(gam, sqrt_skl_true, "o-", label="true √SKL(q_t, q*), q_t the iterate average")
    ax[0].loglog(gam, est, "x--", label="RABVI's estimate (Ĉ γ_t^(2κ̂))^(1/2), eq. 17/21")
    ax[0].axhline(xi, color="grey", ls=":", label="ξ")
    ax[0].set(xlabel="learning rate γ_t", ylabel="√SKL", title="(a) accuracy per learning rate")
    ax[0].legend(fontsize=8)
    iters = np.cumsum([e.iterations for e in epochs])
    ax[1].semilogy(iters, sqrt_skl_true, "o-")
    ax[1].axhline(xi, color="grey", ls=":", label="ξ")
    ax[0].xaxis.set_minor_formatter(NullFormatter())
    ax[1].set(xlabel="iterations (end of each learning rate)", ylabel="√SKL(q_t, q*)",
              title=f"(b) RABVI stops after {len(epochs)} learning rates")
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    return fig
