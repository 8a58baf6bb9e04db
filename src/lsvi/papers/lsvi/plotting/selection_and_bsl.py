"""Figures of Sections 5.2 and 5.3: variable selection (Figures 2 right and 8, notebook 30)
and Bayesian synthetic likelihood for the toads model (Figure 3, notebook 31).

One function per figure; each takes the arrays the notebook computed and returns a
matplotlib ``Figure`` (the notebook saves it with `lsvi.pipeline.notebook.Run.save_figure`, which
stamps the scale). Nothing here computes a result.
"""
from __future__ import annotations

import numpy as np


def fig02_variable_selection(p_lsvi: dict, p_smc_runs, title: str = "", spread_max: float = 0.15,
                             resolved_share: float = 0.9):
    """Figure 2 (right): posterior inclusion probabilities π(γ_i = 1 | D), LSVI vs SMC.

    p_lsvi: {label: (R, d) final inclusion probabilities of R LSVI repetitions}, one panel
    per label: mean over repetitions (dots) and min–max over repetitions (arrows, as the
    paper). p_smc_runs (S, d): marginals of S SMC runs, drawn in every panel as grey bars
    (mean over runs) with min–max lines over runs (when S > 1); bars of the predictors where
    the runs differ by more than ``spread_max`` are hatched (SMC is no reference there). The
    panel titles give the LSVI–SMC distance on the other predictors, as the rows do, and say
    when those are fewer than ``resolved_share`` of all (the SMC runs are then no reference).
    """
    import matplotlib.pyplot as plt

    p_smc_runs = np.atleast_2d(np.asarray(p_smc_runs, float))
    p_smc = p_smc_runs.mean(axis=0)
    d = p_smc.shape[0]
    idx = np.arange(d)
    fig, axes = plt.subplots(len(p_lsvi), 1, figsize=(15, 3.3 * len(p_lsvi)), sharex=True, squeeze=False)
    for ax, (label, P) in zip(axes[:, 0], p_lsvi.items()):
        P = np.atleast_2d(np.asarray(P, float))
        mean, lo, hi = P.mean(0), P.min(0), P.max(0)
        spread = p_smc_runs.max(0) - p_smc_runs.min(0)
        ok = spread <= spread_max
        ax.bar(idx[ok], p_smc[ok], width=0.8, color="0.78", label=f"SMC, mean of {len(p_smc_runs)} run(s)")
        if not ok.all():
            ax.bar(idx[~ok], p_smc[~ok], width=0.8, color="0.9", hatch="///", edgecolor="0.6",
                   label=f"SMC runs differ by > {spread_max:g}: no reference")
        if len(p_smc_runs) > 1:
            ax.vlines(idx, p_smc_runs.min(0), p_smc_runs.max(0), color="0.3", lw=1.6,
                      label="SMC, min–max over runs")
        ax.plot(idx, mean, "o", ms=3.5, color="C3", label=f"{label}, mean of {len(P)}", zorder=3)
        for i in np.flatnonzero(hi - lo > 1e-3):
            ax.annotate("", xy=(i, hi[i]), xytext=(i, lo[i]),
                        arrowprops=dict(arrowstyle="<->", color="C3", lw=0.8, shrinkA=0, shrinkB=0))
        gap = np.where(ok, np.abs(mean - p_smc), np.nan)
        usable = ok.mean() >= resolved_share
        ax.set_title(f"{label} vs SMC on the {int(ok.sum())} of {d} predictors where the SMC runs agree: mean |diff| = "
                     f"{np.nanmean(gap):.3f}, max = {np.nanmax(gap):.3f} (predictor {int(np.nanargmax(gap))}); "
                     f"{int(np.nansum(gap > 0.2))} with |diff| > 0.2"
                     + ("" if usable else f" — fewer than {resolved_share:.0%} of the predictors: these SMC runs are no "
                        "reference (rows NOT ASSESSABLE)"), fontsize=9, color="k" if usable else "C3")
        ax.set_ylabel(r"$\pi(\gamma_i = 1 \mid \mathcal{D})$")
        ax.set_ylim(-0.03, 1.03)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.005, 1.0))
    axes[-1, 0].set_xlabel(f"predictor i ({d - 1} = intercept)")
    axes[-1, 0].set_xticks(np.arange(0, d, 5))
    axes[-1, 0].set_xlim(-1, d)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def fig08_vs_scores(scores: dict, log_evidence_smc, title: str = "", bins: int = 80):
    """Figure 8: distributions of the scores log π*(γ) − log q(γ), γ ~ q.

    scores: {label: (s (n,), w (n,) or None)}: i.i.d. scores (w None) or the scores of the
    distinct points of an empirical measure with their masses w; each is drawn as a
    density histogram (filled, with its outline, so that none hides another) labelled with
    its mean, the ELBO. log_evidence_smc (S,): SMC estimates of log Z*, drawn as vertical
    lines (every ELBO lies below log Z*). The x range runs from the 0.5 % quantile of the
    scores of every q except the first (the uninformative reference i), whose left tail
    would flatten the others) to the largest of the 99.9 % quantile and the log Z* lines.
    """
    import matplotlib.pyplot as plt

    logz = np.atleast_1d(np.asarray(log_evidence_smc, float))
    rest = [np.asarray(s, float) for s, _ in list(scores.values())[1:]] or [np.asarray(next(iter(scores.values()))[0])]
    allv = np.concatenate(rest)
    lo = np.percentile(allv, 0.5)
    hi = max(np.percentile(allv, 99.9), logz.max()) + 2
    edges = np.linspace(lo, hi, bins)
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for j, (label, (s, w)) in enumerate(scores.items()):
        s = np.asarray(s, float)
        w = np.full(s.shape, 1.0 / s.size) if w is None else np.asarray(w, float)
        inside = float(np.sum(w[(s >= lo) & (s <= hi)]) / np.sum(w))
        elbo = float(np.sum(w * s) / np.sum(w))
        ax.hist(s, edges, weights=w, density=True, histtype="stepfilled", alpha=0.25, color=f"C{j}")
        ax.hist(s, edges, weights=w, density=True, histtype="step", lw=1.2, color=f"C{j}",
                label=f"{label}: ELBO {elbo:.1f}" + ("" if inside > 0.995 else f" ({100 * inside:.0f}% in range)"))
    for k, z in enumerate(logz):
        ax.axvline(z, color="k", ls="--", lw=1,
                   label=(rf"SMC estimates of $\log Z^*$: " + ", ".join(f"{v:.1f}" for v in logz)) if k == 0 else None)
    ax.set_xlim(lo, hi)
    ax.set_xlabel(r"score $\log \pi^*(\gamma) - \log q(\gamma)$ (nats)")
    ax.set_ylabel("density")
    ax.legend(fontsize=7, loc="upper left")
    if title:
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def fig02_vs_exact_check(p_exact, p_smc, p_lsvi: dict, p_exact_iteration: dict, title: str = ""):
    """Exact check on a subset of predictors: exact marginals (bars), SMC (squares), Monte
    Carlo LSVI (mean and min–max over repetitions) and the LSVI iteration computed with exact
    expectations (crosses), for each step size.

    p_exact, p_smc (d,); p_lsvi: {ε: (R, d)}; p_exact_iteration: {ε: (d,)} (iterate t = T).
    The last coordinate is the intercept."""
    import matplotlib.pyplot as plt

    d = len(p_exact)
    x = np.arange(d)
    fig, ax = plt.subplots(figsize=(9, 4.4))
    ax.bar(x, p_exact, width=0.8, color="0.8", label="exact marginals (enumeration)")
    ax.plot(x - 0.25, p_smc, "s", ms=5, color="C0", label="SMC")
    for j, (eps, P) in enumerate(p_lsvi.items()):
        P = np.atleast_2d(np.asarray(P, float))
        xs = x + 0.05 + 0.2 * j
        lo, hi = np.maximum(P.mean(0) - P.min(0), 0.0), np.maximum(P.max(0) - P.mean(0), 0.0)  # rounding
        ax.errorbar(xs, P.mean(0), yerr=[lo, hi], fmt="o", ms=4,
                    color=f"C{3 + j}", capsize=2, label=rf"LSVI $\varepsilon={eps:g}$, mean and min–max of {len(P)}")
        ax.plot(xs, p_exact_iteration[eps], "x", ms=8, mew=1.5, color=f"C{3 + j}",
                label=rf"LSVI $\varepsilon={eps:g}$ with exact expectations, $t = T$")
    ax.set_xticks(x, [*map(str, range(d - 1)), "int."])
    ax.set_xlabel("predictor")
    ax.set_ylabel(r"$\pi(\gamma_i=1\mid\mathcal{D})$")
    ax.set_ylim(-0.03, 1.03)
    ax.legend(fontsize=6.5, ncol=3, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def fig03_bsl_toads(traces: dict, post_mean, post_sd, theta_fc, theta_mcmc, labels, title: str = "",
                    reference: tuple[float, float] | None = None, max_rhat: float = 1.1, min_ess: float = 50.0):
    """Figure 3. Left: each coordinate of the variational approximations over the iterations,
    mean ± 1 sd, normalised by the MCMC posterior, (m_t − mean_MCMC)/sd_MCMC (grey band: the
    MCMC posterior's ±1 sd). Right: the full-covariance approximation (blue) against the MCMC
    draws (orange) in θ-space, marginal histograms and pairwise scatter plots.

    traces: {label: (mean (T+1, 3), sd (T+1, 3), linestyle, colour)}; post_mean, post_sd (3,):
    MCMC posterior mean and sd; theta_fc (n, 3): draws of the full-covariance approximation
    (in θ-space); theta_mcmc (m, 3): MCMC draws after burn-in; labels: 3 axis labels.
    reference: (max split-R̂, min bulk ESS) of the MCMC run; when R̂ ≥ ``max_rhat`` or ESS < ``min_ess`` (the
    notebook's criterion for a usable reference) the figure says, in red, that its MCMC sd units are not reliable.
    The y-limits of the left panels include every iterate (t = 0 too), up to ±25 MCMC sd.
    """
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    post_mean, post_sd = np.asarray(post_mean, float), np.asarray(post_sd, float)
    fig = plt.figure(figsize=(13, 6.2))
    outer = fig.add_gridspec(1, 2, width_ratios=[1, 1.35], wspace=0.22)
    left = outer[0].subgridspec(3, 1, hspace=0.12)
    right = outer[1].subgridspec(3, 3, hspace=0.08, wspace=0.08)
    c_fc, c_mc = "C0", "C1"
    for j in range(3):
        ax = fig.add_subplot(left[j])
        reach = []
        for label, (m, s, ls, c) in traces.items():
            m, s = np.asarray(m, float), np.asarray(s, float)
            its = np.arange(m.shape[0])
            zm, zs = (m[:, j] - post_mean[j]) / post_sd[j], s[:, j] / post_sd[j]
            ax.plot(its, zm, ls, color=c, label=label)
            ax.fill_between(its, zm - zs, zm + zs, color=c, alpha=0.15)
            reach.append(np.abs(zm))
        ax.axhspan(-1, 1, color="0.85", zorder=0, label="MCMC ±1 sd")
        ax.axhline(0, color="0.5", lw=0.8)
        lim = max(4.0, min(25.0, float(np.nanmax(np.concatenate(reach))) + 2))
        ax.set_ylim(-lim, lim)
        ax.set_ylabel(f"{labels[j]}  [MCMC sd]")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if j < 2:
            ax.tick_params(labelbottom=False)
        else:
            ax.set_xlabel("iteration $t$")
        if j == 0:
            ax.legend(fontsize=7, loc="upper right")
    theta_fc, theta_mcmc = np.asarray(theta_fc, float), np.asarray(theta_mcmc, float)
    for a in range(3):
        for b in range(3):
            if a < b:
                continue
            ax = fig.add_subplot(right[a, b])
            if a == b:
                rng = np.percentile(np.concatenate([theta_mcmc[:, a], theta_fc[:, a]]), [0.5, 99.5])
                edges = np.linspace(*rng, 40)
                ax.hist(theta_fc[:, a], edges, density=True, color=c_fc, alpha=0.5, label="LSVI full cov.")
                ax.hist(theta_mcmc[:, a], edges, density=True, color=c_mc, alpha=0.5, label="MCMC")
                ax.set_yticks([])
                if a == 0:
                    ax.legend(fontsize=7)
            else:
                for th, c in ((theta_fc, c_fc), (theta_mcmc, c_mc)):
                    sel = np.unique(np.linspace(0, len(th) - 1, min(1500, len(th))).astype(int))  # evenly thinned
                    ax.scatter(th[sel, b], th[sel, a], s=2, color=c, alpha=0.3)
            if a == 2:
                ax.set_xlabel(labels[b])
            else:
                ax.set_xticklabels([])
            if b == 0 and a > 0:
                ax.set_ylabel(labels[a])
            elif a != b:
                ax.set_yticklabels([])
    if title:
        fig.suptitle(title, fontsize=10)
    if reference is not None and not (reference[0] < max_rhat and reference[1] >= min_ess):
        fig.text(0.5, 0.935, f"MCMC reference NOT converged: max split-R̂ {reference[0]:.2f} (needs < {max_rhat:g}), "
                 f"min bulk ESS {reference[1]:.0f} (needs ≥ {min_ess:g}); the MCMC-sd units and the orange draws are "
                 "indicative only", ha="center", fontsize=9, color="C3")
    return fig
