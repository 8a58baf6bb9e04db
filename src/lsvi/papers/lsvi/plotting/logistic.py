"""Plot helpers shared by the experiment notebooks (curves over repetitions)."""
from __future__ import annotations

import numpy as np

from lsvi.pipeline import figure_style


def band(ax, x, Y, label=None, color=None, **kw):
    """Y (R, K) of R repetitions against x (K,) under the figures' house rules
    (`lsvi.pipeline.figure_style.repetitions`): with ≥ 5 repetitions the mean and its bootstrap 95 % band (the
    paper's figures draw mean ± 1 sd, which falls off a log or symlog axis and hides the other curves), with fewer
    every repetition thin and their mean. Returns the line of the mean (the legend handle)."""
    Y = np.atleast_2d(np.asarray(Y, dtype=float))
    color = "C0" if color is None else color
    before = len(ax.lines)
    figure_style.repetitions(ax, x, Y, color=color, label=label, **kw)
    return ax.lines[-1] if len(ax.lines) > before else None


def repetitions_phrase(curves: dict) -> str:
    """What the curves ``{label: (t, Y (R, K))}`` of a panel drawn by `band` show (`figure_style.describe`)."""
    return figure_style.describe([np.atleast_2d(np.asarray(Y)).shape[0] for _, Y in curves.values()])


def errorbars(ax, x, Y, label=None, k: float = 2.0, **kw):
    """Mean of Y (K, R) over repetitions (axis 1) with ±k sd error bars (cost-per-iteration plots)."""
    Y = np.asarray(Y, dtype=float)
    return ax.errorbar(x, Y.mean(axis=1), yerr=k * Y.std(axis=1), label=label, capsize=3, marker="o", ms=3, **kw)


