"""Figures of notebooks 22–24 (`lsvi.papers.lsvi.plotting.logistic`): what each axis shows."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from lsvi.papers.lsvi.plotting import logistic as plotting  # noqa: E402

T = np.array([0, 1, 3, 10, 30, 60])
Y = np.array([[9.0, 7.0, 5.0, 4.0, 3.0, 2.5], [9.0, 7.5, 5.5, 4.2, 3.1, 2.6]])


def test_fig02_time_axis_is_t_times_the_seconds_per_iteration():
    fig = plotting.fig02_mnist({"a": (T, Y), "b": (T, Y + 1)}, {"a": 0.5, "b": 2.0}, t_min=10)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}  # 2 repetitions: each thin, the mean labelled
    assert len(fig.axes[0].get_lines()) == 2 * 3 and not fig.axes[0].collections  # no band over 2 repetitions
    np.testing.assert_allclose(lines["a"].get_xdata(), [5.0, 15.0, 30.0])  # t >= 10, x 0.5 s
    np.testing.assert_allclose(lines["b"].get_xdata(), [20.0, 60.0, 120.0])
    np.testing.assert_allclose(lines["a"].get_ydata(), Y[:, 3:].mean(0))
    plt.close(fig)


def test_fig05_guide_has_slope_one_and_styles_follow_the_label():
    N = np.array([500, 1000, 2000, 5000])
    cost = {"lsvi": (N, np.outer(1e-3 * N, [1.0, 1.1])), "bj": (N, np.outer(3e-3 * N, [1.0, 1.0]))}
    styles = {"lsvi": dict(color="C1"), "bj": dict(color="C4")}
    fig = plotting.fig05_mnist(cost, {"lsvi": (T, Y), "bj": (T, Y)}, styles)
    axl, axr = fig.axes
    guide = [ln for ln in axl.get_lines() if ln.get_label() == "∝ N (guide)"][0]
    x, y = guide.get_xdata(), guide.get_ydata()
    np.testing.assert_allclose(np.diff(np.log(y)) / np.diff(np.log(x)), 1.0)
    right = {ln.get_label(): ln.get_color() for ln in axr.get_lines() if not ln.get_label().startswith("_")}
    assert right == {"lsvi": "C1", "bj": "C4"}
    plt.close(fig)


def test_fig07_draws_coinciding_schedules_both_visibly_and_the_variant_apart():
    styles = {"sch. 5": dict(color="C0"), "sch. 6": dict(color="C1", ls="--", marker="o")}
    fig = plotting.fig07_census({"sch. 5": (T, Y), "sch. 6": (T, Y)}, styles, "P = 1000",
                                variant=({"P = 10000": (T, 10 * Y)}, "variant"))
    assert len(fig.axes) == 2
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    assert lines["sch. 6"].get_linestyle() == "--" and lines["sch. 6"].get_marker() == "o"
    np.testing.assert_allclose(lines["sch. 5"].get_ydata(), lines["sch. 6"].get_ydata())
    assert [ln.get_label() for ln in fig.axes[1].get_lines() if not ln.get_label().startswith("_")] == ["P = 10000"]
    plt.close(fig)


def test_a_band_only_over_five_repetitions_and_titles_say_what_is_drawn():
    many = np.vstack([Y + 0.01 * k for k in range(6)])
    fig = plotting.fig07_census({"six": (T, many), "two": (T, Y)}, {}, "P = 1000")
    ax = fig.axes[0]
    assert len(ax.collections) == 1  # one band: six repetitions; none for two
    labelled = {ln.get_label(): ln for ln in ax.get_lines() if not ln.get_label().startswith("_")}
    np.testing.assert_allclose(labelled["six"].get_ydata(), many.mean(0))
    plt.close(fig)
    fig = plotting.fig01_pima({"six": (T, many), "two": (T, Y)}, ref=0.0, focus=["six"])
    assert "thin lines: each repetition (curves of fewer)" in fig.legends[0].get_title().get_text()
    plt.close(fig)


def test_fig06_log_panel_drops_t0_and_tables_figure_has_one_panel_per_table():
    fig = plotting.fig06_mnist({"a": (T, Y / 10)})
    top, bottom = fig.axes
    assert top.get_lines()[-1].get_xdata()[0] == 0 and bottom.get_lines()[-1].get_xdata()[0] == 1
    plt.close(fig)
    df = pd.DataFrame({"x": [1.0, np.nan], "y": ["a", "b"]})
    fig = plotting.tables_figure([(df, "left"), (df, "right")])
    assert len(fig.axes) == 2 and [ax.get_title() for ax in fig.axes] == ["left", "right"]
    assert fig.axes[0].tables[0][1, 0].get_text().get_text() == "1"  # NaN printed empty, not 'nan'
    assert fig.axes[0].tables[0][2, 0].get_text().get_text() == ""
    plt.close(fig)
