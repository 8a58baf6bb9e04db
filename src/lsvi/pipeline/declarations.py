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
