"""Figures of notebook 40_rabvi_theory (RABVI paper, Welandawe et al.)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, NullFormatter

COLORS = {"sgd": "k", "avg_rmsprop": "C0", "avg_adam": "C1", "rmsprop": "C2", "adam": "C3", "ngd": "C5", "sqn": "C4",
          "ngd_natural": "C9"}
LABELS = {"sgd": "SGD", "avg_rmsprop": "avgRMSProp", "avg_adam": "avgAdam", "rmsprop": "RMSProp", "adam": "Adam",
          "ngd": "NGD in (τ, ψ), F⁻¹ĝ (ours)", "sqn": "SQN (L-BFGS, B.5)", "ngd_natural": "NGD, natural-parameter step (B.14)"}
LINESTYLES = {"ngd_natural": "--"}  # drawn over NGD in (τ, ψ), which it follows closely


def thm_rabvi_theory(summaries: dict, floors: dict, bounds: dict, prop52: dict):
    """(a) Thm 2.1: |ψ̄_γ − ψ*| and sd(ψ) vs γ (SGD); (b) Props 4.4/4.5: δ_t vs γ_t per optimiser (faint open
    markers: left out of the slope fit; plain RMSProp/Adam dashed with squares), Monte Carlo scale dotted; (c) Props 4.1/4.3/5.1: lhs/rhs of each bound over the
    random pairs (≤ 1: holds; violations red x, counted above each column); (d) Prop 5.2: worst-case cost ratio of the χ-schedule vs g(r)."""
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
        x = np.full(r.size, i) + np.random.default_rng(i).uniform(-0.3, 0.3, r.size)
        over = r > 1.0
        ax[2].plot(x[~over], r[~over], ".", ms=2, alpha=0.5)
        ax[2].plot(x[over], r[over], "x", color="r", ms=4)
        ax[2].text(i, 0.97, f"{int(over.sum())}/{r.size}", transform=ax[2].get_xaxis_transform(), ha="center",
                   va="top", fontsize=7, color="r" if over.any() else "0.3")
    ax[2].axhline(1.0, color="r", lw=1)
    ax[2].set_yscale("log")
    top = max(float(np.max(bounds[nm])) for nm in names) if names else 1.0
    ax[2].set_ylim(top=max(top, 1.0) * 30)
    ax[2].set_xticks(range(len(names)), names, rotation=30, fontsize=7, ha="right")
    ax[2].set(ylabel="lhs / rhs of the bound", title="(c) Props 4.1, 4.3, 5.1: lhs/rhs per pair (x, count: > 1)")
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


# ---- notebook 41_rabvi_gaussian_targets (Section 7.1) ----------------------------------------------------------
BASELINE_STYLE = {"Adam": ("C3", "-"), "RMSProp": ("C2", "-"), "WAdagrad": ("C4", "-"), "SGD-ED": ("k", "--"),
                  "Adam-ED": ("C6", "--"), "Adam-C": ("C6", ":"), "RMSProp-ED": ("C8", "--"), "RMSProp-C": ("C8", ":")}
# Section 7.1's targets in mathtext (the experiment's labels are plain text)
TARGET_TITLES = {"identity": "identity", "diagonal": r"diagonal $V_{jj}=j$", "uniform": "uniform 0.8",
                 "banded": r"banded $0.8^{|i-j|}$", "diagonal_banded": "diagonal + banded",
                 "first1000_uniform": r"$V_{11}=1000$, uniform", "first1000_banded": r"$V_{11}=1000$, banded"}


def _title(name: str, labels: dict) -> str:
    return TARGET_TITLES.get(name, labels.get(name, name))


# Fig. 7's comparisons as the claims rows group them (rabvi_claims.fig7_claims): marker, colour
FIG7_GROUPS = {"fixed rate (Adam / RMSProp / WAdagrad)": (("Adam", "RMSProp", "WAdagrad"), "o", "C3"),
               "SGD-ED": (("SGD-ED",), "s", "k"),
               "RMSProp-ED / -C": (("RMSProp-ED", "RMSProp-C"), "^", "C8"),
               "Adam-ED / -C": (("Adam-ED", "Adam-C"), "D", "C6")}


def rabvi_fig07_gaussian(studies: dict, xi: float, labels: dict, replicates=()):
    """Fig. 7 / C.8 / C.9. One panel per target, seed 0: √SKL(iterate average, q*) vs iterations. Baselines: average
    of the last 20 % of iterates every 200 iterations; RABVI: the iterate average at the end of each learning rate
    (circles), its termination (solid vertical) and FASO's (dotted vertical; star, or x when it never stopped);
    PyMC's mean-field ADVI (the stand-in for Stan's ADVI; its raw iterate) when studied, dash-dotted vertical where
    its convergence callback fired. Last panel, every seed (`studies` and `replicates`): the best baseline of each
    group's √SKL at RABVI's own stopping iteration divided by RABVI's, one marker per (target, seed); above 1: RABVI
    more accurate (the `fig7_*_budget` rows count these)."""
    n = len(studies)
    cols = min(n + 1, 4)
    rows = -(-(n + 1) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    for ax, (name, s) in zip(axes.flat, studies.items()):
        for lab, (its, vals) in s["baselines"].items():
            c, ls = BASELINE_STYLE[lab]
            ax.loglog(its, vals, color=c, ls=ls, lw=1, label=lab)
        r = s["rabvi"]["avg_adam"]
        ax.loglog(r["cum_iterations"], r["true"], "o-", color="C0", lw=2, ms=4, label="RABVI (avgAdam)")
        ax.axvline(r["cum_iterations"][-1], color="C0", lw=1)
        a = s.get("advi")
        if a is not None:
            ax.loglog(a["iterations"], a["sqrt_skl"], color="C5", lw=1.5, label="PyMC ADVI (stand-in for Stan's)")
            if a["stop_iteration"]:
                ax.axvline(a["stop_iteration"], color="C5", ls="-.", lw=1)
        f = s["faso"]
        ax.loglog([f["iterations"]], [f["sqrt_skl"]], "*" if f["success"] else "x", color="C1", ms=11,
                  label="FASO (avgAdam, γ = 0.01; x: no stop)")
        ax.axvline(f["iterations"], color="C1", ls=":", lw=1)
        ax.axhline(xi, color="grey", ls=":", lw=0.8)
        ax.set(title=f"{_title(name, labels)}, d = {s['d']} (seed 0)", xlabel="iterations",
               ylabel=r"$\sqrt{\mathrm{SKL}}(\hat q, q^*)$")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
    handles, labs = axes.flat[0].get_legend_handles_labels()
    ax = axes.flat[n]
    _fig7_budget_dots(ax, studies, replicates, labels)
    for a in axes.flat[n + 1:]:
        a.axis("off")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.legend(handles, labs, loc="lower center", ncol=6, fontsize=8, frameon=False)
    return fig


def _fig7_budget_dots(ax, studies: dict, replicates, labels: dict):
    """Best-of-group √SKL at RABVI's stopping iteration / RABVI's final √SKL, each target (x) and seed (jittered)."""
    from lsvi.papers.rabvi.gaussian import at_budget

    names = list(studies)
    seeds = [studies, *replicates]
    for g, (gname, (labs, mk, c)) in enumerate(FIG7_GROUPS.items()):
        xs, ys = [], []
        for i, name in enumerate(names):
            for k, st in enumerate(seeds):
                s = st[name]
                have = [lab for lab in labs if lab in s["baselines"]]
                if not have:
                    continue
                r = s["rabvi"]["avg_adam"]
                best = min(at_budget(s["baselines"][lab], r["result"].iterations) for lab in have)
                xs.append(i + 0.18 * (g - 1.5) + 0.025 * (k - (len(seeds) - 1) / 2))
                ys.append(best / float(r["true"][-1]))
        if xs:
            ax.semilogy(xs, ys, mk, color=c, ms=4, mfc="none", label=gname)
    ax.axhline(1.0, color="C0", lw=1)
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi * 6)  # room above the markers for the legend
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_xticks(range(len(names)), [_title(nm, labels) for nm in names], rotation=35, ha="right", fontsize=7)
    ax.set(ylabel="best baseline / RABVI, √SKL", title=f"at RABVI's stop, {len(seeds)} seed(s): > 1 RABVI wins")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.legend(fontsize=6, loc="upper center", ncol=2, framealpha=0.9)


def rabvi_fig03_05_diagnostics(studies: dict, xi: float, viabel: dict | None = None, prediction: dict | None = None):
    """(a) Fig. 3b: true √SKL(λ̄_t, q*) vs RABVI's estimate (Ĉ γ_t^{2κ̂})^{1/2}, every target and epoch ≥ 1;
    (b) Fig. 4: observed vs eq. 26-predicted iterations of the next learning rate (crosses: the runs with the
    termination rule; open circles: the `prediction` run without it); (c) Fig. 5: √SKL of the
    iterate average per learning rate, ξ dashed; (d) ours vs viabel 0.5.1 (iterations and final √SKL per seed)."""
    fig, ax = plt.subplots(1, 4 if viabel else 3, figsize=(17 if viabel else 13, 4))
    for i, (name, s) in enumerate(studies.items()):
        r = s["rabvi"]["avg_adam"]
        ax[0].loglog(r["true"][1:], r["estimate"][1:], "o", color=f"C{i}", label=name)
        t = np.arange(2, len(r["iterations"]) - 1)
        ax[1].loglog(r["iterations"][t + 1], r["predicted_next"][t], "x", color=f"C{i}", ms=8)
        ax[2].loglog(r["gamma"], r["true"], "o-", color=f"C{i}", label=name)
    lim = np.array([1e-2, 1.0])
    ax[0].loglog(lim, lim, "k-", lw=0.8)
    ax[0].fill_between(lim, lim / 3, lim * 3, color="grey", alpha=0.15, label="factor 3")
    ax[0].set(xlabel="true √SKL(λ̄_t, q*)", ylabel="estimated (Ĉ γ_t^(2κ̂))^(1/2)", title="(a) Fig. 3b: SKL estimate")
    ax[0].legend(fontsize=6)
    if prediction:
        t = np.arange(2, len(prediction["iterations"]) - 1)
        t = t[prediction["success"][t + 1]]
        ax[1].loglog(prediction["iterations"][t + 1], prediction["predicted_next"][t], "ko", mfc="none", ms=8,
                     label=f"{prediction['name']}, τ = ∞ run")
        ax[1].legend(fontsize=7)
    lim = np.array([1e2, 1e5])
    ax[1].loglog(lim, lim, "k-", lw=0.8)
    ax[1].fill_between(lim, lim / 2, lim * 2, color="grey", alpha=0.15)
    ax[1].set(xlabel="observed iterations at the next rate", ylabel="predicted (eq. 26)", title="(b) Fig. 4: iterations")
    ax[2].axhline(xi, color="grey", ls="--", label="ξ")
    ax[2].set(xlabel="learning rate γ_t", ylabel="√SKL(λ̄_t, q*)", title="(c) Fig. 5: accuracy per rate")
    ax[2].xaxis.set_minor_formatter(NullFormatter())
    ax[2].yaxis.set_minor_formatter(NullFormatter())
    if viabel:
        for j, m in enumerate(("faso", "rabvi")):
            for impl, mk in (("ours", "o"), ("viabel", "s")):
                c = viabel[f"{m}_{impl}"]
                ax[3].loglog(c["iterations"], c["sqrt_skl"], mk, color=f"C{j}", mfc="none" if impl == "viabel" else None,
                             label=f"{m.upper()} {impl}")
        ax[3].axhline(xi, color="grey", ls="--")
        ax[3].set(xlabel="iterations to termination", ylabel="final √SKL(q̂, q*)", title="(d) ours vs viabel 0.5.1")
        ax[3].legend(fontsize=7)
        ax[3].xaxis.set_minor_formatter(NullFormatter())  # overlapping 2×10³ … 6×10³ labels otherwise
    fig.tight_layout()
    return fig


def rabvi_figC10_optimizers(studies: dict, xi: float, labels: dict):
    """Fig. C.10: inside RABVI, √SKL(λ̄_t, q*) of the iterate average at the end of each learning rate vs cumulative
    iterations, one curve per optimiser (crosses: the epoch's FASO call failed), its termination (vertical line)."""
    n = len(studies)
    cols = min(n, 4)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.6 * rows), squeeze=False)
    for ax, (name, s) in zip(axes.flat, studies.items()):
        for o, r in s["rabvi"].items():
            c = COLORS.get(o, "grey")
            res = r["result"]
            ok = np.array([e.success for e in res.epochs])
            ax.loglog(r["cum_iterations"], r["true"], LINESTYLES.get(o, "-"), color=c, lw=1.5, label=LABELS.get(o, o))
            ax.loglog(r["cum_iterations"][ok], r["true"][ok], "o", color=c, ms=4)
            ax.loglog(r["cum_iterations"][~ok], r["true"][~ok], "x", color=c, ms=8)
            ax.axvline(r["cum_iterations"][-1], color=c, lw=0.8, ls="-" if res.terminated else ":")
        ax.axhline(xi, color="grey", ls=":", lw=0.8)
        ax.set(title=f"{_title(name, labels)}, d = {s['d']} (seed 0)", xlabel="iterations (end of each learning rate)",
               ylabel="√SKL(λ̄_t, q*)")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
    for ax in axes.flat[n:]:
        ax.axis("off")
    handles = {}  # every optimiser drawn in any panel (SQN may run on some targets only)
    for ax in axes.flat[:n]:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    axes.flat[0].legend(handles.values(), handles.keys(), fontsize=7)
    fig.tight_layout()
    return fig
