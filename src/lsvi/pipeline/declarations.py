"""Where data-set declarations live, and which one a notebook parameter names.

A logistic-regression data set beyond the paper's four is declared in one YAML file
(`lsvi.data.declared_datasets`), a posterior beyond RABVI's Table C.1 in another
(`lsvi.papers.rabvi.declared_posteriors`). A notebook names it through a parameter (``dataset=breast_cancer``,
``fig8_models=["my_posterior"]``); `lsvi.pipeline.fingerprint` counts the file it names among the run's inputs, so
editing a declaration makes the runs that read it STALE.
"""
from __future__ import annotations

import os
from pathlib import Path

import yaml

from lsvi.pipeline.paths import repo_root

DECLARATIONS_DIR = "config/datasets"  # logistic-regression data sets (relative to the repository root)
POSTERIORS_DIR = "config/posteriors"  # posteriors for RABVI's notebooks (lsvi.papers.rabvi.declared_posteriors)
DIRECTORIES = (DECLARATIONS_DIR, POSTERIORS_DIR)


def declaration_file(value, root: str | os.PathLike | None = None, directory: str = DECLARATIONS_DIR) -> Path | None:
    """The declaration that a parameter value names, if any: a string ending in ``.yaml``/``.yml`` that is a file
    (absolute, or relative to the repository root), or a plain name with ``<root>/<directory>/<name>.yaml`` present
    (``directory``: `DECLARATIONS_DIR` for data sets, `POSTERIORS_DIR` for posteriors); None otherwise."""
    if not isinstance(value, str) or not value:
        return None
    root = Path(root) if root is not None else repo_root()
    if value.endswith((".yaml", ".yml")):
        p = Path(value) if Path(value).is_absolute() else root / value
        return p if p.is_file() else None
    if "/" in value or "\\" in value or value.startswith("."):
        return None
    p = root / directory / f"{value}.yaml"
    return p if p.is_file() else None


def read_mapping(path: Path, required, optional: dict, what: str, error: type[Exception]) -> tuple[dict, bytes]:
    """A declaration file's YAML mapping with ``optional``'s defaults filled in, and the file's bytes. Raises
    ``error`` naming ``what`` and the file when it is not YAML, not a mapping, lacks a ``required`` key or has a key
    outside ``required`` and ``optional``."""
    text = Path(path).read_bytes()
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise error(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise error(f"{path}: a declaration is a YAML mapping of {', '.join(required)}, ...")
    where = f"{what} {path}"
    missing = [k for k in required if k not in raw]
    unknown = sorted(set(raw) - set(required) - set(optional))
    if missing:
        raise error(f"{where}: missing key(s) {missing}")
    if unknown:
        raise error(f"{where}: unknown key(s) {unknown}; expected {list(required) + list(optional)}")
    return {**optional, **raw}, text
