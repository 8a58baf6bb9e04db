"""The house rules of the figures, in one place: how repetitions are summarised, how runs that coincide and values
at a clip limit are shown. A plotting module calls these instead of writing its own band code.

The rules
---------
1. **A band only over ≥ `MIN_BAND_REPETITIONS` = 5 repetitions**; with fewer, every repetition is drawn (thin) with
   their mean, since a band over 2–4 values says nothing about the spread it seems to show.
2. **The line is the statistic the claims read, the band its uncertainty**, computed by seaborn: ``"mean"`` with a
   seeded bootstrap 95 % interval of the mean (``errorbar=("ci", 95)``), or ``"median"`` with the interquartile
   range (``errorbar=("pi", 50)``). Both stay positive for positive data, so neither falls off a log axis as a
   mean ± sd band does.
3. **Runs that coincide are drawn once**, labelled "A = B" (`identical_groups`), so that a hidden curve is said to be
   hidden.
4. **Values at a clip limit** (a diverged run stored at its cap) get their own marker and are counted for the caption
   (`at_limit`), so they are not read as measurements.
5. **One seaborn theme** (`THEME`) for every figure: `lsvi.pipeline.notebook.Run` sets it (`use_theme`) when a
   notebook starts, `theme` sets it for a block (a figure drawn outside a notebook); labels in matplotlib mathtext
   (``$\\lambda_{\\min}$``), not raw TeX; the scale stamp of `lsvi.pipeline.figures.save_figure`.
"""
from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd

MIN_BAND_REPETITIONS = 5
ERRORBAR = {"mean": ("ci", 95), "median": ("pi", 50)}
"""The band of each statistic (seaborn's ``errorbar`` argument)."""
DESCRIBE = {"mean": "mean and bootstrap 95 % interval of the mean", "median": "median and interquartile range"}
ERRORBAR_WORDS = {"mean": "bootstrap 95 % interval", "median": "interquartile range"}
THEME = {"style": "ticks", "context": "notebook", "font_scale": 0.85, "rc": {"axes.grid": True, "grid.alpha": 0.3}}
"""The seaborn theme of every figure (`use_theme`, `theme`): ticks with a light grid, seaborn's default palette, and
the notebook context scaled to matplotlib's default sizes (10-point labels), so that multi-panel figures keep their
layout."""
BOOTSTRAP_SEED = 0  # seaborn's bootstrap is seeded: the same data give the same figure


def use_theme() -> None:
    """Set the project's seaborn theme (`THEME`) for every figure drawn from now on in this process."""
    import seaborn as sns

    sns.set_theme(**THEME)


@contextlib.contextmanager
def theme():
    """The project's seaborn theme (`THEME`) for the figures created inside the block; the global matplotlib
    settings are restored after it."""
    import matplotlib as mpl

    with mpl.rc_context():
        use_theme()
        yield


def long_format(x, Y) -> pd.DataFrame:
    """Y (R, n) of R repetitions over x (n,) as a long table (columns x, y, repetition) for seaborn."""
    x = np.asarray(x, float)
    Y = np.atleast_2d(np.asarray(Y, float))
    if Y.shape[1] != x.shape[0]:
        raise ValueError(f"Y has {Y.shape[1]} columns for {x.shape[0]} values of x")
    R = Y.shape[0]
    return pd.DataFrame({"x": np.tile(x, R), "y": Y.ravel(), "repetition": np.repeat(np.arange(R), x.shape[0])})


