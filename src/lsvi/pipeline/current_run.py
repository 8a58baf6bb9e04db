"""Is a notebook's last pipeline run the result of the working tree? Then executing it again repeats that run.

CI runs ``make all`` (the smoke pipeline) and then ``make test``, whose nbval would execute every notebook a second
time with the same parameters (smoke = the parameters-cell defaults). `current_run` names the executed notebook of
a run whose recorded inputs (`lsvi.pipeline.fingerprint`: the notebook's code cells, the library files it imports,
its parameters, the data and the lock file) equal the working tree's; ``conftest.py`` skips such a notebook under
nbval when ``LSVI_NBVAL_SKIP_EXECUTED=1``.
"""
from __future__ import annotations

import os
from pathlib import Path

from lsvi.pipeline.config import DEFAULT_CONFIG, Config, load_config
from lsvi.pipeline.fingerprint import FINGERPRINT, changed, inputs, read


def current_run(results_dir: str | os.PathLike, stem: str,
                config: str | os.PathLike | Config = DEFAULT_CONFIG) -> Path | None:
    """The executed notebook of ``stem``'s last successful pipeline run in ``results_dir`` (``results/<scale>``)
    if the inputs recorded for that run equal the working tree's, else None: no run, a failed last attempt
    (``failed.ipynb``), or an input changed since (`lsvi.pipeline.fingerprint.changed`)."""
    d = Path(results_dir) / stem
    scale = Path(results_dir).resolve().name
    cfg = config if isinstance(config, Config) else load_config(config, {"scale": scale}, check_notebooks=False)
    executed = d / Path(cfg.outputs(stem, scale)["executed"]).name
    if not executed.is_file() or (d / "failed.ipynb").exists():
        return None
    return None if changed(read(d / FINGERPRINT), inputs(cfg, stem, scale, cfg.root)) else executed
