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


@pytest.mark.parametrize("block_len", [1, 7, 100])
def test_split_rhat_from_blocks_equals_split_rhat(block_len):
    rng = np.random.default_rng(block_len)
    x = ar1_columns(1203, 0.95, seed=3) * np.array([1e-3, 1.0, 50.0, 1.0, 1.0]) + rng.normal(5.0, 1.0, 5)
    x[:100] += 40.0  # a transient at the start: a block far from the rest
    blocks = cd.block_moments(x, block_len)
    for start, stop in [(0, 1203), (1, 1200), (3, 11), (0, 8), (97, 1100), (600, 1203), (1190, 1203), (250, 251)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # the constant column: 0/0, NaN in both
            expected = cd.split_rhat(x[start:stop])
        got = cd.split_rhat_from_blocks(x, blocks, block_len, start, stop)
        np.testing.assert_allclose(got, expected, rtol=1e-10, equal_nan=True)
        if start >= 100 and stop - start >= 8:
            assert np.isnan(got[4])  # column 4 is constant after the transient: undefined, in both
    assert np.isnan(cd.split_rhat_from_blocks(x, blocks, block_len, 0, 7)).all()  # n < 4, as split_rhat


def test_block_moments_combine_to_the_whole():
    x = ar1_columns(1000, 0.5, seed=4)[:, :4]
    n, mean, m2 = cd.combine(cd.block_moments(x, 64))
    assert n == 960  # the last partial block is left out
    np.testing.assert_allclose(mean, x[:960].mean(0), rtol=1e-12)
    np.testing.assert_allclose(m2 / (n - 1), x[:960].var(0, ddof=1), rtol=1e-10)


def test_faso_rhat_windows_from_blocks_equal_the_direct_ones():
    from lsvi.core.bbvi import faso

    x = ar1_columns(2000, 0.99, seed=5)[:, :4] + np.linspace(1.0, 0.0, 2000)[:, None] ** 8
    direct = faso.rhat_max_windows(x, 200)
    blocked = faso.rhat_max_windows(x, 200, blocks=(cd.block_moments(x, 100), 100))
    np.testing.assert_array_equal(blocked[0], direct[0])
    np.testing.assert_allclose(blocked[1], direct[1], rtol=1e-10)


def test_a_constant_column_is_undefined_and_a_jump_infinite():
    x = np.full((400, 3), 0.1)  # 0.1 is not a sum of halves' means exactly: rounding noise without the rule
    x[200:, 1] = 0.2  # two constants: a jump between the halves
    x[:, 2] = np.random.default_rng(0).standard_normal(400)
    for rhat in (cd.split_rhat(x), cd.split_rhat_from_blocks(x, cd.block_moments(x, 7), 7, 0, 400)):
        assert np.isnan(rhat[0]) and np.isinf(rhat[1]) and np.isfinite(rhat[2])
