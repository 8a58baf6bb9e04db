"""Figures C.4 / C.5 (RABVI's termination-rule diagnostics) and C.11 (optimisers inside RABVI) of the RABVI paper
(Welandawe et al.) on posteriordb posteriors, from `lsvi.papers.rabvi.trigger_diagnostics` outputs."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

OPT_COLORS = {"RMSProp": "C3", "avgRMSProp": "C1", "avgAdam": "C0"}


def trigger_diagnostics(studies: dict, xi: float = 0.1, title: str = ""):
    """One row per posterior. Left: learning rate γ vs √SKL — circles √δ_t/(1/ρ − 1) (the SKL data of eq. 21), solid
    line the rule's estimate Ĉ^{1/2}γ fitted at the trigger epoch (the last epoch if none), dashed lines its 95 %
    credible interval (eq. 23 priors), crosses the realised √SKL(λ̄_t, q_*), dotted grey ξ, green line the trigger with
    its Î. Right: iterations vs realised √SKL(λ̄, q_*) of the averages (warm start first), blue lines the R̂ detection
    points, orange lines the Î computation points with Î, grey dashed q_*'s own error."""
    n = len(studies)
    fig, axes = plt.subplots(n, 2, figsize=(10, 2.9 * n + 0.6), squeeze=False)
    for i, s in enumerate(studies.values()):
        ax, bx = axes[i]
        rows = s["rows"]
        run = s["run"]
        if rows:
            g = np.array([r["gamma"] for r in rows])
            trig = next((r for r in rows if r["trigger"]), rows[-1])
            gg = np.geomspace(g.min() / 1.5, g.max() * 1.5, 50)
            ax.loglog(g, [r["data_sqrt_skl"] for r in rows], "o", color="C0", label="√δ_t/(1/ρ−1) (eq. 21 data)")
            ax.loglog(gg, trig["est_sqrt_skl"] / trig["gamma"] * gg, "-", color="C0", label="rule's estimate Ĉ^{1/2}γ")
            ax.loglog(gg, trig["lo"] / trig["gamma"] * gg, "--", color="C0", lw=0.8, label="95 % credible interval")
            ax.loglog(gg, trig["hi"] / trig["gamma"] * gg, "--", color="C0", lw=0.8)
            ax.loglog(g, [r["real_sqrt_skl"] for r in rows], "x", color="k", ms=7, label="realised √SKL(λ̄_t, q*)")
            if trig["trigger"]:
                ax.axvline(trig["gamma"], color="green", lw=1.5)
                ax.text(trig["gamma"], 0.97, f" Î = {trig['I_hat']:.2f}", color="green", transform=ax.get_xaxis_transform(),
                        va="top", fontsize=8)
            lo = min(trig["lo"] / trig["gamma"] * gg.min(), min(r["real_sqrt_skl"] for r in rows)) / 2
            hi = max(max(r["data_sqrt_skl"] for r in rows), max(r["real_sqrt_skl"] for r in rows),
                     trig["hi"] / trig["gamma"] * gg.max()) * 1.5
            ax.set_ylim(max(lo, 1e-4), min(hi, 30.0))
        ax.axhline(xi, color="0.5", ls=":", lw=1, label=f"ξ = {xi:g}")
        ax.set(xlabel="learning rate γ", ylabel="√SKL", title=f"{s['short']} (d = {s['dim']}): estimate vs γ")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.legend(fontsize=6, loc="best")
        bx.loglog(run.iterations, s["real_path"], "o-", color="k", ms=4, label="√SKL(λ̄, q*) of the averages")
        for k in run.k_conv[np.isfinite(run.k_conv)]:
            bx.axvline(k, color="C0", lw=0.8)
        for r in rows:
            if np.isfinite(r["I_hat"]):
                bx.axvline(r["iterations"], color="C1", lw=1.5 if r["trigger"] else 0.8, ls="-" if r["trigger"] else "--")
                bx.text(r["iterations"], 0.03, f"{r['I_hat']:.2f}", color="C1", rotation=90, fontsize=7,
                        transform=bx.get_xaxis_transform())
        bx.axhline(s["qstar_error"], color="0.5", ls="--", lw=1, label="q*'s own error")
        bx.axhline(xi, color="0.5", ls=":", lw=1)
        bx.plot([], [], color="C0", lw=0.8, label="R̂ detection")
        bx.plot([], [], color="C1", lw=0.8, ls="--", label="Î computed (solid: fires)")
        bx.set(xlabel="iterations", ylabel="√SKL(λ̄, q*)", title=f"{s['short']}: accuracy of the averages")
        bx.xaxis.set_minor_formatter(NullFormatter())
        bx.legend(fontsize=6, loc="best")
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def optimizer_comparison(runs: dict, title: str = ""):
    """Fig. C.11: per posterior (columns), relative mean error (top) and relative sd error (bottom) of the RABVI
    averages vs iterations for each optimiser (colour), one thin line per seed, seed 0 thicker; filled dots of the
    optimiser's colour with a red edge: the trigger points (Î > τ; the run continues with the rule off)."""
    n = len(runs)
    fig, axes = plt.subplots(2, n, figsize=(4.2 * n + 0.5, 6.4), squeeze=False)
    for j, s in enumerate(runs.values()):
        for lab, curves in s["curves"].items():
            col = OPT_COLORS.get(lab, "k")
            for i, c in enumerate(curves):
                for row, err, st in ((0, c.mean_err, c.stop_mean_err), (1, c.sd_err, c.stop_sd_err)):
                    ax = axes[row, j]
                    ax.loglog(c.iterations, err, "-", marker=".", ms=5 if i == 0 else 3, color=col,
                              lw=1.8 if i == 0 else 0.6, alpha=1 if i == 0 else 0.6,
                              label=f"{lab} (seeds: {len(curves)})" if i == 0 else None)
                    if c.stop is not None:
                        ax.loglog([c.stop], [st], "o", color=col, mec="red", ms=5, zorder=5)
        axes[0, j].set(title=f"{s['short']} (d = {s['dim']})", ylabel="relative mean error")
        axes[1, j].set(xlabel="iterations", ylabel="relative sd error")
        for ax in axes[:, j]:
            ax.xaxis.set_minor_formatter(NullFormatter())
        axes[0, j].legend(fontsize=7)
    if title:
        fig.suptitle(title + "\ndots (red edge): trigger points; runs continue with the rule off", fontsize=10)
    fig.tight_layout()
    return fig
