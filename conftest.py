"""Test-suite set-up shared by the unit tests and the notebooks run under nbval.

Notebooks executed by nbval use their parameters-cell defaults, which name the pipeline's
output paths (``results/smoke/<stem>``, ``figures``). Setting ``$LSVI_OUTPUT_ROOT`` before
any kernel starts sends those outputs to a temporary directory (`lsvi.pipeline.paths.resolve_output`),
so the test suite never modifies the committed figures or the pipeline's results. The
directory is removed at the end of the session (set ``LSVI_OUTPUT_ROOT`` yourself to keep
the outputs).

With ``LSVI_NBVAL_SKIP_EXECUTED=1`` (CI sets it: `.ci/run` runs ``make all`` before ``make test``), a notebook whose
smoke run by the pipeline is current (`lsvi.pipeline.current_run`: ``results/smoke/<stem>`` executed
successfully with the inputs of the working tree) is skipped under nbval with that run named as the reason: nbval
would execute the same code cells with the same parameters (smoke = the parameters-cell defaults) again. A
notebook, library file, parameter or data file changed since that run makes nbval execute it.
"""
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("MPLBACKEND", "Agg")
_CREATED = None


def pytest_configure(config):
    global _CREATED
    if "LSVI_OUTPUT_ROOT" not in os.environ:
        _CREATED = tempfile.mkdtemp(prefix="lsvi-test-outputs-")
        os.environ["LSVI_OUTPUT_ROOT"] = _CREATED


def pytest_unconfigure(config):
    if _CREATED:
        shutil.rmtree(_CREATED, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("LSVI_NBVAL_SKIP_EXECUTED", "") in ("", "0"):
        return
    from lsvi.pipeline.config import load_config
    from lsvi.pipeline.current_run import current_run
    from lsvi.pipeline.paths import repo_root

    results = repo_root() / "results" / "smoke"
    # checks the notebooks too: the smoke parameters the pipeline passed are the defaults nbval would run
    cfg = load_config(repo_root() / "config" / "scales.yaml", {"scale": "smoke"})
    runs = {}
    for item in items:
        path = Path(str(item.fspath))
        if path.suffix != ".ipynb":
            continue
        if path.stem not in runs:
            runs[path.stem] = current_run(results, path.stem, cfg) if path.stem in cfg.notebooks else None
        if runs[path.stem] is not None:
            rel = os.path.relpath(runs[path.stem], repo_root())
            item.add_marker(pytest.mark.skip(reason=f"executed by the pipeline with identical inputs: {rel}"))
