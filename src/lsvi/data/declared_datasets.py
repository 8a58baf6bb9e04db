"""Logistic-regression data sets declared in a YAML file: a new data set without new code or a notebook copy.

The paper's four data sets (Pima, Sonar, Census, MNIST) are built by `lsvi.data.datasets` and set up by
`lsvi.papers.lsvi.logistic.PROBLEMS` (Appendix C.2). Any other numeric table is *declared*: one YAML file,
``config/datasets/<name>.yaml`` (or any path), says where the table is, how to check it, how to turn it into the
design of Appendix C.2, and what Appendix C.2 fixes for each data set (family, prior, initial q, subsampling):

.. code-block:: yaml

    name: breast_cancer                    # how the notebooks' `dataset` parameter names it
    description: Wisconsin diagnostic breast cancer (569 tumours, 30 features)
    licence: CC BY 4.0 (UCI)
    source:                                # a file inside an installed registry package ...
      package: scikit-learn
      version: 1.9.1
      path: sklearn/datasets/data/breast_cancer.csv
      sha256: fed3eb72...                  # checked on every read
    # ... or a file committed to the repository:  source: {file: data/my_table.csv, sha256: ...}
    table: {delimiter: ",", skiprows: 1}   # numpy.loadtxt options of a numeric table
    response: {column: -1, positive: 0}    # y = +1 where that column equals `positive`, -1 elsewhere
    predictors: all                        # every other column, or a list of column indices
    preprocessing: appendix_c2             # intercept + App. C.2 rescaling (binary: centred, range 1; else sd 0.5) | none
    family: fullcov                        # fullcov (Algorithms 1 and 3) | meanfield (Algorithm 2)
    intercept: true                        # prior variance 400 on the first coefficient, 25 on the others
    init_var: 1.0                          # the initial q is N(0, init_var I)
    batch_size: null                       # P of eq. (21) for a subsampled target (as Census), null for the full data

``lsvi.papers.lsvi.logistic.problem(name)`` accepts a declared name or path wherever it accepts a paper data set, so a
figure notebook runs on it with ``make whatif NB=20_pima PARAMS='dataset=breast_cancer'``. Nothing is downloaded: the
source must be installed (a registry package of the lock file) or committed, with its sha256.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple, Optional

import numpy as np

from lsvi.data import datasets
from lsvi.pipeline.declarations import DECLARATIONS_DIR, declaration_file, read_mapping
from lsvi.pipeline.paths import repo_root

FAMILIES = ("fullcov", "meanfield")
PREPROCESSING = ("appendix_c2", "none")
REQUIRED = ("name", "licence", "source", "response", "family")
OPTIONAL = {"description": "", "table": {}, "predictors": "all", "preprocessing": "appendix_c2", "intercept": True,
            "init_var": 1.0, "batch_size": None}
TABLE_OPTIONS = ("delimiter", "skiprows", "usecols", "comments", "encoding")


class DeclarationError(ValueError):
    """A data-set declaration is missing, malformed, or its source file cannot be found or verified."""


class Declaration(NamedTuple):
    """A parsed declaration (the YAML file's keys; see the module docstring). ``path``: the file it was read from,
    ``sha256``: the file's digest (recorded with the results)."""

    name: str
    description: str
    licence: str
    source: dict
    table: dict
    response: dict
    predictors: object  # "all" or a list of column indices
    preprocessing: str
    family: str
    intercept: bool
    init_var: float
    batch_size: Optional[int]
    path: str
    sha256: str


def locate(name_or_path: str, root: str | Path | None = None) -> Optional[Path]:
    """The declaration file that ``name_or_path`` names: a path to a ``.yaml``/``.yml`` file (absolute, or relative
    to the repository root), or ``<root>/config/datasets/<name>.yaml``; None when there is none
    (`lsvi.pipeline.declarations.declaration_file`)."""
    return declaration_file(name_or_path, root)


def available(root: str | Path | None = None) -> tuple[str, ...]:
    """Names of the declarations in ``config/datasets/``."""
    root = Path(root) if root is not None else repo_root()
    return tuple(sorted(p.stem for p in (root / DECLARATIONS_DIR).glob("*.yaml")))


def read(name_or_path: str, root: str | Path | None = None) -> Declaration:
    """Parse and validate a declaration (`locate`); `DeclarationError` says what is missing or wrong."""
    path = locate(name_or_path, root)
    if path is None:
        raise DeclarationError(
            f"no data-set declaration {name_or_path!r}: expected a YAML file path or a name among "
            f"{DECLARATIONS_DIR}/*.yaml ({', '.join(available(root)) or 'none'})")
    d, text = read_mapping(path, REQUIRED, OPTIONAL, "data-set declaration", DeclarationError)
    where = f"data-set declaration {path}"
    src = d["source"]
    if not isinstance(src, dict) or "sha256" not in src or not (("package" in src and "version" in src and "path" in src)
                                                                 or "file" in src):
        raise DeclarationError(f"{where}: source must be {{package, version, path, sha256}} (a file of an installed "
                               "registry package) or {file, sha256} (a committed file)")
    if not (isinstance(src["sha256"], str) and len(src["sha256"]) == 64):
        raise DeclarationError(f"{where}: source.sha256 must be the 64 hex digits of the file's sha256")
    resp = d["response"]
    if not isinstance(resp, dict) or set(resp) != {"column", "positive"}:
        raise DeclarationError(f"{where}: response must be {{column: <index>, positive: <value of the +1 class>}}")
    table = d["table"] or {}
    bad = sorted(set(table) - set(TABLE_OPTIONS))
    if bad:
        raise DeclarationError(f"{where}: table option(s) {bad} not among {list(TABLE_OPTIONS)}")
    if d["family"] not in FAMILIES:
        raise DeclarationError(f"{where}: family {d['family']!r} not among {FAMILIES}")
    if d["preprocessing"] not in PREPROCESSING:
        raise DeclarationError(f"{where}: preprocessing {d['preprocessing']!r} not among {PREPROCESSING}")
    preds = d["predictors"]
    if preds != "all" and not (isinstance(preds, list) and preds and all(isinstance(j, int) for j in preds)):
        raise DeclarationError(f"{where}: predictors must be 'all' or a non-empty list of column indices")
    if not (isinstance(d["init_var"], (int, float)) and d["init_var"] > 0):
        raise DeclarationError(f"{where}: init_var must be a positive number")
    if d["batch_size"] is not None and not (isinstance(d["batch_size"], int) and d["batch_size"] > 0):
        raise DeclarationError(f"{where}: batch_size must be null or a positive integer")
    return Declaration(str(d["name"]), str(d["description"]), str(d["licence"]), dict(src), dict(table), dict(resp),
                       preds, d["preprocessing"], d["family"], bool(d["intercept"]), float(d["init_var"]),
                       d["batch_size"], str(path), hashlib.sha256(text).hexdigest())


def verified_source(src: dict, label: str, root: str | Path | None = None) -> Path:
    """The path of a declared source after its sha256 check: ``{package, version, path, sha256}`` (a file of an
    installed registry package, `datasets.verified_path`) or ``{file, sha256}`` (relative to the repository root, or
    absolute). `DeclarationError` names ``label`` (what declares it) on a missing file or a mismatch."""
    if "package" in src:
        raw = datasets.RawFile(src["package"], str(src["version"]), src["path"], src["sha256"])
        try:
            return datasets.verified_path(raw)
        except datasets.DatasetSourceError as e:
            raise DeclarationError(f"{label}: {e}") from None
    root = Path(root) if root is not None else repo_root()
    p = Path(src["file"]) if Path(src["file"]).is_absolute() else root / src["file"]
    if not p.is_file():
        raise DeclarationError(f"{label}: source file {p} not found")
    digest = datasets.sha256_file(p)
    if digest != src["sha256"]:
        raise DeclarationError(f"{label}: checksum mismatch for {p}: sha256 {digest}, declared {src['sha256']}")
    return p


def source_path(decl: Declaration, root: str | Path | None = None) -> Path:
    """The declared table's path after its sha256 check (`verified_source`)."""
    return verified_source(decl.source, f"data set {decl.name!r} ({decl.path})", root)


def build(decl: Declaration, root: str | Path | None = None) -> datasets.Dataset:
    """The declared table as a logistic-regression `lsvi.data.datasets.Dataset`: raw (n, c) -> X (n, d) flipped
    design, y (n,) in {-1, +1}; d = p + 1 with the App. C.2 preprocessing (intercept first), p without."""
    path = source_path(decl, root)
    try:
        raw = np.loadtxt(path, ndmin=2, **decl.table)
    except ValueError as e:
        raise DeclarationError(f"data set {decl.name!r}: {path} is not a numeric table with the declared options "
                               f"{decl.table} ({e})") from None
    n, c = raw.shape
    col = decl.response["column"]
    if not isinstance(col, int) or not -c <= col < c:
        raise DeclarationError(f"data set {decl.name!r}: response column {col!r} outside the table's {c} columns")
    col %= c
    positive = raw[:, col] == decl.response["positive"]
    if positive.all() or not positive.any():
        raise DeclarationError(f"data set {decl.name!r}: response column {col} equals {decl.response['positive']!r} "
                               f"in {int(positive.sum())} of {n} rows: both classes are needed")
    if decl.predictors == "all":
        cols = [j for j in range(c) if j != col]
    else:
        # Range first: a negative index counts from the end (as the response's), but an index outside -c..c-1 is a
        # mistake, never a column taken modulo c.
        outside = [j for j in decl.predictors if not -c <= j < c]
        cols = [j % c for j in decl.predictors]
        if outside or col in cols or len(set(cols)) < len(cols):
            raise DeclarationError(f"data set {decl.name!r}: predictors {decl.predictors} must be distinct columns of "
                                   f"the table ({-c}..{c - 1}) other than the response (column {col})")
    names = [f"column{j:02d}" for j in cols]
    if decl.preprocessing == "appendix_c2":
        X, columns = datasets.logistic_design(raw[:, cols], names)
    else:
        X, columns = raw[:, cols].astype(np.float64), tuple(names)
    meta = {"declaration": decl.path, "declaration_sha256": decl.sha256, "licence": decl.licence,
            "description": decl.description, "source": decl.source, "raw_shape": [n, c],
            "positive_class": f"column {col} == {decl.response['positive']!r}", "preprocessing": decl.preprocessing}
    return datasets.logistic_dataset(decl.name, X, datasets.to_pm1(positive), columns, meta)
