"""The theorem-check figures' shared drawing rules (lsvi.papers.lsvi.checks.plotting)."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from lsvi.papers.lsvi.checks.plotting import _errorbar_log


def test_an_interval_reaching_zero_is_cut_at_a_tenth_and_marked():
    fig, ax = plt.subplots()
    ax.set_yscale("log")
    _errorbar_log(ax, [1.0, 2.0], [1.0, 1.0], [0.5, 3.0], "o", "bias", color="C1")
    bars = ax.collections[0].get_segments()
    lows = sorted(min(seg[:, 1]) for seg in bars)
    np.testing.assert_allclose(lows, [0.1, 0.5])          # the second bar (1 − 3 < 0) stops at 1/10, the first at 1 − 0.5
    np.testing.assert_allclose(sorted(max(seg[:, 1]) for seg in bars), [1.5, 4.0])  # upper ends unchanged
    marks = [ln for ln in ax.lines if ln.get_marker() == "v"]
    assert len(marks) == 1 and np.allclose(marks[0].get_xdata(), [2.0]) and np.allclose(marks[0].get_ydata(), [0.1])
    plt.close(fig)


def test_no_mark_when_every_interval_stays_above_zero():
    fig, ax = plt.subplots()
    _errorbar_log(ax, [1.0, 2.0], [1.0, 2.0], [0.2, 0.2], "s", "bias", color="C0")
    assert not [ln for ln in ax.lines if ln.get_marker() == "v"]
    plt.close(fig)
