"""Provenance of a committed artefact (the references under ``data/references/<notebook>/``): the commit its code ran
from. Its own module, so that a module recording its provenance depends on this file alone."""
from __future__ import annotations

import subprocess
from pathlib import Path


def source_commit(where: str | Path | None = None) -> str:
    """``git rev-parse HEAD`` of the checkout holding ``where`` (default: this package's source), or "unknown" when
    that is not a git checkout (an installed package) or git is missing."""
    folder = Path(where).resolve() if where is not None else Path(__file__).resolve().parent
    if folder.is_file():
        folder = folder.parent
    try:
        proc = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=folder)
    except OSError:
        return "unknown"
    return proc.stdout.strip() if proc.returncode == 0 and proc.stdout.strip() else "unknown"
