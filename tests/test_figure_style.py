"""The house rules of the figures (`lsvi.pipeline.figure_style`): bands only over enough repetitions, the band of
the statistic the claims read, coinciding runs grouped, values at a clip limit counted."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from lsvi.pipeline import figure_style  # noqa: E402


def test_a_band_needs_five_repetitions_else_every_run_is_drawn():
    x = np.arange(1.0, 11.0)
    rng = np.random.default_rng(0)
    fig, ax = plt.subplots()
    phrase = figure_style.repetitions(ax, x, rng.lognormal(size=(3, 10)), color="C0", label="few")
    assert phrase == "3 repetitions, each drawn thin, and their mean"
    assert len(ax.lines) == 4 and not ax.collections  # 3 thin lines and the mean, no band
    fig, ax = plt.subplots()
    phrase = figure_style.repetitions(ax, x, rng.lognormal(size=(8, 10)), color="C0", label="many")
    assert phrase == "mean and bootstrap 95 % interval of the mean over 8 repetitions"
    assert len(ax.collections) == 1  # the band
    assert ax.get_legend() is None  # seaborn's automatic legend is not kept: the caller decides
    fig, ax = plt.subplots()
    ax.set(xlabel="t", ylabel="KL")
    assert figure_style.repetitions(ax, x, rng.lognormal(size=(1, 10)), color="C0", label="one") == "one repetition"
    figure_style.repetitions(ax, x, rng.lognormal(size=(6, 10)), color="C1", label="six")
    assert len(ax.lines) == 2 and (ax.get_xlabel(), ax.get_ylabel()) == ("t", "KL")  # the caller's labels kept
    plt.close("all")


def test_describe_names_what_a_panel_of_curves_shows():
    assert figure_style.describe([10, 5]) == "mean and bootstrap 95 % interval of the mean over 5–10 repetitions"
    assert figure_style.describe([3, 2, 3]) == "mean of 2–3 repetitions, each drawn thin"
    assert figure_style.describe([1, 1]) == "one repetition"
    assert figure_style.describe([10, 2]) == ("mean over repetitions; band: its bootstrap 95 % interval (curves of ≥ 5 "
                                              "repetitions); thin lines: each repetition (curves of fewer)")


def test_the_band_is_the_statistics_interval_positive_on_positive_data_and_seeded():
    x = np.arange(1.0, 6.0)
    Y = np.random.default_rng(1).lognormal(sigma=2.0, size=(6, 5))  # mean - sd < 0 somewhere
    assert np.any(Y.mean(0) - Y.std(0) < 0)

    def band(statistic):
        fig, ax = plt.subplots()
        figure_style.repetitions(ax, x, Y, color="C0", label="y", statistic=statistic)
        verts = ax.collections[0].get_paths()[0].vertices
        line = ax.lines[0].get_ydata()
        plt.close(fig)
        return verts[:, 1], line

    lo_hi, line = band("mean")
    assert lo_hi.min() > 0  # stays on a log axis
    np.testing.assert_allclose(line, Y.mean(0))
    np.testing.assert_array_equal(band("mean")[0], lo_hi)  # the bootstrap is seeded
    iqr, med = band("median")
    np.testing.assert_allclose(med, np.median(Y, axis=0))
    np.testing.assert_allclose(np.sort(iqr)[[0, -1]], [np.percentile(Y, 25, axis=0).min(), np.percentile(Y, 75, axis=0).max()])
    with pytest.raises(ValueError, match="statistic"):
        figure_style.repetitions(plt.gca(), x, Y, color="C0", label="y", statistic="mode")
    with pytest.raises(ValueError, match="columns"):
        figure_style.long_format(x, Y[:, :4])


def test_identical_runs_are_grouped_and_values_at_the_clip_limit_counted():
    a = np.array([1.0, 2.0, np.nan])
    groups = figure_style.identical_groups({"sch. 5": a, "sch. 6": a.copy(), "sch. 1": a + 1e-9})
    assert list(groups) == ["sch. 5 = sch. 6", "sch. 1"]
    assert list(figure_style.identical_groups({"A": a, "B": a + 1e-9}, atol=1e-6)) == ["A = B"]
    fig, ax = plt.subplots()
    assert figure_style.at_limit(ax, [1, 2, 3, 4], [1e3, 999.0, 5.0, 1e3], 1e3, color="C1") == 2
    assert len(ax.lines) == 1 and list(ax.lines[0].get_xdata()) == [1.0, 4.0]
    assert figure_style.at_limit(ax, [1, 2], [1.0, 2.0], 1e3, color="C1") == 0 and len(ax.lines) == 1
    plt.close(fig)


def test_the_theme_does_not_leak_into_other_figures():
    before = dict(matplotlib.rcParams)
    with figure_style.theme():
        assert matplotlib.rcParams["axes.grid"]
    assert dict(matplotlib.rcParams) == before


def test_a_notebook_run_draws_every_figure_in_the_project_theme(tmp_path):
    import seaborn as sns

    from lsvi.pipeline.notebook import Run

    with matplotlib.rc_context():
        matplotlib.rcdefaults()
        assert not plt.rcParams["axes.grid"]
        Run("smoke", tmp_path / "results" / "00_demo", tmp_path / "figures")
        assert plt.rcParams["axes.grid"] and plt.rcParams["grid.alpha"] == 0.3  # figure_style.THEME's rc
        cycle = [matplotlib.colors.to_hex(c) for c in plt.rcParams["axes.prop_cycle"].by_key()["color"]]
        assert cycle == [matplotlib.colors.to_hex(c) for c in sns.color_palette("deep")]  # seaborn's palette
        assert plt.rcParams["axes.labelsize"] == pytest.approx(12 * 0.85)  # notebook context, 10-point labels