def table_figure(df, title: str, fontsize: int = 7, width: float = 11.0):
    """Render a DataFrame as a matplotlib table (for the PDF/PNG copies of the paper's tables)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width, 0.6 + 0.25 * (len(df) + 1)))
    ax.axis("off")
    fmt = lambda v: ("" if np.isnan(v) else f"{v:.3g}") if isinstance(v, (float, np.floating)) else str(v)
    cells = [[fmt(v) for v in row] for row in df.itertuples(index=False)]
    tab = ax.table(cellText=cells, colLabels=list(df.columns), loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(fontsize)
    tab.auto_set_column_width(list(range(df.shape[1])))
    ax.set_title(title, fontsize=fontsize + 2)
    return fig


# ----------------------------------------------------------------------------------------
# Figures 1 and 4: KL curves against an independent reference level, cost per iteration
#
# ``curves`` maps a label to (t (K,), Y (R, K)): the Monte Carlo KL up to log Z
# (`lsvi.papers.lsvi.logistic.kl_curves`) of R repetitions at iterations t. The figures plot Y − ref,
# ref = L° of `lsvi.papers.lsvi.logistic.Anchor` (the Gaussian moment-matched to NUTS): the same
# quantity as the paper's "KL up to an unknown constant", with the constant chosen so that
# 0 is a level no method under test defines. The y axis is symmetric-log (linear for
# |y| < linthresh), so that blow-ups of 10³ nats and differences of 10⁻² nats near the
# minimum are read on one panel; a band is clipped by the axes where it leaves them.


def excess_panel(ax, curves: dict, ref: float, linthresh: float, styles: dict | None = None, t_min: int = 1,
                 t_max=None, marker=None, ref_label: str = "0 = L°"):
    """Y − ref for every label of ``curves`` on ``ax`` (`band`: mean with its bootstrap band, or every
    repetition where fewer than 5), t in [t_min, t_max];
    symlog y with ``linthresh`` (nats), a dotted line at 0 labelled ``ref_label``.
    ``styles`` {label: plot kwargs} (colour, linestyle). Returns {label: line}."""
    styles = styles or {}
    lines, lo, hi = {}, [], []
    for i, (label, (t, Y)) in enumerate(curves.items()):
        t = np.asarray(t)
        keep = (t >= t_min) & (t <= (np.inf if t_max is None else t_max))
        if not keep.any():
            continue
        Yk = np.asarray(Y, dtype=float)[:, keep] - ref
        kw = {"color": f"C{i}", **styles.get(label, {})}
        lines[label] = band(ax, t[keep], Yk, label, marker=marker, ms=3, **kw)
        mean = Yk.mean(axis=0)
        finite = mean[np.isfinite(mean)]
        if finite.size:
            lo.append(finite.min())
            hi.append(finite.max())
    lines[ref_label] = ax.axhline(0.0, color="k", lw=0.8, ls=":", label=ref_label)
    ax.set_yscale("symlog", linthresh=linthresh, linscale=1.0)
    if lo:
        # every mean curve inside the panel; bands may leave it
        bottom = min(min(lo) * (1.3 if min(lo) < 0 else 0.0), -0.5 * linthresh)
        top = max(max(hi) * 1.5, 2.0 * linthresh)
        ax.set_ylim(bottom, top)
    ax.grid(True, which="major", alpha=0.3)
    return lines


_EXCESS_LABEL = "KL$(q_t\\,\\|\\,\\bar\\pi) - \\log Z - L^\\circ$  (nats, symlog)"
_REF_LABEL = "0 = L°: Gaussian moment-matched to NUTS"


def fig01_pima(curves: dict, ref: float, focus: list, styles: dict | None = None, ref_label: str = _REF_LABEL,
               focus_t_max: int = 10, dataset_label: str = "Pima"):
    """Figure 1: left, every method of ``curves`` against t (log axis, t ≥ 1); right, the
    labels in ``focus`` (GMMVI, LSVI, NGD) on their first ``focus_t_max`` iterations. Both
    panels plot KL − ``ref`` (nats) on a symlog axis (left: linear below 0.1 nats, right:
    below 0.01 nats); one legend below both. ``dataset_label`` names the data set in the title."""
    import matplotlib.pyplot as plt

    styles = dict(styles or {})
    colours = {k: f"C{i}" for i, k in enumerate(curves)}
    fig, (axl, axr) = plt.subplots(1, 2, figsize=(12.5, 5.2))
    lines = excess_panel(axl, curves, ref, linthresh=0.1, styles=styles, ref_label=ref_label)
    axl.set_xscale("log")
    axl.set_xlabel("iteration t")
    axl.set_ylabel(_EXCESS_LABEL)
    axl.set_title(f"{dataset_label}, full covariance: all methods", fontsize=10)
    sub = {k: v for k, v in curves.items() if k in focus}
    excess_panel(axr, sub, ref, linthresh=0.01, marker=".", t_max=focus_t_max, ref_label=ref_label,
                 styles={k: {"color": colours[k], **styles.get(k, {})} for k in sub})
    axr.set_xlabel("iteration t")
    axr.set_ylabel(_EXCESS_LABEL.replace("symlog", "symlog, linear below 0.01"))
    axr.set_title(f"focus on GMMVI, LSVI and NGD, t ≤ {focus_t_max} (linear below 0.01 nats)", fontsize=10)
    fig.legend(list(lines.values()), list(lines), loc="lower center", ncol=3, fontsize=8, frameon=False,
               title=repetitions_phrase(curves), title_fontsize=8)
    fig.tight_layout(rect=(0, 0.15, 1, 1))
    return fig


def fig04_sonar(cost: dict, curves: dict, ref: float, styles: dict | None = None, ref_label: str = _REF_LABEL,
                title: str = ""):
    """Figure 4: left, seconds per iteration against N (log–log), mean ± 2 sd over runs,
    ``cost`` {label: (N (K,), seconds (K, R))}; right, KL − ``ref`` against t (log axis,
    t ≥ 1; symlog y, linear below 1 nat), ``curves`` as in `fig01_pima`, legend below."""
    import matplotlib.pyplot as plt

    styles = styles or {}
    fig, (axl, axr) = plt.subplots(1, 2, figsize=(12.5, 5.2))
    colours = {k: f"C{i}" for i, k in enumerate(dict.fromkeys([*curves, *cost]))}
    for label, (N, sec) in cost.items():
        errorbars(axl, N, sec, label, color=colours[label], **{k: v for k, v in styles.get(label, {}).items()
                                                               if k in ("ls", "linestyle")})
    axl.set_xscale("log")
    axl.set_yscale("log")
    axl.set_xlabel("number of samples N")
    axl.set_ylabel("CPU seconds per iteration")
    axl.set_title("cost per iteration (mean ± 2 sd over runs)", fontsize=10)
    axl.legend(fontsize=7, loc="best")
    axl.grid(True, which="major", alpha=0.3)
    lines = excess_panel(axr, curves, ref, linthresh=1.0, ref_label=ref_label,
                         styles={k: {"color": colours[k], **styles.get(k, {})} for k in curves})
    axr.set_xscale("log")
    axr.set_xlabel("iteration t")
    axr.set_ylabel(_EXCESS_LABEL.replace("symlog", "symlog, linear below 1"))
    axr.set_title(title or "Sonar, full covariance", fontsize=10)
    fig.legend(list(lines.values()), list(lines), loc="lower center", ncol=3, fontsize=8, frameon=False,
               title=repetitions_phrase(curves), title_fontsize=8)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig


# ----------------------------------------------------------------------------------------
# Figures 2 (left), 5 and 6 (MNIST), Figure 7 (Census), Table 3
#
# ``curves`` maps a label to (t (K,), Y (R, K)): the Monte Carlo KL up to log Z
# (`lsvi.papers.lsvi.logistic.kl_curves`) of R repetitions at iterations t; ``styles`` maps a label to
# plot keyword arguments (colour, linestyle, marker), so that a method keeps its colour
# from one figure to the next.

_KL_LABEL = r"KL$(q_t\,\|\,\bar\pi) - \log Z$  (nats, Monte Carlo)"


def _style(styles, label, i):
    return {"color": f"C{i}", **(styles or {}).get(label, {})}


def _label_axes(ax, xlabel: str, ylabel: str, title: str = "", xscale=None, yscale=None, **xscale_kw):
    """Scales, labels, a small title, the major grid and the legend of one panel."""
    if xscale:
        ax.set_xscale(xscale, **xscale_kw)
    if yscale:
        ax.set_yscale(yscale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7)


def fig02_mnist(curves: dict, seconds: dict, t_min: int = 10, styles: dict | None = None, title: str = ""):
    """Figure 2 (left): KL against elapsed time (`band`), iterations t ≥ ``t_min``.

    ``seconds`` {label: seconds per iteration} (measured apart from the runs, see notebook
    22): the elapsed time at iteration t is t × seconds[label] (log y axis)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.8, 4.4))
    for i, (label, (t, Y)) in enumerate(curves.items()):
        t = np.asarray(t)
        keep = t >= t_min
        band(ax, t[keep] * seconds[label], np.asarray(Y)[:, keep], label, marker=".", **_style(styles, label, i))
    _label_axes(ax, "elapsed CPU time (s) = t × CPU seconds per iteration", _KL_LABEL, title, yscale="log")
    fig.tight_layout()
    return fig


