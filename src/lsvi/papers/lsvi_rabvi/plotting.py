"""Figure of notebook 44 (beyond the paper, issue 13): RABVI's termination rule on LSVI-MF / LSVI-FC.

Top row: SKL between successive iterate averages against the learning rate (LSVI's ε), log–log,
with the slope-2 line of eq. 21 (κ = 1) through the fit RABVI made at its stopping epoch. Bottom
row: KL (up to log Z) of each epoch's average against the cumulative number of target
evaluations (open circles: epochs whose FASO call did not converge, e.g. cut by k_max), the stopping point
starred, and the paper's fixed-T runs at their cost."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

FIXED_STYLE = {"paper": dict(marker="s", color="tab:red"), "centred": dict(marker="D", color="tab:green")}


def stopping_figure(panels: dict, rho: float = 0.5):
    """``panels`` {title: dict(epochs=DataFrame of `epochs_table` with a ``kl`` column,
    fixed={label: (evaluations, L mean, L sd)})}; one column per entry."""
    fig, axes = plt.subplots(2, len(panels), figsize=(5.2 * len(panels), 7.2), squeeze=False)
    for j, (title, p) in enumerate(panels.items()):
        ep = p["epochs"]
        ax = axes[0, j]
        ok = ep[np.isfinite(ep["skl"]) & ep["success"]]
        ax.loglog(ok["gamma"], ok["skl"], "o-", color="tab:blue", label="SKL(λ̄ at γ/ρ, λ̄ at γ)")
        stop = ep[ep["stop"]]
        if len(stop):
            s = stop.iloc[0]
            g = np.geomspace(ep["gamma"].min(), ep["gamma"].max(), 20)
            ax.loglog(g, s["C_hat"] * (1 / rho - 1) ** 2 * g ** 2, "k--", lw=1, label="eq. 21, κ = 1 (slope 2), fit at the stop")
            ax.loglog([s["gamma"]], [s["skl"]], "*", ms=14, color="tab:orange", label=f"stop (epoch {int(s['epoch'])})")
        if not len(ok):
            ax.text(0.5, 0.5, "no SKL: fewer than two successful epochs", transform=ax.transAxes, ha="center")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set(xlabel="learning rate γ = LSVI step ε", ylabel="SKL between successive averages", title=title)
        ax.legend(fontsize=7)
        ax = axes[1, j]
        fixed = p["fixed"]
        ref = min([ep["kl"].min()] + [v[1] for v in fixed.values()])
        good = ep[ep["success"]]
        ax.plot(good["evaluations"], good["kl"] - ref, "o-", color="tab:blue", label="RABVI epoch averages")
        bad = ep[~ep["success"].astype(bool)]
        if len(bad):
            ax.plot(bad["evaluations"], bad["kl"] - ref, "o", mfc="none", ms=8, color="tab:blue",
                    label="epoch average, FASO did not converge (k_max)")
        if len(stop):
            ax.plot([s["evaluations"]], [s["kl"] - ref], "*", ms=14, color="tab:orange", label="RABVI stop")
        top = [float(ep["kl"].max() - ref) if len(ep) else 0.0]
        for label, (n_eval, mean, sd) in fixed.items():
            style = FIXED_STYLE.get(label.split()[0], dict(marker="^", color="grey"))
            ax.errorbar([n_eval], [mean - ref], yerr=[sd], ls="none", ms=8,
                        label=f"fixed T: {label}, {mean - ref:+.3g} nats", **style)
            top.append(mean - ref + sd)
        ax.set_xscale("log")
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_ylim(-0.002, 3.0 * max(max(top), 0.01))
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set(xlabel="target evaluations (N × iterations)", ylabel="KL − lowest value shown (nats)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
