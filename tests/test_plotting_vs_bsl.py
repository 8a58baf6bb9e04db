"""Figures of Sections 5.2–5.3 (`lsvi.papers.lsvi.plotting.selection_and_bsl`): every method the caption names is
drawn, with the spread the caption names, and the axis ranges show the comparison."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from lsvi.papers.lsvi.plotting import selection_and_bsl


def test_fig02_one_panel_per_lsvi_setting_with_min_max_arrows():
    rng = np.random.default_rng(0)
    d = 12
    p_lsvi = {"a": rng.uniform(size=(3, d)), "b": np.tile(rng.uniform(size=d), (2, 1))}  # b: no spread
    smc_runs = rng.uniform(size=(2, d))
    fig = selection_and_bsl.fig02_variable_selection(p_lsvi, smc_runs, title="t")
    axes = fig.axes
    assert len(axes) == 2
    labels = [t.get_text() for t in axes[0].get_legend().get_texts()]
    assert any("SMC, mean of 2" in s for s in labels) and any("min–max over runs" in s for s in labels)
    assert any(s.startswith("a, mean of 3") for s in labels)
    # one double arrow per predictor with a non-zero spread over repetitions, none for "b"
    assert len(axes[0].texts) == d and len(axes[1].texts) == 0
    # the panel title reports the gap to the SMC mean on the predictors where the SMC runs agree (spread <= 0.15),
    # and says when those are too few for SMC to be a reference (the rows' rule)
    ok = np.ptp(smc_runs, axis=0) <= 0.15
    gap = np.abs(p_lsvi["a"].mean(0) - smc_runs.mean(0))[ok]
    title = axes[0].get_title()
    assert f"on the {ok.sum()} of {d} predictors" in title and f"mean |diff| = {gap.mean():.3f}" in title
    assert ("no reference (rows NOT ASSESSABLE)" in title) == (ok.mean() < 0.9)
    assert any("no reference" in s for s in labels)  # hatched bars where the runs disagree
    plt.close(fig)
    close = np.vstack([smc_runs[0], smc_runs[0] + 0.01])  # runs agreeing everywhere: a usable reference
    fig = selection_and_bsl.fig02_variable_selection(p_lsvi, close)
    assert "no reference" not in fig.axes[0].get_title()
    plt.close(fig)


def test_fig08_shows_every_distribution_and_the_evidence_lines():
    rng = np.random.default_rng(1)
    scores = {"i)": (rng.normal(-200, 30, 500), None), "ii)": (rng.normal(-120, 10, 500), None),
              "SMC": (np.array([-110.0, -105.0]), np.array([0.3, 0.7]))}
    fig = selection_and_bsl.fig08_vs_scores(scores, [-95.0, -97.0])
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert len(labels) == 4 and labels[2].startswith("SMC: ELBO -106.5")
    lo, hi = ax.get_xlim()
    assert lo < -130 and hi > -95  # the evidence lines and the informative distributions are in range
    assert len(ax.lines) == 2  # one vertical line per SMC run
    plt.close(fig)


def test_fig03_normalises_by_the_mcmc_posterior():
    T = 5
    post_mean, post_sd = np.array([1.7, 35.0, 0.6]), np.array([0.04, 0.8, 0.013])
    m = np.tile(post_mean + 2 * post_sd, (T + 1, 1))  # two posterior sd above, throughout
    traces = {"MF": (m, np.tile(post_sd, (T + 1, 1)), "-", "C2")}
    rng = np.random.default_rng(2)
    fig = selection_and_bsl.fig03_bsl_toads(traces, post_mean, post_sd, rng.normal(post_mean, post_sd, (300, 3)),
                             rng.normal(post_mean, post_sd, (300, 3)), ("a", "b", "c"))
    left = fig.axes[0]
    np.testing.assert_allclose(left.lines[0].get_ydata(), 2.0)
    assert len(fig.axes) == 3 + 6  # three trajectories, three marginals and three pairs
    plt.close(fig)