def fig05_mnist(cost: dict, curves: dict, styles: dict | None = None, title: str = ""):
    """Figure 5. Left: seconds per iteration against N (log–log), mean ± 2 sd over runs (the
    paper's) and the median (crosses, what `lsvi.exact.statistics.cost_scaling` reads), ``cost``
    {label: (N (K,), seconds (K, R))}, with a dotted slope-1 guide through the first label's
    largest N. Right: KL against t (symlog x, log y), `band`."""
    import matplotlib.pyplot as plt

    fig, (axl, axr) = plt.subplots(1, 2, figsize=(12.5, 4.4))
    order = list(dict.fromkeys([*curves, *cost]))
    for label, (N, sec) in cost.items():
        kw = _style(styles, label, order.index(label))
        errorbars(axl, N, sec, label, **kw)
        axl.plot(N, np.median(np.asarray(sec), axis=1), ls="none", marker="x", ms=6, color=kw["color"])
    if cost:
        N, sec = next(iter(cost.values()))
        N = np.asarray(N, dtype=float)
        y1 = np.median(np.asarray(sec)[-1])
        axl.plot(N, y1 * N / N[-1], ls=":", color="0.4", lw=1, label="∝ N (guide)")
    _label_axes(axl, "number of samples N", "CPU seconds per iteration",
                "cost per iteration: mean ± 2 sd over timed runs, × median", xscale="log", yscale="log")
    for label, (t, Y) in curves.items():
        band(axr, t, Y, label, marker=".", **_style(styles, label, order.index(label)))
    _label_axes(axr, "iteration t", _KL_LABEL, title, xscale="symlog", yscale="log", linthresh=1)
    fig.tight_layout()
    return fig


