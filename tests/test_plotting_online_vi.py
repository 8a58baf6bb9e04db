"""`lsvi.papers.alquier.plotting.online_vi`: the figures draw what they are given."""
import numpy as np
import pandas as pd

from lsvi.papers.alquier.plotting import online_vi as plotting


def test_thm_ewa_regret_panels():
    T = np.array([10, 100, 1000])
    iid = pd.DataFrame({"T": T, "cumulative_loss": [1.0, 2, 3], "bound": [2.0, 4, 6], "regret": [1.0, 3, 10],
                        "excess_kl": [1e-1, 3e-2, 1e-2]})
    adv = iid.drop(columns="excess_kl")
    fig = plotting.thm_ewa_regret({"iid": iid, "adversarial": adv})
    left, middle, right = fig.axes
    np.testing.assert_allclose(left.lines[0].get_ydata(), 0.5)
    np.testing.assert_allclose(middle.lines[1].get_ydata(), [1 / np.sqrt(10), 3 / 10, 10 / np.sqrt(1000)])
    assert len(right.lines) == 2  # the i.i.d. curve and the slope guide; none for the adversarial sequence


def test_online_losses_one_panel_per_data_set():
    df = pd.DataFrame({"t": np.arange(1, 21), "oga": np.ones(20), "ngvi": np.linspace(1, 0, 20)})
    fig = plotting.alquier_fig01_online_losses({"a": df, "b": df}, skip=5)
    assert len(fig.axes) == 2
    assert [l.get_label() for l in fig.axes[0].lines] == ["OGA", "NGVI"]
    assert len(fig.axes[1].lines[0].get_xdata()) == 15
