"""lsvi.core.bbvi.chain_diagnostics equals ArviZ (split-R̂ of the two halves, ESS and MCSE of the mean) column by
column, on chains of every length and correlation FASO meets: short and odd windows, negative and near-unit
autocorrelation, a trend, a constant column."""
import warnings

import arviz as az
import numpy as np
import pytest

from lsvi.core.bbvi import chain_diagnostics as cd


def arviz_statistics(window):
    """(split-R̂, ESS, MCSE) of each column of one chain `window` (W, P), by ArviZ (one column at a time)."""
    n = window.shape[0] // 2
    halves = np.stack([window[-2 * n:-n], window[-n:]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rhat = az.rhat(az.convert_to_dataset({"x": halves}), method="identity")["x"].values
        ds = az.convert_to_dataset({"x": window[None]})
        return rhat, az.ess(ds, method="mean")["x"].values, az.mcse(ds, method="mean")["x"].values


def ar1_columns(num_draws, phi, seed):
    """(num_draws, 5): AR(1) columns with coefficient phi, one with a trend added, one constant."""
    rng = np.random.default_rng(seed)
    x = np.zeros((num_draws, 5))
    e = rng.standard_normal((num_draws, 5))
    for t in range(1, num_draws):
        x[t] = phi * x[t - 1] + e[t]
    x[:, 3] += np.linspace(0.0, 3.0, num_draws)
    x[:, 4] = 1.5
    return x


@pytest.mark.parametrize("num_draws", [4, 5, 7, 8, 9, 13, 101, 400, 2001])
@pytest.mark.parametrize("phi", [-0.9, 0.0, 0.5, 0.99, 0.999])
def test_equal_to_arviz(num_draws, phi):
    x = ar1_columns(num_draws, phi, seed=num_draws)
    rhat, ess, mcse = arviz_statistics(x)
    ess_fast, mcse_fast = cd.ess_mcse(x)
    np.testing.assert_allclose(cd.split_rhat(x), rhat, rtol=1e-10, equal_nan=True)
    np.testing.assert_allclose(ess_fast, ess, rtol=1e-10, equal_nan=True)
    np.testing.assert_allclose(mcse_fast, mcse, rtol=1e-10, equal_nan=True)


def test_column_blocks_do_not_change_the_result():
    x = ar1_columns(500, 0.9, seed=1)
    wide = np.concatenate([x[:, :4]] * 40, axis=1)  # 160 columns: three FFT blocks
    np.testing.assert_allclose(cd.ess_mean(wide), np.tile(cd.ess_mean(x[:, :4]), 40), rtol=1e-12)


def test_ess_separates_independent_from_correlated_draws():
    rng = np.random.default_rng(0)
    iid = rng.standard_normal((4000, 3))
    ess_iid = cd.ess_mean(iid)
    assert np.all((ess_iid > 3000) & (ess_iid < 5000))
    assert np.all(cd.ess_mean(ar1_columns(4000, 0.99, seed=2)[:, :3]) < 200)
