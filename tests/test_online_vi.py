"""`lsvi.papers.alquier.online_vi` and the two data sets it adds (Breast, Boston)."""
import jax.numpy as jnp
import numpy as np
import pytest

from lsvi.core import online
from lsvi.data import datasets, simulated
from lsvi.papers.alquier import online_vi


def test_breast_and_boston_builders():
    b = datasets.build("breast")
    assert b.X.shape == (569, 31) and b.meta["n_positive"] == 212
    np.testing.assert_allclose(b.X_unflipped[:, 1:].std(0), 0.5, rtol=1e-12)
    h = datasets.build("boston")
    assert h.X.shape == (506, 14) and h.X_unflipped is None
    np.testing.assert_allclose([h.y.mean(), h.y.std()], [0.0, 1.0], atol=1e-12)


def test_compare_picks_each_methods_best_rate():
    X, y, _ = simulated.logistic(0, 60, 3)
    X, y = online_vi.shuffled(X, y, 0)
    curves, table = online_vi.compare("logistic", X, y, (0.05, 0.5), methods=("oga", "svb"))
    for method in ("oga", "svb"):
        row = table.set_index("method").loc[method]
        rate = row["lr"] if method == "oga" else row["alpha"]
        others = [r for r in (0.05, 0.5) if r != rate]
        loss = online.run(online_vi.algorithm(method, "logistic", alpha=rate, lr=rate), X, y)[0]
        np.testing.assert_allclose(curves[method].iloc[-1], float(loss.mean()), rtol=1e-10)
        for r in others:
            other = online.run(online_vi.algorithm(method, "logistic", alpha=r, lr=r), X, y)[0]
            assert float(other.mean()) >= row["final_average_loss"]


def test_hyper_grids_give_every_method_the_same_budget():
    rates = (0.01, 0.1, 1.0)
    sizes = {m: len(online_vi.hyper_grid(m, rates, 100)) for m in online_vi.METHODS}
    assert set(sizes.values()) == {9}, sizes
    lr = [h[2] for h in online_vi.hyper_grid("oga", rates, 100)]
    np.testing.assert_allclose([lr[0], lr[-1]], [0.01, 1.0])  # same range as NGVI's β
    assert np.all(np.diff(np.log(lr)) > 0)
    assert len(online_vi.hyper_grid("sva", (0.1,), 100)) == len(online_vi.hyper_grid("ngvi", (0.1,), 100)) == 3


def test_held_out_finals_rerun_the_selected_configuration_on_other_orders():
    X, y, _ = simulated.logistic(0, 60, 3)
    curves, table = online_vi.compare("logistic", *online_vi.shuffled(X, y, 0), (0.05, 0.5), methods=("oga", "ngvi"))
    ho = online_vi.held_out_finals("logistic", X, y, table, [0, 1, 2])
    assert list(ho.columns) == ["seed", "method", "final_average_loss"] and len(ho) == 6
    sel = ho[ho.seed == 0].set_index("method")["final_average_loss"]  # order 0 is the selection order: same numbers
    for m in ("oga", "ngvi"):
        np.testing.assert_allclose(sel[m], table.set_index("method").loc[m, "final_average_loss"], rtol=1e-10)
        r = table.set_index("method").loc[m]
        Xs, ys = online_vi.shuffled(X, y, 2)
        algorithm = online_vi.algorithm(m, "logistic", alpha=r["alpha"], beta=r["beta"], lr=r["lr"])
        want = float(online.run(algorithm, Xs, ys)[0].mean())
        np.testing.assert_allclose(ho[(ho.seed == 2) & (ho.method == m)]["final_average_loss"], want, rtol=1e-10)
    other = ho[ho.seed == 1].set_index("method")["final_average_loss"]
    assert not np.allclose(other[["oga", "ngvi"]], sel[["oga", "ngvi"]])  # another order, another sequence of losses


def test_algorithm_maps_names_to_the_library_builders():
    """The paper's string → algorithm map: each method gets only its own hyperparameters, and a missing one is an
    error rather than a silent default."""
    X, y, _ = simulated.logistic(1, 30, 3)
    X, y = jnp.asarray(X), jnp.asarray(y)
    got = online.run(online_vi.algorithm("ngvi", "logistic", alpha=0.5, beta=2.0, lr=9.0, prior_sd=1.5), X, y)
    want = online.run(online.build_ngvi(online.logistic_loss, alpha=0.5, beta=2.0, prior_sd=1.5), X, y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    oga = online.run(online_vi.algorithm("oga", "squared", alpha=7.0, lr=0.1), X, y)[0]
    np.testing.assert_array_equal(oga, online.run(online.build_oga(online.squared_loss, lr=0.1), X, y)[0])
    assert set(online_vi.BUILDERS) == set(online_vi.METHODS) == set(online_vi.HYPERPARAMETERS)
    with pytest.raises(ValueError, match="beta"):
        online_vi.algorithm("ngvi", "logistic", alpha=0.5)
