"""Test-suite set-up shared by the unit tests and the notebooks run under nbval.

Notebooks executed by nbval use their parameters-cell defaults, which name the pipeline's
output paths (``results/smoke/<stem>``, ``figures``). Setting ``$LSVI_OUTPUT_ROOT`` before
any kernel starts sends those outputs to a temporary directory (`lsvi.paths.resolve_output`),
so the test suite never modifies the committed figures or the pipeline's results.
"""
import os
import tempfile

os.environ.setdefault("MPLBACKEND", "Agg")
os.environ.setdefault("LSVI_OUTPUT_ROOT", tempfile.mkdtemp(prefix="lsvi-test-outputs-"))
