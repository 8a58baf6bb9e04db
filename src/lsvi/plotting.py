"""Plot helpers shared by the experiment notebooks (curves over repetitions)."""
from __future__ import annotations

import numpy as np


def band(ax, x, Y, label=None, k: float = 1.0, color=None, **kw):
    """Mean of Y (R, K) over repetitions (axis 0) against x (K,), with a ±k sd band
    (``np.std``, as the paper's ``jax.numpy.std``). Returns the line."""
    Y = np.asarray(Y, dtype=float)
    mean, sd = Y.mean(axis=0), Y.std(axis=0)
    (line,) = ax.plot(x, mean, label=label, color=color, **kw)
    ax.fill_between(x, mean - k * sd, mean + k * sd, color=line.get_color(), alpha=0.2, lw=0)
    return line


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
