"""`lsvi.experiments.online_vi` and the two data sets it adds (Breast, Boston)."""
import jax.numpy as jnp
import numpy as np

from lsvi.core import online
from lsvi.experiments import datasets, online_vi


def test_breast_and_boston_builders():
    b = datasets.build("breast")
    assert b.X.shape == (569, 31) and b.meta["n_positive"] == 212
    np.testing.assert_allclose(b.X_unflipped[:, 1:].std(0), 0.5, rtol=1e-12)
    h = datasets.build("boston")
    assert h.X.shape == (506, 14) and h.X_unflipped is None
    np.testing.assert_allclose([h.y.mean(), h.y.std()], [0.0, 1.0], atol=1e-12)


def test_compare_picks_each_methods_best_rate():
    X, y, _ = online_vi.simulated_logistic(0, 60, 3)
    X, y = online_vi.shuffled(X, y, 0)
    curves, table = online_vi.compare("logistic", X, y, (0.05, 0.5), methods=("oga", "svb"))
    for method in ("oga", "svb"):
        row = table.set_index("method").loc[method]
        rate = row["lr"] if method == "oga" else row["alpha"]
        others = [r for r in (0.05, 0.5) if r != rate]
        loss = online.run_online(method, "logistic", X, y, alpha=rate, lr=rate)[0]
        np.testing.assert_allclose(curves[method].iloc[-1], float(loss.mean()), rtol=1e-10)
        for r in others:
            assert float(online.run_online(method, "logistic", X, y, alpha=r, lr=r)[0].mean()) >= row["final_average_loss"]


def test_hyper_grid_sizes():
    assert len(online_vi.hyper_grid("ngvi", (0.1, 1.0), 100)) == 6
    assert online_vi.hyper_grid("oga", (0.1,), 100) == [(0.0, 0.0, 0.1)]
