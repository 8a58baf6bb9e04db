"""Saving figures the way the pipeline names them: ``figures/<scale>/<name>.{pdf,png}``.

Names follow the LSVI paper's numbering (``fig01_pima``, ``table02_datasets``); other
papers prefix theirs (``rabvi_fig07_...``), theorem checks use ``thm_<slug>``. Every
figure is stamped with the scale that produced it, so a committed figure says whether it
is a smoke, cpu or paper-scale result.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

_NAME = re.compile(r"^(fig\d\d|table\d\d|thm|[a-z]+_fig\d\d|[a-z]+_table\d\d)_[a-z0-9_]+$")


def save_figure(fig, name: str, scale: str, figures_dir: str | os.PathLike = "figures") -> list[Path]:
    """Save ``fig`` as PDF and PNG under ``figures_dir/scale/name`` with a scale stamp.

    Files are written to a temporary name and renamed, so an interrupted run never
    leaves a half-written figure that looks finished.
    """
    if not _NAME.match(name):
        raise ValueError(f"figure name {name!r} does not follow figNN_/tableNN_/thm_<slug>")
    outdir = Path(figures_dir) / scale
    outdir.mkdir(parents=True, exist_ok=True)
    fig.text(0.995, 0.005, f"scale: {scale}", ha="right", va="bottom", fontsize=6, color="0.5")
    paths = []
    for ext in ("pdf", "png"):
        path = outdir / f"{name}.{ext}"
        tmp = outdir / f".{name}.tmp.{ext}"
        fig.savefig(tmp, dpi=150, bbox_inches="tight", format=ext)
        os.replace(tmp, path)
        paths.append(path)
    return paths
