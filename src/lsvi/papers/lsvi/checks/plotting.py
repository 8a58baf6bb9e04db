"""Figures of the theorem-check notebooks (10–14): one function per figure, returning the
matplotlib figure (the notebook saves it with `lsvi.pipeline.notebook.Run.save_figure`)."""
from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
import numpy as np

from lsvi.papers.lsvi.checks import convergence, exactness, gaussian_maps
from lsvi.exact import equivalences, theory
from lsvi.core.families.gaussian import num_params_fullcov


def _errorbar_log(ax, x, y, half, fmt, label, **style):
    """``errorbar`` of y ± half on a log axis: an interval that reaches 0 or below is cut at y / 10 and its lower end
    marked ▼ (on a log axis the bar would run off the bottom of the panel and hide the other points)."""
    x, y, half = (np.asarray(v, float) for v in (x, y, half))
    reaches_zero = y - half <= 0
    lower = np.where(reaches_zero, 0.9 * y, half)
    ax.errorbar(x, y, yerr=[lower, half], fmt=fmt, label=label, **style)
    if reaches_zero.any():
        ax.plot(x[reaches_zero], 0.1 * y[reaches_zero], "v", ms=4, mfc="white", color=style.get("color"),
                label="_nolegend_")


def thm_convergence_rates(floor: convergence.Floor, bias: convergence.Bias, est: convergence.Estimators,
                          local: convergence.LocalConstants, regimes: convergence.Regimes,
                          avg: convergence.StochasticAverage, n_grid, alpha_factors, num_steps: int,
                          precision_floor: float):
    """Figure ``thm_convergence_rates`` (notebook 12, Theorem 3.4), 2 × 3 panels: (a) the floor
    in N with the linearised C/N; (a′) the one-step bias (Lemma D.9); (a″) N·MSE of the three
    estimators of Remark 3.7; (b) exact descent, last iterate and ω̄_k; (b′) ω̄_k over the bound's
    first term of eq. (12); (c) stochastic E[l(ω̄_k)] − l* at the smallest N without blown-up runs
    and the largest N against the exact ω̄_k."""
    fig, ax = plt.subplots(2, 3, figsize=(16, 8.5))
    nn = np.asarray(n_grid, float)
    alphas = local.alphas
    k = np.arange(1, len(regimes.exact_avg[alphas[0]]) + 1)
    # panel (c): the smallest N whose runs all stayed in the basin (for every α), and the largest N
    n_small = next((n for n in n_grid if all(avg.blowups[n, a] == 0 for a in alphas)), n_grid[-1])
    for alg, mk, col in (("alg1", "o", "C0"), ("alg3", "s", "C3")):
        if alg not in floor.floor:
            continue
        y = floor.floor[alg]
        fin = np.all(np.isfinite(y) & (y < convergence.BLOWN_UP), axis=0)
        m_, s_ = np.nanmean(y, 0), np.nanstd(y, 0) / np.sqrt(y.shape[0])
        ax[0, 0].errorbar(nn[fin], m_[fin], yerr=2 * s_[fin], fmt=mk, color=col, label=f"{alg}: measured (±2 se)")
        ax[0, 0].plot(nn, floor.pred[alg] / nn, "--", color=col, label=f"{alg}: linearised C/N, C = {floor.pred[alg]:.2f}")
    fit1, keep1 = floor.fit["alg1"]
    slope_txt = f"slope {fit1.slope:.2f}" if fit1 is not None and keep1.size >= 4 else f"slope not assessable ({keep1.size} N)"
    ax[0, 0].set(xscale="log", yscale="log", xlabel="N", ylabel="E[l(η̂_t)] − l*  (t ≥ burn-in)",
                 title=f"(a) floor, constant ε = 1/L̂; alg1 {slope_txt}")
    ax[0, 0].legend(fontsize=7)
    _errorbar_log(ax[0, 1], nn, bias.norm, 2 * bias.se, "o", "Alg 1 (OLS): ‖E η̂' − φ(η*)‖", color="C0")
    ax[0, 1].plot(nn, 0.5 * bias.norm[0] * nn[0] / nn, "k:", label="∝ 1/N (guide, ×0.5)")
    wn = np.array([np.linalg.norm(bias.stats[n].wht_bias) for n in n_grid])
    wse = np.array([np.linalg.norm(bias.stats[n].wht_se) for n in n_grid])
    _errorbar_log(ax[0, 1], nn, wn, 2 * wse, "s", "Alg 3: ‖E η̂' − φ(η*)‖ (≈ MC noise; ▽: interval reaches 0)",
                  color="C1")
    bias_txt = f"slope {bias.fit.slope:.2f}" if len(n_grid) >= 4 else f"slope not assessable ({len(n_grid)} N)"
    ax[0, 1].set(xscale="log", yscale="log", xlabel="N", ylabel="norm of the mean error",
                 title=f"(a′) one-step bias (Lemma D.9), {bias_txt}")
    ax[0, 1].legend(fontsize=7)
    for col, (name, lab) in zip(("C0", "C1", "C2"), (("OLS", "OLS (Alg 1)"), ("two-sample", "two-sample (Thm 3.4)"),
                                                      ("exact FIM", "exact FIM (= Alg 2–3)"))):
        for pname, ls in (("η*", "-"), ("η0", "--")):
            sub = est.table[est.table.point == pname]
            ax[0, 2].plot(sub.N, sub[f"N·MSE {name}"], "o" + ls, color=col, ms=4, label=f"{lab} at {pname}")
    ax[0, 2].axhline(np.trace(floor.V["alg1"]), color="C0", ls=":", lw=0.8, label="tr V, OLS at η*")
    ax[0, 2].axhline(np.trace(floor.V["alg3"]), color="C2", ls=":", lw=0.8, label="tr V, exact FIM at η*")
    ax[0, 2].set(xscale="log", yscale="log", xlabel="N", ylabel="N · E‖η̂ − φ(η)‖²",
                 title="(a″) Remark 3.7: three estimators of φ(η)")
    ax[0, 2].legend(fontsize=6, ncol=2)
    colors = plt.cm.viridis(np.linspace(0, 0.85, len(alphas)))
    for i, (a, fac, col) in enumerate(zip(alphas, alpha_factors, colors), start=1):
        last, exact_avg = local.exact_exc[i][1:], regimes.exact_avg[a]
        ax[1, 0].plot(k, np.where(last > precision_floor, last, np.nan), color=col, label=f"α = {fac:g}μ̂: last iterate")
        ax[1, 0].plot(k, np.where(exact_avg > precision_floor, exact_avg, np.nan), "--", color=col, label=f"α = {fac:g}μ̂: ω̄_k")
        ax[1, 1].plot(k, exact_avg / regimes.bounds[a], color=col, label=f"α = {fac:g}μ̂ (c_t {regimes.table.loc[i - 1, 'c_t']})")
        ax[1, 2].plot(k[:num_steps], exact_avg[:num_steps], color=col, lw=2.5, alpha=0.6, label=f"α = {fac:g}μ̂: exact ω̄_k")
        for n, ls in ((n_small, ":"), (n_grid[-1], "-")):
            ax[1, 2].plot(np.arange(1, num_steps + 1), np.abs(avg.mean[n, a]), ls, color=col, lw=1, label=f"N = {n}")
    ax[1, 0].set(xscale="log", yscale="log", xlabel="k", ylabel="l − l*",
                 title=f"(b) exact iterations, μ̂ = {local.mu:.3f}, L̂ = {local.L:.3f}")
    ax[1, 0].legend(fontsize=6, ncol=1)
    ax[1, 1].axhline(1.0, color="k", lw=0.8)
    ax[1, 1].set(xscale="log", xlabel="k", ylabel="(l(ω̄_k) − l*) / bound's first term", ylim=(0, 1.1),
                 title="(b′) eq. (12) with exact gradients: ratio ≤ 1")
    ax[1, 1].legend(fontsize=7)
    shown = np.concatenate([np.abs(avg.mean[n, a]) for n in (n_small, n_grid[-1]) for a in alphas]
                           + [regimes.exact_avg[a][:num_steps] for a in alphas])
    shown = shown[np.isfinite(shown) & (shown > 0)]
    ax[1, 2].set(xscale="log", yscale="log", xlabel="k", ylabel="E[l(ω̄_k)] − l*", xlim=(1, num_steps),
                 ylim=(0.5 * shown.min(), 2 * shown.max()), title="(c) weighted average ω̄_k, Algorithm 1")
    ax[1, 2].legend(fontsize=6, ncol=3)
    fig.tight_layout()
    return fig