def repetitions(ax, x, Y, *, color, label: str, statistic: str = "mean", err_style: str = "band",
                min_repetitions: int = MIN_BAND_REPETITIONS, **line_kw) -> str:
    """Draw R repetitions Y (R, n) against x (n,) under rules 1–2; return the phrase the caption uses.

    R ≥ ``min_repetitions``: one line of ``statistic`` ("mean" or "median") with its band (``err_style="band"``) or
    error bars (``"bars"``), by `seaborn.lineplot`. Fewer: each repetition as a thin line and their mean as the line.
    Non-finite values are left out of the statistic (seaborn's default) and should be counted by the caller. The line
    of the statistic carries ``label``; the thin lines carry none (`describe` gives the caption's phrase)."""
    import seaborn as sns

    if statistic not in ERRORBAR:
        raise ValueError(f"statistic must be one of {sorted(ERRORBAR)}, not {statistic!r}")
    Y = np.atleast_2d(np.asarray(Y, float))
    x = np.asarray(x, float)
    R = Y.shape[0]
    if R == 1:
        ax.plot(x, Y[0], color=color, label=label, **line_kw)
        return "one repetition"
    if R >= min_repetitions:
        kw = {"err_kws": {"capsize": 2}} if err_style == "bars" else {}
        labels, legend = (ax.get_xlabel(), ax.get_ylabel()), ax.get_legend()
        sns.lineplot(data=long_format(x, Y), x="x", y="y", estimator=statistic, errorbar=ERRORBAR[statistic],
                     err_style=err_style, seed=BOOTSTRAP_SEED, color=color, label=label, ax=ax, **kw, **line_kw)
        # seaborn names the axes after the columns and adds a legend: the caller labels the axes and decides the legend
        ax.set(xlabel=labels[0], ylabel=labels[1])
        if legend is None and ax.get_legend() is not None:
            ax.get_legend().remove()
        return f"{DESCRIBE[statistic]} over {R} repetitions"
    for y in Y:
        ax.plot(x, y, color=color, lw=0.6, alpha=0.45)
    centre = np.nanmedian(Y, axis=0) if statistic == "median" else np.nanmean(Y, axis=0)
    ax.plot(x, centre, color=color, label=label, **line_kw)  # the caller's label: the caption says what thin lines are
    return f"{R} repetition{'s' if R != 1 else ''}, each drawn thin, and their {statistic}"


def describe(counts, statistic: str = "mean", min_repetitions: int = MIN_BAND_REPETITIONS) -> str:
    """One phrase for a panel whose curves have the repetition ``counts`` (one per curve), drawn by `repetitions`."""
    counts = sorted({int(c) for c in counts})
    span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    if counts[-1] == 1:
        return "one repetition"
    if counts[0] >= min_repetitions:
        return f"{DESCRIBE[statistic]} over {span} repetitions"
    if counts[-1] < min_repetitions:
        return f"{statistic} of {span} repetitions, each drawn thin"
    return (f"{statistic} over repetitions; band: its {ERRORBAR_WORDS[statistic]} (curves of ≥ {min_repetitions} "
            "repetitions); thin lines: each repetition (curves of fewer)")


def identical_groups(curves: dict, rtol: float = 0.0, atol: float = 0.0) -> dict:
    """Group the curves ``{label: array}`` that coincide (``np.allclose`` with ``rtol``, ``atol``; exact by default),
    keeping the first's array: ``{"A = B": a, "C": c}`` in the order of first appearance (rule 3)."""
    groups: list[tuple[list[str], np.ndarray]] = []
    for label, y in curves.items():
        y = np.asarray(y)
        for names, first in groups:
            if first.shape == y.shape and np.allclose(first, y, rtol=rtol, atol=atol, equal_nan=True):
                names.append(label)
                break
        else:
            groups.append(([label], y))
    return {" = ".join(names): y for names, y in groups}


def at_limit(ax, x, y, limit: float, *, color, label: str | None = None, marker: str = "^", rtol: float = 1e-9) -> int:
    """Mark the points of (x, y) that sit at the clip ``limit`` with ``marker`` (rule 4); return how many there are.

    Compare with the cap itself, not with a threshold below it: a value just under the cap is a measurement."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    hit = np.isclose(y, limit, rtol=rtol, atol=0.0)
    if hit.any():
        ax.plot(x[hit], y[hit], linestyle="none", marker=marker, color=color, mfc="white", ms=7,
                label=label or f"at the clip limit {limit:g} (diverged)")
    return int(hit.sum())
