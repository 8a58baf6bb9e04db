"""Where things live: the repository root and paths relative to it.

Notebooks run from ``notebooks/`` under nbval and from the repository root under the
pipeline; every path a notebook receives is resolved against the repository root so both
work without ``sys.path`` or ``chdir`` tricks.

Outputs (results, figures) go through `resolve_output`: when ``$LSVI_OUTPUT_ROOT`` is set
(the test suite sets it to a temporary directory, see ``conftest.py``), relative output
paths are resolved against it instead, so that running the notebooks under nbval never
touches the committed ``figures/`` or the pipeline's ``results/``.
"""
from __future__ import annotations

import os
from pathlib import Path

OUTPUT_ROOT_ENV = "LSVI_OUTPUT_ROOT"
DATA_DIR = "data/processed"  # processed data sets (relative to the repository root)


def repo_root() -> Path:
    """The repository root: ``$LSVI_ROOT`` if set, else the nearest parent holding a Snakefile."""
    env = os.environ.get("LSVI_ROOT")
    if env:
        return Path(env).resolve()
    for start in (Path.cwd(), Path(__file__).resolve()):
        for p in (start, *start.parents):
            if (p / "Snakefile").is_file() and (p / "pyproject.toml").is_file():
                return p
    raise FileNotFoundError("cannot find the repository root (no Snakefile above); set LSVI_ROOT")


def resolve(path: str | os.PathLike) -> Path:
    """``path`` if absolute, else ``repo_root() / path``."""
    p = Path(path)
    return p if p.is_absolute() else repo_root() / p


def resolve_output(path: str | os.PathLike) -> Path:
    """Like `resolve`, but against ``$LSVI_OUTPUT_ROOT`` when that is set."""
    p = Path(path)
    env = os.environ.get(OUTPUT_ROOT_ENV)
    if p.is_absolute() or not env:
        return resolve(p)
    return Path(env).resolve() / p