def fig06_mnist(errors: dict, styles: dict | None = None, title: str = ""):
    """Figure 6: test misclassification rate of the posterior-mean classifier against t,
    `band`; top linear axes, bottom log–log (t ≥ 1). ``errors`` {label: (t (K,), E (R, K))}."""
    import matplotlib.pyplot as plt

    fig, (axt, axb) = plt.subplots(2, 1, figsize=(7, 7.2))
    for i, (label, (t, E)) in enumerate(errors.items()):
        t, E = np.asarray(t), np.asarray(E, dtype=float)
        kw = _style(styles, label, i)
        band(axt, t, E, label, **kw)
        pos = t >= 1
        band(axb, t[pos], E[:, pos], label, **kw)
    axt.set_ylabel("misclassification rate (test)")
    axt.set_title(title, fontsize=9)
    axb.set_xscale("log")
    axb.set_yscale("log")
    axb.set_ylabel("misclassification rate (test, log)")
    for ax in (axt, axb):
        ax.set_xlabel("iteration t")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def fig07_census(curves: dict, styles: dict | None = None, title: str = "", variant=None):
    """Figure 7: the KL loss L̂ (with the subsampled f̂ of eq. 21) against t (symlog x),
    `band`. ``variant``: None or (curves, title) of a second panel (another batch
    size P, on its own scale)."""
    import matplotlib.pyplot as plt

    panels = [(curves, title)] + ([variant] if variant is not None else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(6.4 * len(panels), 4.4), squeeze=False)
    k = 0
    for ax, (cv, ttl) in zip(axes[0], panels):
        for label, (t, Y) in cv.items():
            band(ax, t, Y, label, **_style(styles, label, k))
            k += 1
        _label_axes(ax, "iteration t", r"$\hat L$: KL up to the constant, with $\hat f$ (nats)", ttl,
                    xscale="symlog", linthresh=1)
    fig.tight_layout()
    return fig


def tables_figure(tables: list, fontsize: int = 7, width: float = 11.0):
    """Several DataFrames rendered one under the other: ``tables`` [(df, title), ...]
    (the left and right parts of the paper's Table 3)."""
    import matplotlib.pyplot as plt

    heights = [1.0 + 0.25 * (len(df) + 1) for df, _ in tables]
    fig, axes = plt.subplots(len(tables), 1, figsize=(width, sum(heights)), gridspec_kw={"height_ratios": heights},
                             squeeze=False)
    fmt = lambda v: ("" if np.isnan(v) else f"{v:.3g}") if isinstance(v, (float, np.floating)) else str(v)
    for ax, (df, title) in zip(axes[:, 0], tables):
        ax.axis("off")
        tab = ax.table(cellText=[[fmt(v) for v in row] for row in df.itertuples(index=False)],
                       colLabels=list(df.columns), loc="center", cellLoc="center")
        tab.auto_set_font_size(False)
        tab.set_fontsize(fontsize)
        tab.auto_set_column_width(list(range(df.shape[1])))
        ax.set_title(title, fontsize=fontsize + 2)
    fig.tight_layout()
    return fig
