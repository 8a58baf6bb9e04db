"""The run context of a notebook: its paths, its claims, its figures and tables.

Every notebook opens with::

    run = Run(scale, results_dir, figures_dir, data_dir)

from its parameters cell, records each checkable statement with `Run.claim`, saves
figures with `Run.save_figure` and tables with `Run.save_table`, and ends with
`Run.finish`, which writes ``results_dir/claims.csv`` and shows the claims table. The
notebook's stem (its identity in the report) is the last component of ``results_dir``,
which the pipeline sets to ``results/<scale>/<stem>``.

A failing claim is a FAIL row, never an exception: `finish` does not raise on FAIL.
"""
from __future__ import annotations

import os
import time
from pathlib import Path

from lsvi.pipeline.claims import FAIL, NOT_ASSESSABLE, PASS, Claim, claim, counts, write_claims
from lsvi.pipeline.figure_style import use_theme
from lsvi.pipeline.figures import save_figure
from lsvi.pipeline.paths import DATA_DIR, resolve, resolve_output


class Run:
    """Paths and claims of one notebook run.

    Attributes: ``scale``, ``stem``, ``results`` (directory of this notebook's outputs),
    ``figures`` (the figures root; files go to ``figures/<scale>/``), ``data`` (processed
    data), ``claims`` (the `Claim` rows recorded so far). Creating a run sets the project's seaborn theme
    (`lsvi.pipeline.figure_style.use_theme`) for every figure the notebook draws.
    """

    def __init__(self, scale: str, results_dir: str | os.PathLike, figures_dir: str | os.PathLike = "figures",
                 data_dir: str | os.PathLike = DATA_DIR):
        self.scale = scale
        self.stem = Path(results_dir).name
        self.results = resolve_output(results_dir)
        self.results.mkdir(parents=True, exist_ok=True)
        self.figures = resolve_output(figures_dir)
        self.data = resolve(data_dir)
        self.claims: list[Claim] = []
        self._t0 = time.perf_counter()
        use_theme()

    def claim(self, id, source, paper, measured, criterion, passed, note="", assessable=True, kind="paper") -> Claim:
        """Record one claim (see `lsvi.pipeline.claims.claim`) and return it."""
        c = claim(id, source, paper, measured, criterion, passed, note=note, assessable=assessable,
                  scale=self.scale, notebook=self.stem, kind=kind)
        self.claims.append(c)
        return c

    def add(self, claims) -> list[Claim]:
        """Record claims built by a tested claim builder (`Claim` rows), with this run's notebook and scale."""
        from dataclasses import replace

        new = [replace(c, scale=c.scale or self.scale, notebook=c.notebook or self.stem) for c in claims]
        self.claims.extend(new)
        return new

    def save_figure(self, fig, name: str) -> list[Path]:
        """``figures/<scale>/<name>.{pdf,png}``, stamped with the scale."""
        return save_figure(fig, name, self.scale, self.figures)

    def save_table(self, df, name: str, **to_csv) -> Path:
        """``results/<scale>/<stem>/<name>.csv`` (a pandas DataFrame)."""
        path = self.results / f"{name}.csv"
        df.to_csv(path, **to_csv)
        return path

    def claims_table(self):
        """The claims recorded so far as a DataFrame (id, measured, criterion, status)."""
        import pandas as pd

        return pd.DataFrame([{"id": c.id, "source": c.source, "measured": c.measured,
                              "criterion": c.criterion, "status": c.status} for c in self.claims])

    def finish(self):
        """Write ``claims.csv``, print the counts and the wall time, return the claims table."""
        write_claims(self.results / "claims.csv", self.claims, scale=self.scale, notebook=self.stem)
        k = counts(self.claims)
        print(f"{self.stem}: {len(self.claims)} claims: {k[PASS]} PASS, {k[FAIL]} FAIL, "
              f"{k[NOT_ASSESSABLE]} NOT ASSESSABLE; wall time {time.perf_counter() - self._t0:.0f} s")
        return self.claims_table()
