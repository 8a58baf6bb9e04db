"""Where data-set declarations live, and which one a notebook parameter names.

A logistic-regression data set beyond the paper's four is declared in one YAML file
(`lsvi.data.declared_datasets`). A notebook names it through a parameter (``dataset=breast_cancer``);
`lsvi.pipeline.fingerprint` counts the file it names among the run's inputs, so editing a declaration makes the
runs that read it STALE.
"""
from __future__ import annotations

import os
from pathlib import Path

from lsvi.pipeline.paths import repo_root

DECLARATIONS_DIR = "config/datasets"  # relative to the repository root


def declaration_file(value, root: str | os.PathLike | None = None) -> Path | None:
    """The data-set declaration that a parameter value names, if any: a string ending in ``.yaml``/``.yml`` that is
    a file (absolute, or relative to the repository root), or a plain name with ``<root>/config/datasets/<name>.yaml``
    present; None otherwise."""
    if not isinstance(value, str) or not value:
        return None
    root = Path(root) if root is not None else repo_root()
    if value.endswith((".yaml", ".yml")):
        p = Path(value) if Path(value).is_absolute() else root / value
        return p if p.is_file() else None
    if "/" in value or "\\" in value or value.startswith("."):
        return None
    p = root / DECLARATIONS_DIR / f"{value}.yaml"
    return p if p.is_file() else None
