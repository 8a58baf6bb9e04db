"""Test-suite set-up shared by the unit tests and the notebooks run under nbval.

Notebooks executed by nbval use their parameters-cell defaults, which name the pipeline's
output paths (``results/smoke/<stem>``, ``figures``). Setting ``$LSVI_OUTPUT_ROOT`` before
any kernel starts sends those outputs to a temporary directory (`lsvi.pipeline.paths.resolve_output`),
so the test suite never modifies the committed figures or the pipeline's results. The
directory is removed at the end of the session (set ``LSVI_OUTPUT_ROOT`` yourself to keep
the outputs).
"""
import os
import shutil
import tempfile

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