def thm_exactness_step_control(gaussian: exactness.GaussianCase, rates: exactness.WhitenedRates,
                               temper: exactness.Tempering, bt: exactness.Backtracking, chains: exactness.Chains,
                               sample_sizes, num_samples: int, num_steps: int):
    """Figure ``thm_exactness_step_control`` (notebook 14), 2 × 3 panels: (a) error of one step
    when π is in the family (Algorithm 1; Algorithms 2–3 RMSE and, at "N = ∞", with quadrature γ);
    (b) tempered residual variance over v² against ε (eq. 14); (c) the bimodal target, φ(η0)ᵀs and
    the backtracked fit; (d, e) μ_t of the first 8 chains of Algorithm 1 + Algorithm 4, schedules 3
    and 4, halvings marked; (f) share of raw chains still in V and of controlled chains at a mode."""
    fig, axes = plt.subplots(2, 3, figsize=(16, 8.5))
    num_reps = len(chains.exit_t)
    n_max = max(sample_sizes)
    ax = axes[0, 0]
    errors = gaussian.errors
    ax.loglog(list(errors), np.maximum(list(errors.values()), 1e-16), "ks", label="Algorithm 1 (Gaussian, max over starts)")
    for c, (name, r) in enumerate(rates.rmse.items()):
        ax.loglog(sample_sizes, r, "o-", color=f"C{c}",
                  label=f"{name}: RMSE" + (f", slope {rates.slopes[name]:.2f}" if len(sample_sizes) >= 4 else ""))
        ax.loglog([10 * n_max], [max(rates.quad_err[name], 1e-16)], "x", color=f"C{c}", ms=9)
    ns = np.array(sample_sizes, float)
    ax.loglog(ns, 0.3 * rates.rmse[next(iter(rates.rmse))][0] * (ns / ns[0]) ** -0.5, "k:", lw=0.8,
              label=r"$\propto N^{-1/2}$ (guide)")
    ax.set(xlabel="N  (x: quadrature γ, 'N = ∞')", ylabel=r"$\|\hat\eta' - \eta^*\|$", title="(a) π in the family: one step")
    ax.legend(fontsize=7)
    ax = axes[0, 1]
    t = temper.table
    ax.loglog(t.eps, t.var_ratio, "o", label=r"var(tempered residuals) / $v^2$")
    ax.loglog(t.eps, t.eps**2, "k-", lw=0.8, label=r"$\varepsilon^2$")
    ax.set(xlabel="ε", ylabel="variance ratio", title="(b) eq. (14)")
    ax.legend()
    ax = axes[0, 2]
    xs = np.linspace(-4, 4, 400)[:, None]
    f_x = np.asarray(bt.log_target(None, xs))
    for lab, e, st in ((r"$\log\pi$", None, "-"), (r"$\log q_{\eta_0}$", bt.eta0, ":"),
                       (r"$\phi(\eta_0)^\top s$ (exact LS fit)", bt.phi0, "--"), (f"backtracked, ε = {bt.eps:g}", bt.eta_bt, "-.")):
        vals = f_x if e is None else np.asarray(bt.family.dot(e, xs))
        ax.plot(xs[:, 0], vals - vals[200], st, label=lab)
    ax.set(ylim=(-12, 8), xlabel="x", ylabel="log density + const.", title="(c) bimodal target, up to constants")
    ax.legend(fontsize=7)
    for ax, (label, r) in zip(axes[1, :2], chains.runs.items()):
        for i in range(min(num_reps, 8)):
            ax.plot(np.clip(r["mu"][i], -6, 6), "-", color=f"C{i}", lw=0.8)
            h = np.nonzero(r["halvings"][i] > 0)[0] + 1
            ax.plot(h, np.clip(r["mu"][i, h], -6, 6), "v", color=f"C{i}", ms=3)
        ax.axhline(2, color="0.8", lw=2, zorder=0)  # the modes
        ax.axhline(-2, color="0.8", lw=2, zorder=0)
        ax.set(ylim=(-6.3, 6.3), xlabel="t", ylabel=r"$\mu_t$ (clipped to [−6, 6])",
               title=f"({'d' if '3' in label else 'e'}) {label}, N = {num_samples}")
    ax = axes[1, 2]
    tt = np.arange(num_steps + 1)
    ax.plot(tt, [(chains.exit_t > s).mean() for s in tt], "k-", label="raw fixed point: chains still in V")
    for (label, r), ls in zip(chains.runs.items(), ("-", "--")):
        ax.plot(tt, r["at_mode"].mean(axis=0), ls, color="C3", label=f"{label}: chains at a mode")
    ax.set(ylim=(-0.03, 1.03), xlabel="t", ylabel=f"share of {num_reps} chains", title="(f) raw vs Algorithm 4")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def thm_gaussian_maps(dist: gaussian_maps.Distance, ident: gaussian_maps.Identities, stein: gaussian_maps.Stein,
                      cost: gaussian_maps.Cost, n_grid, n_cost: int, regime_factor: float):
    """Figure ``thm_gaussian_maps`` (notebook 13), 2 × 2 panels: (a) distance between the two Monte
    Carlo estimates of φ(η) in N with N^{-1/2} guides; (b) Stein-form discrepancy in the number of
    nodes; (c) one iteration at fixed N in d; (c′) the regression-to-η step alone, with guides
    ∝ m(d)³ and ∝ d³. Filled markers: sizes in the asymptotic regime."""
    fig, ax = plt.subplots(2, 2, figsize=(11, 8.5))
    nn = np.asarray(n_grid, float)
    for name, col in (("full covariance", "C0"), ("mean field", "C1")):
        d_ = np.array([dist.stats[name, n].dist for n in n_grid])
        ax[0, 0].errorbar(nn, d_, yerr=[2 * dist.stats[name, n].dist_se for n in n_grid], fmt="o-", color=col,
                          label=f"{name}: E‖η̂'(Alg 1) − η̂'(Alg {'3' if name == 'full covariance' else '2'})‖ (±2 se)")
        ax[0, 0].plot(nn, 0.5 * d_[0] * np.sqrt(nn[0] / nn), ":", color=col,
                      label=r"$\propto N^{-1/2}$ guides (×0.5)" if col == "C0" else None)
    ax[0, 0].set(xscale="log", yscale="log", xlabel="N", ylabel="mean distance between the two estimates",
                 title=f"(a) same draws, two estimators of φ(η) (quadrature gap: {ident.err_fc:.0e}, {ident.err_mf:.0e})")
    ax[0, 0].legend(fontsize=7)
    for col_name, mk in zip(stein.logistic.columns, "os^v"):
        ax[0, 1].plot(stein.logistic.index, stein.logistic[col_name], mk + "-", label=f"logistic: {col_name}")
    ax[0, 1].axhline(max(stein.sin.values()), color="k", ls=":", label="quadratic + sin (d = 3)")
    ax[0, 1].set(yscale="log", xlabel="Gauss–Hermite nodes per dimension", ylabel="max |LSVI map − Stein form|",
                 title="(b) Stein forms eq. (19) / (44)")
    ax[0, 1].legend(fontsize=7)
    labels = {"alg1": "Alg 1 (OLS, full-cov s)", "alg3": "Alg 3 (full cov)", "alg2": "Alg 2 (mean field)",
              "normals": "N × d normals alone", "map alg1": "F̂⁻¹ẑ (m × m solve)", "map alg3": "eq. (18) γ → η",
              "alg1 mf": "Alg 1 on the mean field (m = 2d + 1, N = 20m)"}
    for panel, keys in ((ax[1, 0], ("alg1", "alg3", "alg2", "normals", "alg1 mf")), (ax[1, 1], ("map alg1", "map alg3"))):
        for c, k in enumerate(keys):
            if k not in cost.grids:
                continue
            r, g, col = cost.regime[k], np.asarray(cost.grids[k], float), "0.5" if k == "normals" else f"C{c}"
            var = "m" if k == "map alg1" else "d"
            slope = ("slope not assessed" if k == "alg1" else f"reference, slope {r.fit.slope:.2f}" if k == "normals" and r.fit
                     else f"slope in {var} {r.fit.slope:.2f}" if r.fit else f"not assessable ({r.in_regime.sum()} sizes in regime)")
            secs = cost.seconds[k]
            panel.plot(g, secs, "-", color=col, lw=0.8)
            panel.plot(g[r.in_regime], secs[r.in_regime], "o", color=col, label=f"{labels[k]}: {slope}")
            panel.plot(g[~r.in_regime], secs[~r.in_regime], "o", color=col, mfc="white")
            if k != "normals":
                panel.axhline(regime_factor * cost.reference[k], color=col, lw=0.6, ls=":")
    for k, style, lab in (("map alg1", "--", r"$\propto m(d)^3 = O(d^6)$"), ("map alg3", "-.", r"$\propto d^3$")):
        g = np.asarray(cost.grids[k], float)
        shape = np.array([num_params_fullcov(int(dd)) for dd in g], float) ** 3 if k == "map alg1" else g**3
        ax[1, 1].plot(g, cost.seconds[k][-1] * shape / shape[-1], style, color="0.5", lw=0.8, label=lab)
    if "alg1 mf" in cost.grids:
        g = np.asarray(cost.grids["alg1 mf"], float)
        ax[1, 0].plot(g, cost.seconds["alg1 mf"][-1] * (g / g[-1]) ** 3, "--", color="C4", lw=0.8, label=r"$\propto d^3$ (mean-field Alg 1)")
    ax[1, 0].set(xscale="log", yscale="log", xlabel="d", ylabel="CPU seconds per iteration",
                 title=f"(c) one iteration, N = {n_cost} (mean-field Alg 1: N = 20m)")
    ax[1, 0].legend(fontsize=7)
    ax[1, 1].set(xscale="log", yscale="log", xlabel="d", ylabel="CPU seconds",
                 title="(c′) regression-to-η step alone (predicted: 3 in m, 3 in d)")
    ax[1, 1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def thm_fixed_point_ukl(targets: dict, fixed_points: dict, log_z: dict, landscapes: dict, fixed_point_tol: float,
                        fixed_point_eps: float):
    """Figure ``thm_fixed_point_ukl`` (notebook 10, Props. 2.2–2.3), 2 × 2 panels: the 1-D quartic
    target and its fitted Gaussian; the banana and its fit (contours); uKL and KL along a random line
    through η* (``landscapes``: {name: dict(t, ukl, kl)} of `critical_points.landscape`, each divided
    by its maximum); the residual ‖φ(η_t) − η_t‖_∞ of the exact iteration (eq. 5). ``targets``:
    {"quartic": dict(family, log_target, ...), "banana": ...}; ``fixed_points``: {name: theory.FixedPoint}."""
    fig, axes = plt.subplots(2, 2, figsize=(10, 8))
    t1, t2 = targets["quartic"], targets["banana"]
    xs = np.linspace(-3, 4.5, 400)
    ax = axes[0, 0]
    ax.plot(xs, np.exp(np.asarray(t1["log_target"](None, xs[:, None])) - log_z["quartic"]), label=r"$\bar\pi$ (quartic)")
    ax.plot(xs, np.exp(np.asarray(theory.log_density(t1["family"], fixed_points["quartic"].eta, xs[:, None]))), "--",
            label=r"$\bar q_{\eta^*}$ (fixed point)")
    ax.set(xlabel="x", ylabel="density", title="1-D skewed quartic target")
    ax.legend()
    ax = axes[0, 1]
    g1, g2 = np.meshgrid(np.linspace(-3.5, 3.5, 200), np.linspace(-3.5, 6, 200))
    G = np.stack([g1.ravel(), g2.ravel()], 1)
    ax.contour(g1, g2, np.exp(np.asarray(t2["log_target"](None, G)) - log_z["banana"]).reshape(g1.shape), 6, colors="C0")
    ax.contour(g1, g2, np.exp(np.asarray(theory.log_density(t2["family"], fixed_points["banana"].eta, G))).reshape(g1.shape),
               6, colors="C1", linestyles="--")
    ax.set(xlabel="$x_1$", ylabel="$x_2$", title=r"banana: $\bar\pi$ (solid), $\bar q_{\eta^*}$ (dashed)")
    ax = axes[1, 0]
    for k, (name, line) in enumerate(landscapes.items()):
        ax.plot(line["t"], line["ukl"] / line["ukl"].max(), color=f"C{k}", label=f"uKL − uKL(η*), {name}")
        ax.plot(line["t"], line["kl"] / line["kl"].max(), "--", color=f"C{k}", label=f"KL − KL(η*), {name}")
    ax.axvline(0, color="0.6", lw=0.8)
    ax.set(xlabel="t  (η = η* + t v)", ylabel="divided by its max on the line",
           title="landscapes along a random line (each ≥ 0, = 0 at t = 0)")
    ax.legend(fontsize=7)
    ax = axes[1, 1]
    for k, (name, fp) in enumerate(fixed_points.items()):
        ax.semilogy(fp.history, color=f"C{k}", label=name)
        ax.axhline(fixed_point_tol * (1 + float(np.max(np.abs(fp.eta)))), color=f"C{k}", lw=0.8, ls=":")
    ax.plot([], [], color="0.4", lw=0.8, ls=":", label=f"stopping rule {fixed_point_tol:g}(1 + ‖η*‖∞)")
    ax.set(xlabel="iteration t", ylabel=r"$\|\phi(\eta_t)-\eta_t\|_\infty$", title=f"exact LSVI (eq. 5, ε = {fixed_point_eps})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def thm_lsvi_ngd_md(targets: dict, runs: dict, refs: dict, step_sizes, num_steps: int, tol: float):
    """Figure ``thm_lsvi_ngd_md`` (notebook 11, Prop. 2.4), one row per target: uKL(η_t) − uKL(η*)
    along the LSVI (lines), NGD (circles) and MD (crosses) trajectories, values below the rounding
    level 1e-13 max(1, |l*|) not drawn; the largest componentwise difference to LSVI per step
    (exact zeros at 1e-17) with the tolerance. ``targets``: {name: dict(family, log_target, K)};
    ``runs``: {name: `equivalences.trajectories`}; ``refs``: {name: `equivalences.FixedPointReference`}."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for r, (name, t) in enumerate(targets.items()):
        fam, lt, K, ref = t["family"], t["log_target"], t["K"], refs[name]
        floor = 1e-13 * max(1.0, abs(ref.l_star))
        for c, eps in enumerate(step_sizes):
            s = runs[name][0][eps]
            for key, style in (("lsvi", "-"), ("ngd6", "o"), ("md8", "x")):
                gap = equivalences.excess_ukl(fam, lt, s[key], ref.l_star, K)
                axes[r, 0].semilogy(np.where(gap > floor, gap, np.nan), style, color=f"C{c}", ms=4, mfc="none",
                                    label=f"ε = {eps}" if key == "lsvi" else None)
            for key, style in (("ngd6", "-"), ("ngd7", ":"), ("md8", "--")):
                axes[r, 1].semilogy(np.maximum(np.abs(s[key] - s["lsvi"]).max(1), 1e-17), style, color=f"C{c}")
        axes[r, 0].set_title(f"{name}: uKL(η_t) − uKL(η*); local μ̂ = {ref.mu:.2f}, L̂ = {ref.L:.2f}")
        axes[r, 0].set(xlabel="t", ylabel="excess uKL")
        axes[r, 0].legend(fontsize=7, title="line: LSVI, o: NGD, x: MD", title_fontsize=7)
        axes[r, 1].axhline(tol, color="k", lw=0.8)
        axes[r, 1].text(0.98 * num_steps, tol * 1.5, f"tol = {tol:g}", ha="right", va="bottom", fontsize=7)
        axes[r, 1].set_title(f"{name}: max |η_t − η_t^LSVI|")
        axes[r, 1].set(xlabel="t", ylabel="max componentwise difference", ylim=(1e-17, 1e-4))
    axes[0, 1].legend(handles=[Line2D([], [], color="k", ls=ls, label=equivalences.SCHEMES[k])
                               for k, ls in (("ngd6", "-"), ("ngd7", ":"), ("md8", "--"))], fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
