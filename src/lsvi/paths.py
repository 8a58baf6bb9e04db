"""Where things live: the repository root and paths relative to it.

Notebooks run from ``notebooks/`` under nbval and from the repository root under the
pipeline; every path a notebook receives is resolved against the repository root so both
work without ``sys.path`` or ``chdir`` tricks.
"""
from __future__ import annotations

import os
from pathlib import Path


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
